// Scripting commands: EVAL EVALSHA EVAL_RO EVALSHA_RO, the SCRIPT container, FCALL FCALL_RO and
// the FUNCTION container. This file is the binding between the Lua engine (scripting/, which
// knows nothing about commands) and dispatch: each redis.call runs through call() (after the
// script's own checks) with a dedicated script Session that shares the caller's db, replying
// into a scratch buffer that the engine turns back into Lua values. The EVAL / FCALL is the
// execution unit: one clock for the whole script, its writes propagated as one transaction, the
// messages it publishes to its caller after its reply. Scripts are atomic; one runs at a time. Past
// busy-reply-threshold the engine's hook lets the server answer other clients -BUSY and run
// SCRIPT KILL / FUNCTION KILL / SHUTDOWN NOSAVE.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "base/admission.h"
#include "base/glob.h"
#include "base/log.h"
#include "base/numbers.h"
#include "base/time.h"
#include "commands/acl.h"
#include "commands/command.h"
#include "commands/cmd_scripting.h"
#include "commands/command_table.h"
#include "commands/debug_state.h"
#include "commands/dispatch.h"
#include "commands/pause.h"
#include "commands/server_api.h"
#include "persistence/aof.h"
#include "persistence/rdb_bgsave.h"
#include "scripting/lua_engine.h"

namespace keel {

// Defined in cmd_server.cc: the HELP reply layout every container shares.
// Defined in cmd_persistence.cc.
void cmd_function_dump(CommandContext& cx);
void cmd_function_restore(CommandContext& cx);

namespace {

constexpr std::string_view kErrNoScript = "NOSCRIPT No matching script. Please use EVAL.";
constexpr std::string_view kErrRoWithWriteFlag =
    "ERR Can not execute a script with write flag using *_ro command.";
constexpr const char* kBusyEval =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
constexpr const char* kBusyFunction =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
constexpr std::string_view kErrNotBusy = "NOTBUSY No scripts in execution right now.";
constexpr std::string_view kErrUnkillable =
    "UNKILLABLE Sorry the script already executed write commands against the dataset. You can "
    "either wait the script termination or kill the server in a hard way using the SHUTDOWN "
    "NOSAVE command.";
constexpr int64_t kBusyPollIntervalUs = 1000;  // how often a busy script lets the server poll

LuaEngine& eval_engine() {
  static LuaEngine engine(LuaEngine::Kind::kEval);
  return engine;
}
LuaEngine& function_engine() {
  static LuaEngine engine(LuaEngine::Kind::kFunction);
  return engine;
}

// The script being run (at most one).
struct RunState {
  bool active = false;
  bool is_function = false;
  bool read_only = false;  // EVAL_RO / FCALL_RO / no-writes flag: write commands fail
  bool wrote = false;      // a write command ran: SCRIPT KILL refuses (UNKILLABLE)
  bool allow_oom = false;  // allow-oom flag: deny-oom commands run over maxmemory too
  bool killed = false;
  bool shutdown = false;
  bool busy = false;       // ran past busy-reply-threshold
  int64_t start_us = 0;
  int64_t last_poll_us = 0;
  Session* caller = nullptr;
  std::string name;                 // function name (FUNCTION STATS)
  std::vector<std::string> command;  // the FCALL arguments (FUNCTION STATS)
};
RunState g_run;

Session& script_session() {
  static Session s;
  return s;
}

class Host final : public ScriptHost {
 public:
  void call(std::span<const std::string_view> args, int resp, Buffer& out) override {
    const CommandSpec* c = resolve_command(args);
    const int argc = static_cast<int>(args.size());
    // An unknown subcommand of a container is an unknown command here (Redis's lookupCommand
    // finds nothing), not "unknown subcommand".
    if (!c || (!c->parent && !c->subcommands.empty() && argc >= 2)) {
      return out.append("-ERR Unknown Redis command called from script\r\n");
    }
    if ((c->arity > 0 && argc != c->arity) || argc < -c->arity) {
      return out.append("-ERR Wrong number of args calling Redis command from script\r\n");
    }
    if ((c->flags & kNoScript) && !debug_options().disable_deny_scripts) {  // DEBUG SET-DISABLE-DENY-SCRIPTS
      return out.append("-ERR This Redis command is not allowed from script\r\n");
    }
    // ACL: every command a script runs is checked for the caller's user (context lua); the
    // text is Redis 7.2's ("ACL failure in script: " + the reason).
    if (KEEL_UNLIKELY(g_run.caller != nullptr && (g_run.caller->flags & Session::kAclRestricted))) {
      std::string acl_err;
      if (!acl_admit(*g_run.caller, *c, args, server_api(), "lua", &acl_err)) {
        if (acl_err.rfind("NOPERM ", 0) == 0) acl_err.erase(0, 7);
        out.append("-ERR ACL failure in script: ");
        out.append(acl_err.data(), acl_err.size());
        return out.append("\r\n");
      }
    }
    // (Redis's order: the ACL check comes before the write checks.)
    // Redis counts may-replicate commands (PUBLISH, SPUBLISH) as writes for read-only scripts.
    if ((c->flags & (kWrite | kMayReplicate)) && g_run.read_only) {
      return out.append("-ERR Write commands are not allowed from read-only scripts.\r\n");
    }
    // MISCONF after a failed BGSAVE: the script's writes fail, its reads and PING do not.
    if ((c->flags & kWrite) && KEEL_UNLIKELY(g_rdb_bgsave_failed) && rdb_writes_denied()) {
      out.append("-");
      out.append(kErrMisconf.data(), kErrMisconf.size());
      return out.append("\r\n");
    }
    if ((c->flags & kWrite) && KEEL_UNLIKELY(g_admission_gates.aof_error)) {
      out.append("-");
      out.append(aof_write_error());
      return out.append("\r\n");
    }
    // Over maxmemory when the script started (admission's verdict), a deny-oom command fails
    // unless the script already wrote (it cannot stop half-way then) or declared allow-oom
    // (Redis's scriptVerifyOOM).
    if ((c->flags & kDenyOom) && KEEL_UNLIKELY(g_pre_command_oom) && g_admission_gates.maxmemory &&
        !g_run.allow_oom && !g_run.wrote) {
      out.append("-");
      out.append(kErrOom.data(), kErrOom.size());
      return out.append("\r\n");
    }
    if (c->flags & kWrite) g_run.wrote = true;
    Session& s = script_session();
    s.resp = resp;
    writer_.reset(&out, resp);
    keel::call(s, args, nullptr, writer_, server_api(), *c);
  }

