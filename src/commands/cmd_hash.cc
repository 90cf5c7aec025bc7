// Hash commands: HSET HSETNX HMSET HGET HMGET HGETALL HDEL HLEN HEXISTS HKEYS HVALS HINCRBY
// HINCRBYFLOAT HSTRLEN HRANDFIELD HSCAN. Encodings and conversions live in types/hash_type.cc;
// handlers here validate, make one Db lookup, mutate through HashType and reply once.
// Field TTL commands (HEXPIRE family, listpackex) are not implemented.
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/glob.h"
#include "base/numbers.h"
#include "commands/command.h"
#include "commands/command_table.h"
#include "commands/scan_cursor.h"
#include "types/hash_type.h"

namespace keel {
namespace {

// True (after replying an error) when an argument from `from` on is too long to be stored as a
// hash field or value (HashEntry lengths are 32-bit; only reachable with proto-max-bulk-len
// raised past 4 GB).
bool reject_huge(CommandContext& cx, size_t from) {
  for (size_t i = from; i < cx.argc(); i++) {
    if (cx.arg(i).size() > HashType::kMaxItemBytes) [[unlikely]] {
      cx.reply().error(kErrStringTooLong);
      return true;
    }
  }
  return false;
}

// Adds the pairs at arguments 2.. to the hash at slot (creating it); returns the new fields.
size_t hset_pairs(CommandContext& cx, Db::Slot& slot) {
  const std::span<const std::string_view> pairs = cx.args().subspan(2);
  const EncodingLimits& lim = encoding_limits();
  size_t added = 0;
  if (!slot) {
    Object* o = HashType::create(cx.arg(1));
    HashType::prepare_for(*o, pairs, lim);
    for (size_t i = 0; i < pairs.size(); i += 2) added += HashType::set(*o, pairs[i], pairs[i + 1], lim);
    cx.db().insert(slot, o);  // keysizes none -> (hash, n); emits "new"
  } else {
    const int64_t old_len = static_cast<int64_t>(HashType::size(*slot));
    HashType::prepare_for(*slot, pairs, lim);
    for (size_t i = 0; i < pairs.size(); i += 2) {
      added += HashType::set(*slot, pairs[i], pairs[i + 1], lim);
    }
    cx.db().length_changed(slot, old_len);  // also when only values changed: WATCH, dirty
  }
  cx.set_dirty(static_cast<int64_t>(pairs.size() / 2));  // Redis counts every pair given
  cx.notify(kNotifyHash, "hset", cx.arg(1));
  return added;
}

// HSET key field value [field value ...] -> integer: fields that were new.
void cmd_hset(CommandContext& cx) {
  if (cx.argc() % 2 == 1) return cx.reply_arity_error();
  if (reject_huge(cx, 2)) return;
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (slot && !cx.check_type(slot.obj(), Type::kHash)) return;
  cx.reply().integer(static_cast<int64_t>(hset_pairs(cx, slot)));
}

// HMSET key field value [field value ...] -> OK (HSET's older form).
void cmd_hmset(CommandContext& cx) {
  if (cx.argc() % 2 == 1) return cx.reply_arity_error();
  if (reject_huge(cx, 2)) return;
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (slot && !cx.check_type(slot.obj(), Type::kHash)) return;
  hset_pairs(cx, slot);
  cx.reply().ok();
}

// HSETNX key field value -> 1 when the field was set, 0 when it already existed.
void cmd_hsetnx(CommandContext& cx) {
  if (reject_huge(cx, 2)) return;
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (slot) {
    if (!cx.check_type(slot.obj(), Type::kHash)) return;
    if (HashType::exists(*slot, cx.arg(2))) return cx.reply().integer(0);
  }
  hset_pairs(cx, slot);
  cx.reply().integer(1);
}

// HGET key field -> value or null.
void cmd_hget(CommandContext& cx) {
  const Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().null();
  if (!cx.check_type(o, Type::kHash)) return;
  HashScratch s;
  std::string_view v;
  if (!HashType::get(*o, cx.arg(2), s, &v)) return cx.reply().null();
  cx.reply().bulk(v);
}

// HMGET key field [field ...] -> array of values, null for missing fields (all null when the
// key is missing).
void cmd_hmget(CommandContext& cx) {
  const Object* o = cx.db().find(cx.key(1));
  if (o && !cx.check_type(o, Type::kHash)) return;
  cx.reply().array(cx.argc() - 2);
  HashScratch s;
  for (size_t i = 2; i < cx.argc(); i++) {
    std::string_view v;
    if (o && HashType::get(*o, cx.arg(i), s, &v)) {
      cx.reply().bulk(v);
    } else {
      cx.reply().null();
    }
  }
}

enum GetAllWhat { kFields = 1, kValues = 2 };

// HGETALL (map of fields to values), HKEYS, HVALS (arrays). Empty for a missing key.
void getall_generic(CommandContext& cx, int what) {
  const Object* o = cx.db().find(cx.key(1));
  if (o && !cx.check_type(o, Type::kHash)) return;
  const size_t n = o ? HashType::size(*o) : 0;
  if (what == (kFields | kValues)) {
    cx.reply().map(n);
  } else {
    cx.reply().array(n);
  }
  if (!o) return;
  HashType::for_each(*o, [&](std::string_view f, std::string_view v) {
    if (what & kFields) cx.reply().bulk(f);
    if (what & kValues) cx.reply().bulk(v);
  });
}
void cmd_hgetall(CommandContext& cx) { getall_generic(cx, kFields | kValues); }
void cmd_hkeys(CommandContext& cx) { getall_generic(cx, kFields); }
void cmd_hvals(CommandContext& cx) { getall_generic(cx, kValues); }

// HDEL key field [field ...] -> integer: fields removed. An emptied hash is deleted.
void cmd_hdel(CommandContext& cx) {
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) return cx.reply().integer(0);
  if (!cx.check_type(slot.obj(), Type::kHash)) return;
  const int64_t old_len = static_cast<int64_t>(HashType::size(*slot));
  int64_t removed = 0;
  for (size_t i = 2; i < cx.argc() && removed < old_len; i++) {
    removed += HashType::remove(*slot, cx.arg(i));
  }
  if (removed > 0) {
    if (removed < old_len) HashType::removals_done(*slot);
    const bool deleted = cx.db().length_changed(slot, old_len);
    cx.set_dirty(removed);
    cx.notify(kNotifyHash, "hdel", cx.arg(1));
    if (deleted) cx.notify(kNotifyGeneric, "del", cx.arg(1));
  }
  cx.reply().integer(removed);
}

// HLEN key -> number of fields (0 for a missing key).
void cmd_hlen(CommandContext& cx) { cx.reply_collection_length(Type::kHash); }

// HEXISTS key field -> 1 or 0.
void cmd_hexists(CommandContext& cx) {
  const Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().integer(0);
  if (!cx.check_type(o, Type::kHash)) return;
  cx.reply().integer(HashType::exists(*o, cx.arg(2)) ? 1 : 0);
}

// HSTRLEN key field -> length of the value (0 when missing).
void cmd_hstrlen(CommandContext& cx) {
  const Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().integer(0);
  if (!cx.check_type(o, Type::kHash)) return;
  HashScratch s;
  std::string_view v;
  cx.reply().integer(HashType::get(*o, cx.arg(2), s, &v) ? static_cast<int64_t>(v.size()) : 0);
}

// Shared tail of HINCRBY / HINCRBYFLOAT once the increment is valid: runs `incr` on the hash
// (created when missing), replies its error or calls done() after bookkeeping and the event.
template <class Incr, class Done>
void incr_generic(CommandContext& cx, const char* event, std::string_view not_number,
                  Incr&& incr, Done&& done) {
  if (reject_huge(cx, 2)) return;
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  HashType::IncrResult r;
  if (!slot) {
    Object* o = HashType::create(cx.arg(1));
    r = incr(*o);  // cannot fail on a missing field
    cx.db().insert(slot, o);
  } else {
    if (!cx.check_type(slot.obj(), Type::kHash)) return;
    const int64_t old_len = static_cast<int64_t>(HashType::size(*slot));
    r = incr(*slot);
    if (r == HashType::IncrResult::kOk) cx.db().length_changed(slot, old_len);
  }
  switch (r) {
    case HashType::IncrResult::kOk:
      break;
    case HashType::IncrResult::kNotNumber:
      return cx.reply().error(not_number);
    case HashType::IncrResult::kOverflow:
      return cx.reply().error(kErrOverflow);
    case HashType::IncrResult::kNanOrInf:
      return cx.reply().error("ERR increment would produce NaN or Infinity");
  }
  cx.notify(kNotifyHash, event, cx.arg(1));
  done();
}

// HINCRBY key field increment -> the new integer value.
void cmd_hincrby(CommandContext& cx) {
  int64_t delta;
  if (!cx.int_arg(3, &delta)) return;
  int64_t result = 0;
  incr_generic(
      cx, "hincrby", "ERR hash value is not an integer",
      [&](Object& o) {
        return HashType::incr_by(o, cx.arg(2), delta, &result, encoding_limits());
      },
      [&] { cx.reply().integer(result); });
}

// HINCRBYFLOAT key field increment -> the new value as a bulk string (INCRBYFLOAT's format).
void cmd_hincrbyfloat(CommandContext& cx) {
  long double delta;
  if (!parse_long_double(cx.arg(3), &delta)) return cx.reply().error(kErrNotFloat);
  if (std::isnan(delta) || std::isinf(delta)) {
    return cx.reply().error("ERR value is NaN or Infinity");
  }
  char buf[kLongDoubleBufSize];
  size_t len = 0;
  incr_generic(
      cx, "hincrbyfloat", "ERR hash value is not a float",
      [&](Object& o) {
        return HashType::incr_by_float(o, cx.arg(2), delta, buf, &len, encoding_limits());
      },
      [&] {
        // Propagated as the value it produced (HSET), so replicas never redo the arithmetic.
        cx.propagate_as({"HSET", cx.arg(1), cx.arg(2), std::string_view(buf, len)});
        cx.reply().bulk({buf, len});
      });
}

// A reply of repeated random picks is refused when its estimated size passes this (Redis would
// try to build it and die of OOM: HRANDFIELD h -9223372036854775807).
constexpr uint64_t kMaxRandomReplyBytes = uint64_t{1} << 31;

// HRANDFIELD key [count [WITHVALUES]] -> one field (bulk / null), or an array: count > 0
// distinct fields (at most all of them), count < 0 -count independent picks. RESP3 WITHVALUES
// replies [field, value] pairs.
void cmd_hrandfield(CommandContext& cx) {
  if (cx.argc() == 2) {
    const Object* o = cx.db().find(cx.key(1));
    if (!o) return cx.reply().null();
    if (!cx.check_type(o, Type::kHash)) return;
    HashScratch s;
    std::string_view f, v;
    HashType::random_pair(*o, s, &f, &v);
    return cx.reply().bulk(f);
  }
  int64_t l;
  bool with_values;
  if (!cx.random_count_args("withvalues", &l, &with_values)) return;
  const Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().array(0);
  if (!cx.check_type(o, Type::kHash)) return;
  if (l == 0) return cx.reply().array(0);

  const bool pairs_as_arrays = with_values && cx.reply().resp() > 2;
  auto header = [&](uint64_t n) { cx.reply().array(with_values && !pairs_as_arrays ? 2 * n : n); };
  auto emit = [&](std::string_view f, std::string_view v) {
    if (pairs_as_arrays) cx.reply().array(2);
    cx.reply().bulk(f);
    if (with_values) cx.reply().bulk(v);
  };
  const uint64_t size = HashType::size(*o);
  if (l < 0) {
    const uint64_t count = static_cast<uint64_t>(-l);
    uint64_t bytes;
    const uint64_t per = HashType::average_pair_bytes(*o) + 32;
    if (__builtin_mul_overflow(count, per, &bytes) || bytes > kMaxRandomReplyBytes) {
      return cx.reply().error("ERR value is out of range");
    }
    header(count);
    HashType::random_pairs(*o, count, emit);
    return;
  }
  const uint64_t count = static_cast<uint64_t>(l);
  if (count >= size) {
    header(size);
    HashType::for_each(*o, emit);
    return;
  }
  header(count);
  HashType::random_distinct(*o, count, emit);
}


// HSCAN key cursor [MATCH pattern] [COUNT count] [NOVALUES] -> [next cursor, [field, value...]].
// A listpack hash is returned whole with cursor 0; a hashtable walks buckets as SCAN does.
void cmd_hscan(CommandContext& cx) {
  uint64_t cursor;
  if (!parse_scan_cursor(cx.arg(2), &cursor)) return cx.reply().error(kErrCursor);
  const Object* o = cx.db().find(cx.key(1));
  if (!o) {
    cx.reply().array(2);
    cx.reply().bulk("0");
    return cx.reply().array(0);
  }
  if (!cx.check_type(o, Type::kHash)) return;
  int64_t count = 10;
  std::string_view pattern;
  bool use_pattern = false, no_values = false;
  for (size_t i = 3; i < cx.argc();) {
    const bool has_value = i + 1 < cx.argc();
    if (cx.is_arg(i, "count") && has_value) {
      if (!cx.int_arg(i + 1, &count)) return;
      if (count < 1) return cx.reply().error(kErrSyntax);
      i += 2;
    } else if (cx.is_arg(i, "match") && has_value) {
      pattern = cx.arg(i + 1);
      use_pattern = !glob_matches_all(pattern);
      i += 2;
    } else if (cx.is_arg(i, "novalues")) {
      no_values = true;
      i++;
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  // Values of a listpack may be formatted integers (views into scratch): copy what is returned.
  std::string arena;
  std::vector<std::pair<size_t, size_t>> items;
  auto keep = [&](std::string_view s) {
    items.emplace_back(arena.size(), s.size());
    arena.append(s);
  };
  cursor = HashType::scan(*o, cursor, static_cast<size_t>(count),
                          [&](std::string_view f, std::string_view v) {
                            if (use_pattern && !glob_match(pattern, f)) return;
                            keep(f);
                            if (!no_values) keep(v);
                          });
  cx.reply().array(2);
  char num[kInt64BufSize];
  cx.reply().bulk({num, format_uint64(cursor, num)});
  cx.reply().array(items.size());
  for (const auto& [off, len] : items) cx.reply().bulk({arena.data() + off, len});
}

constexpr uint32_t kRW = kWrite | kDenyOom;

CommandSpec kHashCommands[] = {
    // name, handler, arity, flags, first, last, step, acl, group, summary, since, complexity
    {.name = "hset", .handler = cmd_hset, .arity = -4, .flags = kRW | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Creates or modifies the value of a field in a hash.", .since = "2.0.0", .complexity = "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is called with multiple field/value pairs.",
     .keys = {ks(kKsRW | kKsUpdate)}, .members = {2, -1, 2}},
    {.name = "hsetnx", .handler = cmd_hsetnx, .arity = 4, .flags = kRW | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Sets the value of a field in a hash only when the field doesn't exist.", .since = "2.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsInsert)}, .members = {2, 2}},
    {.name = "hmset", .handler = cmd_hmset, .arity = -4, .flags = kRW | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Sets the values of multiple fields.", .since = "2.0.0", .complexity = "O(N) where N is the number of fields being set.",
     .keys = {ks(kKsRW | kKsUpdate)}, .members = {2, -1, 2}},
    {.name = "hget", .handler = cmd_hget, .arity = 3, .flags = kReadOnly | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Returns the value of a field in a hash.", .since = "2.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRO | kKsAccess)}, .members = {2, 2}},
    {.name = "hmget", .handler = cmd_hmget, .arity = -3, .flags = kReadOnly | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Returns the values of all fields in a hash.", .since = "2.0.0", .complexity = "O(N) where N is the number of fields being requested.",
     .keys = {ks(kKsRO | kKsAccess)}, .members = {2, -1}},
    {.name = "hgetall", .handler = cmd_hgetall, .arity = 2, .flags = kReadOnly, .acl = kAclHash, .group = "hash",
     .summary = "Returns all fields and values in a hash.", .since = "2.0.0", .complexity = "O(N) where N is the size of the hash.",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "hdel", .handler = cmd_hdel, .arity = -3, .flags = kWrite | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Deletes one or more fields and their values from a hash. Deletes the hash if no fields remain.", .since = "2.0.0", .complexity = "O(N) where N is the number of fields to be removed.",
     .keys = {ks(kKsRW | kKsDelete)}, .members = {2, -1}},
    {.name = "hlen", .handler = cmd_hlen, .arity = 2, .flags = kReadOnly | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Returns the number of fields in a hash.", .since = "2.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRO)}},
    {.name = "hexists", .handler = cmd_hexists, .arity = 3, .flags = kReadOnly | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Determines whether a field exists in a hash.", .since = "2.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRO)}, .members = {2, 2}},
    {.name = "hkeys", .handler = cmd_hkeys, .arity = 2, .flags = kReadOnly, .acl = kAclHash, .group = "hash",
     .summary = "Returns all fields in a hash.", .since = "2.0.0", .complexity = "O(N) where N is the size of the hash.",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "hvals", .handler = cmd_hvals, .arity = 2, .flags = kReadOnly, .acl = kAclHash, .group = "hash",
     .summary = "Returns all values in a hash.", .since = "2.0.0", .complexity = "O(N) where N is the size of the hash.",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "hincrby", .handler = cmd_hincrby, .arity = 4, .flags = kRW | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Increments the integer value of a field in a hash by a number. Uses 0 as initial value if the field doesn't exist.", .since = "2.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate)}, .members = {2, 2}},
    {.name = "hincrbyfloat", .handler = cmd_hincrbyfloat, .arity = 4, .flags = kRW | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Increments the floating point value of a field by a number. Uses 0 as initial value if the field doesn't exist.", .since = "2.6.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate)}, .members = {2, 2}},
    {.name = "hstrlen", .handler = cmd_hstrlen, .arity = 3, .flags = kReadOnly | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Returns the length of the value of a field.", .since = "3.2.0", .complexity = "O(1)",
     .keys = {ks(kKsRO)}, .members = {2, 2}},
    {.name = "hrandfield", .handler = cmd_hrandfield, .arity = -2, .flags = kReadOnly, .acl = kAclHash, .group = "hash",
     .summary = "Returns one or more random fields from a hash.", .since = "6.2.0", .complexity = "O(N) where N is the number of fields returned",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "hscan", .handler = cmd_hscan, .arity = -3, .flags = kReadOnly, .acl = kAclHash, .group = "hash",
     .summary = "Iterates over fields and values of a hash.", .since = "2.8.0", .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.",
     .keys = {ks(kKsRO | kKsAccess)}},
};

}  // namespace

std::span<CommandSpec> hash_commands() { return kHashCommands; }

}  // namespace keel
