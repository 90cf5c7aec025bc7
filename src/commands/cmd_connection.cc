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
void reply_help(CommandContext& cx, const char* upper_name, std::initializer_list<const char*> lines);

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

// The default user's check. Without requirepass the default user is "nopass": any password
// works for `AUTH default <anything>`.
bool password_ok(std::string_view user, std::string_view pass) {
  if (user != "default") return false;
  const std::string& want = command_options().requirepass;
  return want.empty() || pass == want;
}

// AUTH [username] password
void cmd_auth(CommandContext& cx) {
  if (cx.argc() > 3) return cx.reply().error(kErrSyntax);
  const bool with_user = cx.argc() == 3;
  const std::string_view user = with_user ? cx.arg(1) : std::string_view("default");
  const std::string_view pass = cx.arg(with_user ? 2 : 1);
  for (size_t i = 1; i < cx.argc(); i++) redact(cx, i);
  if (!with_user && command_options().requirepass.empty()) {
    return cx.reply().error(
        "ERR AUTH <password> called without any password configured for the default user. Are "
        "you sure your configuration is correct?");
  }
  if (!password_ok(user, pass)) return cx.reply().error(kErrWrongPass);
  cx.session().authenticated = true;
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
  std::string_view user, pass, name;
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
    if (!password_ok(user, pass)) return cx.reply().error(kErrWrongPass);
    s.authenticated = true;
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
  s.authenticated = command_options().requirepass.empty();
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
    {"id", cmd_client_id, 2, kClientFlags, 0, 0, 0, kAclConnection, "connection", "Returns the unique client ID of the connection.", "5.0.0", "O(1)"},
    {"setname", cmd_client_setname, 3, kClientFlags, 0, 0, 0, kAclConnection, "connection", "Sets the connection name.", "2.6.9", "O(1)"},
    {"getname", cmd_client_getname, 2, kClientFlags, 0, 0, 0, kAclConnection, "connection", "Returns the name of the connection.", "2.6.9", "O(1)"},
    {"list", cmd_client_list, -2, kClientAdmin, 0, 0, 0, kAclConnection, "connection", "Lists open connections.", "2.4.0", "O(N) where N is the number of client connections"},
    {"info", cmd_client_info, 2, kClientFlags, 0, 0, 0, kAclConnection, "connection", "Returns information about the connection.", "6.2.0", "O(1)"},
    {"kill", cmd_client_kill, -3, kClientAdmin, 0, 0, 0, kAclConnection, "connection", "Terminates open connections.", "2.4.0", "O(N) where N is the number of client connections"},
    {"setinfo", cmd_client_setinfo, 4, kClientFlags, 0, 0, 0, kAclConnection, "connection", "Sets information specific to the client or connection.", "7.2.0", "O(1)"},
    {"no-evict", cmd_client_no_evict, 3, kClientAdmin, 0, 0, 0, kAclConnection, "connection", "Sets the client eviction mode of the connection.", "7.0.0", "O(1)"},
    {"no-touch", cmd_client_no_touch, 3, kClientFlags, 0, 0, 0, kAclConnection, "connection", "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.", "7.2.0", "O(1)"},
    {"reply", cmd_client_reply, 3, kClientFlags, 0, 0, 0, kAclConnection, "connection", "Instructs the server whether to reply to commands.", "3.2.0", "O(1)"},
    {"unblock", cmd_client_unblock, -3, kClientAdmin, 0, 0, 0, kAclConnection, "connection", "Unblocks a client blocked by a blocking command from a different connection.", "5.0.0", "O(log N) where N is the number of client connections"},
    {"pause", cmd_client_pause, -3, kClientAdmin, 0, 0, 0, kAclConnection, "connection", "Stop processing commands from clients for some time", "2.9.50", "O(1)"},
    {"unpause", cmd_client_unpause, 2, kClientAdmin, 0, 0, 0, kAclConnection, "connection", "Resume processing of clients that were paused", "6.2.0", "O(N) Where N is the number of paused clients"},
    {"tracking", cmd_client_tracking, -3, kClientFlags, 0, 0, 0, kAclConnection, "connection", "Enable or disable server assisted client side caching support", "6.0.0", "O(1). Some options may introduce additional complexity."},
    {"caching", cmd_client_caching, 3, kClientFlags, 0, 0, 0, kAclConnection, "connection", "Instruct the server about tracking or not keys in the next request", "6.0.0", "O(1)"},
    {"getredir", cmd_client_getredir, 2, kClientFlags, 0, 0, 0, kAclConnection, "connection", "Get tracking notifications redirection client ID if any", "6.0.0", "O(1)"},
    {"trackinginfo", cmd_client_trackinginfo, 2, kClientFlags, 0, 0, 0, kAclConnection, "connection", "Return information about server assisted client side caching for the current connection", "6.2.0", "O(1)"},
    {"help", cmd_client_help, 2, kLoading | kStale, 0, 0, 0, kAclConnection, "connection", "Returns helpful text about the different subcommands.", "5.0.0", "O(1)"},
};

CommandSpec kConnectionCommands[] = {
    {"ping", cmd_ping, -1, kFast, 0, 0, 0, kAclConnection, "connection", "Returns the server's liveliness response.", "1.0.0", "O(1)"},
    {"echo", cmd_echo, 2, kFast | kLoading | kStale, 0, 0, 0, kAclConnection, "connection", "Returns the given string.", "1.0.0", "O(1)"},
    {"quit", cmd_quit, -1, kAllowBusy | kNoAuth | kNoScript | kLoading | kStale | kFast, 0, 0, 0, kAclConnection, "connection", "Closes the connection.", "1.0.0", "O(1)"},
    {"reset", cmd_reset, 1, kAllowBusy | kNoAuth | kNoScript | kLoading | kStale | kFast, 0, 0, 0, kAclConnection, "connection", "Resets the connection.", "6.2.0", "O(1)"},
    {"select", cmd_select, 2, kLoading | kStale | kFast, 0, 0, 0, kAclConnection, "connection", "Changes the selected database.", "1.0.0", "O(1)"},
    {"hello", cmd_hello, -1, kAllowBusy | kNoAuth | kNoScript | kLoading | kStale | kFast, 0, 0, 0, kAclConnection, "connection", "Handshakes with the Redis server.", "6.0.0", "O(1)"},
    {"auth", cmd_auth, -2, kAllowBusy | kNoAuth | kNoScript | kLoading | kStale | kFast, 0, 0, 0, kAclConnection, "connection", "Authenticates the connection.", "1.0.0", "O(N) where N is the number of passwords defined for the user"},
    {"client", nullptr, -2, 0, 0, 0, 0, 0, "connection", "A container for client connection commands.", "2.4.0", "Depends on subcommand.", kClientSubcommands},
};

}  // namespace

std::span<CommandSpec> connection_commands() { return kConnectionCommands; }

}  // namespace keel
