// The member stage of the batch prefetch (see the header); member positions are in the rows
// (CommandSpec::members).
// Measured in utils/bench/RESULTS.md (session 4): SADD / HSET -P16 on one big set / hash spent
// 27-28% of the server's time in the member lookup's cache misses.
#include "commands/batch_prefetch.h"

#include "base/numbers.h"
#include "commands/zset_args.h"
#include "keyspace/db.h"
#include "types/hash_type.h"
#include "types/set_type.h"
#include "types/zset_type.h"

namespace keel {
void MemberPrefetch::command(const CommandSpec& spec, std::span<const std::string_view> args,
                             uint64_t* hashes, int stage) {
  // The caller visits the same commands in the same order in every stage.
  const size_t k = calls_[stage]++;
  if (stage == 0 && k < kMaxCommands) values_[k] = nullptr;
  if (stage == 2 && spec.prefetch.members.walk == kWalkNone) return;
  // Arity is checked later, at dispatch: a short command ("SADD" alone, last in the batch) has
  // no key slot here, and hashes[] must not be read past its own arguments.
  if (used_[stage] >= budget_ || args.size() <= static_cast<size_t>(spec.prefetch.keys.first)) return;
  const Object* o;
  if (stage > 0 && k < kMaxCommands) {
    o = values_[k];
  } else {
    const uint64_t key_hash = hashes[spec.prefetch.keys.first];
    if (key_hash == 0) return;
    o = db_.peek(KeyRef{args[size_t(spec.prefetch.keys.first)], key_hash});
    if (k < kMaxCommands) values_[k] = o;
  }
  if (o == nullptr) return;
  void (*prefetch)(const Object&, uint64_t, int);
  switch (o->type()) {
    case Type::kSet: prefetch = SetType::prefetch_member; break;
    case Type::kHash: prefetch = HashType::prefetch_member; break;
    case Type::kZset: prefetch = ZsetType::prefetch_member; break;
    default: return;
  }
  if (stage == 2 && o->type() != Type::kZset) return;
  const int argc = static_cast<int>(args.size());
  int first = spec.prefetch.members.first;
  bool increment = spec.prefetch.members.walk == kWalkIncrement;
  if (spec.prefetch.members.walk == kWalkZadd) {  // member_first is for ZADD without flags
    int flags = 0;
    bool ch = false;
    first += static_cast<int>(parse_zadd_flags(args, &flags, &ch)) - 2;
    increment = flags & ZsetType::kIncr;
  }
  const int last = spec.prefetch.members.last < 0 ? argc + spec.prefetch.members.last : spec.prefetch.members.last;
  for (int i = first; i <= last && i < argc && used_[stage] < budget_; i += spec.prefetch.members.step) {
    if (stage == 0) hashes[i] = hash_key(args[size_t(i)]);
    if (hashes[i] == 0) continue;
    used_[stage]++;
    if (stage < 2) {
      prefetch(*o, hashes[i], stage);
      continue;
    }
    // ZADD and ZINCRBY: the argument before the member is its score or increment. One that
    // does not parse is the command's error later; here it only means no new-position descent.
    double score = 0;
    const bool scored = spec.prefetch.members.walk >= kWalkZadd && parse_double(args[size_t(i) - 1], &score);
    n_descents_ += ZsetType::start_descents(*o, args[size_t(i)], hashes[i],
                                            scored ? &score : nullptr, increment,
                                            descents_ + n_descents_, kMaxDescents - n_descents_);
    if (n_descents_ == kMaxDescents) return;
  }
}

}  // namespace keel
