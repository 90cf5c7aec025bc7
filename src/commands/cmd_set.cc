// Set commands: SADD SREM SCARD SISMEMBER SMISMEMBER SMEMBERS SRANDMEMBER SPOP SMOVE SINTER
// SINTERCARD SINTERSTORE SUNION SUNIONSTORE SDIFF SDIFFSTORE SSCAN. Encodings, conversions and
// sampling strategies live in types/set_type.cc; handlers here validate, make one Db lookup per
// key, mutate through SetType, report the length change to Db once and reply once.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "base/glob.h"
#include "base/numbers.h"
#include "commands/command.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "commands/scan_cursor.h"
#include "types/set_type.h"

namespace keel {
namespace {

// SetEmit that writes each member as a bulk string.
void emit_bulk(void* ctx, const SetElem& e) {
  ReplyWriter* w = static_cast<ReplyWriter*>(ctx);
  if (e.is_int) {
    w->bulk_int(e.ival);
  } else {
    w->bulk(e.str);
  }
}

// Members are stored with 32-bit lengths; only reachable with proto-max-bulk-len over 4 GB.
bool reject_huge(CommandContext& cx, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) {
    if (cx.arg(i).size() > UINT32_MAX) [[unlikely]] {
      cx.reply().error(kErrStringTooLong);
      return true;
    }
  }
  return false;
}

// Replies every member of o as a set (RESP3 ~, RESP2 *).
void reply_members(CommandContext& cx, const Object& o) {
  ReplyWriter& w = cx.reply();
  w.set(SetType::size(o));
  SetType::for_each(o, [&](const SetElem& e) {
    emit_bulk(&w, e);
    return true;
  });
}

// SADD key member [member ...] -> integer: members that were not already in the set.
// A new key takes the encoding its first member and the argument count call for; an existing
// small set converts up front when the argument count alone exceeds its limit (as Redis does,
// even if the arguments repeat).
void cmd_sadd(CommandContext& cx) {
  if (reject_huge(cx, 2, cx.argc())) return;
  const std::span<const std::string_view> members = cx.args().subspan(2);
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  size_t added = 0;
  if (!slot) {
    Object* o = SetType::create(cx.arg(1), members[0], members.size());
    for (std::string_view m : members) added += SetType::add(*o, m);
    cx.db().insert(slot, o);  // keysizes none -> (set, added); emits "new"
    cx.set_dirty(static_cast<int64_t>(added));  // Redis counts the members added
    cx.notify(kNotifySet, "sadd", cx.arg(1));
    return cx.reply().integer(static_cast<int64_t>(added));
  }
  if (!cx.check_type(slot.obj(), Type::kSet)) return;
  const int64_t old_len = static_cast<int64_t>(SetType::size(*slot));
  SetType::maybe_convert(*slot, members.size());
  for (std::string_view m : members) added += SetType::add(*slot, m);
  if (added > 0) {
    cx.db().length_changed(slot, old_len);
    cx.set_dirty(static_cast<int64_t>(added));
    cx.notify(kNotifySet, "sadd", cx.arg(1));
  }
  cx.reply().integer(static_cast<int64_t>(added));
}

// SREM key member [member ...] -> integer: members removed. An emptied set is deleted.
void cmd_srem(CommandContext& cx) {
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) return cx.reply().integer(0);
  if (!cx.check_type(slot.obj(), Type::kSet)) return;
  const int64_t old_len = static_cast<int64_t>(SetType::size(*slot));
  size_t removed = 0;
  for (size_t i = 2; i < cx.argc(); i++) removed += SetType::remove(*slot, cx.arg(i));
  if (removed > 0) {
    SetType::after_removals(*slot);  // the one shrink check of the command
    const bool deleted = cx.db().length_changed(slot, old_len);
    cx.set_dirty(static_cast<int64_t>(removed));
    cx.notify(kNotifySet, "srem", cx.arg(1));
    if (deleted) cx.notify(kNotifyGeneric, "del", cx.arg(1));
  }
  cx.reply().integer(static_cast<int64_t>(removed));
}

