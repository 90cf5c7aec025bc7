// Crash report body: CURRENT CLIENT INFO, INFO OUTPUT and CLIENT LIST OUTPUT, the sections of
// Redis's bug report that only the server can write. The current command comes first because it
// needs no allocation (it reads the dispatch layer's pointer to the running command and writes
// through the async-signal-safe crash_out functions); INFO and CLIENT LIST build strings on a
// heap that may be what broke, so they come last (a fault there ends the report with the
// reduced form, base/crash.cc).
#include "server/crash_report.h"

#include <string>
#include <string_view>

#include "base/crash.h"
#include "commands/command.h"
#include "commands/dispatch.h"
#include "server/client.h"
#include "server/server.h"
#include "server/version.h"

namespace keel {
namespace {

constexpr size_t kMaxArgs = 8;        // arguments shown; the rest are counted
constexpr size_t kMaxArgBytes = 128;  // bytes shown of each

Server* g_srv = nullptr;

void write_string(const std::string& s) {
  // INFO and CLIENT LIST end lines with CRLF; the log uses LF.
  size_t start = 0;
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] == '\r') {
      crash_out::raw(s.data() + start, i - start);
      start = i + 1;
    }
  }
  crash_out::raw(s.data() + start, s.size() - start);
}

// Whether argument i of the command is a secret that must not reach the log: AUTH's arguments,
// HELLO's after AUTH, and CONFIG SET's values of requirepass and masterauth.
bool secret_arg(std::span<const std::string_view> args, size_t i) {
  if (i == 0) return false;
  if (equals_nocase(args[0], "auth")) return true;
  if (equals_nocase(args[0], "hello")) {
    for (size_t j = 1; j < i; j++) {
      if (equals_nocase(args[j], "auth")) return true;
    }
    return false;
  }
  if (equals_nocase(args[0], "config") && args.size() > 1 && equals_nocase(args[1], "set") && i >= 3 &&
      i % 2 == 1) {
    return equals_nocase(args[i - 1], "requirepass") || equals_nocase(args[i - 1], "masterauth");
  }
  return false;
}

void write_current_client() {
  CommandContext* cx = current_command();
  if (!cx) return;
  const Session& s = cx->session();
  const std::span<const std::string_view> args = cx->args();
  crash_out::str("\n------ CURRENT CLIENT INFO ------\n");
  crash_out::str("id=");
  crash_out::u64(s.id);
  crash_out::str(" addr=");
  crash_out::str(s.addr.c_str());
  if (const Client* c = static_cast<const Client*>(s.client)) {
    crash_out::str(" laddr=");
    crash_out::str(c->laddr.c_str());
    crash_out::str(" fd=");
    crash_out::i64(c->fd);
  }
  crash_out::str(" name=");
  crash_out::str(s.name.c_str());
  crash_out::str(" db=");
  crash_out::i64(s.db_index);
  crash_out::str(" cmd=");
  crash_out::str(cx->command().full_name ? cx->command().full_name : "?");
  crash_out::str(" argc=");
  crash_out::u64(args.size());
  crash_out::str("\n");
  for (size_t i = 0; i < args.size() && i < kMaxArgs; i++) {
    crash_out::str("argv[");
    crash_out::u64(i);
    crash_out::str("]: '");
    if (secret_arg(args, i)) {
      crash_out::str("(redacted)");
    } else {
      crash_out::repr(args[i].data(), args[i].size(), kMaxArgBytes);
    }
    crash_out::str("'\n");
  }
  if (args.size() > kMaxArgs) {
    crash_out::str("... and ");
    crash_out::u64(args.size() - kMaxArgs);
    crash_out::str(" more arguments\n");
  }
  crash_out::flush();
}

void write_body() {
  write_current_client();
  if (!g_srv) return;
  crash_out::str("\n------ INFO OUTPUT ------\n");
  crash_out::flush();
  const std::string_view all[] = {"everything"};
  write_string(g_srv->info(all));
  crash_out::str("\n------ CLIENT LIST OUTPUT ------\n");
  crash_out::flush();
  write_string(g_srv->client_list({}, ""));
  crash_out::flush();
}

}  // namespace

void crash_report_install(Server* srv) {
  g_srv = srv;
  set_crash_report_body(write_body);
  static const std::string program = std::string("Keel ") + kKeelVersion;
  crash_handlers_setup(program.c_str());
}

}  // namespace keel
