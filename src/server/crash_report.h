// The server's part of a crash report (base/crash.h): the command being run and its client,
// INFO and CLIENT LIST. Installed once the Server exists.
#pragma once

namespace keel {

class Server;
// Installs the fatal-signal handlers (per crash-log-enabled) and the report body for `srv`.
void crash_report_install(Server* srv);

}  // namespace keel