// SCARD key -> integer.
void cmd_scard(CommandContext& cx) { cx.reply_collection_length(Type::kSet); }

// SISMEMBER key member -> 1 / 0.
void cmd_sismember(CommandContext& cx) {
  Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().integer(0);
  if (!cx.check_type(o, Type::kSet)) return;
  cx.reply().integer(SetType::contains(*o, cx.arg(2)) ? 1 : 0);
}

// SMISMEMBER key member [member ...] -> array of 1 / 0 (all 0 for a missing key).
void cmd_smismember(CommandContext& cx) {
  Object* o = cx.db().find(cx.key(1));
  if (o && !cx.check_type(o, Type::kSet)) return;
  cx.reply().array(cx.argc() - 2);
  for (size_t i = 2; i < cx.argc(); i++) {
    cx.reply().integer(o && SetType::contains(*o, cx.arg(i)) ? 1 : 0);
  }
}

// SMEMBERS key -> set of every member (empty for a missing key).
void cmd_smembers(CommandContext& cx) {
  Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().set(0);
  if (!cx.check_type(o, Type::kSet)) return;
  reply_members(cx, *o);
}

// SRANDMEMBER key [count] -> one member (bulk / null), or an array: count >= 0 gives distinct
// members (at most the whole set), count < 0 gives |count| members that may repeat.
void cmd_srandmember(CommandContext& cx) {
  if (cx.argc() > 3) return cx.reply().error(kErrSyntax);
  if (cx.argc() == 2) {
    Object* o = cx.db().find(cx.key(1));
    if (!o) return cx.reply().null();
    if (!cx.check_type(o, Type::kSet)) return;
    return emit_bulk(&cx.reply(), SetType::random_member(*o));
  }
  int64_t l;
  if (!cx.int_arg(2, &l)) return;
  if (l == INT64_MIN) {
    return cx.reply().error(
        "ERR value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807");
  }
  const bool unique = l >= 0;
  const uint64_t count = unique ? static_cast<uint64_t>(l) : static_cast<uint64_t>(-l);
  Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().array(0);
  if (!cx.check_type(o, Type::kSet)) return;
  if (count == 0) return cx.reply().array(0);
  const size_t size = SetType::size(*o);
  cx.reply().array(unique ? std::min<uint64_t>(count, size) : count);
  SetType::random_members(*o, count, unique, emit_bulk, &cx.reply());
}

// SPOP key [count] -> one removed member (bulk / null), or a set of up to count removed
// members. Events: spop, then del when the set was emptied.
void cmd_spop(CommandContext& cx) {
  if (cx.argc() > 3) return cx.reply().error(kErrSyntax);
  Db& db = cx.db();
  if (cx.argc() == 2) {
    Db::Slot slot = db.find_for_write(cx.key(1));
    if (!slot) return cx.reply().null();
    if (!cx.check_type(slot.obj(), Type::kSet)) return;
    const int64_t old_len = static_cast<int64_t>(SetType::size(*slot));
    const SetElem e = SetType::random_member(*slot);
    emit_bulk(&cx.reply(), e);  // copied into the reply before the member is freed
    if (propagating()) {  // as SREM key member (copied by propagate_as before the member goes)
      char buf[kInt64BufSize];
      cx.propagate_as({"SREM", cx.arg(1), e.text(buf)});
    }
    SetType::remove(*slot, e);
    SetType::after_removals(*slot);
    const bool deleted = db.length_changed(slot, old_len);
    cx.notify(kNotifySet, "spop", cx.arg(1));
    if (deleted) cx.notify(kNotifyGeneric, "del", cx.arg(1));
    return;
  }
  int64_t count;
  if (!parse_int64(cx.arg(2), &count) || count < 0) return cx.reply().error(kErrPositive);
  Db::Slot slot = db.find_for_write(cx.key(1));
  if (!slot) return cx.reply().set(0);
  if (!cx.check_type(slot.obj(), Type::kSet)) return;
  if (count == 0) return cx.reply().set(0);
  const size_t size = SetType::size(*slot);
  cx.notify(kNotifySet, "spop", cx.arg(1));
  if (static_cast<uint64_t>(count) >= size) {
    // The whole set: propagated as DEL (UNLINK with lazyfree-lazy-server-del), counted as
    // every member (Redis 7.2+).
    reply_members(cx, *slot);
    db.remove(slot);
    cx.set_dirty(static_cast<int64_t>(size));
    cx.notify(kNotifyGeneric, "del", cx.arg(1));
    cx.propagate_as({command_options().lazyfree_lazy_server_del ? "UNLINK" : "DEL", cx.arg(1)});
    return;
  }
  cx.reply().set(static_cast<size_t>(count));
  if (!propagating()) {
    SetType::pop_random_many(*slot, static_cast<size_t>(count), emit_bulk, &cx.reply());
  } else {
    // Propagated as SREM key m1 m2 ... in batches of at most 1024 members (Redis 7.2+).
    struct Collect {
      ReplyWriter* w;
      std::vector<std::string> popped;
    } c{&cx.reply(), {}};
    SetType::pop_random_many(
        *slot, static_cast<size_t>(count),
        [](void* p, const SetElem& e) {
          Collect* k = static_cast<Collect*>(p);
          emit_bulk(k->w, e);
          char buf[kInt64BufSize];
          k->popped.emplace_back(e.text(buf));
        },
        &c);
    constexpr size_t kBatch = 1024;
    std::vector<std::string_view> argv;
    for (size_t i = 0; i < c.popped.size(); i += kBatch) {
      argv.assign({"SREM", cx.arg(1)});
      for (size_t j = i; j < c.popped.size() && j < i + kBatch; j++) argv.push_back(c.popped[j]);
      cx.also_propagate(argv);
    }
    cx.prevent_propagation();
  }
  db.length_changed(slot, static_cast<int64_t>(size));
  cx.set_dirty(count);
}