  int acl_check(std::span<const std::string_view> args) override {
    const CommandSpec* c = resolve_command(args);
    if (!c || (!c->parent && !c->subcommands.empty() && args.size() >= 2)) return -1;
    const AclUser* u = (g_run.caller && g_run.caller->user) ? g_run.caller->user : acl_default_user();
    if (!u) return 1;
    std::string object;
    return keel::acl_check(*u, *c, args, &object) == AclDeny::kOk ? 1 : 0;
  }

  const char* poll() override {
    if (g_run.killed || g_run.shutdown) return kill_text();
    const int64_t now = monotonic_us();
    if (now - g_run.start_us < scripting_options().busy_reply_threshold * 1000) return nullptr;
    if (!g_run.busy) {
      g_run.busy = true;
      LOG_WARNING("Slow script detected: still in execution after %lld milliseconds. You can try "
                  "killing the script using the %s command. Script name is: %s.",
                  static_cast<long long>((now - g_run.start_us) / 1000),
                  g_run.is_function ? "FUNCTION KILL" : "SCRIPT KILL", g_run.name.c_str());
    } else if (now - g_run.last_poll_us < kBusyPollIntervalUs) {
      return nullptr;
    }
    g_run.last_poll_us = now;
    busy_state().error = g_run.is_function ? kBusyFunction : kBusyEval;
    g_admission_gates.busy = true;
    if (server_api().process_events_while_busy(*g_run.caller)) g_run.shutdown = true;
    busy_state().error = nullptr;
    g_admission_gates.busy = false;
    return (g_run.killed || g_run.shutdown) ? kill_text() : nullptr;
  }

