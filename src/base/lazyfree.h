// The lazyfree thread (Redis's BIO_LAZY_FREE): one background thread, started on first use, that
// runs the frees the event loop hands over so a big value, a whole flushed database or a Lua
// state never stalls the loop. Jobs are plain function + argument pairs; each carries the number
// of objects Redis would count for it (INFO lazyfree_pending_objects while queued or running,
// lazyfreed_objects once done). Users: keyspace/lazyfree.cc (UNLINK, FLUSH* ASYNC, the
// lazyfree-lazy-* options) and scripting/lua_engine.cc (SCRIPT / FUNCTION FLUSH ASYNC).
#pragma once
#include <cstdint>

namespace keel {

// Queues fn(arg) for the thread. fn must touch nothing the main thread uses (freeing memory
// with the allocator is fine: jemalloc is thread-safe).
void lazyfree_submit(void (*fn)(void*), void* arg, uint64_t objects);

struct LazyfreeStats {
  uint64_t pending = 0;  // objects queued or being freed
  uint64_t freed = 0;    // objects freed since start or CONFIG RESETSTAT
};
LazyfreeStats lazyfree_stats();
void lazyfree_reset_stats();  // freed back to 0
void lazyfree_drain();        // waits until every job handed over is done

}  // namespace keel
