// Client: one TCP connection. Owns the query buffer (arguments of parsed commands are views into
// it), the request parser state, the output buffer that replies are written into, and the
// Session that commands see. The read path parses every complete command in the buffer into a
// batch, prefetches the batch's keys, then executes it (src/README.md, "The request path").
#pragma once
#include <uv.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/buffer.h"
#include "commands/session.h"
#include "protocol/reply_writer.h"
#include "protocol/resp_parser.h"

namespace keel {

class Server;
struct CommandSpec;
class Db;

class Client {
 public:
  Client(Server* server, uint64_t id);
  ~Client();

  // The socket: `tcp` owns it (accepted through it, peer names, closed with it) but is never
  // read or written through; `poll` watches it (Server::on_poll): readable always (unless
  // read_paused), writable while `writing`. Reads and most writes are batched with other
  // clients' (server/io_batch.h). Both handles' data point back here.
  uv_tcp_t tcp;
  uv_poll_t poll;
  int poll_events = 0;       // what `poll` is started for
  int handles_open = 0;      // of the two, once close() has begun
  bool readable = false;     // queued in Server::readable_ for this iteration's read batch
  bool read_paused = false;  // a busy script's caller: its query buffer holds the arguments
  Server* server;
  Session session;
  ReplyWriter writer;

  Buffer query;        // unparsed / being-executed input
  size_t qpos = 0;     // bytes of `query` fully executed
  RequestParser parser;

  Buffer out;          // replies not yet handed to the socket
  Buffer inflight;     // what the socket had no room for: sent as it becomes writable
  size_t inflight_sent = 0;  // of which sent
  size_t out_peak = 0;  // largest flush since the last trim_buffers() (how much `out` is used)
  bool writing = false;  // `inflight` holds bytes
  bool pending_flush = false;  // queued in Server::pending_
  bool fsync_held = false;     // appendfsync always: `out` waits for an fsync (Server::held_)
  bool closing = false;
  bool close_asap = false;          // over its output buffer limit: closed before the next sleep
  int64_t obuf_soft_since_ms = 0;   // when it went over the soft limit (0 = under it)
  bool ever_authenticated = false;  // seen authenticated once (check_output_limits)

  int64_t ctime_ms = 0;
  int64_t last_interaction_ms = 0;
  std::string laddr;
  int fd = -1;
  uint64_t net_in = 0, net_out = 0;
  uint64_t commands = 0;
  int64_t repl_woff = 0;  // replication offset after its last propagated write (WAIT)

  // Batch of commands parsed from one read.
  struct BatchCmd {
    size_t first_arg;
    size_t argc;
    const CommandSpec* spec;
    size_t end = 0;  // offset in `query` just past this command (resume point after a block)
    // Offset in `query` where it starts (its '*'; Session::raw_request), or
    // RequestParser::kNoStart for an inline command.
    size_t start = RequestParser::kNoStart;
  };
  std::vector<BatchCmd> batch;
  std::vector<std::string_view> batch_args;
  std::vector<uint64_t> batch_hashes;
  // CLIENT PAUSE held this client back (commands/pause.h): the held command and the rest of its
  // batch, copied (the parser has moved past them; re-parsing would unescape inline commands a
  // second time). Run first when the client resumes.
  std::vector<std::vector<std::string>> held;
  // Index in `batch` of the command being run, or that blocked the client; kNoCommand otherwise
  // (CLIENT LIST argv-mem).
  static constexpr size_t kNoCommand = ~size_t{0};
  size_t running = kNoCommand;
  // Bytes of the arguments of the running (or blocked) command: Redis's argv-mem.
  size_t argv_bytes() const;
  // Heap bytes this connection holds: buffers, batch vectors and the object itself (tot-mem).
  size_t memory() const;

  // Reads have arrived: parse, prefetch, execute everything complete.
  void process_input();
  // The parse and prefetch stages of process_input's first batch, run ahead for a window of a
  // read batch's clients before any of them executes, so that the key lookups of one client's
  // command overlap the others' (Server::parse_ahead_window). Returns the commands parsed;
  // prefetch_ahead_entries() is then the entry stage of their prefetch. The batch's arguments
  // are views into `query`: nothing may read into it until it has run.
  size_t parse_ahead();
  void prefetch_ahead_entries() const;
  bool parsed_ahead = false;
  RequestParser::Result parsed_result = RequestParser::Result::kNeedMore;
  // Writes pending output without blocking; what the socket has no room for goes out from
  // on_writable.
  void flush();
  // flush() in two halves, for the before-sleep flush that sends the output of many clients
  // with one system call (server/io_batch.h): flush_ready() says whether `out` is to be sent
  // now (it closes a client that asked to be closed once its output is gone), flush_sent()
  // takes what the send returned (bytes, or a negated errno) and does the rest of flush().
  bool flush_ready();
  void flush_sent(ssize_t sent);
  // The socket has room again: more of `inflight`, and once it is all gone, `out`.
  void on_writable();
  // Starts or stops `poll` for what the client waits for now.
  void update_poll();
  // Bytes that left for the socket: the client's and INFO's network output counters.
  void count_sent(size_t n);
  // Marks for closing once the output is written (QUIT, protocol errors).
  void close_after_reply() { session.flags |= Session::kCloseAfterReply; }
  void close();  // immediately (peer gone, CLIENT KILL)
  // Called by the cron about once a second: frees output capacity beyond 64 KB that the last
  // second's flushes did not need. Flushes themselves keep the capacity, so a subscriber or a
  // pipelining client that produces 100 KB per loop iteration does not reallocate (and
  // page-fault in) its buffer every iteration. An empty query buffer goes back once the client
  // rested a second or when a big command made it grow (Redis 7.4 lends idle clients a shared
  // one: CLIENT LIST shows qbuf=0 qbuf-free=0 for them), and so do the argument vectors of a
  // command with very many arguments.
  void trim_buffers();

 private:
  void run_batch(bool prefetch);
  // Copies batch[from..] into `held` (the client was just paused on batch[from]).
  void hold_rest_of_batch(size_t from);
  // Runs the held commands; false when the client must stop (paused again, blocked, closing).
  bool run_held();
};

// The batch key prefetch of a parsed batch, before it runs: hashes every key argument into
// `hashes` (indexed like `args`, 0 for the others; execute_command takes them so no key is
// hashed twice), prefetches their buckets in db, then the entries whose tags match, then the
// member stage (commands/batch_prefetch.h). Client::run_batch and a replica applying its
// master's stream (replication.cc) use it.
// The parse stage of a pipeline (Client::process_input, and a replica's apply_stream): the
// complete commands from `pos` of data[0, len), at most `max`, resolved, into `batch` and
// `args` (both cleared first); with `stop_at_blocking` a command that may block ends the batch.
// Returns the parser's last result (kCommand when the batch ended before the input did).
RequestParser::Result parse_batch(RequestParser& parser, char* data, size_t len, size_t& pos, bool authenticated,
                                  size_t max, bool stop_at_blocking, std::vector<Client::BatchCmd>& batch,
                                  std::vector<std::string_view>& args);
void prefetch_batch(Db& db, std::span<const Client::BatchCmd> batch, std::span<const std::string_view> args,
                    std::vector<uint64_t>& hashes);

}  // namespace keel