 private:
  static const char* kill_text() {
    if (g_run.shutdown) return "ERR Script killed by user with SHUTDOWN NOSAVE...";
    return "ERR Script killed by user with SCRIPT KILL...";  // FUNCTION KILL too (Redis's text)
  }
  ReplyWriter writer_;
};

Host& host() {
  static Host h;
  return h;
}

// numkeys at argument 2 of EVAL/FCALL: Redis's errors, in its order.
bool numkeys_arg(CommandContext& cx, size_t* numkeys) {
  int64_t n;
  if (!cx.int_arg(2, &n)) return false;
  if (n < 0) {
    cx.reply().error("ERR Number of keys can't be negative");
    return false;
  }
  if (n > static_cast<int64_t>(cx.argc() - 3)) {
    cx.reply().error("ERR Number of keys can't be greater than number of args");
    return false;
  }
  *numkeys = static_cast<size_t>(n);
  return true;
}

// EVAL / FCALL themselves: Redis feeds MONITOR before running the script (the commands the
// script runs follow it), and propagates the script's effects, never the script itself.
void script_command_start(CommandContext& cx) {
  cx.prevent_propagation();
  if (KEEL_UNLIKELY(g_monitors_present)) cx.server().feed_monitors(cx.session(), cx.args());
}

void run(CommandContext& cx, LuaEngine& engine, int ref, size_t numkeys, bool read_only,
         bool is_function, std::string_view name, bool allow_oom) {
  Session& caller = cx.session();
  Session& s = script_session();
  s.db = caller.db;
  s.db_index = caller.db_index;
  s.id = caller.id;
  s.authenticated = true;
  s.flags = 0;
  s.addr = "lua";
  s.client = nullptr;
  g_run = RunState{};
  g_run.active = true;
  g_run.is_function = is_function;
  g_run.read_only = read_only;
  g_run.allow_oom = allow_oom;
  g_run.caller = &caller;
  g_run.start_us = monotonic_us();
  g_run.name.assign(name);
  if (is_function) {
    for (std::string_view a : cx.args()) g_run.command.emplace_back(a);
  }
  std::span<const std::string_view> all = cx.args();
  engine.run(ref, all.subspan(3, numkeys), all.subspan(3 + numkeys), name, host(), cx.reply());
  if (g_run.busy) server_api().script_done(caller);
  g_run.active = false;
  g_run.caller = nullptr;
}

// ---- EVAL family -----------------------------------------------------------------------------

void eval_generic(CommandContext& cx, bool by_sha, bool ro) {
  script_command_start(cx);
  // Redis answers a sha that is not 40 characters long before it reads numkeys.
  if (by_sha && cx.arg(1).size() != 40) return cx.reply().error(kErrNoScript);
  size_t numkeys;
  if (!numkeys_arg(cx, &numkeys)) return;
  LuaEngine& engine = eval_engine();
  const LuaEngine::Script* script;
  char sha[41];
  if (by_sha) {
    script = engine.find_script(cx.arg(1));
    if (!script) return cx.reply().error(kErrNoScript);
    for (size_t i = 0; i < 40; i++) sha[i] = static_cast<char>(tolower(static_cast<unsigned char>(cx.arg(1)[i])));
    sha[40] = 0;
  } else {
    sha1_hex(cx.arg(1), sha);
    LuaEngine::Sha key;
    std::copy(sha, sha + 40, key.begin());
    std::string error;
    script = engine.load_script(cx.arg(1), key, &error);
    if (!script) return cx.reply().error(error);
  }
  if (ro && !(script->flags & (kScriptNoWrites | kScriptEvalCompat))) {
    return cx.reply().error(kErrRoWithWriteFlag);
  }
  run(cx, engine, script->ref, numkeys, ro || (script->flags & kScriptNoWrites), false,
      std::string_view(sha, 40), (script->flags & kScriptAllowOom) != 0);
}

void cmd_eval(CommandContext& cx) { eval_generic(cx, false, false); }
void cmd_evalsha(CommandContext& cx) { eval_generic(cx, true, false); }
void cmd_eval_ro(CommandContext& cx) { eval_generic(cx, false, true); }
void cmd_evalsha_ro(CommandContext& cx) { eval_generic(cx, true, true); }

// SCRIPT LOAD body -> the sha, after compiling the script into the cache.
void cmd_script_load(CommandContext& cx) {
  char sha[41];
  sha1_hex(cx.arg(2), sha);
  LuaEngine::Sha key;
  std::copy(sha, sha + 40, key.begin());
  std::string error;
  if (!eval_engine().load_script(cx.arg(2), key, &error)) return cx.reply().error(error);
  cx.reply().bulk(std::string_view(sha, 40));
}

// SCRIPT EXISTS sha [sha ...] -> 1/0 per sha.
void cmd_script_exists(CommandContext& cx) {
  cx.reply().array(cx.argc() - 2);
  for (size_t i = 2; i < cx.argc(); i++) cx.reply().integer(eval_engine().find_script(cx.arg(i)) ? 1 : 0);
}

// FLUSH ASYNC hands the old Lua state to the engine's background thread. Redis counts what it
// gives its lazyfree thread (the scripts, or the functions) in lazyfreed_objects only when there
// are more than LAZYFREE_THRESHOLD (64) of them; Keel closes the state in the background either
// way and counts as Redis does.
constexpr size_t kLazyfreeThreshold = 64;
void flush_engine(LuaEngine& engine, bool async, size_t objects) {
  engine.reset(async, async && objects > kLazyfreeThreshold ? objects : 0);
}

// SCRIPT FLUSH [ASYNC|SYNC]; without a mode lazyfree-lazy-user-flush decides.
void cmd_script_flush(CommandContext& cx) {
  if (cx.argc() > 3 || (cx.argc() == 3 && !cx.is_arg(2, "sync") && !cx.is_arg(2, "async"))) {
    return cx.reply().error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
  }
  const bool async = cx.argc() == 3 ? cx.is_arg(2, "async") : command_options().lazyfree_lazy_user_flush;
  flush_engine(eval_engine(), async, eval_engine().script_count());
  cx.reply().ok();
}

void kill_generic(CommandContext& cx, bool function) {
  if (!g_run.active) return cx.reply().error(kErrNotBusy);
  if (g_run.is_function != function) return cx.reply().error(function ? kBusyEval : kBusyFunction);
  if (g_run.wrote) return cx.reply().error(kErrUnkillable);
  g_run.killed = true;
  cx.reply().ok();
}

void cmd_script_kill(CommandContext& cx) { kill_generic(cx, false); }

void cmd_script_help(CommandContext& cx) {
  reply_help(cx, "SCRIPT",
             {"EXISTS <sha1> [<sha1> ...]",
              "    Return information about the existence of the scripts in the script cache.",
              "FLUSH [ASYNC|SYNC]",
              "    Flush the Lua scripts cache. Very dangerous on replicas.",
              "    When called without the optional mode argument, the behavior is determined by the",
              "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
              "    * ASYNC: Asynchronously flush the scripts cache.",
              "    * SYNC: Synchronously flush the scripts cache.",
              "KILL", "    Kill the currently executing Lua script.", "LOAD <script>",
              "    Load a script into the scripts cache without executing it."});
}

// CLIENT PAUSE WRITE (pause.h): whether EVAL / EVALSHA / FCALL may write, from the script's
// flags as Redis's getCommandFlags decides: a script without a shebang (or unknown to EVALSHA /
// FCALL) keeps the command's may_replicate flag; one with flags writes unless it says no-writes.
// EVAL of an uncached body reads the shebang's flags= list from the body itself.
bool may_write_impl(const CommandSpec& c, std::span<const std::string_view> args) {
  if (args.size() < 2) return true;
  if (!strcmp(c.name, "fcall")) {
    const LuaEngine::Function* f = function_engine().find_function(args[1]);
    return !f || !(f->flags & kScriptNoWrites);
  }
  const bool by_sha = !strcmp(c.name, "evalsha");
  const LuaEngine::Script* script = nullptr;
  if (by_sha) {
    script = eval_engine().find_script(args[1]);
  } else {
    char sha[41];
    sha1_hex(args[1], sha);
    script = eval_engine().find_script(std::string_view(sha, 40));
    if (!script) {
      std::string_view body = args[1];
      if (body.substr(0, 2) != "#!") return true;
      std::string_view line = body.substr(0, body.find('\n'));
      const size_t at = line.find(" flags=");
      if (at == std::string_view::npos) return true;
      std::string_view list = line.substr(at + 7);
      list = list.substr(0, list.find(' '));
      while (!list.empty()) {
        const size_t comma = list.find(',');
        if (list.substr(0, comma) == "no-writes") return false;
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
      }
      return true;
    }
  }
  return !script || (script->flags & kScriptEvalCompat) || !(script->flags & kScriptNoWrites);
}

// ---- FUNCTION / FCALL ----------------------------------------------------------------------------

// Redis's order: the function (names ignore case), then numkeys with FCALL's own texts.
void fcall_generic(CommandContext& cx, bool ro) {
  script_command_start(cx);
  const LuaEngine::Function* f = function_engine().find_function(cx.arg(1));
  if (!f) return cx.reply().error("ERR Function not found");
  int64_t n;
  if (!parse_int64(cx.arg(2), &n)) return cx.reply().error("ERR Bad number of keys provided");
  if (n > static_cast<int64_t>(cx.argc() - 3)) {
    return cx.reply().error("ERR Number of keys can't be greater than number of args");
  }
  if (n < 0) return cx.reply().error("ERR Number of keys can't be negative");
  const size_t numkeys = static_cast<size_t>(n);
  if (ro && !(f->flags & kScriptNoWrites)) return cx.reply().error(kErrRoWithWriteFlag);
  const std::string name = f->name;  // f may go away if the function table changes meanwhile
  const bool allow_oom = (f->flags & kScriptAllowOom) != 0;
  run(cx, function_engine(), f->ref, numkeys, ro || (f->flags & kScriptNoWrites), true, name, allow_oom);
}

void cmd_fcall(CommandContext& cx) { fcall_generic(cx, false); }
void cmd_fcall_ro(CommandContext& cx) { fcall_generic(cx, true); }

// FUNCTION LOAD [REPLACE] code -> the library name.
void cmd_function_load(CommandContext& cx) {
  bool replace = false;
  for (size_t i = 2; i + 1 < cx.argc(); i++) {
    if (!cx.is_arg(i, "replace")) {
      return cx.reply().error_fmt("ERR Unknown option given: %s", std::string(cx.arg(i)).c_str());
    }
    replace = true;
  }
  std::string name, error;
  if (!function_engine().load_library(cx.arg(cx.argc() - 1), replace, &name, &error)) {
    return cx.reply().error(error);
  }
  cx.set_dirty(1);  // Redis counts a library change as one change (and so propagates it)
  cx.reply().bulk(name);
}

void cmd_function_delete(CommandContext& cx) {
  if (!function_engine().delete_library(cx.arg(2))) return cx.reply().error("ERR Library not found");
  cx.set_dirty(1);
  cx.reply().ok();
}

// FUNCTION LIST [WITHCODE] [LIBRARYNAME pattern]
void cmd_function_list(CommandContext& cx) {
  bool with_code = false;
  std::string_view pattern;
  bool has_pattern = false;
  for (size_t i = 2; i < cx.argc(); i++) {
    if (cx.is_arg(i, "withcode") && !with_code) {
      with_code = true;
    } else if (cx.is_arg(i, "libraryname") && !has_pattern) {
      if (i + 1 >= cx.argc()) return cx.reply().error("ERR library name argument was not given");
      pattern = cx.arg(++i);
      has_pattern = true;
    } else {
      return cx.reply().error_fmt("ERR Unknown argument %s", std::string(cx.arg(i)).c_str());
    }
  }
  LuaEngine& engine = function_engine();
  std::vector<const LuaEngine::Library*> libs;
  for (const auto& [name, lib] : engine.libraries()) {
    if (has_pattern && !glob_match(pattern, name, true)) continue;  // ignoring case (Redis)
    libs.push_back(&lib);
  }
  std::sort(libs.begin(), libs.end(), [](auto* a, auto* b) { return a->name < b->name; });
  ReplyWriter& w = cx.reply();
  w.array(libs.size());
  for (const LuaEngine::Library* lib : libs) {
    w.map(with_code ? 4 : 3);
    w.bulk("library_name");
    w.bulk(lib->name);
    w.bulk("engine");
    w.bulk("LUA");
    w.bulk("functions");
    w.array(lib->functions.size());
    for (const std::string& fname : lib->functions) {
      const LuaEngine::Function* f = engine.find_function(fname);
      w.map(3);
      w.bulk("name");
      w.bulk(fname);
      w.bulk("description");
      if (f && f->has_description) {
        w.bulk(f->description);
      } else {
        w.null();
      }
      w.bulk("flags");
      size_t n = 0;
      for (const ScriptFlagName& fl : kScriptFlagNames) n += (f && (f->flags & fl.flag)) ? 1 : 0;
      w.set(n);
      for (const ScriptFlagName& fl : kScriptFlagNames) {
        if (f && (f->flags & fl.flag)) w.simple(fl.name);
      }
    }
    if (with_code) {
      w.bulk("library_code");
      w.bulk(lib->code);
    }
  }
}

void cmd_function_flush(CommandContext& cx) {
  if (cx.argc() > 3) {
    return cx.reply().error("ERR unknown subcommand or wrong number of arguments for 'flush'. Try FUNCTION HELP.");
  }
  if (cx.argc() == 3 && !cx.is_arg(2, "sync") && !cx.is_arg(2, "async")) {
    return cx.reply().error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
  }
  const bool async = cx.argc() == 3 ? cx.is_arg(2, "async") : command_options().lazyfree_lazy_user_flush;
  flush_engine(function_engine(), async, function_engine().function_count());
  cx.set_dirty(1);  // even with no library (Redis)
  cx.reply().ok();
}

void cmd_function_kill(CommandContext& cx) { kill_generic(cx, true); }

// FUNCTION STATS -> running_script (null or name/command/duration_ms) and the engines.
void cmd_function_stats(CommandContext& cx) {
  if (g_run.active && !g_run.is_function) return cx.reply().error(kBusyEval);
  ReplyWriter& w = cx.reply();
  w.map(2);
  w.bulk("running_script");
  if (g_run.active) {
    w.map(3);
    w.bulk("name");
    w.bulk(g_run.name);
    w.bulk("command");
    w.array(g_run.command.size());
    for (const std::string& a : g_run.command) w.bulk(a);
    w.bulk("duration_ms");
    w.integer((monotonic_us() - g_run.start_us) / 1000);
  } else {
    w.null();
  }
  w.bulk("engines");
  w.map(1);
  w.bulk("LUA");
  w.map(2);
  w.bulk("libraries_count");
  w.integer(static_cast<int64_t>(function_engine().libraries().size()));
  w.bulk("functions_count");
  w.integer(static_cast<int64_t>(function_engine().function_count()));
}

void cmd_function_help(CommandContext& cx) {
  reply_help(cx, "FUNCTION",
             {"LOAD [REPLACE] <FUNCTION CODE>",
              "    Create a new library with the given library name and code.",
              "DELETE <LIBRARY NAME>",
              "    Delete the given library.",
              "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
              "    Return general information on all the libraries:",
              "    * Library name",
              "    * The engine used to run the Library",
              "    * Library description",
              "    * Functions list",
              "    * Library code (if WITHCODE is given)",
              "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
              "STATS",
              "    Return information about the current function running:",
              "    * Function name",
              "    * Command used to run the function",
              "    * Duration in MS that the function is running",
              "    If no function is running, return nil",
              "    In addition, returns a list of available engines.",
              "KILL",
              "    Kill the current running function.",
              "FLUSH [ASYNC|SYNC]",
              "    Delete all the libraries.",
              "    When called without the optional mode argument, the behavior is determined by the",
              "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
              "    * ASYNC: Asynchronously flush the libraries.",
              "    * SYNC: Synchronously flush the libraries.",
              "DUMP",
              "    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
              "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
              "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
              "    control how to handle existing libraries (default APPEND):",
              "    * FLUSH: delete all existing libraries.",
              "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
              "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
              "      libraries with the new libraries (notice that even on this option there is a chance of failure",
              "      in case of functions name collision with another library)."});
}

// ---- Table ---------------------------------------------------------------------------------------

constexpr uint32_t kEvalFlags = kNoScript | kStale | kSkipMonitor | kNoMandatoryKeys | kMovableKeys;

CommandSpec kScriptSubcommands[] = {
    {.name = "load", .handler = cmd_script_load, .arity = 3, .flags = kNoScript | kStale, .acl = kAclScripting, .group = "scripting",
     .summary = "Loads a server-side Lua script to the script cache.", .since = "2.6.0", .complexity = "O(N) with N being the length in bytes of the script body.",
     .tips = "request_policy:all_nodes response_policy:all_succeeded"},
    {.name = "exists", .handler = cmd_script_exists, .arity = -3, .flags = kNoScript, .acl = kAclScripting, .group = "scripting",
     .summary = "Determines whether server-side Lua scripts exist in the script cache.", .since = "2.6.0", .complexity = "O(N) with N being the number of scripts to check (so checking a single script is an O(1) operation).",
     .tips = "request_policy:all_shards response_policy:agg_logical_and"},
    {.name = "flush", .handler = cmd_script_flush, .arity = -2, .flags = kNoScript, .acl = kAclScripting, .group = "scripting",
     .summary = "Removes all server-side Lua scripts from the script cache.", .since = "2.6.0", .complexity = "O(N) with N being the number of scripts in cache",
     .tips = "request_policy:all_nodes response_policy:all_succeeded"},
    {.name = "kill", .handler = cmd_script_kill, .arity = 2, .flags = kNoScript | kAllowBusy, .acl = kAclScripting, .group = "scripting",
     .summary = "Terminates a server-side Lua script during execution.", .since = "2.6.0", .complexity = "O(1)",
     .tips = "request_policy:all_shards response_policy:one_succeeded"},
    {.name = "help", .handler = cmd_script_help, .arity = 2, .flags = kLoading | kStale, .acl = kAclScripting, .group = "scripting",
     .summary = "Returns helpful text about the different subcommands.", .since = "5.0.0", .complexity = "O(1)"},
};

CommandSpec kFunctionSubcommands[] = {
    {.name = "load", .handler = cmd_function_load, .arity = -3, .flags = kWrite | kDenyOom | kNoScript, .acl = kAclScripting, .group = "scripting",
     .summary = "Creates a library.", .since = "7.0.0", .complexity = "O(1) (considering compilation time is redundant)",
     .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "delete", .handler = cmd_function_delete, .arity = 3, .flags = kWrite | kNoScript, .acl = kAclScripting, .group = "scripting",
     .summary = "Deletes a library and its functions.", .since = "7.0.0", .complexity = "O(1)",
     .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "list", .handler = cmd_function_list, .arity = -2, .flags = kNoScript, .acl = kAclScripting, .group = "scripting",
     .summary = "Returns information about all libraries.", .since = "7.0.0", .complexity = "O(N) where N is the number of functions",
     .tips = "nondeterministic_output_order"},
    {.name = "flush", .handler = cmd_function_flush, .arity = -2, .flags = kWrite | kNoScript, .acl = kAclScripting, .group = "scripting",
     .summary = "Deletes all libraries and functions.", .since = "7.0.0", .complexity = "O(N) where N is the number of functions deleted",
     .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "kill", .handler = cmd_function_kill, .arity = 2, .flags = kNoScript | kAllowBusy, .acl = kAclScripting, .group = "scripting",
     .summary = "Terminates a function during execution.", .since = "7.0.0", .complexity = "O(1)",
     .tips = "request_policy:all_shards response_policy:one_succeeded"},
    {.name = "stats", .handler = cmd_function_stats, .arity = 2, .flags = kNoScript | kAllowBusy, .acl = kAclScripting, .group = "scripting",
     .summary = "Returns information about a function during execution.", .since = "7.0.0", .complexity = "O(1)",
     .tips = "nondeterministic_output request_policy:all_shards response_policy:special"},
    {.name = "dump", .handler = cmd_function_dump, .arity = 2, .flags = kNoScript, .acl = kAclScripting, .group = "scripting",
     .summary = "Dumps all libraries into a serialized binary payload.", .since = "7.0.0", .complexity = "O(N) where N is the number of functions"},
    {.name = "restore", .handler = cmd_function_restore, .arity = -3, .flags = kWrite | kDenyOom | kNoScript, .acl = kAclScripting, .group = "scripting",
     .summary = "Restores all libraries from a payload.", .since = "7.0.0", .complexity = "O(N) where N is the number of functions on the payload",
     .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "help", .handler = cmd_function_help, .arity = 2, .flags = kLoading | kStale, .acl = kAclScripting, .group = "scripting",
     .summary = "Returns helpful text about the different subcommands.", .since = "7.0.0", .complexity = "O(1)"},
};

CommandSpec kScriptingCommands[] = {
    {.name = "eval", .handler = cmd_eval, .arity = -3, .flags = kEvalFlags, .acl = kAclScripting, .group = "scripting",
     .summary = "Executes a server-side Lua script.", .since = "2.6.0", .complexity = "Depends on the script that is executed.",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate, 2, fk_keynum(0, 1, 1), "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE")}},
    {.name = "evalsha", .handler = cmd_evalsha, .arity = -3, .flags = kEvalFlags, .acl = kAclScripting, .group = "scripting",
     .summary = "Executes a server-side Lua script by SHA1 digest.", .since = "2.6.0", .complexity = "Depends on the script that is executed.",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate, 2, fk_keynum(0, 1, 1))}},
    {.name = "eval_ro", .handler = cmd_eval_ro, .arity = -3, .flags = kReadOnly | kEvalFlags, .acl = kAclScripting, .group = "scripting",
     .summary = "Executes a read-only server-side Lua script.", .since = "7.0.0", .complexity = "Depends on the script that is executed.",
     .keys = {ks(kKsRO | kKsAccess, 2, fk_keynum(0, 1, 1), "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS")}},
    {.name = "evalsha_ro", .handler = cmd_evalsha_ro, .arity = -3, .flags = kReadOnly | kEvalFlags, .acl = kAclScripting, .group = "scripting",
     .summary = "Executes a read-only server-side Lua script by SHA1 digest.", .since = "7.0.0", .complexity = "Depends on the script that is executed.",
     .keys = {ks(kKsRO | kKsAccess, 2, fk_keynum(0, 1, 1))}},
    {.name = "fcall", .handler = cmd_fcall, .arity = -3, .flags = kEvalFlags, .acl = kAclScripting, .group = "scripting",
     .summary = "Invokes a function.", .since = "7.0.0", .complexity = "Depends on the function that is executed.",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate, 2, fk_keynum(0, 1, 1), "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE")}},
    {.name = "fcall_ro", .handler = cmd_fcall_ro, .arity = -3, .flags = kReadOnly | kEvalFlags, .acl = kAclScripting, .group = "scripting",
     .summary = "Invokes a read-only function.", .since = "7.0.0", .complexity = "Depends on the function that is executed.",
     .keys = {ks(kKsRO | kKsAccess, 2, fk_keynum(0, 1, 1), "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS")}},
    {.name = "script", .handler = nullptr, .arity = -2, .group = "scripting",
     .summary = "A container for Lua scripts management commands.", .since = "2.6.0", .complexity = "Depends on subcommand.",
     .subcommands = kScriptSubcommands},
    {.name = "function", .handler = nullptr, .arity = -2, .group = "scripting",
     .summary = "A container for function commands.", .since = "7.0.0", .complexity = "Depends on subcommand.",
     .subcommands = kFunctionSubcommands},
};

}  // namespace