// SMOVE source destination member -> 1 when moved (or already in a source == destination),
// else 0. Events: srem(src) [del(src)] [new(dst)] sadd(dst, only when new there).
void cmd_smove(CommandContext& cx) {
  if (reject_huge(cx, 3, 4)) return;
  Db& db = cx.db();
  Db::Slot src = db.find_for_write(cx.key(1));
  Db::Slot dst = db.find_for_write(cx.key(2));
  const std::string_view member = cx.arg(3);
  if (!src) return cx.reply().integer(0);
  if (!cx.check_type(src.obj(), Type::kSet)) return;
  if (dst && !cx.check_type(dst.obj(), Type::kSet)) return;
  if (cx.arg(1) == cx.arg(2)) return cx.reply().integer(SetType::contains(*src, member) ? 1 : 0);
  const int64_t src_len = static_cast<int64_t>(SetType::size(*src));
  if (!SetType::remove(*src, member)) return cx.reply().integer(0);
  SetType::after_removals(*src);
  const bool src_deleted = db.length_changed(src, src_len);
  cx.notify(kNotifySet, "srem", cx.arg(1));
  if (src_deleted) cx.notify(kNotifyGeneric, "del", cx.arg(1));
  if (!dst) {
    Object* o = SetType::create(cx.arg(2), member, 1);
    SetType::add(*o, member);
    db.insert(dst, o);  // emits "new"
    cx.notify(kNotifySet, "sadd", cx.arg(2));
  } else {
    const int64_t dst_len = static_cast<int64_t>(SetType::size(*dst));
    if (SetType::add(*dst, member)) {
      db.length_changed(dst, dst_len);
      cx.notify(kNotifySet, "sadd", cx.arg(2));
    }
  }
  cx.reply().integer(1);
}

// Looks up the source sets at arguments [first, first + n). Missing keys are null. Replies
// WRONGTYPE and returns false when any existing key is not a set (all keys are checked before
// anything else happens, as in Redis 7).
bool lookup_sets(CommandContext& cx, size_t first, size_t n, std::vector<Object*>* sets) {
  sets->resize(n);
  for (size_t j = 0; j < n; j++) {
    Object* o = cx.db().find(cx.key(first + j));
    if (o && !cx.check_type(o, Type::kSet)) return false;
    (*sets)[j] = o;
  }
  return true;
}

