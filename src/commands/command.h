// Command table rows and the context a handler runs with. A handler validates its arguments,
// mutates through Db (keyspace/), emits its keyspace events, and replies exactly once.
// Dispatch checks arity, authentication and the other generic rules before the handler runs;
// call() (dispatch.h) runs it and propagates it when it changed the dataset (propagate.h).
#pragma once
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "keyspace/db.h"
#include "keyspace/notify.h"
#include "protocol/errors.h"
#include "protocol/reply_writer.h"
#include "commands/propagate.h"
#include "commands/session.h"

namespace keel {

class ServerApi;
class CommandContext;
using Handler = void (*)(CommandContext&);

// Command flags (COMMAND INFO names in comments).
enum CommandFlag : uint32_t {
  kWrite = 1u << 0,           // write
  kReadOnly = 1u << 1,        // readonly
  kDenyOom = 1u << 2,         // denyoom
  kAdmin = 1u << 3,           // admin
  kPubSubCmd = 1u << 4,       // pubsub
  kNoScript = 1u << 5,        // noscript
  kBlocking = 1u << 6,        // blocking
  kLoading = 1u << 7,         // loading
  kStale = 1u << 8,           // stale
  kSkipMonitor = 1u << 9,     // skip_monitor
  kSkipSlowlog = 1u << 10,    // skip_slowlog
  kFast = 1u << 11,           // fast
  kNoAuth = 1u << 12,         // no_auth
  kMayReplicate = 1u << 13,   // may_replicate
  kNoMulti = 1u << 14,        // no_multi
  kMovableKeys = 1u << 15,    // movablekeys
  kAllowBusy = 1u << 16,      // allow_busy
  kNoMandatoryKeys = 1u << 17,// no_mandatory_keys
  kSentinel = 1u << 18,       // sentinel
  kProtected = 1u << 19,      // (not shown) DEBUG, MODULE LOAD/LOADEX/UNLOAD: refused at admission
                              // unless enable-debug-command allows it (MODULE: always refused)
  kContainer = 1u << 20,      // (not shown; set by the table) has subcommands
  // no_async_loading: shown as Redis shows it (Keel never loads asynchronously, so it only
  // documents the commands Redis refuses during an async replica load).
  kNoAsyncLoading = 1u << 21,
  kAsking = 1u << 22,         // asking (RESTORE-ASKING: cluster-only meaning, shown as Redis shows it)
  kOkLoading = kLoading,
};

// ACL categories beyond those derived from the flags (@write, @read, @fast/@slow, @admin,
// @dangerous, @pubsub, @blocking are derived).
enum AclCategory : uint32_t {
  kAclKeyspace = 1u << 0,
  kAclString = 1u << 1,
  kAclList = 1u << 2,
  kAclSet = 1u << 3,
  kAclSortedSet = 1u << 4,
  kAclHash = 1u << 5,
  kAclBitmap = 1u << 6,
  kAclHyperLogLog = 1u << 7,
  kAclGeo = 1u << 8,
  kAclStream = 1u << 9,
  kAclConnection = 1u << 10,
  kAclTransaction = 1u << 11,
  kAclScripting = 1u << 12,
  kAclDangerous = 1u << 13,
  kAclAdmin = 1u << 14,  // @admin for commands without the admin flag (LASTSAVE)
};

class LatencyHistogram;

// Per-command statistics (INFO commandstats); one per table row, owned by the command table.
struct CommandStats {
  uint64_t calls = 0;
  uint64_t usec = 0;
  uint64_t rejected_calls = 0;
  uint64_t failed_calls = 0;
  LatencyHistogram* latency = nullptr;  // latency-tracking (commands/latency.h), lazily created
};

// ---- Key specs (Redis 7: COMMAND INFO element 9, COMMAND GETKEYS / GETKEYSANDFLAGS) ----
// A key spec says where a command's keys are (begin_search: an argument index, or the argument
// after a keyword; find_keys: a range from there, or a count argument) and how they are used
// (the flags below, printed by COMMAND INFO in this order).
enum KeySpecFlag : uint16_t {
  kKsRW = 1u << 0,              // RW: read and modify
  kKsRO = 1u << 1,              // RO: read only
  kKsOW = 1u << 2,              // OW: overwrite (the old value is not read)
  kKsRM = 1u << 3,              // RM: remove
  kKsAccess = 1u << 4,          // access: returns or copies (part of) the value
  kKsUpdate = 1u << 5,          // update: changes the value
  kKsInsert = 1u << 6,          // insert: adds to the value
  kKsDelete = 1u << 7,          // delete: removes from the value
  kKsNotKey = 1u << 8,          // not_key: a name in a key's place (sharded channels)
  kKsIncomplete = 1u << 9,      // incomplete: the spec may miss keys
  kKsVariableFlags = 1u << 10,  // variable_flags: the flags depend on other arguments
};
enum class BeginSearch : uint8_t { kNone = 0, kIndex, kKeyword, kUnknown };  // kNone: unused slot
enum class FindKeys : uint8_t { kNone = 0, kRange, kKeynum, kUnknown };

struct KeySpec {
  const char* notes = nullptr;    // COMMAND INFO "notes", when Redis has some
  const char* keyword = nullptr;  // kKeyword: the keyword (case-insensitive)
  uint16_t flags = 0;             // KeySpecFlag bits
  BeginSearch begin = BeginSearch::kNone;
  FindKeys find = FindKeys::kNone;
  int16_t pos = 0;        // kIndex: the argument; kKeyword: where the search starts (< 0: from the end, backwards)
  int16_t lastkey = 0;    // kRange: last key relative to the first (< 0: from the end of the arguments)
  int16_t keystep = 1;    // kRange, kKeynum: distance between keys
  int16_t limit = 0;      // kRange with lastkey -1: only the first 1/limit of the remaining arguments
  int16_t keynumidx = 0;  // kKeynum: the count argument, relative to the begin_search position
  int16_t firstkey = 0;   // kKeynum: the first key, relative to the begin_search position
};

// Builders for rows: ks(flags) is one key at argument 1; ks(flags, 2) one key at argument 2;
// ks(flags, 1, fk_range(-1, 2, 0)) keys 1, 3, 5 ... to the end; ks(flags, 2, fk_keynum(0, 1, 1))
// a count at argument 2 then that many keys; ks(flags, bs_keyword("STORE", 1), ...) keys after
// a keyword.
struct KsBegin {
  BeginSearch type;
  int16_t pos;
  const char* keyword;
};
struct KsFind {
  FindKeys type;
  int16_t lastkey, keystep, limit, keynumidx, firstkey;
};
constexpr KsBegin bs_index(int pos) { return {BeginSearch::kIndex, static_cast<int16_t>(pos), nullptr}; }
constexpr KsBegin bs_keyword(const char* keyword, int startfrom) {
  return {BeginSearch::kKeyword, static_cast<int16_t>(startfrom), keyword};
}
constexpr KsBegin bs_unknown() { return {BeginSearch::kUnknown, 0, nullptr}; }
constexpr KsFind fk_range(int lastkey = 0, int keystep = 1, int limit = 0) {
  return {FindKeys::kRange, static_cast<int16_t>(lastkey), static_cast<int16_t>(keystep),
          static_cast<int16_t>(limit), 0, 0};
}
constexpr KsFind fk_keynum(int keynumidx, int firstkey, int keystep) {
  return {FindKeys::kKeynum, 0, static_cast<int16_t>(keystep), 0, static_cast<int16_t>(keynumidx),
          static_cast<int16_t>(firstkey)};
}
constexpr KsFind fk_unknown() { return {FindKeys::kUnknown, 0, 0, 0, 0, 0}; }
constexpr KeySpec ks(unsigned flags, KsBegin b, KsFind f = fk_range(), const char* notes = nullptr) {
  KeySpec s;
  s.notes = notes;
  s.keyword = b.keyword;
  s.flags = static_cast<uint16_t>(flags);
  s.begin = b.type;
  s.find = f.type;
  s.pos = b.pos;
  s.lastkey = f.lastkey;
  s.keystep = f.keystep;
  s.limit = f.limit;
  s.keynumidx = f.keynumidx;
  s.firstkey = f.firstkey;
  return s;
}
constexpr KeySpec ks(unsigned flags, int index = 1, KsFind f = fk_range(), const char* notes = nullptr) {
  return ks(flags, bs_index(index), f, notes);
}
// The most key specs a Redis command has (GEORADIUS).
constexpr size_t kMaxKeySpecs = 3;

// A key found in a command's arguments (COMMAND GETKEYS), with its KeySpecFlag bits.
struct KeyArg {
  int pos;
  uint16_t flags;
};
// Redis's getkeys_proc for a command whose key flags depend on its arguments (variable_flags:
// SET with or without GET, BITFIELD with or without writes): fills `keys`, returns their count.
using GetKeysProc = int (*)(std::span<const std::string_view> args, std::vector<KeyArg>* keys);

// CommandSpec::members.walk: the skiplist descents an operation on each member makes.
enum MemberWalk : uint8_t {
  kWalkNone = 0,   // no descent (ZSCORE) or not a zset command
  kWalkCurrent,    // to the member's current position (ZREM, ZRANK, ZREVRANK)
  kWalkZadd,       // ZADD: optional flags, then score/member pairs: current and new position
  kWalkIncrement,  // ZINCRBY: the argument before the member is an increment
};
// Arguments that name members (fields) of the key's set, hash or zset, for the batch prefetch's
// member stage (commands/batch_prefetch.h): first, first + step, ... up to last (-1 = the last
// argument). first 0: none. ZADD's positions are those without flags; the prefetch shifts
// them past the flags it finds.
struct MemberArgs {
  int8_t first = 0;
  int8_t last = 0;
  int8_t step = 1;
  MemberWalk walk = kWalkNone;
};
// Key positions the batch prefetch hashes (the legacy first/last/step range, from the key
// specs at start-up): first 0 = none.
struct KeyRange {
  int8_t first = 0;
  int8_t last = 0;
  int8_t step = 1;
  uint8_t unused = 0;
};

// One command table row. Rows are written with designated initializers, naming only what they
// set (see commands/README.md, "Adding a command"):
//   {.name = "lmove", .handler = cmd_lmove, .arity = 5, .flags = kWrite | kDenyOom, ...,
//    .keys = {ks(kKsRW | kKsAccess | kKsDelete), ks(kKsRW | kKsInsert, 2)}},
// The field order up to `subcommands` is that of the old positional rows, which still compile:
// a row that gives first_key/last_key/step and no key specs gets one range spec made from them
// at start-up (RW update for write commands, else RO access).
struct CommandSpec {
  const char* name = nullptr;  // lowercase wire name ("get", or "get" as a subcommand of "config")
  Handler handler = nullptr;   // null for a container whose subcommands do the work
  int arity = 0;               // Redis convention: N exact, -N at least N (counting the name)
  uint32_t flags = 0;          // CommandFlag bits; kMovableKeys is derived from the key specs
  // The legacy key range of COMMAND INFO (elements 4-6): derived from the key specs at
  // start-up as Redis does; rows do not set them.
  int first_key = 0;
  int last_key = 0;      // -1 = last argument
  int step = 0;
  uint32_t acl = 0;      // AclCategory bits
  const char* group = "generic";  // COMMAND DOCS group
  const char* summary = "";
  const char* since = "1.0.0";
  const char* complexity = "";
  std::span<struct CommandSpec> subcommands = {};
  // ---- Filled in by the command table at start-up; rows leave them out. Kept before the key
  // specs so that what every call reads (the prefetch positions, parent, stats, full_name)
  // sits in the row's first two cache lines with name, handler, arity and flags.
  // What the batch prefetch reads, in one 8-byte load: the key range (from the key specs)
  // and a copy of `members`.
  struct Prefetch {
    KeyRange keys;
    MemberArgs members;
  };
  alignas(8) Prefetch prefetch = {};
  const CommandSpec* parent = nullptr;
  CommandStats* stats = nullptr;
  // "config|get" for subcommands, else name (errors, commandstats, slowlog).
  const char* full_name = nullptr;
  uint8_t n_key_specs = 0;  // used entries of `keys`
  // Derived at start-up for the ACL fast path (commands/acl.h): kAclNoKeys, the argument
  // index of the one key of a command whose only key spec is a single fixed position (GET,
  // SET, INCR ...), or 0 for any other shape.
  uint8_t acl_key_pos = 0;
  uint16_t acl_id = 0;      // index in the ACL command bitmaps (commands/acl.h)
  // ---- Row fields again ----
  // Where the keys are and how they are used (COMMAND INFO, GETKEYS, the batch prefetch).
  KeySpec keys[kMaxKeySpecs] = {};
  GetKeysProc getkeys = nullptr;  // for variable_flags specs, as Redis's getkeys_proc
  MemberArgs members = {};        // member arguments for the batch prefetch
  // COMMAND INFO tips, space-separated as Redis lists them ("request_policy:all_shards
  // nondeterministic_output_order"); null for none.
  const char* tips = nullptr;
};

class CommandContext {
 public:
  CommandContext(Session& s, std::span<const std::string_view> args, uint64_t* hashes,
                 ReplyWriter& w, ServerApi& api, const CommandSpec& cmd)
      : session_(s), args_(args), hashes_(hashes), reply_(w), api_(api), cmd_(cmd) {}

