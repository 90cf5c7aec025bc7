// The unit's propagation buffer, the sinks and the DEBUG PROPAGATED recorder. The buffer is one
// arena of argument bytes plus (offset, length) pairs and one record per command; all three keep
// their capacity between units, so recording allocates only while they grow.
#include "commands/propagate.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <deque>
#include <vector>

#include "base/assert.h"
#include "base/numbers.h"
#include "commands/dispatch.h"
#include "keyspace/db.h"
#include "keyspace/evict.h"

namespace keel {

bool g_propagating = false;
bool g_unit_end_work = false;

namespace {

struct Op {
  int dbid;
  uint32_t first_arg;  // index into Unit::args
  uint32_t argc;
  uint8_t targets;
};

// Arguments stored as (offset, length) into one arena; views are made when the unit is emitted
// (the arena may move while it grows).
struct ArgStore {
  std::string arena;
  std::vector<std::pair<uint32_t, uint32_t>> args;
  uint32_t add(std::span<const std::string_view> argv) {
    const uint32_t first = static_cast<uint32_t>(args.size());
    for (std::string_view a : argv) {
      args.emplace_back(static_cast<uint32_t>(arena.size()), static_cast<uint32_t>(a.size()));
      arena.append(a);
    }
    return first;
  }
  std::string_view at(uint32_t i) const { return {arena.data() + args[i].first, args[i].second}; }
  void clear() {
    arena.clear();
    args.clear();
  }
};

struct Unit {
  ArgStore store;
  std::vector<Op> ops;
  // The running handler's rewrite of its own command (propagation_set_rewrite).
  ArgStore rewrite;
  std::vector<std::string_view> views;  // scratch for emitting
  std::vector<PropagationSink*> sinks;
};
Unit g_unit;

// Above this, an emitted unit gives its buffers back instead of keeping them for the next one.
constexpr size_t kKeepArena = 1 << 20;

void emit(int dbid, std::span<const std::string_view> argv, uint8_t targets) {
  for (PropagationSink* s : g_unit.sinks) s->feed(dbid, argv, targets);
}
// After the last command of a unit (the sinks flush what they buffered for it).
void end_sinks_unit() {
  for (PropagationSink* s : g_unit.sinks) s->unit_end();
}

void on_expired(int dbid, std::string_view key) { propagate_expired(dbid, key); }
// A hash field that expired (lazily or by the active cycle): HDEL key field, as Redis 7.4.
void on_field_expired(int dbid, std::string_view key, std::string_view field) {
  propagate(dbid, {"HDEL", key, field});
}

// An evicted key is propagated as a deletion of its own (Redis's deleteEvictedKeyAndPropagate).
void on_evicted(int dbid, std::string_view key) {
  propagate(dbid, {eviction_options().lazy_eviction ? std::string_view("UNLINK") : std::string_view("DEL"), key});
}

}  // namespace

void propagation_add_sink(PropagationSink* sink) {
  if (std::find(g_unit.sinks.begin(), g_unit.sinks.end(), sink) != g_unit.sinks.end()) return;
  g_unit.sinks.push_back(sink);
  g_propagating = true;
  g_unit_end_work = true;
  g_keyspace_hooks.expired = on_expired;
  g_keyspace_hooks.field_expired = on_field_expired;
  g_keyspace_hooks.evicted = on_evicted;
}

void propagation_remove_sink(PropagationSink* sink) {
  auto it = std::find(g_unit.sinks.begin(), g_unit.sinks.end(), sink);
  if (it == g_unit.sinks.end()) return;
  g_unit.sinks.erase(it);
  if (g_unit.sinks.empty()) {
    g_propagating = false;
    g_keyspace_hooks.expired = nullptr;
    g_keyspace_hooks.field_expired = nullptr;
    g_keyspace_hooks.evicted = nullptr;
    // A unit in progress (DEBUG PROPAGATED OFF inside EXEC) leaves nothing behind for the next.
    g_unit.ops.clear();
    g_unit.store.clear();
    g_unit.rewrite.clear();
  }
}

void propagate(int dbid, std::span<const std::string_view> argv, uint8_t targets) {
  if (!g_propagating) return;
  const uint32_t first = g_unit.store.add(argv);
  g_unit.ops.push_back({dbid, first, static_cast<uint32_t>(argv.size()), targets});
  g_unit_end_work = true;
  if (g_exec_unit.depth == 0) propagation_end_unit(true);
}

void propagate_expired(int dbid, std::string_view key) {
  propagate(dbid, {command_options().lazyfree_lazy_expire ? std::string_view("UNLINK") : std::string_view("DEL"), key});
}

void propagation_set_rewrite(std::span<const std::string_view> argv) {
  g_unit.rewrite.clear();
  g_unit.rewrite.add(argv);
}

void propagation_drop_rewrite() { g_unit.rewrite.clear(); }

namespace {
inline size_t decimal_digits(size_t n) { return n < 10 ? 1 : n < 100 ? 2 : digits10(n); }
}  // namespace

bool is_canonical_encoding(std::string_view raw, std::span<const std::string_view> argv) {
  if (argv.empty()) return false;
  const size_t count_digits = decimal_digits(argv.size());
  if (raw.size() < count_digits + 9 || raw[0] != '*') return false;  // "*N\r\n$0\r\n\r\n"
  const char* const end = raw.data() + raw.size();
  // Where the next argument's "$<len>\r\n" may start: after "*<n>\r\n", then after each
  // argument's bytes and their "\r\n". Views in order and inside raw, "\r\n" on both sides.
  // The parser skips the two bytes after a number's '\r' without looking at them (as Redis's
  // does): they must be "\r\n" here.
  if (raw[1 + count_digits] != '\r' || raw[2 + count_digits] != '\n') return false;
  const char* next = raw.data() + 3 + count_digits;
  size_t want = 3 + count_digits;
  for (std::string_view a : argv) {
    const char* p = a.data();
    if (p < next + 4 || p + a.size() + 2 > end) return false;  // "$<len>\r\n" is 4+ bytes
    if (p[-2] != '\r' || p[-1] != '\n' || p[a.size()] != '\r' || p[a.size() + 1] != '\n') return false;
    next = p + a.size() + 2;
    want += 5 + decimal_digits(a.size()) + a.size();
  }
  // Every header is at least as long as its shortest form: equal totals mean all are.
  return want == raw.size() && next == end;
}

namespace {
// The two bytes at p as one little-endian word, compared with "\r\n" (0x0a0d) by the caller.
inline uint16_t word_at(const char* p) {
  uint16_t w;
  memcpy(&w, p, 2);
  return w;
}
constexpr uint16_t kCrlf = 0x0a0d;

[[gnu::always_inline]] inline bool crlf_framed(std::string_view raw, std::span<const std::string_view> argv) {
  const size_t count_digits = decimal_digits(argv.size());
  if (raw.size() < count_digits + 3 || word_at(raw.data() + 1 + count_digits) != kCrlf) return false;
  // One word compare on each side of every argument, the results or-ed: no branch per byte.
  unsigned bad = 0;
  for (std::string_view a : argv) {
    const char* p = a.data();
    bad |= static_cast<unsigned>(word_at(p - 2) ^ kCrlf) | static_cast<unsigned>(word_at(p + a.size()) ^ kCrlf);
  }
  if (bad != 0) return false;
  KEEL_DCHECK(is_canonical_encoding(raw, argv));
  return true;
}
}  // namespace

bool is_crlf_framed(std::string_view raw, std::span<const std::string_view> argv) { return crlf_framed(raw, argv); }

namespace {
// propagation_add_own for everything but a command emitted from the client's own bytes: out of
// line, so that the common case does not pay its frame.
[[gnu::noinline]] void add_own_collected(int dbid, std::span<const std::string_view> argv, bool rewritten,
                                         uint8_t targets);
}  // namespace

void propagation_add_own(int dbid, std::span<const std::string_view> argv, bool rewritten,
                         uint8_t targets, std::string_view raw) {
  // The common unit: one command run directly (depth 0: call() has left its frame) that
  // propagated nothing before its own command, received in its canonical encoding. Nothing can
  // follow it in the unit, so the client's own bytes are emitted at once rather than copied
  // into the arena and encoded at the unit's end.
  if (!rewritten && g_unit.ops.empty() && g_exec_unit.depth == 0 && !raw.empty() &&
      crlf_framed(raw, argv)) {
    for (PropagationSink* s : g_unit.sinks) {
      s->feed_encoded(dbid, argv, raw, targets);
      s->unit_end();
    }
    return;
  }
  add_own_collected(dbid, argv, rewritten, targets);
}

namespace {
void add_own_collected(int dbid, std::span<const std::string_view> argv, bool rewritten, uint8_t targets) {
  if (!rewritten && g_unit.ops.empty() && g_exec_unit.depth == 0) {
    // Alone in its unit but not in the client's bytes (a script's, a served blocked client's,
    // an inline command): encoded from argv at once.
    emit(dbid, argv, targets);
    end_sinks_unit();
    return;
  }
  g_unit_end_work = true;  // the unit's end emits what it collected
  if (!rewritten) {
    const uint32_t first = g_unit.store.add(argv);
    g_unit.ops.push_back({dbid, first, static_cast<uint32_t>(argv.size()), targets});
    return;
  }
  ArgStore& r = g_unit.rewrite;
  const uint32_t n = static_cast<uint32_t>(r.args.size());
  const uint32_t first = static_cast<uint32_t>(g_unit.store.args.size());
  for (uint32_t i = 0; i < n; i++) {
    const std::string_view a = r.at(i);
    g_unit.store.args.emplace_back(static_cast<uint32_t>(g_unit.store.arena.size()),
                                   static_cast<uint32_t>(a.size()));
    g_unit.store.arena.append(a);
  }
  g_unit.ops.push_back({dbid, first, n, targets});
  r.clear();
}
}  // namespace

bool propagation_unit_empty() { return g_unit.ops.empty(); }

void propagation_end_unit(bool no_transaction) {
  if (g_unit.ops.empty()) return;
  const bool transaction = g_unit.ops.size() > 1 && !no_transaction;
  static constexpr std::string_view kMulti[] = {"MULTI"};
  static constexpr std::string_view kExec[] = {"EXEC"};
  if (transaction) emit(-1, kMulti, kPropagateAll);
  for (const Op& op : g_unit.ops) {
    g_unit.views.clear();
    for (uint32_t i = 0; i < op.argc; i++) g_unit.views.push_back(g_unit.store.at(op.first_arg + i));
    emit(op.dbid, g_unit.views, op.targets);
  }
  if (transaction) emit(-1, kExec, kPropagateAll);
  end_sinks_unit();
  g_unit.ops.clear();
  g_unit.store.clear();
  if (g_unit.store.arena.capacity() > kKeepArena) {
    std::string().swap(g_unit.store.arena);
    std::vector<std::pair<uint32_t, uint32_t>>().swap(g_unit.store.args);
    std::vector<Op>().swap(g_unit.ops);
  }
}

// ---- StreamEncoder ---------------------------------------------------------------------------

namespace {
// "<c><n>\r\n" at p; returns the end. Lengths under 100 (nearly every argument of a write
// stream) without to_chars.
char* put_header(char* p, char c, size_t n) {
  *p++ = c;
  if (n < 10) {
    *p++ = static_cast<char>('0' + n);
  } else if (n < 100) {
    *p++ = static_cast<char>('0' + n / 10);
    *p++ = static_cast<char>('0' + n % 10);
  } else {
    p = std::to_chars(p, p + 20, n).ptr;
  }
  *p++ = '\r';
  *p++ = '\n';
  return p;
}

}  // namespace

// One reservation for the whole command (headers are at most 23 bytes each).
void resp_append_command(Buffer& out, std::span<const std::string_view> argv) {
  size_t need = 23;
  for (std::string_view a : argv) need += a.size() + 25;
  char* const start = out.reserve_tail(need);
  char* p = put_header(start, '*', argv.size());
  for (std::string_view a : argv) {
    p = put_header(p, '$', a.size());
    if (!a.empty()) memcpy(p, a.data(), a.size());  // an empty view may have a null data()
    p += a.size();
    *p++ = '\r';
    *p++ = '\n';
  }
  out.commit(static_cast<size_t>(p - start));
}

void StreamEncoder::select_slow(Buffer& out, int dbid) {
  const IntArg n(dbid);
  const std::string_view cmd[] = {"SELECT", n.view()};
  resp_append_command(out, cmd);
  db_ = dbid;
}

void StreamEncoder::append(Buffer& out, int dbid, std::span<const std::string_view> argv) {
  select(out, dbid);
  resp_append_command(out, argv);
}

IntArg::IntArg(int64_t v) { len = static_cast<size_t>(std::to_chars(buf, buf + sizeof(buf), v).ptr - buf); }

// ---- The DEBUG PROPAGATED recorder -----------------------------------------------------------

namespace {
class Recorder final : public PropagationSink {
 public:
  void feed(int dbid, std::span<const std::string_view> argv, uint8_t targets) override {
    if (!(targets & kPropagateRepl)) return;
    if (dbid >= 0 && dbid != db_) {
      const IntArg n(dbid);
      add({"SELECT", n.view()});
      db_ = dbid;
    }
    add(argv);
  }
  void reset() {
    log_.clear();
    db_ = -1;
  }
  std::vector<std::vector<std::string>> take() {
    std::vector<std::vector<std::string>> out(std::make_move_iterator(log_.begin()),
                                              std::make_move_iterator(log_.end()));
    log_.clear();
    return out;
  }

 private:
  void add(std::span<const std::string_view> argv) {
    if (log_.size() >= kRecorderMax) log_.pop_front();
    log_.emplace_back(argv.begin(), argv.end());
  }
  void add(std::initializer_list<std::string_view> argv) {
    add(std::span<const std::string_view>(argv.begin(), argv.size()));
  }
  std::deque<std::vector<std::string>> log_;
  int db_ = -1;
};
Recorder g_recorder;
bool g_recorder_on = false;
}  // namespace

void recorder_on() {
  g_recorder.reset();
  propagation_add_sink(&g_recorder);
  g_recorder_on = true;
}

void recorder_off() {
  propagation_remove_sink(&g_recorder);
  g_recorder.reset();
  g_recorder_on = false;
}

bool recorder_active() { return g_recorder_on; }

std::vector<std::vector<std::string>> recorder_take() { return g_recorder.take(); }

}  // namespace keel
