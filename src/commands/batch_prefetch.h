// Batch prefetch, member stage. The key stage (server/client.cc Client::run_batch) hashes every
// key of a pipelined batch and prefetches its bucket and entry; for commands whose arguments
// name members of the key's collection (SADD, HSET, HGET, ZSCORE, ZADD, ...) this stage then
// prefetches each member's bucket and entry in the key's hashtable-encoded value, and for
// skiplist-encoded zsets walks ahead the skiplist descents the commands will make, all
// interleaved, so a batch of member operations on big values overlaps its cache misses too.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "commands/command.h"
#include "ds/skiplist.h"

namespace keel {

class Db;
class Object;

// The member stage of one batch. The caller runs stage 0, 1 and 2 over every command of the
// batch in turn (each stage needs the lines the previous one prefetched for all commands),
// then finish(). Stage 0 hashes the member arguments into hashes[i] (the same array that holds
// the key hashes; member positions are never key positions) and prefetches their buckets;
// stage 1 prefetches their entries; stage 2 starts the skiplist descents of zset commands, which
// finish() runs interleaved. Each command's key hash must be in hashes[prefetch.keys.first] from
// the key stage (0: the command is skipped). Values are found with Db::peek: no expiry, stats, LRU or
// notification side effects, and nothing is changed.
class MemberPrefetch {
 public:
  // At most `budget` members per stage (stage 1 and 2 revisit exactly those stage 0 hashed).
  MemberPrefetch(const Db& db, size_t budget) : db_(db), budget_(budget) {}
  void command(const CommandSpec& spec, std::span<const std::string_view> args,
               uint64_t* hashes, int stage);
  void finish() { Skiplist::run_descents(descents_, n_descents_); }

 private:
  static constexpr size_t kMaxDescents = 64;
  static constexpr size_t kMaxCommands = 128;
  const Db& db_;
  size_t budget_;
  size_t used_[3] = {0, 0, 0};   // members handled per stage
  size_t calls_[3] = {0, 0, 0};  // command() calls per stage: the index into values_
  // The value stage 0 found for each command (nullptr: none), so that stages 1 and 2 do not
  // look the key up again. Commands past kMaxCommands peek again.
  const Object* values_[kMaxCommands];
  size_t n_descents_ = 0;
  Skiplist::Descent descents_[kMaxDescents];
};

}  // namespace keel