// Stores a computed result at the destination (argument 1): a non-empty result replaces any
// old value (one keysizes update) and emits `event`; an empty one deletes an existing
// destination and emits "del". Replies the result's size.
void store_result(CommandContext& cx, Object* result, const char* event) {
  Db& db = cx.db();
  const size_t n = SetType::size(*result);
  Db::Slot slot = db.find_for_write(cx.key(1));
  if (n > 0) {
    if (slot) {
      db.overwrite(slot, result);
    } else {
      db.insert(slot, result);  // emits "new"
    }
    cx.notify(kNotifySet, event, cx.arg(1));
  } else {
    Object::destroy(result);
    if (slot) {
      db.remove(slot);
      cx.notify(kNotifyGeneric, "del", cx.arg(1));
    }
  }
  cx.reply().integer(static_cast<int64_t>(n));
}

enum class InterMode { kReply, kStore, kCard };

// SINTER / SINTERSTORE / SINTERCARD over the keys at [first, first + n). Walks the smallest
// set and keeps the members every other set has. limit (SINTERCARD) 0 = none.
void sinter_generic(CommandContext& cx, size_t first, size_t n, InterMode mode, uint64_t limit) {
  std::vector<Object*> sets;
  if (!lookup_sets(cx, first, n, &sets)) return;
  if (std::find(sets.begin(), sets.end(), nullptr) != sets.end()) {
    // An empty (missing) input makes the intersection empty.
    if (mode == InterMode::kStore) {
      Db::Slot slot = cx.db().find_for_write(cx.key(1));
      if (slot) {
        cx.db().remove(slot);
        cx.notify(kNotifyGeneric, "del", cx.arg(1));
      }
      return cx.reply().integer(0);
    }
    if (mode == InterMode::kCard) return cx.reply().integer(0);
    return cx.reply().set(0);
  }
  std::stable_sort(sets.begin(), sets.end(), [](const Object* a, const Object* b) {
    return SetType::size(*a) < SetType::size(*b);
  });
  const Object* smallest = sets[0];
  auto in_all = [&](const SetElem& e) {
    for (size_t j = 1; j < sets.size(); j++) {
      if (sets[j] != smallest && !SetType::contains(*sets[j], e)) return false;
    }
    return true;
  };
  if (mode == InterMode::kCard) {
    uint64_t card = 0;
    SetType::for_each(*smallest, [&](const SetElem& e) {
      if (in_all(e)) ++card;
      return limit == 0 || card < limit;
    });
    return cx.reply().integer(static_cast<int64_t>(card));
  }
  if (mode == InterMode::kReply) {
    ReplyWriter& w = cx.reply();
    const size_t token = w.begin_deferred();
    size_t card = 0;
    SetType::for_each(*smallest, [&](const SetElem& e) {
      if (in_all(e)) {
        emit_bulk(&w, e);
        ++card;
      }
      return true;
    });
    return w.end_deferred_set(token, card);
  }
  Object* result = SetType::create_inter_result(cx.arg(1), *smallest);
  SetType::for_each(*smallest, [&](const SetElem& e) {
    if (in_all(e)) SetType::add(*result, e);
    return true;
  });
  SetType::maybe_to_intset(*result);
  store_result(cx, result, "sinterstore");
}

// SINTER key [key ...] -> set.
void cmd_sinter(CommandContext& cx) { sinter_generic(cx, 1, cx.argc() - 1, InterMode::kReply, 0); }

// SINTERSTORE destination key [key ...] -> integer: the stored result's size.
void cmd_sinterstore(CommandContext& cx) {
  sinter_generic(cx, 2, cx.argc() - 2, InterMode::kStore, 0);
}

