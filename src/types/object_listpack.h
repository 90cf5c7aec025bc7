// A collection object's listpack blob, borrowed for reading (LpView) or editing (LpEdit; the
// possibly reallocated blob is stored back into the object when the scope ends). Never convert
// the object while an LpEdit is alive. Used by the list, hash and zset types.
#pragma once
#include "ds/listpack.h"
#include "types/object.h"

namespace keel {

class LpView : public ListpackView {
 public:
  using ListpackView::ListpackView;
  explicit LpView(const Object& o) : ListpackView(o.ptr()) {}
};

class LpEdit : public ListpackEdit {
 public:
  explicit LpEdit(Object& o) : ListpackEdit(o.ptr_ref()) {}
};

}  // namespace keel