  size_t argc() const { return args_.size(); }
  std::string_view arg(size_t i) const { return args_[i]; }
  std::span<const std::string_view> args() const { return args_; }
  // The key at argument i with its hash (computed at prefetch time when possible, never twice).
  KeyRef key(size_t i) {
    if (hashes_ && hashes_[i]) return {args_[i], hashes_[i]};
    uint64_t h = hash_key(args_[i]);
    if (hashes_) hashes_[i] = h;
    return {args_[i], h};
  }
  Db& db() { return *session_.db; }
  Session& session() { return session_; }
  ReplyWriter& reply() { return reply_; }
  ServerApi& server() { return api_; }
  const CommandSpec& command() const { return cmd_; }
  int64_t now_ms() const { return g_clock.now_ms; }
  void notify(uint32_t cls, std::string_view event, std::string_view key) {
    keel::notify(cls, event, key, session_.db->id());
  }

  // Argument parsing helpers: on failure they reply Redis's error and return false.
  bool int_arg(size_t i, int64_t* out);        // "value is not an integer or out of range"
  bool double_arg(size_t i, double* out);      // "value is not a valid float"
  bool db_index_arg(size_t i, int* out);       // SELECT/MOVE/COPY DB index (getIntFromObject)
  bool is_arg(size_t i, std::string_view word) const;  // case-insensitive compare
  // HRANDFIELD / ZRANDMEMBER: `key count [<with_word>]` -> count and whether the flag is given,
  // with Redis's range and syntax errors.
  bool random_count_args(std::string_view with_word, int64_t* count, bool* with);
  // WRONGTYPE reply when o is not of type t; returns false then.
  bool check_type(const Object* o, Type t);
  // LLEN / HLEN / SCARD / ZCARD: the length of the collection at key 1 (of type t), 0 when
  // missing, WRONGTYPE otherwise.
  void reply_collection_length(Type t);
  // ERR wrong number of arguments for '<name>' command
  void reply_arity_error();

