// Admission (execute_command), call() and the CommandContext helpers shared by every family.
#include "commands/dispatch.h"

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/admission.h"
#include "base/fork.h"
#include "base/log.h"
#include "base/numbers.h"
#include "base/time.h"
#include "commands/acl.h"
#include "commands/blocking.h"
#include "commands/cmd_scripting.h"
#include "commands/command_table.h"
#include "commands/latency.h"
#include "commands/multi.h"
#include "commands/pause.h"
#include "commands/pubsub.h"
#include "commands/server_api.h"
#include "commands/slowlog.h"
#include "commands/tracking.h"
#include "keyspace/evict.h"
#include "keyspace/keyspace.h"
#include "persistence/persistence.h"
#include "persistence/aof.h"
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

constinit ExecUnit g_exec_unit;

constinit bool g_pre_command_oom = false;

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

namespace {
// Commands whose direct execution may delete any number of expired keys: their deletions are
// propagated one by one, not as a transaction (Redis 7.2+, CMD_TOUCHES_ARBITRARY_KEYS).
bool touches_arbitrary_keys(const CommandSpec* c) {
  return c && (!strcmp(c->name, "scan") || !strcmp(c->name, "randomkey"));
}

[[gnu::always_inline]] inline void record_call(Session& s, const CommandSpec& c,
                                               std::span<const std::string_view> args,
                                               int64_t duration, bool failed) {
  c.stats->calls++;
  c.stats->usec += static_cast<uint64_t>(duration);
  latency_after_command(c, duration);  // latency-tracking histograms, latency monitor
  if (failed) c.stats->failed_calls++;
  dispatch_stats().total_commands_processed++;
  const CommandOptions& opts = command_options();
  if (opts.slowlog_log_slower_than >= 0 && duration >= opts.slowlog_log_slower_than &&
      !(c.flags & kSkipSlowlog)) {
    slowlog().add(args, duration, s.addr, s.name, static_cast<size_t>(opts.slowlog_max_len));
  }
}

// The end of a unit when something is pending: the propagated transaction, then the messages
// the unit published to its own client, after its reply (Redis 7.2+ order).
[[gnu::noinline]] void end_unit_slow(const CommandSpec& c, ReplyWriter& w) {
  if (g_propagating && !propagation_unit_empty()) propagation_end_unit(touches_arbitrary_keys(&c));
  // Invalidations for the unit's own client, then its pub/sub messages (Redis 7.2's order).
  if (!g_tracking_deferred.empty()) tracking_flush_deferred(w.buffer());
  if (!g_pubsub_deferred.empty()) pubsub_flush_deferred(w.buffer());
  g_unit_end_work = false;  // set again by whatever defers work to the next unit's end
}

// A command that ran (did not block): Redis's rule, propagated when the dirty counter moved
// or the handler forces it; `raw` is what the client sent for it when it came from its input.
[[gnu::always_inline]] inline void propagate_command(Session& s, std::span<const std::string_view> args,
                                                     const CommandContext& cx, std::string_view raw) {
  const uint8_t pf = cx.prop_flags();
  const bool changed = keyspace_stats().dirty != cx.dirty_base();
  if (!(pf & CommandContext::kPropPrevent) && (changed || cx.force_targets() != 0)) {
    propagation_add_own(s.db->id(), args, pf & CommandContext::kPropRewritten,
                        changed ? uint8_t{kPropagateAll} : cx.force_targets(), raw);
  } else if (pf & CommandContext::kPropRewritten) {
    propagation_drop_rewrite();
  }
}

// After the handler, when the command may block or was blocked, the reply is to be dropped, or
// propagation is on and the session is blocked: everything call() does after a handler but
// MONITOR and keysizes.
[[gnu::noinline]] void after_handler_slow(Session& s, std::span<const std::string_view> args,
                                          ReplyWriter& w, const CommandSpec& c,
                                          const CommandContext& cx, uint32_t flags,
                                          int64_t duration, bool failed, size_t reply_mark) {
  // A command that blocked has not run yet: it is counted (and logged) when it is served, times
  // out or is unblocked, with the duration of every run (Redis 7.2+).
  const bool blocked = (flags & kCallReprocessing) ? blocking_reblocked() : (s.flags & Session::kBlocked) != 0;
  if (g_propagating) {
    if (!blocked) {
      propagate_command(s, args, cx, (flags & kCallReprocessing) ? std::string_view() : s.raw_request);
    } else if (cx.prop_flags() & CommandContext::kPropRewritten) {
      propagation_drop_rewrite();
    }
  }
  if (!blocked) {
    if (flags & kCallReprocessing) {
      duration += s.blocked_us;
      s.blocked_us = 0;
    }
    record_call(s, c, args, duration, failed);
  } else {
    s.blocked_us += duration;
  }
  if (flags & kCallSkipReply) {
    // Looked at again now: CLIENT REPLY ON turned replies back on and its +OK stays. A command
    // that blocked keeps its SKIP for the reply it gets when served (blocking.cc).
    if (s.flags & (Session::kReplyOff | Session::kReplySkip)) w.buffer()->resize(reply_mark);
    if (!blocked) s.flags &= ~Session::kReplySkip;
  }
}

// call()'s body, inlined into execute_command (the per-command path) and the out-of-line call().
// `reply_mark`: where the reply starts in w's buffer (used with kCallSkipReply).
[[gnu::always_inline]] inline int64_t call_impl(Session& s, std::span<const std::string_view> args,
                                                uint64_t* hashes, ReplyWriter& w, ServerApi& api,
                                                const CommandSpec& c, int64_t start_us,
                                                uint32_t flags, size_t reply_mark) {
  ExecUnit& unit = g_exec_unit;
  const bool outer = unit.depth == 0;
  const int64_t start = start_us != 0 ? start_us : ustime();
  if (outer) {
    // One clock for the whole unit: no key expires half-way through a command, an EXEC or a
    // script (Redis 7.2+ freezes it for the execution unit).
    g_clock.now_ms = start / 1000;
    unit.client = &s;
    // CLIENT NO-TOUCH: the outermost command decides (Redis looks at server.current_client,
    // whose command is EVAL or EXEC for the commands those run); TOUCH itself still touches.
    // While a fork child exists no lookup touches (base/fork.h).
    g_clock.no_touch = (KEEL_UNLIKELY(s.flags & Session::kNoTouch) && strcmp(c.name, "touch") != 0) ||
                       g_fork_child_exists;
  }
  const uint64_t errors_before = w.errors();
  CommandContext cx(s, args, hashes, w, api, c);
  // The crash report's "current client" (server/crash_report.cc): a pointer to this frame's
  // context, put back afterwards because EXEC and scripts run commands inside a command.
  CommandContext* const crash_outer = g_current_command;
  g_current_command = &cx;
  unit.depth++;
  c.handler(cx);
  // Client-side caching: the keys a tracking client reads (tracking.h).
  if (KEEL_UNLIKELY(g_tracking_clients != 0) && (c.flags & kReadOnly)) tracking_remember_keys(s, c, args);
  unit.depth--;
  g_current_command = crash_outer;
  const int64_t end = ustime();
  const int64_t duration = end - start;

  // The common cases: a command that cannot block, run directly, with or without a consumer
  // of the change stream (a blocked session here is WAIT's: after_handler_slow).
  if (KEEL_LIKELY((flags | (c.flags & kBlocking)) == 0) &&
      (KEEL_LIKELY(!g_propagating) || !(s.flags & Session::kBlocked))) {
    if (g_propagating) propagate_command(s, args, cx, s.raw_request);
    record_call(s, c, args, duration, w.errors() != errors_before);
  } else {
    after_handler_slow(s, args, w, c, cx, flags, duration, w.errors() != errors_before, reply_mark);
  }
  if (KEEL_UNLIKELY(g_monitors_present) && !(c.flags & (kSkipMonitor | kAdmin)) &&
      !(flags & kCallReprocessing)) {
    api.feed_monitors(s, args);
  }
  if (KEEL_UNLIKELY(command_options().keysizes_hist_assert)) {
    for (int i = 0; i < keyspace().count(); i++) {
      std::string diff;
      const bool keysizes_consistent = keyspace().db(i).keysizes_consistent(&diff);
      if (!keysizes_consistent) LOG_WARNING("KEYSIZES mismatch after '%s': %s", c.full_name, diff.c_str());
      KEEL_ASSERT(keysizes_consistent);
    }
  }
  if (outer) {
    if (KEEL_UNLIKELY(g_unit_end_work)) end_unit_slow(c, w);
    g_clock.no_touch = g_fork_child_exists;
  }
  return end;
}
}  // namespace

