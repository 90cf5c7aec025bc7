// Command dispatch and the CommandContext helpers shared by every family.
#include "commands/dispatch.h"

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/log.h"
#include "base/numbers.h"
#include "base/time.h"
#include "commands/command_table.h"
#include "commands/multi.h"
#include "commands/pubsub.h"
#include "commands/server_api.h"
#include "commands/slowlog.h"
#include "keyspace/keyspace.h"
#include "persistence/rdb_bgsave.h"

namespace keel {
namespace {
ServerApi* g_api = nullptr;
CommandContext* g_current_command = nullptr;

// Redis builds this text with printf "%.128s" for the name and "'%.*s' " per argument with a
// precision of 128 minus the list built so far: every piece stops at an embedded NUL, and the
// budget is counted before the opening quote.
void reply_unknown_command(ReplyWriter& w, std::span<const std::string_view> args) {
  auto c_str = [](std::string_view s) { return s.substr(0, s.find('\0')); };
  std::string msg = "ERR unknown command '";
  msg.append(c_str(args[0]).substr(0, 128));
  msg += "', with args beginning with: ";
  std::string list;
  for (size_t i = 1; i < args.size() && list.size() < 128; i++) {
    const size_t room = 128 - list.size();
    list += '\'';
    list.append(c_str(args[i]).substr(0, room));
    list += "' ";
  }
  w.error(msg + list);
}
}  // namespace

constinit CommandOptions g_command_options;

constinit DispatchStats g_dispatch_stats;

BusyState& busy_state() {
  static BusyState state;
  return state;
}

CommandContext* current_command() { return g_current_command; }

void set_server_api(ServerApi* api) { g_api = api; }
ServerApi& server_api() { return *g_api; }

const CommandSpec* resolve_command(std::span<const std::string_view> args) {
  const CommandSpec* c = lookup_command(args[0]);
  if (c && !c->subcommands.empty() && args.size() >= 2) {
    const CommandSpec* sub = lookup_subcommand(*c, args[1]);
    return sub ? sub : c;
  }
  return c;
}

int64_t execute_command(Session& s, std::span<const std::string_view> args, uint64_t* hashes,
                        ReplyWriter& w, ServerApi& api, const CommandSpec* c, int64_t start_us) {
  if (!c) c = resolve_command(args);
  const size_t mark = w.buffer()->size();
  s.last_cmd_name = c ? c->full_name : nullptr;
  // CLIENT REPLY OFF drops every reply; SKIP (armed by the previous command) drops this one.
  const bool reply_was_off = s.flags & Session::kReplyOff;
  bool skip_reply = reply_was_off;
  if (s.flags & Session::kReplySkipNext) {
    s.flags &= ~Session::kReplySkipNext;
    skip_reply = true;
  }
  auto finish = [&]() -> int64_t {
    // CLIENT REPLY ON turned replies back on: its own +OK is sent.
    if (skip_reply && !(reply_was_off && !(s.flags & Session::kReplyOff))) w.buffer()->resize(mark);
    return 0;
  };

  if (!c) {
    (void)multi_reject(s, nullptr);  // inside MULTI: EXEC will answer EXECABORT
    reply_unknown_command(w, args);
    return finish();
  }
  if (!c->parent && !c->subcommands.empty() && args.size() >= 2) {
    // Redis counts an unknown subcommand nowhere in commandstats (only in errorstats).
    (void)multi_reject(s, c);
    std::string upper(c->name);
    for (char& ch : upper) ch = static_cast<char>(toupper(ch));
    w.error_fmt("ERR unknown subcommand '%.128s'. Try %s HELP.", std::string(args[1]).c_str(),
                upper.c_str());
    return finish();
  }
  // Redis's rejectCommand: the command is not run. A rejected EXEC discards the transaction
  // (unwatching the keys, even outside MULTI) and answers "EXECABORT Transaction discarded
  // because of: <reason>" (the reason without its "ERR "); any other rejected command inside
  // MULTI marks the transaction so that EXEC answers EXECABORT.
  auto reject = [&](std::string_view err) -> int64_t {
    c->stats->rejected_calls++;
    if (KEEL_UNLIKELY(!c->parent && !strcmp(c->name, "exec"))) {
      multi_discard(s);
      if (err.substr(0, 4) == "ERR ") err.remove_prefix(4);
      w.error("EXECABORT Transaction discarded because of: " + std::string(err));
      return finish();
    }
    (void)multi_reject(s, c);
    w.error(err);
    return finish();
  };
  const int argc = static_cast<int>(args.size());
  if ((c->arity > 0 && argc != c->arity) || argc < -c->arity) {
    return reject("ERR wrong number of arguments for '" + std::string(c->full_name) + "' command");
  }
  if (!s.authenticated && !(c->flags & kNoAuth)) return reject(kErrNoAuth);
  // MISCONF after a failed BGSAVE (rdb_bgsave.h): writes, and PING from a client, are refused.
  if (KEEL_UNLIKELY(g_rdb_bgsave_failed) && rdb_writes_denied() &&
      ((c->flags & kWrite) || (s.client && !strcmp(c->full_name, "ping")))) {
    return reject(kErrMisconf);
  }
  if (KEEL_UNLIKELY(busy_state().error != nullptr) && !(c->flags & kAllowBusy)) {
    return reject(busy_state().error);
  }
  // Redis checks the RESP2 subscribed context when a command arrives (processCommand), not
  // when EXEC runs the queue: commands queued after a SUBSCRIBE in MULTI still run.
  if (KEEL_UNLIKELY(s.flags & Session::kPubSub) && s.resp == 2 &&
      !(s.flags & Session::kInExec) && !pubsub_allowed_in_context(*c)) {
    return reject("ERR Can't execute '" + std::string(c->full_name) +
                  "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in "
                  "this context");
  }

  if (KEEL_UNLIKELY(s.flags & Session::kMulti) && !multi_runs_immediately(*c)) {
    multi_queue(s, args, *c, w);  // +QUEUED, or the no_multi rejection
    return finish();
  }

  const int64_t start = start_us != 0 ? start_us : ustime();
  // Commands run by EXEC see the clock of the EXEC: no key expires half-way (Redis 7.2+).
  if (KEEL_LIKELY(!(s.flags & Session::kInExec))) g_clock.now_ms = start / 1000;
  const uint64_t errors_before = w.errors();
  CommandContext cx(s, args, hashes, w, api, *c);
  Session* const pubsub_outer = g_pubsub_exec.current;  // pub/sub messages to s wait for the reply
  g_pubsub_exec.current = &s;
  // The crash report's "current client" (server/crash_report.cc): a pointer to this frame's
  // context, put back afterwards because EXEC and scripts run commands inside a command.
  CommandContext* const crash_outer = g_current_command;
  g_current_command = &cx;
  // CLIENT NO-TOUCH: the outermost command decides (Redis looks at server.current_client, whose
  // command is EVAL or EXEC for the commands those run); TOUCH itself still touches.
  const bool no_touch_outer = g_clock.no_touch;
  if (pubsub_outer == nullptr) {
    g_clock.no_touch = KEEL_UNLIKELY(s.flags & Session::kNoTouch) && strcmp(c->name, "touch") != 0;
  }
  c->handler(cx);
  g_clock.no_touch = no_touch_outer;
  g_current_command = crash_outer;
  g_pubsub_exec.current = pubsub_outer;
  const int64_t end = ustime();
  const int64_t duration = end - start;

  c->stats->calls++;
  c->stats->usec += static_cast<uint64_t>(duration);
  if (w.errors() != errors_before) c->stats->failed_calls++;
  dispatch_stats().total_commands_processed++;
  const CommandOptions& opts = command_options();
  if (opts.slowlog_log_slower_than >= 0 && duration >= opts.slowlog_log_slower_than &&
      !(c->flags & kSkipSlowlog)) {
    slowlog().add(args, duration, s.addr, s.name, static_cast<size_t>(opts.slowlog_max_len));
  }
  if (KEEL_UNLIKELY(api.has_monitors()) && !(c->flags & (kSkipMonitor | kAdmin))) {
    api.feed_monitors(s, args);
  }
  if (KEEL_UNLIKELY(opts.keysizes_hist_assert)) {
    for (int i = 0; i < keyspace().count(); i++) {
      std::string diff;
      const bool keysizes_consistent = keyspace().db(i).keysizes_consistent(&diff);
      if (!keysizes_consistent) LOG_WARNING("KEYSIZES mismatch after '%s': %s", c->full_name, diff.c_str());
      KEEL_ASSERT(keysizes_consistent);
    }
  }
  finish();
  if (KEEL_UNLIKELY(!g_pubsub_exec.deferred.empty()) && !pubsub_outer) {
    pubsub_flush_deferred(w.buffer());
  }
  return end;
}

// ---- CommandContext helpers ------------------------------------------------------------------

bool CommandContext::int_arg(size_t i, int64_t* out) {
  if (parse_int64(args_[i], out)) return true;
  reply_.error(kErrNotInteger);
  return false;
}

bool CommandContext::double_arg(size_t i, double* out) {
  if (parse_double(args_[i], out)) return true;
  reply_.error(kErrNotFloat);
  return false;
}

bool CommandContext::db_index_arg(size_t i, int* out) {
  // Redis's getIntFromObjectOrReply, then the range of configured databases.
  int64_t v;
  if (!parse_int64(args_[i], &v)) {
    reply_.error(kErrNotInteger);
    return false;
  }
  if (v < INT_MIN || v > INT_MAX) {
    reply_.error("ERR value is out of range, value must between -2147483648 and 2147483647");
    return false;
  }
  if (v < 0 || v >= command_options().databases) {
    reply_.error(kErrDbIndex);
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

bool CommandContext::is_arg(size_t i, std::string_view word) const {
  return i < args_.size() && equals_nocase(args_[i], word);
}

bool CommandContext::random_count_args(std::string_view with_word, int64_t* count, bool* with) {
  if (!int_arg(2, count)) return false;
  if (*count == INT64_MIN) {
    reply_.error(
        "ERR value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807");
    return false;
  }
  *with = false;
  if (argc() > 4 || (argc() == 4 && !is_arg(3, with_word))) {
    reply_.error(kErrSyntax);
    return false;
  }
  if (argc() == 4) {
    *with = true;
    // The reply holds two elements per item: keep 2 * count representable.
    if (*count < -INT64_MAX / 2 || *count > INT64_MAX / 2) {
      reply_.error("ERR value is out of range");
      return false;
    }
  }
  return true;
}

bool CommandContext::check_type(const Object* o, Type t) {
  if (o->type() == t) return true;
  reply_.error(kErrWrongType);
  return false;
}

void CommandContext::reply_collection_length(Type t) {
  const Object* o = db().find(key(1));
  if (!o) return reply_.integer(0);
  if (!check_type(o, t)) return;
  reply_.integer(object_length(o));
}

void CommandContext::reply_arity_error() {
  reply_.error_fmt("ERR wrong number of arguments for '%s' command", cmd_.full_name);
}

}  // namespace keel
