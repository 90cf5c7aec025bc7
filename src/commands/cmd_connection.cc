// Connection commands: PING ECHO QUIT RESET SELECT HELLO AUTH and the CLIENT container. They
// read and change the Session (db, protocol, name, reply mode, authentication); what needs the
// process (other clients, CLIENT LIST/KILL text) goes through ServerApi.
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include "base/numbers.h"
#include "base/time.h"
#include "commands/acl.h"
#include "commands/blocking.h"
#include "commands/command.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "commands/multi.h"
#include "commands/pause.h"
#include "commands/pubsub.h"
#include "commands/server_api.h"
#include "commands/tracking.h"
#include "keyspace/keyspace.h"

namespace keel {

// Defined in cmd_server.cc: the HELP reply layout every container shares.

namespace {

// The Redis version HELLO reports; keep it equal to kRedisCompatVersion (server/version.h, a
// layer this file may not include).
constexpr std::string_view kHelloVersion = "7.4.0";

// PING [message] -> +PONG, or the message as a bulk string. A RESP2 client in subscribed mode
// gets the ["pong", message] array Redis sends there.
void cmd_ping(CommandContext& cx) {
  if (cx.argc() > 2) return cx.reply_arity_error();
  if ((cx.session().flags & Session::kPubSub) && cx.session().resp == 2) {
    cx.reply().array(2);
    cx.reply().bulk("pong");
    return cx.reply().bulk(cx.argc() == 2 ? cx.arg(1) : std::string_view(""));  // non-null data
  }
  if (cx.argc() == 2) return cx.reply().bulk(cx.arg(1));
  cx.reply().simple("PONG");
}

// ECHO message -> the message.
void cmd_echo(CommandContext& cx) { cx.reply().bulk(cx.arg(1)); }

// QUIT -> +OK, then the connection closes once the reply is written.
void cmd_quit(CommandContext& cx) {
  cx.session().flags |= Session::kCloseAfterReply;
  cx.reply().ok();
}

// SELECT index
void cmd_select(CommandContext& cx) {
  int idx;
  if (!cx.db_index_arg(1, &idx)) return;
  cx.session().db_index = idx;
  cx.session().db = &keyspace().db(idx);
  cx.reply().ok();
}

// AUTH and HELLO must not leak passwords into MONITOR and SLOWLOG: Redis shows "(redacted)".
// The argument array is the caller's mutable batch storage; only the views are replaced.
void redact(CommandContext& cx, size_t i) {
  auto& a = const_cast<std::string_view&>(cx.args()[i]);
  a = "(redacted)";
}

// AUTH / HELLO AUTH: the user's password check (commands/acl.h); a failure is logged in ACL LOG.
bool authenticate(Session& s, std::string_view user, std::string_view pass, const char* cmd) {
  AclUser* u = acl_authenticate(s, user, pass, cmd);
  if (!u) return false;
  acl_attach(s, u);
  s.authenticated = true;
  return true;
}

// AUTH [username] password
void cmd_auth(CommandContext& cx) {
  if (cx.argc() > 3) return cx.reply().error(kErrSyntax);
  const bool with_user = cx.argc() == 3;
  const std::string user(with_user ? cx.arg(1) : std::string_view("default"));
  const std::string pass(cx.arg(with_user ? 2 : 1));
  for (size_t i = 1; i < cx.argc(); i++) redact(cx, i);
  if (!with_user && acl_default_user()->nopass) {
    return cx.reply().error(
        "ERR AUTH <password> called without any password configured for the default user. Are "
        "you sure your configuration is correct?");
  }
  if (!authenticate(cx.session(), user, pass, "auth")) return cx.reply().error(kErrWrongPass);
  cx.reply().ok();
}

// Redis's client name rule (CLIENT SETNAME, HELLO SETNAME, CLIENT SETINFO): printable ASCII
// from '!' to '~', so the CLIENT LIST line stays parseable.
bool valid_client_attr(std::string_view s) {
  for (char c : s) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

constexpr std::string_view kErrBadName =
    "ERR Client names cannot contain spaces, newlines or special characters.";

// HELLO [protover [AUTH username password] [SETNAME clientname]] -> map describing the server.
void cmd_hello(CommandContext& cx) {
  Session& s = cx.session();
  int64_t ver = s.resp;
  size_t i = 1;
  if (cx.argc() >= 2) {
    if (!parse_int64(cx.arg(1), &ver)) {
      return cx.reply().error("ERR Protocol version is not an integer or out of range");
    }
    if (ver < 2 || ver > 3) return cx.reply().error("NOPROTO unsupported protocol version");
    i = 2;
  }
  std::string user, pass;
  std::string_view name;
  bool has_auth = false, has_name = false;
  for (; i < cx.argc(); i++) {
    const bool more = i + 1 < cx.argc();
    if (cx.is_arg(i, "auth") && i + 2 < cx.argc()) {
      user = cx.arg(i + 1);
      pass = cx.arg(i + 2);
      redact(cx, i + 1);
      redact(cx, i + 2);
      has_auth = true;
      i += 2;
    } else if (cx.is_arg(i, "setname") && more) {
      name = cx.arg(i + 1);
      has_name = true;
      i++;
    } else {
      return cx.reply().error_fmt("ERR Syntax error in HELLO option '%.128s'",
                                  std::string(cx.arg(i)).c_str());
    }
  }
  if (has_auth) {
    if (!authenticate(s, user, pass, "hello")) return cx.reply().error(kErrWrongPass);
  }
  if (!s.authenticated) {
    return cx.reply().error(
        "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO "
        "<proto> AUTH <user> <pass> option can be used to authenticate the client and select the "
        "RESP protocol version at the same time");
  }
  if (has_name) {
    if (!valid_client_attr(name)) return cx.reply().error(kErrBadName);
    s.name.assign(name);
  }
  s.resp = static_cast<int>(ver);
  cx.reply().set_resp(s.resp);
  ReplyWriter& w = cx.reply();
  w.map(7);
  w.bulk("server");
  w.bulk("redis");
  w.bulk("version");
  w.bulk(kHelloVersion);
  w.bulk("proto");
  w.integer(ver);
  w.bulk("id");
  w.integer(static_cast<int64_t>(s.id));
  w.bulk("mode");
  w.bulk("standalone");
  w.bulk("role");
  w.bulk("master");
  w.bulk("modules");
  w.array(0);
}

// RESET: back to a fresh connection's state (db 0, RESP2, no name, replies on, not a monitor,
// authenticated only when the default user needs no password) -> +RESET.
void cmd_reset(CommandContext& cx) {
  Session& s = cx.session();
  s.db_index = 0;
  s.db = &keyspace().db(0);
  s.resp = 2;
  cx.reply().set_resp(2);
  s.name.clear();
  // MONITOR ends here; the server drops the client from its monitor list lazily.
  // CLIENT NO-EVICT survives RESET in Redis; NO-TOUCH does not.
  s.flags &= ~(Session::kReplyOff | Session::kReplySkipNext | Session::kMonitor |
               Session::kNoTouch | Session::kMulti);
  acl_session_init(s);  // back to the default user
  pubsub_drop_session(s);  // leaves every channel, pattern and shard channel
  tracking_drop_session(s);  // CLIENT TRACKING off
  multi_drop_session(s);   // discards a MULTI queue, unwatches every key
  cx.reply().simple("RESET");
}

// ---- CLIENT -----------------------------------------------------------------------------------

void cmd_client_id(CommandContext& cx) { cx.reply().integer(static_cast<int64_t>(cx.session().id)); }

void cmd_client_setname(CommandContext& cx) {
  if (!valid_client_attr(cx.arg(2))) return cx.reply().error(kErrBadName);
  cx.session().name.assign(cx.arg(2));
  cx.reply().ok();
}

void cmd_client_getname(CommandContext& cx) {
  if (cx.session().name.empty()) return cx.reply().null();
  cx.reply().bulk(cx.session().name);
}

bool valid_client_type(std::string_view t) {
  for (const char* n : {"normal", "master", "replica", "slave", "pubsub"}) {
    if (equals_nocase(t, n)) return true;
  }
  return false;
}

// CLIENT LIST [TYPE type] [ID id [id ...]]
void cmd_client_list(CommandContext& cx) {
  std::vector<uint64_t> ids;
  std::string_view type;
  if (cx.argc() == 4 && cx.is_arg(2, "type")) {
    type = cx.arg(3);
    if (!valid_client_type(type)) {
      return cx.reply().error_fmt("ERR Unknown client type '%.128s'", std::string(type).c_str());
    }
  } else if (cx.argc() > 3 && cx.is_arg(2, "id")) {
    for (size_t i = 3; i < cx.argc(); i++) {
      int64_t id;
      // Any integer is accepted (negative and 0 simply match nobody), as Redis 7 does.
      if (!parse_int64(cx.arg(i), &id)) return cx.reply().error("ERR Invalid client ID");
      ids.push_back(static_cast<uint64_t>(id));
    }
  } else if (cx.argc() != 2) {
    return cx.reply().error(kErrSyntax);
  }
  cx.reply().verbatim(cx.server().client_list(ids, type));
}

// CLIENT UNBLOCK client-id [TIMEOUT|ERROR] -> 1 when that client was blocked (and now is not).
void cmd_client_unblock(CommandContext& cx) {
  if (cx.argc() > 4) {
    return cx.reply().error("ERR unknown subcommand or wrong number of arguments for 'UNBLOCK'. "
                            "Try CLIENT HELP.");
  }
  // Redis reads the reason before the id: "CLIENT UNBLOCK abc bad" is a reason error.
  bool error = false;
  if (cx.argc() == 4) {
    if (cx.is_arg(3, "error")) {
      error = true;
    } else if (!cx.is_arg(3, "timeout")) {
      return cx.reply().error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
    }
  }
  int64_t id;
  if (!cx.int_arg(2, &id)) return;
  cx.reply().integer(blocking_unblock(static_cast<uint64_t>(id), error, cx.server()) ? 1 : 0);
}

void cmd_client_info(CommandContext& cx) { cx.reply().verbatim(cx.server().client_info(cx.session())); }

// CLIENT KILL ip:port | CLIENT KILL <filter> <value> ...
void cmd_client_kill(CommandContext& cx) {
  std::string error;
  const int64_t n = cx.server().client_kill(cx.session(), cx.args().subspan(2), &error);
  if (n < 0) return cx.reply().error(error);
  if (cx.argc() == 3) return cx.reply().ok();
  cx.reply().integer(n);
}

// CLIENT SETINFO LIB-NAME|LIB-VER value
void cmd_client_setinfo(CommandContext& cx) {
  std::string* dest;
  if (cx.is_arg(2, "lib-name")) {
    dest = &cx.session().lib_name;
  } else if (cx.is_arg(2, "lib-ver")) {
    dest = &cx.session().lib_ver;
  } else {
    return cx.reply().error_fmt("ERR Unrecognized option '%.128s'", std::string(cx.arg(2)).c_str());
  }
  if (!valid_client_attr(cx.arg(3))) {
    return cx.reply().error_fmt("ERR %.128s cannot contain spaces, newlines or special characters.",
                                std::string(cx.arg(2)).c_str());
  }
  dest->assign(cx.arg(3));
  cx.reply().ok();
}

// ON|OFF switch of a session flag (NO-EVICT, NO-TOUCH).
void flag_switch(CommandContext& cx, uint32_t flag) {
  if (cx.is_arg(2, "on")) {
    cx.session().flags |= flag;
  } else if (cx.is_arg(2, "off")) {
    cx.session().flags &= ~flag;
  } else {
    return cx.reply().error(kErrSyntax);
  }
  cx.reply().ok();
}
void cmd_client_no_evict(CommandContext& cx) { flag_switch(cx, Session::kNoEvict); }
void cmd_client_no_touch(CommandContext& cx) { flag_switch(cx, Session::kNoTouch); }

// CLIENT REPLY ON|OFF|SKIP. OFF and SKIP are not answered; ON answers +OK, also when it is the
// command a SKIP dropped the reply of (dispatch decides at the end of the command).
void cmd_client_reply(CommandContext& cx) {
  Session& s = cx.session();
  if (cx.is_arg(2, "on")) {
    s.flags &= ~(Session::kReplyOff | Session::kReplySkipNext | Session::kReplySkip);
    return cx.reply().ok();
  }
  if (cx.is_arg(2, "off")) {
    s.flags |= Session::kReplyOff;
    return;
  }
  if (cx.is_arg(2, "skip")) {
    if (!(s.flags & Session::kReplyOff)) s.flags |= Session::kReplySkipNext;
    return;
  }
  cx.reply().error(kErrSyntax);
}

// CLIENT PAUSE timeout [WRITE|ALL]: the mode is checked before the timeout, as Redis does.
void cmd_client_pause(CommandContext& cx) {
  PauseType type = PauseType::kAll;
  if (cx.argc() == 4) {
    if (cx.is_arg(3, "write")) {
      type = PauseType::kWrite;
    } else if (!cx.is_arg(3, "all")) {
      return cx.reply().error("ERR CLIENT PAUSE mode must be WRITE or ALL");
    }
  } else if (cx.argc() != 3) {
    return cx.reply().error("ERR unknown subcommand or wrong number of arguments for 'pause'. Try CLIENT HELP.");
  }
  int64_t ms;
  if (!parse_int64(cx.arg(2), &ms)) return cx.reply().error("ERR timeout is not an integer or out of range");
  if (ms < 0) return cx.reply().error("ERR timeout is negative");
  // Redis 7.4 refuses a timeout the clock would overflow on (7.0 overflowed into no pause).
  const int64_t now = mstime();
  if (ms > 0 && ms > INT64_MAX - now) return cx.reply().error("ERR timeout is out of range");
  pause_start(type, ms > 0 ? now + ms : 0);
  cx.reply().ok();
}

void cmd_client_unpause(CommandContext& cx) {
  pause_end(cx.server());
  cx.reply().ok();
}

void cmd_client_help(CommandContext& cx) {
  reply_help(cx, "CLIENT",
             {"CACHING (YES|NO)",
              "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
              "GETREDIR", "    Return the client ID we are redirecting to when tracking is enabled.",
              "GETNAME", "    Return the name of the current connection.", "ID",
              "    Return the ID of the current connection.", "INFO",
              "    Return information about the current client connection.", "KILL <ip:port>",
              "    Kill connection made from <ip:port>.",
              "KILL <option> <value> [<option> <value> [...]]", "    Kill connections. Options are:",
              "    * ADDR (<ip:port>|<unixsocket>:0)",
              "      Kill connections made from the specified address",
              "    * LADDR (<ip:port>|<unixsocket>:0)",
              "      Kill connections made to specified local address",
              "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)", "      Kill connections by type.",
              "    * USER <username>", "      Kill connections authenticated by <username>.",
              "    * SKIPME (YES|NO)", "      Skip killing current connection (default: yes).",
              "    * ID <client-id>", "      Kill connections by client id.",
              "    * MAXAGE <maxage>",
              "      Kill connections older than the specified age.",
              "LIST [options ...]",
              "    Return information about client connections. Options:",
              "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)", "      Return clients of specified type.",
              "    * ID <client-id> [<client-id> ...]", "      Return clients of specified IDs only.",
              "UNPAUSE", "    Stop the current client pause, resuming traffic.",
              "PAUSE <timeout> [WRITE|ALL]",
              "    Suspend all, or just write, clients for <timeout> milliseconds.",
              "REPLY (ON|OFF|SKIP)", "    Control the replies sent to the current connection.",
              "SETNAME <name>", "    Assign the name <name> to the current connection.",
              "UNBLOCK <clientid> [TIMEOUT|ERROR]", "    Unblock the specified blocked client.",
              "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
              "         [OPTIN] [OPTOUT] [NOLOOP]",
              "    Control server assisted client side caching.",
              "TRACKINGINFO", "    Report tracking status for the current connection.",
              "SETINFO <option> <value>",
              "    Set client meta attr. Options are:",
              "    * LIB-NAME: the client lib name.", "    * LIB-VER: the client lib version.",
              "NO-EVICT (ON|OFF)", "    Protect current client connection from eviction.",
              "NO-TOUCH (ON|OFF)",
              "    Will not touch LRU/LFU stats when this mode is on."});
}

constexpr uint32_t kClientFlags = kNoScript | kLoading | kStale;
constexpr uint32_t kClientAdmin = kAdmin | kNoScript | kLoading | kStale;

CommandSpec kClientSubcommands[] = {
    {.name = "id", .handler = cmd_client_id, .arity = 2, .flags = kClientFlags, .acl = kAclConnection, .group = "connection",
     .summary = "Returns the unique client ID of the connection.", .since = "5.0.0", .complexity = "O(1)"},
    {.name = "setname", .handler = cmd_client_setname, .arity = 3, .flags = kClientFlags, .acl = kAclConnection, .group = "connection",
     .summary = "Sets the connection name.", .since = "2.6.9", .complexity = "O(1)"},
    {.name = "getname", .handler = cmd_client_getname, .arity = 2, .flags = kClientFlags, .acl = kAclConnection, .group = "connection",
     .summary = "Returns the name of the connection.", .since = "2.6.9", .complexity = "O(1)"},
    {.name = "list", .handler = cmd_client_list, .arity = -2, .flags = kClientAdmin, .acl = kAclConnection, .group = "connection",
     .summary = "Lists open connections.", .since = "2.4.0", .complexity = "O(N) where N is the number of client connections",
     .tips = "nondeterministic_output"},
    {.name = "info", .handler = cmd_client_info, .arity = 2, .flags = kClientFlags, .acl = kAclConnection, .group = "connection",
     .summary = "Returns information about the connection.", .since = "6.2.0", .complexity = "O(1)",
     .tips = "nondeterministic_output"},
    {.name = "kill", .handler = cmd_client_kill, .arity = -3, .flags = kClientAdmin, .acl = kAclConnection, .group = "connection",
     .summary = "Terminates open connections.", .since = "2.4.0", .complexity = "O(N) where N is the number of client connections"},
    {.name = "setinfo", .handler = cmd_client_setinfo, .arity = 4, .flags = kClientFlags, .acl = kAclConnection, .group = "connection",
     .summary = "Sets information specific to the client or connection.", .since = "7.2.0", .complexity = "O(1)"},
    {.name = "no-evict", .handler = cmd_client_no_evict, .arity = 3, .flags = kClientAdmin, .acl = kAclConnection, .group = "connection",
     .summary = "Sets the client eviction mode of the connection.", .since = "7.0.0", .complexity = "O(1)"},
    {.name = "no-touch", .handler = cmd_client_no_touch, .arity = 3, .flags = kClientFlags, .acl = kAclConnection, .group = "connection",
     .summary = "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.", .since = "7.2.0", .complexity = "O(1)"},
    {.name = "reply", .handler = cmd_client_reply, .arity = 3, .flags = kClientFlags, .acl = kAclConnection, .group = "connection",
     .summary = "Instructs the server whether to reply to commands.", .since = "3.2.0", .complexity = "O(1)"},
    {.name = "unblock", .handler = cmd_client_unblock, .arity = -3, .flags = kClientAdmin, .acl = kAclConnection, .group = "connection",
     .summary = "Unblocks a client blocked by a blocking command from a different connection.", .since = "5.0.0", .complexity = "O(log N) where N is the number of client connections"},
    {.name = "pause", .handler = cmd_client_pause, .arity = -3, .flags = kClientAdmin, .acl = kAclConnection, .group = "connection",
     .summary = "Stop processing commands from clients for some time", .since = "2.9.50", .complexity = "O(1)"},
    {.name = "unpause", .handler = cmd_client_unpause, .arity = 2, .flags = kClientAdmin, .acl = kAclConnection, .group = "connection",
     .summary = "Resume processing of clients that were paused", .since = "6.2.0", .complexity = "O(N) Where N is the number of paused clients"},
    {.name = "tracking", .handler = cmd_client_tracking, .arity = -3, .flags = kClientFlags, .acl = kAclConnection, .group = "connection",
     .summary = "Enable or disable server assisted client side caching support", .since = "6.0.0", .complexity = "O(1). Some options may introduce additional complexity."},
    {.name = "caching", .handler = cmd_client_caching, .arity = 3, .flags = kClientFlags, .acl = kAclConnection, .group = "connection",
     .summary = "Instruct the server about tracking or not keys in the next request", .since = "6.0.0", .complexity = "O(1)"},
    {.name = "getredir", .handler = cmd_client_getredir, .arity = 2, .flags = kClientFlags, .acl = kAclConnection, .group = "connection",
     .summary = "Get tracking notifications redirection client ID if any", .since = "6.0.0", .complexity = "O(1)"},
    {.name = "trackinginfo", .handler = cmd_client_trackinginfo, .arity = 2, .flags = kClientFlags, .acl = kAclConnection, .group = "connection",
     .summary = "Return information about server assisted client side caching for the current connection", .since = "6.2.0", .complexity = "O(1)"},
    {.name = "help", .handler = cmd_client_help, .arity = 2, .flags = kLoading | kStale, .acl = kAclConnection, .group = "connection",
     .summary = "Returns helpful text about the different subcommands.", .since = "5.0.0", .complexity = "O(1)"},
};

CommandSpec kConnectionCommands[] = {
    {.name = "ping", .handler = cmd_ping, .arity = -1, .flags = kFast, .acl = kAclConnection, .group = "connection",
     .summary = "Returns the server's liveliness response.", .since = "1.0.0", .complexity = "O(1)",
     .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "echo", .handler = cmd_echo, .arity = 2, .flags = kFast | kLoading | kStale, .acl = kAclConnection, .group = "connection",
     .summary = "Returns the given string.", .since = "1.0.0", .complexity = "O(1)"},
    {.name = "quit", .handler = cmd_quit, .arity = -1, .flags = kAllowBusy | kNoAuth | kNoScript | kLoading | kStale | kFast, .acl = kAclConnection, .group = "connection",
     .summary = "Closes the connection.", .since = "1.0.0", .complexity = "O(1)"},
    {.name = "reset", .handler = cmd_reset, .arity = 1, .flags = kAllowBusy | kNoAuth | kNoScript | kLoading | kStale | kFast, .acl = kAclConnection, .group = "connection",
     .summary = "Resets the connection.", .since = "6.2.0", .complexity = "O(1)"},
    {.name = "select", .handler = cmd_select, .arity = 2, .flags = kLoading | kStale | kFast, .acl = kAclConnection, .group = "connection",
     .summary = "Changes the selected database.", .since = "1.0.0", .complexity = "O(1)"},
    {.name = "hello", .handler = cmd_hello, .arity = -1, .flags = kAllowBusy | kNoAuth | kNoScript | kLoading | kStale | kFast, .acl = kAclConnection, .group = "connection",
     .summary = "Handshakes with the Redis server.", .since = "6.0.0", .complexity = "O(1)"},
    {.name = "auth", .handler = cmd_auth, .arity = -2, .flags = kAllowBusy | kNoAuth | kNoScript | kLoading | kStale | kFast, .acl = kAclConnection, .group = "connection",
     .summary = "Authenticates the connection.", .since = "1.0.0", .complexity = "O(N) where N is the number of passwords defined for the user"},
    {.name = "client", .handler = nullptr, .arity = -2, .group = "connection",
     .summary = "A container for client connection commands.", .since = "2.4.0", .complexity = "Depends on subcommand.",
     .subcommands = kClientSubcommands},
};

}  // namespace

std::span<CommandSpec> connection_commands() { return kConnectionCommands; }

}  // namespace keel
