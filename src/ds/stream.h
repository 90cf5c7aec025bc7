// Stream: Redis's stream encoding, byte for byte so that RDB stores the nodes as they are. A
// radix tree (ds/rax.h) maps each node's master ID (16 bytes, ms then seq, big-endian) to a
// listpack (ds/listpack.h) holding a run of entries:
//
//   master entry: count | deleted | num-fields | field_1 ... field_N | 0
//   each entry:   flags | ms-diff | seq-diff | values...                      | lp-count  (SAMEFIELDS)
//                 flags | ms-diff | seq-diff | num-fields | f1 v1 ... fN vN | lp-count  (otherwise)
//
// count = live entries, deleted = entries flagged deleted (still in the bytes); the master
// fields are the first entry's fields; an entry with exactly those fields in that order sets
// SAMEFIELDS and stores only its values. The diffs are relative to the node's master ID;
// lp-count is the number of elements of the entry before it (3 + N with SAMEFIELDS, else
// 4 + 2N), so a reverse walk can jump from one entry's end to its flags. A node is closed when
// its bytes plus the new entry's raw field and value bytes reach stream-node-max-bytes or it
// holds stream-node-max-entries entries (live and deleted); an empty node is removed.
//
// Consumer groups (XGROUP, XREADGROUP ...) hang off the stream: per group the last delivered
// ID, entries-read, the pending entries list (PEL, ID -> NACK) and consumers, each with its own
// PEL pointing at the same NACKs. This file has no server knowledge: limits and times come in
// as arguments.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ds/listpack.h"
#include "ds/rax.h"

namespace keel {

struct StreamID {
  uint64_t ms = 0;
  uint64_t seq = 0;
  auto operator<=>(const StreamID&) const = default;
  bool operator==(const StreamID&) const = default;
  static constexpr StreamID max() { return {UINT64_MAX, UINT64_MAX}; }
  // The 16-byte big-endian key of the radix tree.
  void encode(uint8_t* out) const;
  static StreamID decode(const uint8_t* in);
  // ID + 1 / ID - 1 in (ms, seq) order; false on overflow.
  bool incr();
  bool decr();
  // "ms-seq" into buf (at least 42 bytes); returns the length.
  size_t format(char* buf) const;
};

inline constexpr int kStreamFlagNone = 0;
inline constexpr int kStreamFlagDeleted = 1;
inline constexpr int kStreamFlagSameFields = 2;
// Redis never lets a stream node listpack grow past 1 GB.
inline constexpr size_t kStreamListpackMaxSize = size_t{1} << 30;

struct StreamLimits {
  int64_t node_max_bytes = 4096;
  int64_t node_max_entries = 100;
};

struct StreamConsumer;
// One pending entry of a group: delivered, not acknowledged yet.
struct StreamNack {
  int64_t delivery_time = 0;
  uint64_t delivery_count = 1;
  StreamConsumer* consumer = nullptr;
};
using StreamPel = std::map<StreamID, StreamNack*>;

struct StreamConsumer {
  std::string name;
  int64_t seen_time = 0;    // last interaction (XREADGROUP, XCLAIM ...)
  int64_t active_time = -1; // last successful read or claim (Redis 7.2); -1: never
  StreamPel pel;            // the NACKs are the group's
};

inline constexpr int64_t kStreamEntriesReadUnknown = -1;

struct StreamCG {
  StreamID last_id;
  int64_t entries_read = kStreamEntriesReadUnknown;
  StreamPel pel;  // owns the NACKs
  std::map<std::string, StreamConsumer*, std::less<>> consumers;
  ~StreamCG();
};
using StreamGroups = std::map<std::string, StreamCG*, std::less<>>;

enum class StreamTrimStrategy : uint8_t { kNone, kMaxLen, kMinId };
struct StreamTrimArgs {
  StreamTrimStrategy strategy = StreamTrimStrategy::kNone;
  bool approx = false;
  uint64_t maxlen = 0;
  StreamID minid;
  int64_t limit = 0;  // 0: no limit
};

class Stream {
 public:
  Stream() = default;
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  Rax rax;  // master ID -> listpack blob (uint8_t*)
  uint64_t length = 0;
  StreamID last_id;
  StreamID first_id;
  StreamID max_deleted_id;
  uint64_t entries_added = 0;
  StreamGroups* cgroups = nullptr;  // created on first XGROUP CREATE

  Stream* deep_copy() const;

