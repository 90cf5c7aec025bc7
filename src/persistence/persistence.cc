// Process-wide persistence options, state and the function-library hooks (persistence.h).
#include "persistence/persistence.h"

namespace keel {

FunctionHooks g_function_hooks;
constinit bool g_rdb_bgsave_failed = false;

PersistenceOptions& persistence_options() {
  static PersistenceOptions o;
  return o;
}

PersistenceState& persistence_state() {
  static PersistenceState s;
  return s;
}

}  // namespace keel
