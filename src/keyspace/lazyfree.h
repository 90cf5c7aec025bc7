// Freeing values off the event loop (Redis's lazyfree.c): a value whose free effort is above
// Redis's LAZYFREE_THRESHOLD (64: list nodes, set / hash / sorted-set elements in a hash table or
// skiplist) goes to the lazyfree thread (base/lazyfree.h); a smaller one is freed at once, which
// costs less than the hand-over. Used by UNLINK, DEL under lazyfree-lazy-user-del, eviction
// under lazyfree-lazy-eviction, expiry under lazyfree-lazy-expire, server deletions under
// lazyfree-lazy-server-del and FLUSHALL / FLUSHDB ASYNC.
#pragma once
#include <cstddef>

#include "types/object.h"

namespace keel {

// The lazyfree-lazy-* options the keyspace itself acts on (copied from the config by the
// server, whose rows live with the commands' options).
struct KeyspaceLazyfree {
  bool expire = false;      // lazyfree-lazy-expire: an expired key's value
  bool server_del = false;  // lazyfree-lazy-server-del: overwritten values, server deletions
};
extern KeyspaceLazyfree g_keyspace_lazyfree;

// Redis's lazyfreeGetFreeEffort.
size_t lazyfree_effort(const Object* o);
// Frees o (which no table references any more) in the background when it is big, else now.
void free_object_lazily(Object* o);

}  // namespace keel
