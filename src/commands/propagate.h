// Propagation: the commands that reproduce each execution unit's changes to the dataset, in the
// order they happened, for the consumers of the change stream (the AOF: server/aof_glue.cc;
// replicas when they exist; DEBUG PROPAGATED). Redis's rules (server.c call() / alsoPropagate / propagatePendingCommands):
// - a command is propagated when it changed the dataset, i.e. it moved the dirty counter
//   (rdb_changes_since_last_save), as it was received unless its handler rewrote it
//   (CommandContext::propagate_as: SPOP -> SREM, EXPIRE -> PEXPIREAT, BLPOP -> LPOP ...), asked
//   for extra commands (also_propagate), for nothing (prevent_propagation: EXEC, EVAL, FCALL,
//   whose inner commands propagate themselves) or to be propagated anyway (force_propagation:
//   FLUSHALL / FLUSHDB on empty dbs, PUBLISH to replicas only);
// - the keyspace adds the deletions it makes by itself: a key found expired is propagated as DEL
//   (UNLINK with lazyfree-lazy-expire yes) at the point it was deleted;
// - what one execution unit (a command from a client with everything it runs: EXEC's queue,
//   a script's redis.call()s, a served blocked client's command) collected is emitted when the
//   outermost call returns, wrapped in MULTI/EXEC when it holds more than one command, except
//   for a SCAN or RANDOMKEY run directly (its expiry deletions stand alone, as in Redis 7.2+).
//   A deletion by active expiry, outside any unit, is a unit of its own.
// - every consumer (sink) receives the unit's commands with their db; it inserts SELECT where
//   its own stream changes db (StreamEncoder), so AOF and each replica keep their own state.
//
// Cost when nobody consumes the stream: nothing is recorded. propagating() is one load; the
// handlers' rewrite calls test it first, and the unit buffers keep their capacity, so a steady
// stream with a sink attached does not allocate either. A unit that is one command run
// directly, not rewritten, is emitted from its argv without being recorded (most writes).
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/buffer.h"