int64_t call(Session& s, std::span<const std::string_view> args, uint64_t* hashes, ReplyWriter& w,
             ServerApi& api, const CommandSpec& c, int64_t start_us, uint32_t flags) {
  return call_impl(s, args, hashes, w, api, c, start_us, flags, w.buffer()->size());
}

namespace {
// A command that ends in admission (unknown, rejected, queued): its reply goes nowhere under
// CLIENT REPLY OFF or SKIP. Plain functions rather than lambdas: closures capturing the
// admission's locals cost stores on every command, also when no path uses them.
inline int64_t admission_done(Session& s, ReplyWriter& w, bool muted, size_t mark) {
  if (KEEL_UNLIKELY(muted)) {
    w.buffer()->resize(mark);
    s.flags &= ~Session::kReplySkip;
  }
  return 0;
}

// Redis's rejectCommand: the command is not run. A rejected EXEC discards the transaction
// (unwatching the keys, even outside MULTI) and answers "EXECABORT Transaction discarded
// because of: <reason>" (the reason without its "ERR "); any other rejected command inside
// MULTI marks the transaction so that EXEC answers EXECABORT.
[[gnu::noinline]] int64_t reject_command(Session& s, ReplyWriter& w, const CommandSpec* c,
                                         bool muted, size_t mark, std::string_view err) {
  c->stats->rejected_calls++;
  tracking_command_done(s, *c);  // a rejected command uses up CLIENT CACHING too (as Redis)
  if (KEEL_UNLIKELY(!c->parent && !strcmp(c->name, "exec"))) {
    multi_discard(s);
    if (err.substr(0, 4) == "ERR ") err.remove_prefix(4);
    w.error("EXECABORT Transaction discarded because of: " + std::string(err));
    return admission_done(s, w, muted, mark);
  }
  (void)multi_reject(s, c);
  w.error(err);
  return admission_done(s, w, muted, mark);
}

// The replication gates (base/admission.h), in Redis's order: NOREPLICAS (writes on a master
// short of good replicas), READONLY (writes on a read-only replica), MASTERDOWN (everything
// without the stale flag while the link is down and replica-serve-stale-data is no). The
// master's own stream is exempt. Out of line: the admission path stays as it was.
[[gnu::noinline]] const char* replication_refusal(Session& s, const CommandSpec& c) {
  if (s.flags & Session::kMaster) return nullptr;
  const bool write = (c.flags & kWrite) || (!strcmp(c.full_name, "exec") && multi_queued_write(s));
  if (g_admission_gates.noreplicas && write) return "NOREPLICAS Not enough good replicas to write.";
  if (g_admission_gates.replica_ro && write) return "READONLY You can't write against a read only replica.";
  if (g_admission_gates.masterdown && !(c.flags & kStale)) {
    return "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";
  }
  return nullptr;
}

// The memory ceiling (Redis's processCommand with maxmemory set): every command a client sends
// first lets eviction run; over the ceiling with nothing left to evict, a deny-oom command is
// refused, and so is any command inside MULTI but EXEC, DISCARD, QUIT and RESET (the queue
// would grow without bound); EXEC is refused when its queue holds a deny-oom command, EVAL* /
// FCALL* when the script declares flags without allow-oom or no-writes.
[[gnu::noinline]] bool oom_refused(Session& s, const CommandSpec& c, std::span<const std::string_view> args) {
  const bool out_of_memory = perform_evictions() == EvictResult::kFail;
  g_pre_command_oom = out_of_memory;
  if (!out_of_memory) return false;
  const char* name = (c.parent ? c.parent : &c)->name;
  const bool exec = !strcmp(name, "exec");
  if (c.flags & kDenyOom) return true;
  if (exec && multi_queued_denyoom(s)) return true;
  if ((c.flags & kNoMandatoryKeys) && script_admission_denyoom(c, args)) return true;
  return (s.flags & Session::kMulti) && !exec && strcmp(name, "discard") != 0 && strcmp(name, "quit") != 0 &&
         strcmp(name, "reset") != 0;
}

// execute_command's fast path with a memory ceiling set and no other gate: eviction runs as in
// oom_refused; true when the command may go on (not over the ceiling, or the command is not one
// that admission refuses then: the full admission decides, and runs eviction again).
[[gnu::noinline]] bool ceiling_admits(const Session& s) {
  if (!admission_only_maxmemory() || g_exec_unit.depth != 0 || (s.flags & Session::kMaster)) return false;
  const bool out_of_memory = perform_evictions() == EvictResult::kFail;
  g_pre_command_oom = out_of_memory;
  return !out_of_memory;
}

// Admission with every check: execute_command's path when anything at all is unusual.
[[gnu::noinline]] int64_t execute_command_slow(Session& s, std::span<const std::string_view> args,
                                               uint64_t* hashes, ReplyWriter& w, ServerApi& api,
                                               const CommandSpec* c, int64_t start_us) {
  const size_t mark = w.buffer()->size();
  s.last_cmd_name = c ? c->full_name : nullptr;
  // CLIENT REPLY OFF drops every reply; SKIP (armed by the previous command) drops this one.
  // The outermost command decides when it ends, so CLIENT REPLY ON (which clears both) gets its
  // +OK out, and a command EXEC runs does not consume a SKIP. Subscription confirmations are
  // pushes and go out anyway (commands/cmd_pubsub.cc writes them where the unit's pushes wait).
  const bool outermost = g_exec_unit.depth == 0;
  if (outermost && KEEL_UNLIKELY(s.flags & Session::kReplySkipNext)) {
    s.flags = (s.flags & ~Session::kReplySkipNext) | Session::kReplySkip;
  }
  const bool muted = outermost && KEEL_UNLIKELY(s.flags & (Session::kReplyOff | Session::kReplySkip));

  if (!c) {
    (void)multi_reject(s, nullptr);  // inside MULTI: EXEC will answer EXECABORT
    if (!(s.flags & Session::kMulti)) s.flags &= ~Session::kTrackingCaching;
    reply_unknown_command(w, args);
    return admission_done(s, w, muted, mark);
  }
  if (!c->parent && !c->subcommands.empty() && args.size() >= 2) {
    // Redis counts an unknown subcommand nowhere in commandstats (only in errorstats).
    (void)multi_reject(s, c);
    std::string upper(c->name);
    for (char& ch : upper) ch = static_cast<char>(toupper(ch));
    w.error_fmt("ERR unknown subcommand '%.128s'. Try %s HELP.", std::string(args[1]).c_str(),
                upper.c_str());
    return admission_done(s, w, muted, mark);
  }
  const int argc = static_cast<int>(args.size());
  if ((c->arity > 0 && argc != c->arity) || argc < -c->arity) {
    return reject_command(s, w, c, muted, mark,
                          "ERR wrong number of arguments for '" + std::string(c->full_name) + "' command");
  }
  // Redis's protected commands, refused right after the arity check (before AUTH), so inside
  // MULTI they are never queued and EXEC answers EXECABORT.
  if (KEEL_UNLIKELY(c->flags & kProtected)) {
    const bool debug = !strcmp((c->parent ? c->parent : c)->name, "debug");
    if (!debug || !api.debug_command_allowed(s)) {
      return reject_command(s, w, c, muted, mark, debug ? kErrDebugNotAllowed : kErrModuleNotAllowed);
    }
  }
  if (!s.authenticated && !(c->flags & kNoAuth)) return reject_command(s, w, c, muted, mark, kErrNoAuth);
  // ACL (commands/acl.h): only a session of a restricted user carries kAclRestricted.
  if (KEEL_UNLIKELY(s.flags & Session::kAclRestricted)) {
    std::string acl_err;
    if (!acl_admit(s, *c, args, api, (s.flags & Session::kMulti) ? "multi" : "toplevel", &acl_err)) {
      return reject_command(s, w, c, muted, mark, acl_err);
    }
  }
  // The rare server states (base/admission.h), in Redis's order around the pub/sub context
  // check; none of them set is one load and branch.
  if (KEEL_UNLIKELY(admission_gated())) {
    // Not while a script is busy (its own commands are not admitted here; the others wait).
    if (g_admission_gates.maxmemory && !g_admission_gates.busy && outermost && !(s.flags & Session::kMaster) &&
        oom_refused(s, *c, args)) {
      return reject_command(s, w, c, muted, mark, kErrOom);
    }
    // MISCONF after a failed BGSAVE (rdb_bgsave.h): writes, and PING from a client, are
    // refused. A function, or a script with a shebang, is a write unless it declares no-writes.
    // The same after an AOF write or fsync error (aof.h), with the AOF's text.
    if (((g_rdb_bgsave_failed && rdb_writes_denied()) || g_admission_gates.aof_error) &&
        ((c->flags & kWrite) || (s.client && !strcmp(c->full_name, "ping")) ||
         ((c->flags & kNoMandatoryKeys) && script_admission_writes(*c, args)) ||
         (!strcmp(c->full_name, "exec") && multi_queued_write(s)))) {
      return reject_command(s, w, c, muted, mark,
                            g_rdb_bgsave_failed && rdb_writes_denied() ? kErrMisconf : aof_write_error());
    }
    if (g_admission_gates.noreplicas || g_admission_gates.replica_ro || g_admission_gates.masterdown) {
      if (const char* e = replication_refusal(s, *c)) return reject_command(s, w, c, muted, mark, e);
    }
    if (busy_state().error != nullptr && !(c->flags & kAllowBusy)) {
      return reject_command(s, w, c, muted, mark, busy_state().error);
    }
  }
  // Redis checks the RESP2 subscribed context when a command arrives (processCommand), not
  // when EXEC runs the queue: commands queued after a SUBSCRIBE in MULTI still run (EXEC's
  // queue goes to call() directly).
  if (KEEL_UNLIKELY(s.flags & Session::kPubSub) && s.resp == 2 && !pubsub_allowed_in_context(*c)) {
    return reject_command(s, w, c, muted, mark, "ERR Can't execute '" + std::string(c->full_name) +
                  "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in "
                  "this context");
  }
  if (KEEL_UNLIKELY(admission_gated())) {
    // The dataset is loading at start-up (persistence.h): only commands flagged `loading` run.
    if (g_loading_dataset && !(c->flags & kOkLoading)) return reject_command(s, w, c, muted, mark, kErrLoading);
    // CLIENT PAUSE (pause.h): after the checks that answer at once, before MULTI queueing, as
    // in Redis's processCommand. The session is held; the server keeps this command and runs
    // it again (admission included) when the pause ends. Its reply mode stays as it is now.
    if (g_pause.type != PauseType::kNone && outermost && s.client != nullptr &&
        pause_check_timeout(mstime(), api) && pause_holds(s, *c, args)) {
      pause_hold(s);
      return 0;
    }
  }

  if (KEEL_UNLIKELY(s.flags & Session::kMulti) && !multi_runs_immediately(*c)) {
    multi_queue(s, args, *c, w);  // +QUEUED, or the no_multi rejection
    return admission_done(s, w, muted, mark);
  }

  const int64_t end = call(s, args, hashes, w, api, *c, start_us, muted ? uint32_t{kCallSkipReply} : 0u);
  tracking_command_done(s, *c);
  return end;
}

// Session states that take the full admission (reply modes, subscriptions, MULTI, CLIENT
// CACHING, a user with restricted permissions), and command flags that do (protected commands, containers whose subcommand was
// not found).
constexpr uint32_t kAdmissionSessionFlags = Session::kReplyOff | Session::kReplySkipNext |
                                            Session::kReplySkip | Session::kPubSub |
                                            Session::kMulti | Session::kTrackingCaching |
                                            Session::kAclRestricted;
constexpr uint32_t kAdmissionCommandFlags = kProtected | kContainer;
}  // namespace

