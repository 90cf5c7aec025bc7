// Command table rows and the context a handler runs with. A handler validates its arguments,
// mutates through Db (keyspace/), emits its keyspace events, and replies exactly once.
// Dispatch checks arity, authentication and the other generic rules before the handler runs;
// call() (dispatch.h) runs it and propagates it when it changed the dataset (propagate.h).
#pragma once
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

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

struct CommandSpec {
  const char* name;      // lowercase wire name ("get", or "get" as a subcommand of "config")
  Handler handler;       // null for a container whose subcommands do the work
  int arity;             // Redis convention: N exact, -N at least N (counting the name)
  uint32_t flags;
  int first_key;         // key positions for COMMAND INFO, GETKEYS and prefetch (0 = none)
  int last_key;          // -1 = last argument
  int step;
  uint32_t acl = 0;      // AclCategory bits
  const char* group = "generic";  // COMMAND DOCS group
  const char* summary = "";
  const char* since = "1.0.0";
  const char* complexity = "";
  std::span<struct CommandSpec> subcommands = {};
  // Filled in by the command table at start-up.
  const CommandSpec* parent = nullptr;
  CommandStats* stats = nullptr;
  // "config|get" for subcommands, else name (errors, commandstats, slowlog).
  const char* full_name = nullptr;
  // Arguments that name members of the key's collection, for the batch prefetch's member
  // stage (commands/batch_prefetch.cc sets them): member_first, + member_step, ... up to
  // member_last (-1 = the last argument). member_first 0: none. member_walk says which
  // skiplist descents an operation on a zset member makes (MemberWalk in batch_prefetch.h).
  int8_t member_first = 0;
  int8_t member_last = 0;
  int8_t member_step = 1;
  uint8_t member_walk = 0;
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
