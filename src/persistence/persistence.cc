// Process-wide persistence options, state and the function-library hooks (persistence.h).
#include "persistence/persistence.h"

#include <unistd.h>

#include <cstdlib>

namespace keel {

FunctionHooks g_function_hooks;
void (*g_rdb_load_events)() = nullptr;

LoadingState& loading_state() {
  static LoadingState s;
  return s;
}

void rdb_debug_delay(int usec) {
  if (usec < 0) usec = (random() % -static_cast<long>(usec)) == 0 ? 1 : 0;
  if (usec > 0) usleep(static_cast<useconds_t>(usec));
}

PersistenceOptions& persistence_options() {
  static PersistenceOptions o;
  return o;
}

PersistenceState& persistence_state() {
  static PersistenceState s;
  return s;
}

}  // namespace keel