namespace keel {

// Where a propagated command goes (Redis's PROPAGATE_AOF / PROPAGATE_REPL): PUBLISH reaches
// replicas only.
enum PropagateTarget : uint8_t { kPropagateAof = 1, kPropagateRepl = 2, kPropagateAll = 3 };

// A consumer of the stream. feed() gets one command at a time; dbid -1 marks the MULTI / EXEC
// around a unit, which never need a SELECT before them (the SELECT goes inside the MULTI).
// unit_end() follows the last command of each unit.
class PropagationSink {
 public:
  virtual ~PropagationSink() = default;
  virtual void feed(int dbid, std::span<const std::string_view> argv, uint8_t targets) = 0;
  // The same command with `raw`, its canonical RESP encoding (the bytes the client sent), for
  // a sink that can use them as they are.
  virtual void feed_encoded(int dbid, std::span<const std::string_view> argv, std::string_view raw,
                            uint8_t targets) {
    (void)raw;
    feed(dbid, argv, targets);
  }
  virtual void unit_end() {}
};

// Attaching the first sink installs the keyspace's expiry hook and turns recording on;
// detaching the last turns both off again.
void propagation_add_sink(PropagationSink* sink);
void propagation_remove_sink(PropagationSink* sink);

extern bool g_propagating;  // at least one sink is attached
inline bool propagating() { return g_propagating; }
// Something to do when the running unit ends (commands collected for its propagation, or
// pub/sub messages held back for its client): one test for call() instead of two. Set by
// whatever collects or defers; a single command emitted at once (propagation_add_own's fast
// path) leaves it clear.
extern bool g_unit_end_work;

// Adds a command to the running unit (Redis's alsoPropagate). Outside any unit it is emitted
// at once as a unit of its own (active expiry). No-op when nobody consumes the stream.
void propagate(int dbid, std::span<const std::string_view> argv, uint8_t targets = kPropagateAll);
inline void propagate(int dbid, std::initializer_list<std::string_view> argv,
                      uint8_t targets = kPropagateAll) {
  propagate(dbid, std::span<const std::string_view>(argv.begin(), argv.size()), targets);
}

// A key deleted because it expired (lazily or by the active cycle): DEL, or UNLINK when
// lazyfree-lazy-expire is yes (CommandOptions::lazyfree_lazy_expire).
void propagate_expired(int dbid, std::string_view key);

// The unit machinery, used by call() (dispatch.cc).
// The running handler's replacement for its own command (CommandContext::propagate_as). One
// slot: only the innermost frame runs a handler, and the frames that run others (EXEC, EVAL,
// FCALL) never rewrite themselves. call() then takes it (propagation_add_own) or drops it.
void propagation_set_rewrite(std::span<const std::string_view> argv);
void propagation_drop_rewrite();
// Appends the frame's own command: the rewrite when `rewritten`, else argv. `raw`: the bytes
// the client sent for argv when it is the command being run from its input (else empty).
void propagation_add_own(int dbid, std::span<const std::string_view> argv, bool rewritten,
                         uint8_t targets, std::string_view raw = {});
// True when `raw` is exactly the canonical RESP multibulk encoding of argv, whose views point
// into it (checked without copying: the "\r\n" around every argument and the total length,
// which only the shortest form of every header reaches).
bool is_canonical_encoding(std::string_view raw, std::span<const std::string_view> argv);
// The same for bytes the request parser accepted as this multibulk, from its '*' to its end:
// the parser only accepts shortest numbers, so what is left to look at are the "\r\n" it
// skips unread. (Debug builds check it against is_canonical_encoding.)
bool is_crlf_framed(std::string_view raw, std::span<const std::string_view> argv);
// End of the outermost call: emits what the unit collected. `no_transaction`: do not wrap
// several commands in MULTI/EXEC (SCAN / RANDOMKEY run directly).
void propagation_end_unit(bool no_transaction);
// Nothing collected for the running unit (a single command is emitted by propagation_add_own
// directly): call() skips the end-of-unit work.
bool propagation_unit_empty();

// RESP encoding of the stream for one consumer, with SELECT inserted when the db changes
// (Redis's replicationFeedSlaves / feedAppendOnlyFile). Starts with no db selected, so the
// first command is preceded by a SELECT; reset() forgets the db (a new replica, a new AOF).
class StreamEncoder {
 public:
  void append(Buffer& out, int dbid, std::span<const std::string_view> argv);
  // Only the SELECT that append would write first (nothing when dbid is the selected one):
  // the caller then appends the command's own encoding.
  void select(Buffer& out, int dbid) {
    if (dbid >= 0 && dbid != db_) select_slow(out, dbid);
  }
  void reset() { db_ = -1; }
  int selected_db() const { return db_; }

 private:
  void select_slow(Buffer& out, int dbid);
  int db_ = -1;
};

// argv as one RESP array of bulk strings (a command as a client sends it), appended to out.
void resp_append_command(Buffer& out, std::span<const std::string_view> argv);
inline void resp_append_command(Buffer& out, std::initializer_list<std::string_view> argv) {
  resp_append_command(out, std::span<const std::string_view>(argv.begin(), argv.size()));
}

// An integer as argument text without allocating (PEXPIREAT's absolute time, counts).
struct IntArg {
  explicit IntArg(int64_t v);
  std::string_view view() const { return {buf, len}; }
  operator std::string_view() const { return view(); }
  char buf[24];
  size_t len;
};

// DEBUG PROPAGATED (Keel only): a sink that records the stream as a replica would receive it
// (REPL targets, SELECT inserted, MULTI/EXEC around units), at most kRecorderMax commands (the
// oldest are dropped). recorder_on() attaches it with an empty log and no db selected;
// recorder_take() returns and clears what was recorded since the last take.
constexpr size_t kRecorderMax = 100000;
void recorder_on();
void recorder_off();
bool recorder_active();
std::vector<std::vector<std::string>> recorder_take();

}  // namespace keel
