// List encodings and conversions (listpack <-> quicklist) and the element operations of the list
// commands. The conversion points follow Redis 7.4's rules (src/types/README.md,
// "Conversions"): growth is tested before adding with the *raw* byte
// length of the new elements, shrinking after the removal with the half-limit rule.
#include "types/list_type.h"

#include <climits>
#include <cstdlib>

#include "base/assert.h"
#include "base/memory.h"
#include "ds/quicklist.h"
#include "types/limits.h"
#include "types/object_listpack.h"

namespace keel {
namespace {

int clamp_int(int64_t v) {
  if (v > INT_MAX) return INT_MAX;
  if (v < INT_MIN) return INT_MIN;
  return static_cast<int>(v);
}
int cur_fill() { return clamp_int(encoding_limits().list_max_listpack_size); }
int cur_depth() { return clamp_int(encoding_limits().list_compress_depth); }

bool is_lp(const Object& o) { return o.encoding() == Encoding::kListpack; }
Quicklist* ql_of(const Object& o) { return static_cast<Quicklist*>(o.ptr()); }

void to_quicklist(Object& o) {
  Listpack lp = Listpack::adopt(static_cast<uint8_t*>(o.ptr()));
  auto* q = new Quicklist(Quicklist::from_listpack(std::move(lp), cur_fill(), cur_depth()));
  o.set_ptr(q);
  o.set_encoding(Encoding::kQuicklist);
}

// Redis's listTypeTryConvertListpack: before adding `add_count` elements of `add_bytes` raw
// bytes in all, a listpack that would exceed one node's limit (or 1 GB) becomes a quicklist.
void grow_check(Object& o, size_t add_bytes, size_t add_count) {
  if (!is_lp(o)) return;
  LpView lp(o);
  const size_t bytes = lp->bytes();
  if (list_listpack_needs_quicklist(cur_fill(), bytes, lp->size(), add_bytes, add_count) ||
      bytes + add_bytes >= kLpSafeBytes) {
    to_quicklist(o);
  }
}

// Redis's listTypeTryConvertQuicklist with LIST_CONV_SHRINKING: one packed node within half
// the limit goes back to a listpack. An emptied list stays as it is (Db deletes it).
void shrink_check(Object& o) {
  if (is_lp(o)) return;
  Quicklist* q = ql_of(o);
  if (q->count() == 0 || !q->can_convert_to_listpack(true)) return;
  Listpack lp = q->take_listpack();
  delete q;
  o.set_ptr(lp.release());
  o.set_encoding(Encoding::kListpack);
}

size_t sum_bytes(std::span<const std::string_view> vs) {
  size_t n = 0;
  for (std::string_view v : vs) n += v.size();
  return n;
}

Quicklist::End ql_end(ListType::End e) {
  return e == ListType::End::kHead ? Quicklist::End::kHead : Quicklist::End::kTail;
}

// --- CollectionOps -----------------------------------------------------------------------------

void free_list(Encoding e, void* p) {
  if (e == Encoding::kListpack) {
    std::free(p);
  } else {
    delete static_cast<Quicklist*>(p);
  }
}

void* copy_list(Encoding e, const void* p) {
  if (e == Encoding::kListpack) {
    Listpack src = Listpack::adopt(static_cast<uint8_t*>(const_cast<void*>(p)));
    Listpack copy = src.clone();
    (void)src.release();
    return copy.release();
  }
  auto* src = static_cast<Quicklist*>(const_cast<void*>(p));
  auto* dst = new Quicklist(src->fill(), src->compress_depth());
  char buf[kLpIntBufSize];
  for (Quicklist::Iterator it = src->begin(Quicklist::End::kHead); it.valid(); it.next()) {
    dst->push_tail(it.entry().str(buf));
  }
  return dst;
}

int64_t list_length(Encoding e, const void* p) {
  if (e == Encoding::kListpack) {
    Listpack lp = Listpack::adopt(static_cast<uint8_t*>(const_cast<void*>(p)));
    const size_t n = lp.size();
    (void)lp.release();
    return static_cast<int64_t>(n);
  }
  return static_cast<int64_t>(static_cast<const Quicklist*>(p)->count());
}

size_t list_memory_usage(Encoding e, const void* p, size_t samples) {
  if (e == Encoding::kListpack) return allocation_size(p);
  return static_cast<const Quicklist*>(p)->memory_usage(samples);
}

const CollectionOps kListOps = {
    .free_value = free_list,
    .copy_value = copy_list,
    .length = list_length,
    .memory_usage = list_memory_usage,
};

struct RegisterListOps {
  RegisterListOps() { register_collection_ops(Type::kList, &kListOps); }
} g_register_list_ops;

}  // namespace

bool ListType::quicklist_info(const Object& o, QuicklistInfo* out) {
  if (is_lp(o)) return false;
  const Quicklist* q = ql_of(o);
  out->nodes = q->node_count();
  out->count = q->count();
  out->fill = q->fill();
  out->compressed = q->compress_depth() != 0;
  out->raw_bytes = 0;
  q->for_each_node([&](const Quicklist::NodeView& n) { out->raw_bytes += n.bytes; });
  return true;
}

Object* ListType::create(std::string_view key) {
  Listpack lp;
  return Object::create_collection(key, Type::kList, Encoding::kListpack, lp.release());
}

size_t ListType::size(const Object& o) {
  if (is_lp(o)) return LpView(o)->size();
  return ql_of(o)->count();
}

void ListType::push(Object& o, End end, std::span<const std::string_view> values) {
  grow_check(o, sum_bytes(values), values.size());
  if (is_lp(o)) {
    LpEdit lp(o);
    if (end == End::kTail) {
      lp->append_all(values);
    } else {
      for (std::string_view v : values) lp->prepend(v);
    }
    return;
  }
  Quicklist* q = ql_of(o);
  for (std::string_view v : values) q->push(ql_end(end), v);
}

size_t ListType::pop(Object& o, End end, size_t count, ListEmit emit, void* ctx) {
  size_t n = 0;
  if (is_lp(o)) {
    LpEdit lp(o);
    const size_t len = lp->size();
    n = count < len ? count : len;
    if (n == 0) return 0;
    LpPos pos = end == End::kHead ? lp->first() : lp->last();
    for (size_t i = 0; i < n; i++) {
      emit(ctx, lp->get(pos));
      pos = end == End::kHead ? lp->next(pos) : lp->prev(pos);
    }
    if (end == End::kHead) {
      lp->erase_range(0, n);
    } else {
      lp->erase_range(-static_cast<long>(n), n);
    }
    return n;
  }
  Quicklist* q = ql_of(o);
  {
    Quicklist::Iterator it = q->begin(ql_end(end));
    while (n < count && it.valid()) {
      emit(ctx, it.entry());
      it.erase();
      n++;
    }
  }
  shrink_check(o);
  return n;
}

bool ListType::pop_one(Object& o, End end, std::string* out) {
  const size_t n = pop(
      o, end, 1,
      [](void* c, const LpEntry& e) {
        auto* s = static_cast<std::string*>(c);
        if (e.is_int) {
          char buf[kLpIntBufSize];
          s->assign(e.str(buf));
        } else {
          s->assign(e.sval);
        }
      },
      out);
  return n == 1;
}

bool ListType::index(const Object& o, int64_t index, ListEmit emit, void* ctx) {
  if (index > LONG_MAX || index < LONG_MIN) return false;
  if (is_lp(o)) {
    LpView lp(o);
    const LpPos pos = lp->seek(static_cast<long>(index));
    if (pos == kLpNone) return false;
    emit(ctx, lp->get(pos));
    return true;
  }
  Quicklist::Iterator it = ql_of(o)->at(static_cast<long>(index));
  if (!it.valid()) return false;
  emit(ctx, it.entry());
  return true;
}

bool ListType::set(Object& o, int64_t index, std::string_view value) {
  const int64_t len = static_cast<int64_t>(size(o));
  if (index < -len || index >= len) return false;
  grow_check(o, value.size(), 1);
  if (is_lp(o)) {
    LpEdit lp(o);
    lp->replace(lp->seek(static_cast<long>(index)), value);
  } else {
    ql_of(o)->replace_at(static_cast<long>(index), value);
  }
  shrink_check(o);
  return true;
}

size_t ListType::range_count(const Object& o, int64_t start, int64_t stop, int64_t* from) {
  const int64_t len = static_cast<int64_t>(size(o));
  if (start < 0) start += len;
  if (stop < 0) stop += len;
  if (start < 0) start = 0;
  if (start > stop || start >= len) return 0;
  if (stop >= len) stop = len - 1;
  *from = start;
  return static_cast<size_t>(stop - start + 1);
}

void ListType::range(const Object& o, int64_t from, size_t n, ListEmit emit, void* ctx) {
  if (n == 0) return;
  if (is_lp(o)) {
    LpView lp(o);
    LpPos pos = lp->seek(static_cast<long>(from));
    for (size_t i = 0; i < n && pos != kLpNone; i++) {
      emit(ctx, lp->get(pos));
      pos = lp->next(pos);
    }
    return;
  }
  Quicklist::Iterator it = ql_of(o)->at(static_cast<long>(from), true);
  for (size_t i = 0; i < n && it.valid(); i++) {
    emit(ctx, it.entry());
    it.next();
  }
}

void ListType::trim(Object& o, int64_t start, int64_t stop) {
  const int64_t len = static_cast<int64_t>(size(o));
  if (start < 0) start += len;
  if (stop < 0) stop += len;
  if (start < 0) start = 0;
  int64_t ltrim, rtrim;
  if (start > stop || start >= len) {
    ltrim = len;
    rtrim = 0;
  } else {
    if (stop >= len) stop = len - 1;
    ltrim = start;
    rtrim = len - stop - 1;
  }
  if (is_lp(o)) {
    LpEdit lp(o);
    if (ltrim > 0) lp->erase_range(0, static_cast<size_t>(ltrim));
    if (rtrim > 0) lp->erase_range(-static_cast<long>(rtrim), static_cast<size_t>(rtrim));
    return;
  }
  Quicklist* q = ql_of(o);
  if (ltrim > 0) q->erase_range(0, static_cast<size_t>(ltrim));
  if (rtrim > 0) q->erase_range(-static_cast<long>(rtrim), static_cast<size_t>(rtrim));
  shrink_check(o);
}

size_t ListType::remove(Object& o, std::string_view value, int64_t count) {
  const bool from_tail = count < 0;
  const uint64_t limit = count == 0 ? UINT64_MAX
                         : from_tail ? static_cast<uint64_t>(-(count + 1)) + 1
                                     : static_cast<uint64_t>(count);
  size_t removed = 0;
  if (is_lp(o)) {
    LpEdit lp(o);
    LpPos pos = from_tail ? lp->last() : lp->first();
    while (pos != kLpNone && removed < limit) {
      if (lp->get(pos).equals(value)) {
        if (from_tail) {
          const LpPos prev = lp->prev(pos);  // bytes before pos do not move
          lp->erase(pos);
          pos = prev;
        } else {
          pos = lp->erase(pos);
        }
        removed++;
      } else {
        pos = from_tail ? lp->prev(pos) : lp->next(pos);
      }
    }
    return removed;
  }
  {
    Quicklist::Iterator it =
        ql_of(o)->begin(from_tail ? Quicklist::End::kTail : Quicklist::End::kHead);
    while (it.valid() && removed < limit) {
      if (it.entry().equals(value)) {
        it.erase();
        removed++;
      } else {
        it.next();
      }
    }
  }
  if (removed > 0) shrink_check(o);
  return removed;
}

bool ListType::insert(Object& o, std::string_view pivot, std::string_view value, bool after) {
  // Redis converts before looking for the pivot (listTypeTryConversionAppend in LINSERT).
  grow_check(o, value.size(), 1);
  const LpWhere where = after ? LpWhere::kAfter : LpWhere::kBefore;
  if (is_lp(o)) {
    LpEdit lp(o);
    for (LpPos pos = lp->first(); pos != kLpNone; pos = lp->next(pos)) {
      if (lp->get(pos).equals(pivot)) {
        lp->insert(pos, value, where);
        return true;
      }
    }
    return false;
  }
  Quicklist* q = ql_of(o);
  for (Quicklist::Iterator it = q->begin(Quicklist::End::kHead); it.valid(); it.next()) {
    if (it.entry().equals(pivot)) {
      q->insert(it, value, where);
      return true;
    }
  }
  return false;
}

void ListType::positions(const Object& o, std::string_view value, int64_t rank, int64_t maxlen,
                         PosFound found, void* ctx) {
  const bool backward = rank < 0;
  const uint64_t skip = backward ? static_cast<uint64_t>(-(rank + 1)) + 1 : static_cast<uint64_t>(rank);
  const int64_t len = static_cast<int64_t>(size(o));
  uint64_t matches = 0;
  int64_t i = 0;
  auto check = [&](const LpEntry& e) -> bool {  // false: stop
    if (e.equals(value) && ++matches >= skip) {
      if (!found(ctx, backward ? len - 1 - i : i)) return false;
    }
    i++;
    return maxlen == 0 || i < maxlen;
  };
  if (is_lp(o)) {
    LpView lp(o);
    for (LpPos pos = backward ? lp->last() : lp->first(); pos != kLpNone;
         pos = backward ? lp->prev(pos) : lp->next(pos)) {
      if (!check(lp->get(pos))) return;
    }
    return;
  }
  for (Quicklist::Iterator it = ql_of(o)->begin(backward ? Quicklist::End::kTail : Quicklist::End::kHead);
       it.valid(); it.next()) {
    if (!check(it.entry())) return;
  }
}

}  // namespace keel
