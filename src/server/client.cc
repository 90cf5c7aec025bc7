// The per-connection read → parse → prefetch → execute → write path.
#include "server/client.h"

#include <cerrno>
#include <iterator>
#include <string>
#include <vector>

#include "base/log.h"
#include "base/time.h"
#include "commands/acl.h"
#include "commands/batch_prefetch.h"
#include "commands/blocking.h"
#include "commands/command.h"
#include "commands/dispatch.h"
#include "commands/propagate.h"
#include "keyspace/keyspace.h"
#include "server/config.h"
#include "persistence/aof.h"
#include "server/io_batch.h"
#include "server/replication.h"
#include "server/server.h"

namespace keel {
namespace {
constexpr size_t kMaxBatch = 1024;        // commands executed per parse round
constexpr size_t kIdleOutKeep = 64 * 1024;  // output capacity always kept (see trim_buffers)
constexpr size_t kQueryKeep = 64 * 1024;    // larger empty query buffers go at the next trim
constexpr size_t kBatchArgsKeep = 4096;     // argument views kept between batches
}  // namespace

Client::Client(Server* srv, uint64_t id) : server(srv) {
  tcp.data = this;
  poll.data = this;
  session.id = id;
  session.client = this;
  session.db = &keyspace().db(0);
  acl_session_init(session);  // the default user; authenticated when it needs no password
  writer.reset(&out, 2);
  ctime_ms = last_interaction_ms = mstime();
}

Client::~Client() = default;

namespace {
// parse_batch's body, inlined into Client::process_input (the hot path: a call with nine
// arguments cost ~9 instructions per command there under callgrind).
[[gnu::always_inline]] inline RequestParser::Result parse_batch_inline(
    RequestParser& parser, char* data, size_t len, size_t& pos, bool authenticated, size_t max,
    bool stop_at_blocking, std::vector<Client::BatchCmd>& batch, std::vector<std::string_view>& args) {
  batch.clear();
  args.clear();
  RequestParser::Result r = RequestParser::Result::kNeedMore;
  while (batch.size() < max) {
    r = parser.parse(data, len, pos, authenticated);
    if (r != RequestParser::Result::kCommand) break;
    const size_t first = args.size();
    for (const ArgSpan& a : parser.args()) args.emplace_back(data + a.off, a.len);
    const size_t argc = args.size() - first;
    const CommandSpec* spec = resolve_command(std::span<const std::string_view>(&args[first], argc));
    batch.push_back({first, argc, spec, pos, parser.command_start()});
    if (stop_at_blocking && spec && (spec->flags & kBlocking)) break;
  }
  return r;
}
}  // namespace

size_t Client::parse_ahead() {
  if (parsed_ahead || (session.flags & Session::kBlocked) || !held.empty()) return 0;
  parsed_result = parse_batch_inline(parser, query.data(), query.size(), qpos, session.authenticated, kMaxBatch,
                                     true, batch, batch_args);
  parsed_ahead = true;
  if (batch.empty()) return 0;
  prefetch_batch(*session.db, batch, batch_args, batch_hashes);
  return batch.size();
}

void Client::prefetch_ahead_entries() const {
  for (uint64_t h : batch_hashes) {
    if (h) session.db->prefetch_entries(h);
  }
}

void Client::process_input() {
  // A blocked session runs nothing more until Server::resume_session (its input waits here).
  if (session.flags & Session::kBlocked) return;
  running = kNoCommand;
  if (KEEL_UNLIKELY(!held.empty()) && !run_held()) {
    if (!out.empty()) server->queue_flush(this);
    return;
  }
  for (;;) {
    // A command that may block ends the batch: if it blocks, the input after it is parsed
    // again on resume, and inline arguments are unescaped in place, so it must not have been
    // parsed yet. The first batch may have been parsed (and prefetched) already, with other
    // clients' (Server::parse_ahead_window).
    const bool ahead = parsed_ahead;
    parsed_ahead = false;
    const RequestParser::Result r =
        ahead ? parsed_result
              : parse_batch_inline(parser, query.data(), query.size(), qpos, session.authenticated, kMaxBatch,
                                   true, batch, batch_args);
    if (!batch.empty()) run_batch(!ahead);
    if (session.flags & (Session::kCloseAfterReply | Session::kBlocked)) break;
    if (r == RequestParser::Result::kError) {
      // Redis sends "-ERR Protocol error: ..."; the parser's text starts at "Protocol".
      writer.error_fmt("ERR %.*s", static_cast<int>(parser.error().size()), parser.error().data());
      LOG_VERBOSE("Protocol error (%s) from client: id=%llu addr=%s", parser.error().data(),
                  static_cast<unsigned long long>(session.id), session.addr.c_str());
      close_after_reply();
      break;
    }
    if (r == RequestParser::Result::kNeedMore) break;
  }
  // The replication stream may still point into the query buffer (replication.h).
  if (g_propagating) replication_flush_held();
  // Drop executed input; keep a partial command at the front of the buffer.
  if (qpos == query.size()) {
    query.clear();
    parser.rebase(qpos);
    qpos = 0;
  } else if (qpos > 0) {
    query.consume_front(qpos);
    parser.rebase(qpos);
    qpos = 0;
  }
  if (!out.empty()) server->queue_flush(this);
}

RequestParser::Result parse_batch(RequestParser& parser, char* data, size_t len, size_t& pos, bool authenticated,
                                  size_t max, bool stop_at_blocking, std::vector<Client::BatchCmd>& batch,
                                  std::vector<std::string_view>& args) {
  return parse_batch_inline(parser, data, len, pos, authenticated, max, stop_at_blocking, batch, args);
}

void prefetch_batch(Db& db, std::span<const Client::BatchCmd> batch,
                    std::span<const std::string_view> batch_args, std::vector<uint64_t>& batch_hashes) {
  // Batch key prefetch: hash every key once, prefetch its bucket, then (second pass) the
  // entries whose tags match, so the lookups during execution find their lines in cache.
  const ServerOptions& opts = server_options();
  batch_hashes.assign(batch_args.size(), 0);
  size_t keys = 0;
  bool member_cmds = false;  // any command for the member stage below
  for (const Client::BatchCmd& b : batch) {
    std::span<const std::string_view> args(&batch_args[b.first_arg], b.argc);
    if (!opts.prefetch || !b.spec) continue;
    // One 8-byte load: the key range and the member positions (CommandSpec, derived from the
    // row's key specs at start-up).
    const KeyRange kr = b.spec->prefetch.keys;
    if (kr.first <= 0) continue;
    const int argc = static_cast<int>(b.argc);
    int last = kr.last < 0 ? argc + kr.last : kr.last;
    if (last >= argc) last = argc - 1;
    for (int i = kr.first; i <= last && keys < static_cast<size_t>(opts.prefetch_batch_max_size) * 8; i += kr.step) {
      uint64_t h = hash_key(args[size_t(i)]);
      batch_hashes[b.first_arg + size_t(i)] = h;
      db.prefetch(h);
      keys++;
    }
    member_cmds |= b.spec->prefetch.members.first != 0;
  }
  if (keys >= 2) {
    for (size_t i = 0; i < batch_hashes.size(); i++) {
      if (batch_hashes[i]) db.prefetch_entries(batch_hashes[i]);
    }
  }
  // Member stage (commands/batch_prefetch.h): the members' buckets, then their entries, then
  // the skiplist descents of zset commands, in the values of the keys just prefetched. Same
  // budget as the keys.
  if (member_cmds && keys > 0) {
    MemberPrefetch members(db, static_cast<size_t>(opts.prefetch_batch_max_size) * 8);
    for (int stage = 0; stage < 3; stage++) {
      for (const Client::BatchCmd& b : batch) {
        if (!b.spec || b.spec->prefetch.members.first == 0) continue;
        members.command(*b.spec, batch_args.subspan(b.first_arg, b.argc), &batch_hashes[b.first_arg], stage);
      }
    }
    members.finish();
  }
}

void Client::run_batch(bool prefetch) {
  if (prefetch) prefetch_batch(*session.db, batch, batch_args, batch_hashes);
  int64_t clock_us = 0;  // end of the previous command = start of the next (0: read it)
  // `running` names the command being executed (CLIENT LIST's argv-mem); between two commands
  // of the batch nothing reads it, so it is reset once, when the batch ends unblocked.
  const size_t n = batch.size();
  for (size_t i = 0; i < n; i++) {
    const BatchCmd& b = batch[i];
    std::span<const std::string_view> args(&batch_args[b.first_arg], b.argc);
    running = i;
    const int64_t woff_before = g_repl_write_off;
    // Only a stream consumer reads it (propagation_add_own).
    const bool raw = g_propagating && b.start != RequestParser::kNoStart;
    if (raw) session.raw_request = std::string_view(query.data() + b.start, b.end - b.start);
    clock_us = execute_command(session, args, &batch_hashes[b.first_arg], writer, *server, b.spec, clock_us);
    if (raw) session.raw_request = std::string_view();
    if (KEEL_UNLIKELY(g_repl_write_off != woff_before)) repl_woff = g_repl_write_off;
    commands++;
    // Keys this command (or its whole EXEC / script) made ready: serve blocked clients now.
    if (KEEL_UNLIKELY(blocking_has_ready())) {
      blocking_serve_ready(*server);
      clock_us = 0;
    }
    if (KEEL_UNLIKELY(session.flags & Session::kBlocked)) {
      if (session.flags & Session::kPaused) {
        // Held by CLIENT PAUSE before running: this command and the rest of the batch wait.
        hold_rest_of_batch(i);
        running = kNoCommand;
        break;
      }
      // The rest of the batch stays unexecuted in the query buffer and is parsed again when
      // the block ends: rewind to just past the blocking command and restart the parser.
      // `running` keeps naming the blocked command.
      qpos = b.end;
      parser = RequestParser();
      last_interaction_ms = g_clock.now_ms;
      return;
    }
    if ((session.flags & Session::kCloseAfterReply) || closing) break;
  }
  running = kNoCommand;
  last_interaction_ms = g_clock.now_ms;
}

void Client::hold_rest_of_batch(size_t from) {
  std::vector<std::vector<std::string>> rest;
  for (size_t i = from; i < batch.size(); i++) {
    const BatchCmd& b = batch[i];
    rest.emplace_back(batch_args.begin() + static_cast<std::ptrdiff_t>(b.first_arg),
                      batch_args.begin() + static_cast<std::ptrdiff_t>(b.first_arg + b.argc));
  }
  // `held` is empty here: process_input runs it (and stops while it is not) before parsing.
  held.swap(rest);
}

bool Client::run_held() {
  std::vector<std::vector<std::string>> cmds;
  cmds.swap(held);
  std::vector<std::string_view> args;
  for (size_t i = 0; i < cmds.size(); i++) {
    args.assign(cmds[i].begin(), cmds[i].end());
    const std::span<const std::string_view> sp(args);
    const int64_t woff_before = g_repl_write_off;
    (void)execute_command(session, sp, nullptr, writer, *server, resolve_command(sp), 0);
    if (KEEL_UNLIKELY(g_repl_write_off != woff_before)) repl_woff = g_repl_write_off;
    commands++;
    if (KEEL_UNLIKELY(blocking_has_ready())) blocking_serve_ready(*server);
    if (session.flags & Session::kPaused) {
      // Held again (a new pause): this command and the ones after it wait once more.
      held.assign(std::make_move_iterator(cmds.begin() + static_cast<std::ptrdiff_t>(i)),
                  std::make_move_iterator(cmds.end()));
      return false;
    }
    if (session.flags & Session::kBlocked) {
      // A blocking command ends its batch, so nothing should follow it; whatever does runs when
      // the block ends (the blocked-client registry copied the command's own arguments).
      held.assign(std::make_move_iterator(cmds.begin() + static_cast<std::ptrdiff_t>(i) + 1),
                  std::make_move_iterator(cmds.end()));
      return false;
    }
    if ((session.flags & Session::kCloseAfterReply) || closing) return false;
  }
  last_interaction_ms = g_clock.now_ms;
  return true;
}

void Client::flush() {
  if (!flush_ready()) return;
  IoRequest r{fd, false, out.data(), out.size(), 0};
  io_batch_run(std::span<IoRequest>(&r, 1));
  flush_sent(r.result);
}

bool Client::flush_ready() {
  if (writing || closing || fsync_held) return false;
  if (out.empty()) {
    if (session.flags & Session::kCloseAfterReply) close();
    return false;
  }
  return true;
}

void Client::flush_sent(ssize_t sent) {
  const ssize_t n = sent == -EAGAIN ? 0 : sent;
  if (n < 0) {
    close();
    return;
  }
  server->stats().writes_processed++;
  count_sent(static_cast<size_t>(n));
  if (n > 0) last_interaction_ms = g_clock.now_ms;  // a write is an interaction (Redis too)
  if (out.size() > out_peak) out_peak = out.size();
  if (static_cast<size_t>(n) == out.size()) {
    out.clear();
    if (session.flags & Session::kCloseAfterReply) close();
    return;
  }
  // The socket is full: the rest goes out as it becomes writable; new replies collect in `out`.
  inflight.swap(out);
  out.clear();
  inflight_sent = static_cast<size_t>(n);
  writing = true;
  update_poll();
}

void Client::count_sent(size_t n) {
  net_out += n;
  ServerStats& st = server->stats();
  (session.flags & Session::kReplica ? st.net_repl_output_bytes : st.net_output_bytes) += n;
}

void Client::on_writable() {
  if (!writing) return;
  IoRequest r{fd, false, inflight.data() + inflight_sent, inflight.size() - inflight_sent, 0};
  io_batch_run(std::span<IoRequest>(&r, 1));
  if (r.result < 0) {
    if (r.result != -EAGAIN && r.result != -EINTR) close();
    return;
  }
  inflight_sent += static_cast<size_t>(r.result);
  count_sent(static_cast<size_t>(r.result));
  if (inflight_sent < inflight.size()) return;
  inflight.clear();
  inflight_sent = 0;
  writing = false;
  update_poll();
  // Replies collected meanwhile may acknowledge writes the AOF has not written (or, under
  // appendfsync always, fsynced) yet: with an AOF they go out from before-sleep, which knows.
  if (KEEL_UNLIKELY(aof_state().fd != -1)) {
    server->queue_flush(this);
    return;
  }
  flush();
}

void Client::update_poll() {
  const int events = (read_paused ? 0 : UV_READABLE) | (writing ? UV_WRITABLE : 0);
  if (events == poll_events || closing) return;
  poll_events = events;
  if (events == 0) {
    uv_poll_stop(&poll);
  } else {
    uv_poll_start(&poll, events, Server::on_poll);
  }
}

void Client::trim_buffers() {
  // Half the capacity unused for a whole period: give it back (an empty buffer is freed; the
  // next reply allocates a small one again).
  if (out_peak * 2 < out.capacity()) out.shrink_if_idle(kIdleOutKeep);
  if (out_peak * 2 < inflight.capacity()) inflight.shrink_if_idle(kIdleOutKeep);
  out_peak = 0;
  // Never under a blocked command: `running` indexes the batch then.
  if (running != kNoCommand || (session.flags & Session::kBlocked)) return;
  if (query.empty() &&
      (query.capacity() > kQueryKeep || g_clock.now_ms - last_interaction_ms >= 1000)) {
    query.shrink_if_idle(0);
  }
  if (batch_args.capacity() > kBatchArgsKeep) {
    std::vector<BatchCmd>().swap(batch);
    std::vector<std::string_view>().swap(batch_args);
    std::vector<uint64_t>().swap(batch_hashes);
  }
}

size_t Client::argv_bytes() const {
  if ((session.flags & Session::kPaused) && !held.empty()) {  // the held command (CLIENT PAUSE)
    size_t n = 0;
    for (const std::string& a : held.front()) n += a.size();
    return n;
  }
  if (running == kNoCommand || running >= batch.size()) return 0;
  const BatchCmd& b = batch[running];
  size_t n = 0;
  for (size_t i = 0; i < b.argc; i++) n += batch_args[b.first_arg + i].size();
  return n;
}

size_t Client::memory() const {
  return sizeof(Client) + query.capacity() + out.capacity() + inflight.capacity() +
         batch.capacity() * sizeof(BatchCmd) + batch_args.capacity() * sizeof(std::string_view) +
         batch_hashes.capacity() * sizeof(uint64_t);
}

void Client::close() {
  if (closing) return;
  closing = true;
  server->client_closed(this);
  // The watcher first (its epoll registration goes before the descriptor is closed), then the
  // socket; both close callbacks come in this iteration's closing phase, in either order, and
  // the client goes once both handles are done with.
  handles_open = 2;
  const uv_close_cb done = [](uv_handle_t* h) {
    Client* c = static_cast<Client*>(h->data);
    if (--c->handles_open == 0) c->server->release_client(c);
  };
  uv_close(reinterpret_cast<uv_handle_t*>(&poll), done);
  uv_close(reinterpret_cast<uv_handle_t*>(&tcp), done);
}

}  // namespace keel
