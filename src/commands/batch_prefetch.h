// Batch prefetch, member stage. The key stage (server/client.cc Client::run_batch) hashes every
// key of a pipelined batch and prefetches its bucket and entry; for commands whose arguments
// name members of the key's collection (SADD, HSET, HGET, ZSCORE, ...) this stage then
// prefetches each member's bucket and entry in the key's hashtable-encoded value, so a batch of
// member operations on big sets, hashes and zsets overlaps its cache misses too.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "commands/command.h"

namespace keel {

class Db;

// Sets CommandSpec::member_first/last/step for the commands listed in batch_prefetch.cc.
// Called once by init_command_table().
void init_member_positions();

// One parsed command. Stage 0 hashes up to `limit` member arguments into hashes[i] (the same
// array that holds the key hashes; member positions are never key positions) and prefetches
// their buckets; stage 1, after those arrived, prefetches the entries of the members hashed in
// stage 0. The key's hash must be in hashes[first_key] from the key stage (0: nothing is done).
// The value is found with Db::peek: no expiry, stats, LRU or notification side effects, and
// nothing is changed. Returns the number of members handled.
size_t prefetch_members(const Db& db, const CommandSpec& spec,
                        std::span<const std::string_view> args, uint64_t* hashes, int stage,
                        size_t limit);

}  // namespace keel
