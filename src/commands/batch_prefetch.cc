// Member positions per command, and the member stage of the batch prefetch (see the header).
// Measured in utils/bench/RESULTS.md (session 4): SADD / HSET -P16 on one big set / hash spent
// 27-28% of the server's time in the member lookup's cache misses.
#include "commands/batch_prefetch.h"

#include "commands/command_table.h"
#include "keyspace/db.h"
#include "types/hash_type.h"
#include "types/set_type.h"
#include "types/zset_type.h"

namespace keel {
namespace {

struct MemberArgs {
  const char* name;
  int8_t first, last, step;  // last -1: the last argument
};

// Arguments that are members (fields) of the key's set, hash or zset. ZADD is left out: its
// members follow optional flags, and its time goes to the skiplist descent.
constexpr MemberArgs kMemberArgs[] = {
    {"sadd", 2, -1, 1},    {"srem", 2, -1, 1},    {"sismember", 2, 2, 1},
    {"smismember", 2, -1, 1},
    {"hset", 2, -1, 2},    {"hmset", 2, -1, 2},   {"hsetnx", 2, 2, 1},
    {"hget", 2, 2, 1},     {"hmget", 2, -1, 1},   {"hdel", 2, -1, 1},
    {"hexists", 2, 2, 1},  {"hincrby", 2, 2, 1},  {"hincrbyfloat", 2, 2, 1},
    {"hstrlen", 2, 2, 1},
    {"zscore", 2, 2, 1},   {"zmscore", 2, -1, 1}, {"zrem", 2, -1, 1},
    {"zincrby", 3, 3, 1},  {"zrank", 2, 2, 1},    {"zrevrank", 2, 2, 1},
};

}  // namespace

void init_member_positions() {
  for (CommandSpec* c : all_commands()) {
    for (const MemberArgs& m : kMemberArgs) {
      if (std::string_view(c->name) != m.name) continue;
      c->member_first = m.first;
      c->member_last = m.last;
      c->member_step = m.step;
    }
  }
}

size_t prefetch_members(const Db& db, const CommandSpec& spec,
                        std::span<const std::string_view> args, uint64_t* hashes, int stage,
                        size_t limit) {
  // Arity is checked later, at dispatch: a short command ("SADD" alone, last in the batch) has
  // no key slot here, and hashes[] must not be read past its own arguments.
  if (limit == 0 || args.size() <= static_cast<size_t>(spec.first_key)) return 0;
  const uint64_t key_hash = hashes[spec.first_key];
  if (key_hash == 0) return 0;
  const Object* o = db.peek(KeyRef{args[size_t(spec.first_key)], key_hash});
  if (o == nullptr) return 0;
  void (*prefetch)(const Object&, uint64_t, int);
  switch (o->type()) {
    case Type::kSet: prefetch = SetType::prefetch_member; break;
    case Type::kHash: prefetch = HashType::prefetch_member; break;
    case Type::kZset: prefetch = ZsetType::prefetch_member; break;
    default: return 0;
  }
  const int argc = static_cast<int>(args.size());
  const int last = spec.member_last < 0 ? argc + spec.member_last : spec.member_last;
  size_t n = 0;
  for (int i = spec.member_first; i <= last && i < argc && n < limit; i += spec.member_step) {
    if (stage == 0) hashes[i] = hash_key(args[size_t(i)]);
    if (hashes[i] == 0) continue;
    prefetch(*o, hashes[i], stage);
    n++;
  }
  return n;
}

}  // namespace keel