// SINTERCARD numkeys key [key ...] [LIMIT limit] -> integer.
void cmd_sintercard(CommandContext& cx) {
  int64_t numkeys;
  if (!parse_int64(cx.arg(1), &numkeys) || numkeys < 1) {
    return cx.reply().error("ERR numkeys should be greater than 0");
  }
  if (numkeys > static_cast<int64_t>(cx.argc()) - 2) {
    return cx.reply().error("ERR Number of keys can't be greater than number of args");
  }
  int64_t limit = 0;
  for (size_t j = 2 + static_cast<size_t>(numkeys); j < cx.argc(); j++) {
    if (cx.is_arg(j, "limit") && j + 1 < cx.argc()) {
      j++;
      if (!parse_int64(cx.arg(j), &limit) || limit < 0) {
        return cx.reply().error("ERR LIMIT can't be negative");
      }
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  sinter_generic(cx, 2, static_cast<size_t>(numkeys), InterMode::kCard,
                 static_cast<uint64_t>(limit));
}

enum class SetOp { kUnion, kDiff };

// SUNION / SDIFF and their STORE forms over the keys at [first, first + n). The result is
// built as a fresh set starting from an intset. SDIFF picks, as Redis does, between walking the
// first set against the others (work ~ |first| * keys / 2) and copying the first set and
// removing every other member (work ~ total members).
void sunion_diff_generic(CommandContext& cx, size_t first, size_t n, bool store, SetOp op) {
  std::vector<Object*> sets;
  if (!lookup_sets(cx, first, n, &sets)) return;
  bool sameset = false;
  for (size_t j = 1; j < n; j++) sameset |= sets[0] != nullptr && sets[j] == sets[0];

  Object* result = SetType::create_result(store ? cx.arg(1) : std::string_view());
  if (op == SetOp::kUnion) {
    for (Object* s : sets) {
      if (!s) continue;
      SetType::for_each(*s, [&](const SetElem& e) {
        SetType::add(*result, e);
        return true;
      });
    }
  } else if (sets[0] && !sameset) {
    uint64_t algo_one = 0, algo_two = 0;
    for (Object* s : sets) {
      if (!s) continue;
      algo_one += SetType::size(*sets[0]);
      algo_two += SetType::size(*s);
    }
    algo_one /= 2;
    if (algo_one <= algo_two) {
      // Subtract the biggest sets first: a common member is found sooner.
      std::stable_sort(sets.begin() + 1, sets.end(), [](const Object* a, const Object* b) {
        return (a ? SetType::size(*a) : 0) > (b ? SetType::size(*b) : 0);
      });
      SetType::for_each(*sets[0], [&](const SetElem& e) {
        for (size_t j = 1; j < n; j++) {
          if (sets[j] && SetType::contains(*sets[j], e)) return true;
        }
        SetType::add(*result, e);
        return true;
      });
    } else {
      SetType::for_each(*sets[0], [&](const SetElem& e) {
        SetType::add(*result, e);
        return true;
      });
      for (size_t j = 1; j < n && SetType::size(*result) > 0; j++) {
        if (!sets[j]) continue;
        SetType::for_each(*sets[j], [&](const SetElem& e) {
          SetType::remove(*result, e);
          return true;
        });
      }
      SetType::after_removals(*result);
    }
  }
  if (store) return store_result(cx, result, op == SetOp::kUnion ? "sunionstore" : "sdiffstore");
  reply_members(cx, *result);
  Object::destroy(result);
}

// SUNION key [key ...] -> set.
void cmd_sunion(CommandContext& cx) {
  sunion_diff_generic(cx, 1, cx.argc() - 1, false, SetOp::kUnion);
}
// SUNIONSTORE destination key [key ...] -> integer.
void cmd_sunionstore(CommandContext& cx) {
  sunion_diff_generic(cx, 2, cx.argc() - 2, true, SetOp::kUnion);
}
// SDIFF key [key ...] -> set: members of the first set that no other set has.
void cmd_sdiff(CommandContext& cx) {
  sunion_diff_generic(cx, 1, cx.argc() - 1, false, SetOp::kDiff);
}
// SDIFFSTORE destination key [key ...] -> integer.
void cmd_sdiffstore(CommandContext& cx) {
  sunion_diff_generic(cx, 2, cx.argc() - 2, true, SetOp::kDiff);
}


// SSCAN key cursor [MATCH pattern] [COUNT count] -> [next cursor, [members]]. Intset and
// listpack sets return everything at once with cursor 0.
void cmd_sscan(CommandContext& cx) {
  uint64_t cursor;
  if (!parse_scan_cursor(cx.arg(2), &cursor)) return cx.reply().error(kErrCursor);
  Object* o = cx.db().find(cx.key(1));
  if (!o) {
    cx.reply().array(2);
    cx.reply().bulk("0");
    return cx.reply().array(0);
  }
  if (!cx.check_type(o, Type::kSet)) return;
  int64_t count = 10;
  std::string_view pattern;
  bool use_pattern = false;
  for (size_t i = 3; i < cx.argc(); i += 2) {
    const bool has_value = i + 1 < cx.argc();
    if (cx.is_arg(i, "count") && has_value) {
      if (!cx.int_arg(i + 1, &count)) return;
      if (count < 1) return cx.reply().error(kErrSyntax);
    } else if (cx.is_arg(i, "match") && has_value) {
      pattern = cx.arg(i + 1);
      use_pattern = !glob_matches_all(pattern);
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  std::vector<SetElem> found;
  struct Ctx {
    std::vector<SetElem>* found;
  } ctx{&found};
  cursor = SetType::scan(*o, cursor, count, [](void* c, const SetElem& e) {
    static_cast<Ctx*>(c)->found->push_back(e);
  }, &ctx);
  ReplyWriter& w = cx.reply();
  w.array(2);
  char num[kInt64BufSize];
  w.bulk({num, format_uint64(cursor, num)});
  const size_t token = w.begin_deferred();
  size_t n = 0;
  for (const SetElem& e : found) {
    if (use_pattern && !glob_match(pattern, e.text(num))) continue;
    emit_bulk(&w, e);
    n++;
  }
  w.end_deferred_array(token, n);
}

constexpr uint32_t kRW = kWrite | kDenyOom;

CommandSpec kSetCommands[] = {
    {.name = "sadd", .handler = cmd_sadd, .arity = -3, .flags = kRW | kFast, .acl = kAclSet, .group = "set",
     .summary = "Adds members to a set, creating the key if needed.", .since = "1.0.0", .complexity = "O(1) for each member added.",
     .keys = {ks(kKsRW | kKsInsert)}, .members = {2, -1}},
    {.name = "srem", .handler = cmd_srem, .arity = -3, .flags = kWrite | kFast, .acl = kAclSet, .group = "set",
     .summary = "Removes members from a set; an emptied set is deleted.", .since = "1.0.0", .complexity = "O(N) for N members removed.",
     .keys = {ks(kKsRW | kKsDelete)}, .members = {2, -1}},
    {.name = "scard", .handler = cmd_scard, .arity = 2, .flags = kReadOnly | kFast, .acl = kAclSet, .group = "set",
     .summary = "Counts the members of a set.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRO)}},
    {.name = "sismember", .handler = cmd_sismember, .arity = 3, .flags = kReadOnly | kFast, .acl = kAclSet, .group = "set",
     .summary = "Tells whether a value belongs to a set.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRO)}, .members = {2, 2}},
    {.name = "smismember", .handler = cmd_smismember, .arity = -3, .flags = kReadOnly | kFast, .acl = kAclSet, .group = "set",
     .summary = "Tells, for each value given, whether it belongs to a set.", .since = "6.2.0", .complexity = "O(N) for N values checked.",
     .keys = {ks(kKsRO | kKsAccess)}, .members = {2, -1}},
    {.name = "smembers", .handler = cmd_smembers, .arity = 2, .flags = kReadOnly, .acl = kAclSet, .group = "set",
     .summary = "Lists every member of a set.", .since = "1.0.0", .complexity = "O(N) for a set of N members.",
     .keys = {ks(kKsRO | kKsAccess)},
     .tips = "nondeterministic_output_order"},
    {.name = "srandmember", .handler = cmd_srandmember, .arity = -2, .flags = kReadOnly, .acl = kAclSet, .group = "set",
     .summary = "Picks random members of a set without removing them.", .since = "1.0.0", .complexity = "O(1) without count, else O(N) for N members returned.",
     .keys = {ks(kKsRO | kKsAccess)},
     .tips = "nondeterministic_output"},
    {.name = "spop", .handler = cmd_spop, .arity = -2, .flags = kWrite | kFast, .acl = kAclSet, .group = "set",
     .summary = "Removes and returns random members of a set; an emptied set is deleted.", .since = "1.0.0", .complexity = "O(1) without count, else O(N) for N members popped.",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete)},
     .tips = "nondeterministic_output"},
    {.name = "smove", .handler = cmd_smove, .arity = 4, .flags = kWrite | kFast, .acl = kAclSet, .group = "set",
     .summary = "Moves one member from a set to another.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete), ks(kKsRW | kKsInsert, 2)}},
    {.name = "sinter", .handler = cmd_sinter, .arity = -2, .flags = kReadOnly, .acl = kAclSet, .group = "set",
     .summary = "Returns the members every given set has.", .since = "1.0.0", .complexity = "O(N*M): N the smallest set's size, M the number of sets.",
     .keys = {ks(kKsRO | kKsAccess, 1, fk_range(-1, 1, 0))},
     .tips = "nondeterministic_output_order"},
    {.name = "sintercard", .handler = cmd_sintercard, .arity = -3, .flags = kReadOnly, .acl = kAclSet, .group = "set",
     .summary = "Counts the members every given set has, optionally stopping at a limit.", .since = "7.0.0", .complexity = "O(N*M): N the smallest set's size, M the number of sets.",
     .keys = {ks(kKsRO | kKsAccess, 1, fk_keynum(0, 1, 1))}},
    {.name = "sinterstore", .handler = cmd_sinterstore, .arity = -3, .flags = kRW, .acl = kAclSet, .group = "set",
     .summary = "Stores the intersection of sets in a key.", .since = "1.0.0", .complexity = "O(N*M): N the smallest set's size, M the number of sets.",
     .keys = {ks(kKsRW | kKsUpdate), ks(kKsRO | kKsAccess, 2, fk_range(-1, 1, 0))}},
    {.name = "sunion", .handler = cmd_sunion, .arity = -2, .flags = kReadOnly, .acl = kAclSet, .group = "set",
     .summary = "Returns the members of all given sets together.", .since = "1.0.0", .complexity = "O(N) for N members in all the sets.",
     .keys = {ks(kKsRO | kKsAccess, 1, fk_range(-1, 1, 0))},
     .tips = "nondeterministic_output_order"},
    {.name = "sunionstore", .handler = cmd_sunionstore, .arity = -3, .flags = kRW, .acl = kAclSet, .group = "set",
     .summary = "Stores the union of sets in a key.", .since = "1.0.0", .complexity = "O(N) for N members in all the sets.",
     .keys = {ks(kKsOW | kKsUpdate), ks(kKsRO | kKsAccess, 2, fk_range(-1, 1, 0))}},
    {.name = "sdiff", .handler = cmd_sdiff, .arity = -2, .flags = kReadOnly, .acl = kAclSet, .group = "set",
     .summary = "Returns the members of the first set that none of the others has.", .since = "1.0.0", .complexity = "O(N) for N members in all the sets.",
     .keys = {ks(kKsRO | kKsAccess, 1, fk_range(-1, 1, 0))},
     .tips = "nondeterministic_output_order"},
    {.name = "sdiffstore", .handler = cmd_sdiffstore, .arity = -3, .flags = kRW, .acl = kAclSet, .group = "set",
     .summary = "Stores the difference of sets in a key.", .since = "1.0.0", .complexity = "O(N) for N members in all the sets.",
     .keys = {ks(kKsOW | kKsUpdate), ks(kKsRO | kKsAccess, 2, fk_range(-1, 1, 0))}},
    {.name = "sscan", .handler = cmd_sscan, .arity = -3, .flags = kReadOnly, .acl = kAclSet, .group = "set",
     .summary = "Iterates over the members of a set with a cursor.", .since = "2.8.0", .complexity = "O(1) per call, O(N) for a whole iteration.",
     .keys = {ks(kKsRO | kKsAccess)},
     .tips = "nondeterministic_output"},
};

}  // namespace

std::span<CommandSpec> set_commands() { return kSetCommands; }

}  // namespace keel
