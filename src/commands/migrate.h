// MIGRATE's cached connections (commands/cmd_persistence.cc): one per target, closed after 10 s
// unused, as Redis's migrate cached sockets.
#pragma once
#include <cstddef>
#include <cstdint>

namespace keel {

// INFO stats migrate_cached_sockets.
size_t migrate_cached_sockets();
// From the server cron: closes the connections unused for more than 10 s.
void migrate_close_idle(int64_t now_ms);

}  // namespace keel