  // ---- Propagation and the dirty counter (commands/propagate.h) ----
  // By default a command that changed the dataset is propagated as received, and adds to
  // rdb_changes_since_last_save what its Db mutations counted (one per mutation call).
  // Propagate this command as argv instead (Redis's rewriteClientCommandVector). Only the
  // last call counts. Does nothing when nobody consumes the stream: callers that must format
  // an argument first test propagating().
  void propagate_as(std::span<const std::string_view> argv) {
    if (!propagating()) return;
    propagation_set_rewrite(argv);
    prop_flags_ |= kPropRewritten;
  }
  void propagate_as(std::initializer_list<std::string_view> argv) {
    propagate_as(std::span<const std::string_view>(argv.begin(), argv.size()));
  }
  // One more command, propagated before this one (Redis's alsoPropagate), in this db.
  void also_propagate(std::initializer_list<std::string_view> argv) {
    if (propagating()) propagate(session_.db->id(), argv);
  }
  void also_propagate(std::span<const std::string_view> argv) {
    if (propagating()) propagate(session_.db->id(), argv);
  }
  // This command itself is not propagated (EXEC, EVAL, FCALL: their inner commands are; SPOP
  // with a count: its SREM batches are).
  void prevent_propagation() { prop_flags_ |= kPropPrevent; }
  // Propagated even when it changed nothing (FLUSHALL on empty dbs), to `targets` only
  // (PUBLISH: replicas).
  void force_propagation(uint8_t targets = kPropagateAll) {
    prop_flags_ |= static_cast<uint8_t>(targets << kPropForceShift);
  }
  // This command's rdb_changes_since_last_save count as Redis counts it (elements pushed,
  // fields set ...), replacing what the Db mutations counted so far: call it after the last
  // mutation. 0 with changes made means
  // "do not count, do not propagate" (Redis's rule: propagated iff the counter moved).
  void set_dirty(int64_t n) { keyspace_stats().dirty = dirty_base_ + static_cast<uint64_t>(n); }
  uint64_t dirty_base() const { return dirty_base_; }

  // For call(): what the handler asked for.
  // prop_flags(): kPropRewritten, kPropPrevent, and the forced targets (PropagateTarget bits)
  // shifted by kPropForceShift.
  static constexpr uint8_t kPropRewritten = 1, kPropPrevent = 2, kPropForceShift = 2;
  uint8_t prop_flags() const { return prop_flags_; }
  uint8_t force_targets() const { return static_cast<uint8_t>(prop_flags_ >> kPropForceShift); }

 private:
  Session& session_;
  std::span<const std::string_view> args_;
  uint64_t* hashes_;
  ReplyWriter& reply_;
  ServerApi& api_;
  const CommandSpec& cmd_;
  uint64_t dirty_base_ = keyspace_stats().dirty;  // the counter when the handler started
  uint8_t prop_flags_ = 0;
};

bool equals_nocase(std::string_view a, std::string_view b);

}  // namespace keel