// The common case in one test: a known command with its arity, from an authenticated session
// in none of the states above, with no server-wide gate set, goes straight to call(); all the
// rest takes execute_command_slow, which checks everything in Redis's order.
int64_t execute_command(Session& s, std::span<const std::string_view> args, uint64_t* hashes,
                        ReplyWriter& w, ServerApi& api, const CommandSpec* c, int64_t start_us) {
  if (!c) c = resolve_command(args);
  if (KEEL_LIKELY(c != nullptr)) {
    const int argc = static_cast<int>(args.size());
    const bool arity_ok = c->arity > 0 ? argc == c->arity : argc >= -c->arity;
    const uint32_t states = s.flags & kAdmissionSessionFlags;
    if (KEEL_LIKELY(arity_ok & s.authenticated &
                    (((states & ~uint32_t{Session::kAclRestricted}) | (c->flags & kAdmissionCommandFlags)) == 0))) {
      // A restricted user's command that its permissions allow needs nothing else here, nor
      // does any command under a memory ceiling once eviction made room; a denial or an
      // out-of-memory state takes the full admission, which replies (and logs a denial).
      if ((KEEL_LIKELY(states == 0) || acl_allows(s, *c, args)) &&
          (KEEL_LIKELY(!admission_gated()) || ceiling_admits(s))) {
        s.last_cmd_name = c->full_name;
        return call_impl(s, args, hashes, w, api, *c, start_us, 0, 0);
      }
    }
  }
  return execute_command_slow(s, args, hashes, w, api, c, start_us);
}

void command_unblocked(Session& s, const CommandSpec& c, std::span<const std::string_view> args,
                       bool failed) {
  const int64_t duration = s.blocked_us;
  s.blocked_us = 0;
  record_call(s, c, args, duration, failed);
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