  // Appends an entry with `fv` = field, value, ... (even count, at least one pair) under `id`,
  // which the caller has checked is greater than last_id. Updates length, last_id, first_id
  // and entries_added.
  void append(StreamID id, std::span<const std::string_view> fv, const StreamLimits& lim);
  // Trims by the strategy (Redis's streamTrim): whole nodes first, then (unless approx) entries
  // of the first node left are flagged deleted. Returns the entries removed.
  int64_t trim(const StreamTrimArgs& a);
  // Deletes the entry with this ID; false when there is none (or it is already deleted).
  bool remove(StreamID id);
  // First / last live entry's ID; false when the stream is empty.
  bool first_entry_id(StreamID* out) const;
  bool last_entry_id(StreamID* out) const;
  // The first entry's ID counting deleted ones still in the first node (Redis's
  // streamGetEdgeID without skipping tombstones); false when there is no node.
  bool first_raw_id(StreamID* out) const;

  // Consumer groups.
  StreamCG* find_group(std::string_view name) const;
  // nullptr when a group with that name exists.
  StreamCG* create_group(std::string_view name, StreamID id, int64_t entries_read);
  bool destroy_group(std::string_view name);
  size_t group_count() const { return cgroups ? cgroups->size() : 0; }
  // Redis 7.0's streamEstimateDistanceFromFirstEverEntry: how many entries were added up to
  // and including `id`, or -1 when the deletions make it unknown.
  int64_t estimate_entries_read(StreamID id) const;
  // XINFO's lag of a group (entries added after what it read); false when unknown (null).
  bool group_lag(const StreamCG& g, int64_t* lag) const;
  // Whether the range (start, end] may hold deleted entries (a tombstone).
  bool range_has_tombstones(StreamID start, StreamID end) const;

  size_t memory_usage(size_t samples) const;
  // Test support: re-derives length, counts and IDs from the nodes.
  bool check(std::string* why) const;
};

// Consumers of a group (creation, lookup, deletion with their pending entries).
StreamConsumer* stream_find_consumer(StreamCG& g, std::string_view name);
StreamConsumer* stream_create_consumer(StreamCG& g, std::string_view name, int64_t now_ms);
// Removes the consumer and its pending entries from the group; returns how many it had.
size_t stream_delete_consumer(StreamCG& g, std::string_view name);

// Walks live entries with start <= ID <= end, ascending or descending. Fields and values are
// listpack entries (integers stay integers; LpEntry::str formats them). The stream may be
// changed only through remove_current() while iterating.
class StreamIterator {
 public:
  StreamIterator(Stream& s, StreamID start, StreamID end, bool rev);
  // Moves to the next entry; false at the end.
  bool next(StreamID* id, int64_t* numfields);
  // Calls f(LpEntry field, LpEntry value) for each pair of the current entry.
  template <class F>
  void for_each_field(F&& f) const {
    const Listpack& lp = view();
    LpPos fp = fields_pos_, vp = values_pos_;
    for (int64_t k = 0; k < numfields_; k++) {
      const LpEntry fe = lp.get(fp);
      const LpEntry ve = lp.get(vp);
      f(fe, ve);
      if (same_fields_) {
        fp = lp.next(fp);
        vp = lp.next(vp);
      } else {
        fp = lp.next(lp.next(fp));
        vp = lp.next(lp.next(vp));
      }
    }
  }
  // Deletes the current entry (flags it, updates the node's counters and the stream length; a
  // node left empty is removed).
  void remove_current();

 private:
  bool enter_node();
  void set_node(uint8_t* blob);
  const Listpack& view() const { return **lpv_; }

  Stream& s_;
  StreamID start_, end_;
  bool rev_;
  bool started_ = false;
  uint8_t* lp_ = nullptr;  // current node's blob (null: look for a node)
  std::optional<ListpackView> lpv_;
  uint8_t key_[16];        // current node's key
  StreamID master_;
  int64_t master_fields_ = 0;
  LpPos master_fields_pos_ = 0;
  LpPos master_end_ = 0;   // the master entry's terminating 0
  LpPos cursor_ = 0;       // forward: next entry's flags; reverse: previous entry's lp-count
  LpPos cur_flags_ = 0;    // current entry
  LpPos fields_pos_ = 0, values_pos_ = 0;
  int64_t numfields_ = 0;
  bool same_fields_ = false;
};

// Parses "ms-seq", "ms" (seq = missing_seq) with Redis's rules; false on a bad ID. With
// seq_given non-null, "ms-*" is accepted (XADD) and *seq_given tells whether seq was explicit.
bool stream_parse_id(std::string_view s, uint64_t missing_seq, StreamID* out, bool* seq_given);

}  // namespace keel
