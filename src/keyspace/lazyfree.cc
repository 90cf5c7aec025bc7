// Lazy freeing of keyspace objects: the effort rule and the hand-over (see lazyfree.h).
#include "keyspace/lazyfree.h"

#include "ds/stream.h"

#include "base/lazyfree.h"
#include "ds/quicklist.h"

namespace keel {

KeyspaceLazyfree g_keyspace_lazyfree;

namespace {
constexpr size_t kLazyfreeThreshold = 64;  // Redis's LAZYFREE_THRESHOLD

void destroy_job(void* arg) { Object::destroy(static_cast<Object*>(arg)); }
}  // namespace

size_t lazyfree_effort(const Object* o) {
  switch (o->encoding()) {
    case Encoding::kQuicklist: return static_cast<const Quicklist*>(o->ptr())->node_count();
    case Encoding::kHashtable:
    case Encoding::kHashtableEx:
    case Encoding::kSkiplist: return static_cast<size_t>(object_length(o));
    case Encoding::kStream: {
      // Redis's effort for a stream: its radix-tree nodes plus, per group, its pending entries.
      const Stream& st = *static_cast<const Stream*>(o->ptr());
      size_t effort = st.rax.size();
      if (st.cgroups != nullptr) {
        for (const auto& [name, g] : *st.cgroups) effort += 1 + g->pel.size();
      }
      return effort;
    }
    default: return 1;
  }
}

void free_object_lazily(Object* o) {
  if (lazyfree_effort(o) > kLazyfreeThreshold) {
    lazyfree_submit(destroy_job, o, 1);
  } else {
    Object::destroy(o);
  }
}

}  // namespace keel