bool script_command_may_write(const CommandSpec& c, std::span<const std::string_view> args) {
  return may_write_impl(c, args);
}

bool is_script_session(const Session* s) { return s == &script_session(); }

std::span<CommandSpec> scripting_commands() { return kScriptingCommands; }

LuaEngine& functions_for_persistence() { return function_engine(); }

namespace {
// The script's declared flags for admission; false when the script or function is unknown.
bool admission_script_flags(const CommandSpec& c, std::span<const std::string_view> args, uint32_t* out) {
  if (args.size() < 2) return false;
  uint32_t flags;
  if (c.handler == cmd_fcall || c.handler == cmd_fcall_ro) {
    const LuaEngine::Function* f = function_engine().find_function(args[1]);
    if (!f) return false;
    flags = f->flags;
  } else if (c.handler == cmd_evalsha || c.handler == cmd_evalsha_ro) {
    const LuaEngine::Script* script = eval_engine().find_script(args[1]);
    if (!script) return false;
    flags = script->flags;
  } else if (c.handler == cmd_eval || c.handler == cmd_eval_ro) {
    char sha[41];
    sha1_hex(args[1], sha);
    const LuaEngine::Script* script = eval_engine().find_script(std::string_view(sha, 40));
    flags = script ? script->flags : LuaEngine::shebang_flags(args[1]);
  } else {
    return false;
  }
  *out = flags;
  return true;
}
}  // namespace

bool script_admission_writes(const CommandSpec& c, std::span<const std::string_view> args) {
  uint32_t flags;
  if (!admission_script_flags(c, args, &flags)) return false;
  return !(flags & (kScriptEvalCompat | kScriptNoWrites));
}

bool script_admission_denyoom(const CommandSpec& c, std::span<const std::string_view> args) {
  uint32_t flags;
  if (!admission_script_flags(c, args, &flags)) return false;
  return !(flags & (kScriptEvalCompat | kScriptNoWrites | kScriptAllowOom));
}

void scripting_init() {
  (void)eval_engine();
  (void)function_engine();
}

ScriptingMemory scripting_memory() {
  ScriptingMemory m;
  const LuaEngine& eval = eval_engine();
  const LuaEngine& fn = function_engine();
  m.vm_eval = eval.memory();
  m.vm_functions = fn.memory();
  m.scripts_eval = eval.scripts_memory();
  m.cached_scripts = eval.script_count();
  m.function_count = fn.function_count();
  m.library_count = fn.libraries().size();
  for (const auto& [name, lib] : fn.libraries()) {
    m.functions += sizeof(LuaEngine::Library) + name.size() + lib.code.size();
    for (const std::string& f : lib.functions) {
      const LuaEngine::Function* fun = fn.find_function(f);
      m.functions += sizeof(LuaEngine::Function) + f.size() + (fun ? fun->description.size() : 0);
    }
  }
  return m;
}

}  // namespace keel
