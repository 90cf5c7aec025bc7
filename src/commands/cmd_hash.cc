// Hash commands: HSET HSETNX HMSET HGET HMGET HGETALL HDEL HLEN HEXISTS HKEYS HVALS HINCRBY
// HINCRBYFLOAT HSTRLEN HRANDFIELD HSCAN, and hash-field expiry (Redis 7.4 / 8.0): HEXPIRE
// HPEXPIRE HEXPIREAT HPEXPIREAT HTTL HPTTL HEXPIRETIME HPEXPIRETIME HPERSIST HGETDEL HGETEX
// HSETEX. Encodings and conversions live in types/hash_type*.cc; handlers here validate, make
// one Db lookup, mutate through HashType and reply once. A hash without field TTLs takes the
// same path as before they existed: each handler tests HashType::has_field_ttls() once.
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
#include "commands/propagate.h"
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

// ---- hash-field expiry helpers ----------------------------------------------------------------

// Redis's HFE_MAX_ABS_TIME_MSEC: ((2^48 - 1) >> 2), the latest absolute field TTL accepted.
constexpr int64_t kMaxFieldTtlMs = ((int64_t{1} << 48) - 1) >> 2;

bool ttl_passed(int64_t ttl, int64_t now) { return ttl != 0 && ttl < now; }
// Whether a command may delete a field whose TTL passed (as for keys: not while loading, not
// while CLIENT PAUSE holds expiry).
bool may_expire() { return !g_clock.expire_paused && !g_clock.loading; }

// Deletes `field` of o because its TTL passed or a command gave it a time in the past: HDEL
// is propagated (before the command's own propagation) and expired_subkeys counts it, as Redis
// 7.4's propagateHashFieldDeletion. KEYSIZES and events are the caller's, once per command.
void drop_expired_field(CommandContext& cx, Object& o, std::string_view field) {
  cx.also_propagate({"HDEL", o.key(), field});
  keyspace_stats().expired_subkeys++;
  const bool removed = HashType::remove(o, field);
  KEEL_DCHECK(removed);
  (void)removed;
}

// HGETDEL / HGETEX: the value and TTL of a live field. A missing field, or one whose TTL has
// passed (deleted when expiry may run, and counted in *expired), is answered null here and
// false is returned.
bool read_live_field(CommandContext& cx, Object& o, bool ttls, int64_t now, std::string_view f,
                     HashScratch& s, std::string_view* v, int64_t* ttl, int64_t* expired) {
  const bool found = ttls ? HashType::get_with_ttl(o, f, s, v, ttl) : HashType::get(o, f, s, v);
  if (found && !ttl_passed(*ttl, now)) return true;
  if (found && may_expire()) {
    drop_expired_field(cx, o, f);
    (*expired)++;
  }
  cx.reply().null();
  return false;
}

// Lazy expiry of fields met by a read (Redis 7.4's hashTypeGetValue): a field whose TTL passed
// reads as absent and is deleted. finish() makes the one KEYSIZES update and the events
// ("hexpired", then "del" when the hash was emptied) for all of them; no dirty count, so a read
// stays unpropagated except for the HDELs.
class LazyFields {
 public:
  // slot: the command's write slot for key 1, or null (looked up on the first expiry).
  LazyFields(CommandContext& cx, Db::Slot* slot) : cx_(cx), slot_(slot) {}
  // The value of a field of the live hash o (which has TTL support), false when absent or
  // expired.
  bool get(Object& o, std::string_view field, HashScratch& s, std::string_view* v) {
    int64_t ttl;
    if (!HashType::get_with_ttl(o, field, s, v, &ttl)) return false;
    if (!ttl_passed(ttl, cx_.now_ms())) return true;
    if (!may_expire()) return false;
    if (n_ == 0) {
      if (slot_ == nullptr) {
        own_ = cx_.db().find_for_write(cx_.key(1));
        slot_ = &own_;
      }
      old_len_ = static_cast<int64_t>(HashType::size(o));
    }
    drop_expired_field(cx_, o, field);
    n_++;
    return false;
  }
  // True when the hash was deleted.
  bool finish() {
    if (n_ == 0) return false;
    n_ = 0;
    HashType::removals_done(**slot_);
    cx_.notify(kNotifyHash, "hexpired", cx_.arg(1));
    if (HashType::size(**slot_) == 0) cx_.notify(kNotifyGeneric, "del", cx_.arg(1));
    return cx_.db().length_changed_quiet(*slot_, old_len_);
  }

 private:
  CommandContext& cx_;
  Db::Slot* slot_;
  Db::Slot own_;
  int64_t old_len_ = 0;
  size_t n_ = 0;
};

// A hash with TTL support about to be read whole (HRANDFIELD, as Redis's
// hashTypeExpireIfNeeded): deletes every field whose TTL passed. Returns true when the hash
// went with them.
bool expire_all_due(CommandContext& cx, Object& o) {
  const int64_t min = HashType::min_field_ttl(o);
  if (!ttl_passed(min, cx.now_ms()) || !may_expire()) return false;
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  const int64_t old_len = static_cast<int64_t>(HashType::size(o));
  HashType::remove_expired(o, cx.now_ms(), SIZE_MAX, [&](std::string_view f) {
    cx.also_propagate({"HDEL", o.key(), f});
  });
  keyspace_stats().expired_subkeys += static_cast<uint64_t>(old_len) - HashType::size(o);
  HashType::removals_done(o);
  cx.notify(kNotifyHash, "hexpired", cx.arg(1));
  if (HashType::size(o) == 0) cx.notify(kNotifyGeneric, "del", cx.arg(1));
  return cx.db().length_changed_quiet(slot, old_len);
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
    if (HashType::has_field_ttls(*slot)) [[unlikely]] {
      // An expired field is deleted first (and the hash with it when it was the last one).
      LazyFields lazy(cx, &slot);
      HashScratch s;
      std::string_view v;
      if (lazy.get(*slot, cx.arg(2), s, &v)) return cx.reply().integer(0);
      lazy.finish();
    } else if (HashType::exists(*slot, cx.arg(2))) {
      return cx.reply().integer(0);
    }
  }
  hset_pairs(cx, slot);
  cx.reply().integer(1);
}

// HGET key field -> value or null.
void cmd_hget(CommandContext& cx) {
  Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().null();
  if (!cx.check_type(o, Type::kHash)) return;
  HashScratch s;
  std::string_view v;
  if (HashType::has_field_ttls(*o)) [[unlikely]] {
    LazyFields lazy(cx, nullptr);
    if (lazy.get(*o, cx.arg(2), s, &v)) return cx.reply().bulk(v);
    cx.reply().null();
    lazy.finish();
    return;
  }
  if (!HashType::get(*o, cx.arg(2), s, &v)) return cx.reply().null();
  cx.reply().bulk(v);
}

// HMGET key field [field ...] -> array of values, null for missing fields (all null when the
// key is missing).
void cmd_hmget(CommandContext& cx) {
  Object* o = cx.db().find(cx.key(1));
  if (o && !cx.check_type(o, Type::kHash)) return;
  cx.reply().array(cx.argc() - 2);
  HashScratch s;
  if (o && HashType::has_field_ttls(*o)) [[unlikely]] {
    LazyFields lazy(cx, nullptr);
    for (size_t i = 2; i < cx.argc(); i++) {
      std::string_view v;
      if (lazy.get(*o, cx.arg(i), s, &v)) {
        cx.reply().bulk(v);
      } else {
        cx.reply().null();
      }
    }
    lazy.finish();
    return;
  }
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
  if (o && HashType::has_field_ttls(*o)) [[unlikely]] {
    // Fields whose TTL passed are left out (not deleted), as Redis 7.4.
    const int64_t now = cx.now_ms();
    const size_t live = HashType::size(*o) - HashType::expired_count(*o, now);
    if (what == (kFields | kValues)) {
      cx.reply().map(live);
    } else {
      cx.reply().array(live);
    }
    HashType::for_each_with_ttl(*o, [&](std::string_view f, std::string_view v, int64_t ttl) {
      if (ttl_passed(ttl, now)) return;
      if (what & kFields) cx.reply().bulk(f);
      if (what & kValues) cx.reply().bulk(v);
    });
    return;
  }
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
  Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().integer(0);
  if (!cx.check_type(o, Type::kHash)) return;
  if (HashType::has_field_ttls(*o)) [[unlikely]] {
    LazyFields lazy(cx, nullptr);
    HashScratch s;
    std::string_view v;
    cx.reply().integer(lazy.get(*o, cx.arg(2), s, &v) ? 1 : 0);
    lazy.finish();
    return;
  }
  cx.reply().integer(HashType::exists(*o, cx.arg(2)) ? 1 : 0);
}

// HSTRLEN key field -> length of the value (0 when missing).
void cmd_hstrlen(CommandContext& cx) {
  Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().integer(0);
  if (!cx.check_type(o, Type::kHash)) return;
  HashScratch s;
  std::string_view v;
  if (HashType::has_field_ttls(*o)) [[unlikely]] {
    LazyFields lazy(cx, nullptr);
    cx.reply().integer(lazy.get(*o, cx.arg(2), s, &v) ? static_cast<int64_t>(v.size()) : 0);
    lazy.finish();
    return;
  }
  cx.reply().integer(HashType::get(*o, cx.arg(2), s, &v) ? static_cast<int64_t>(v.size()) : 0);
}

// Shared tail of HINCRBY / HINCRBYFLOAT once the increment is valid: runs `incr` on the hash
// (created when missing), replies its error or calls done() after bookkeeping and the event.
template <class Incr, class Done>
void incr_generic(CommandContext& cx, const char* event, std::string_view not_number,
                  Incr&& incr, Done&& done) {
  if (reject_huge(cx, 2)) return;
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (slot && slot->type() == Type::kHash && HashType::has_field_ttls(*slot)) [[unlikely]] {
    // A field whose TTL passed counts from 0: it is deleted first (the hash too when it was
    // the last field, and a new one is made).
    LazyFields lazy(cx, &slot);
    HashScratch s;
    std::string_view v;
    (void)lazy.get(*slot, cx.arg(2), s, &v);
    lazy.finish();
  }
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
        // Propagated as the value it produced (HSET), so replicas never redo the arithmetic; on a
        // hash with field TTLs as Redis 8.0 does, HSETEX KEEPTTL, so the field keeps its TTL.
        const std::string_view val(buf, len);
        const Object* o = cx.db().peek(cx.key(1));
        if (o && HashType::has_field_ttls(*o)) {
          cx.propagate_as({"HSETEX", cx.arg(1), "KEEPTTL", "FIELDS", "1", cx.arg(2), val});
        } else {
          cx.propagate_as({"HSET", cx.arg(1), cx.arg(2), val});
        }
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
    Object* o = cx.db().find(cx.key(1));
    if (!o) return cx.reply().null();
    if (!cx.check_type(o, Type::kHash)) return;
    if (HashType::has_field_ttls(*o) && expire_all_due(cx, *o)) return cx.reply().null();
    HashScratch s;
    std::string_view f, v;
    HashType::random_pair(*o, s, &f, &v);
    return cx.reply().bulk(f);
  }
  int64_t l;
  bool with_values;
  if (!cx.random_count_args("withvalues", &l, &with_values)) return;
  Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().array(0);
  if (!cx.check_type(o, Type::kHash)) return;
  if (HashType::has_field_ttls(*o) && expire_all_due(cx, *o)) return cx.reply().array(0);
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
  if (HashType::has_field_ttls(*o)) [[unlikely]] {
    // Fields whose TTL passed are not returned (nor deleted), as Redis 7.4.
    const int64_t now = cx.now_ms();
    cursor = HashType::scan_with_ttl(*o, cursor, static_cast<size_t>(count),
                                     [&](std::string_view f, std::string_view v, int64_t ttl) {
                                       if (ttl_passed(ttl, now)) return;
                                       if (use_pattern && !glob_match(pattern, f)) return;
                                       keep(f);
                                       if (!no_values) keep(v);
                                     });
  } else {
    cursor = HashType::scan(*o, cursor, static_cast<size_t>(count),
                            [&](std::string_view f, std::string_view v) {
                              if (use_pattern && !glob_match(pattern, f)) return;
                              keep(f);
                              if (!no_values) keep(v);
                            });
  }
  cx.reply().array(2);
  char num[kInt64BufSize];
  cx.reply().bulk({num, format_uint64(cursor, num)});
  cx.reply().array(items.size());
  for (const auto& [off, len] : items) cx.reply().bulk({arena.data() + off, len});
}

// ---- hash-field expiry commands (Redis 7.4 / 8.0) ---------------------------------------------

// "ERR invalid expire time in '<command>' command" (Redis's addReplyErrorExpireTime).
void reply_bad_ttl(CommandContext& cx) {
  std::string e = "ERR invalid expire time in '";
  e += cx.command().full_name ? cx.command().full_name : cx.command().name;
  e += "' command";
  cx.reply().error(e);
}

// A field TTL argument as Redis 7.4's parseExpireTime: seconds are scaled to ms, `base` (now for
// the relative forms, 0 for the *AT forms) is added, the result may not pass kMaxFieldTtlMs.
bool parse_field_ttl(CommandContext& cx, size_t i, bool seconds, int64_t base, int64_t* out) {
  int64_t v;
  if (!cx.int_arg(i, &v)) return false;
  if (v < 0) {
    cx.reply().error("ERR invalid expire time, must be >= 0");
    return false;
  }
  if (seconds) {
    if (v > kMaxFieldTtlMs / 1000) {
      reply_bad_ttl(cx);
      return false;
    }
    v *= 1000;
  }
  if (v > kMaxFieldTtlMs - base) {
    reply_bad_ttl(cx);
    return false;
  }
  *out = v + base;
  return true;
}

constexpr std::string_view kErrFieldsKeyword =
    "ERR Mandatory argument FIELDS is missing or not at the right position";
constexpr std::string_view kErrNumFieldsPositive = "ERR Number of fields must be a positive integer";
constexpr std::string_view kErrNumFieldsMismatch =
    "ERR The `numfields` parameter must match the number of arguments";

// `FIELDS numfields field...` with FIELDS at argument `at` and the fields running to the end:
// Redis's checks in its order, each with its own message. Returns the count, or 0 after
// replying an error.
int64_t fields_block(CommandContext& cx, size_t at, std::string_view count_error) {
  if (at + 1 >= cx.argc()) {
    cx.reply_arity_error();
    return 0;
  }
  if (!cx.is_arg(at, "fields")) {
    cx.reply().error(kErrFieldsKeyword);
    return 0;
  }
  int64_t n;
  if (!parse_int64(cx.arg(at + 1), &n) || n < 1) {
    cx.reply().error(count_error);
    return 0;
  }
  if (n != static_cast<int64_t>(cx.argc() - at - 2)) {
    cx.reply().error(kErrNumFieldsMismatch);
    return 0;
  }
  return n;
}

// HGETDEL / HGETEX: the FIELDS block at `at` and the reply array for its fields. False when
// there is nothing more to do: a bad block (error sent) or a missing hash (one null per field).
bool begin_field_replies(CommandContext& cx, size_t at, bool exists) {
  const int64_t n = fields_block(cx, at, kErrNumFieldsPositive);
  if (n == 0) return false;
  cx.reply().array(static_cast<size_t>(n));
  if (exists) return true;
  for (int64_t i = 0; i < n; i++) cx.reply().null();
  return false;
}

enum TtlCond { kCondNone = 0, kCondNx = 1, kCondXx = 2, kCondGt = 4, kCondLt = 8 };

// HEXPIRE / HPEXPIRE / HEXPIREAT / HPEXPIREAT key time [NX|XX|GT|LT] FIELDS numfields field...
// -> one code per field: -2 no such field, 0 condition not met, 1 set, 2 deleted (the time is
// now or past). Propagated as HPEXPIREAT with the absolute time and only the fields set; a
// field deleted goes out as its own HDEL.
void hexpire_generic(CommandContext& cx, bool seconds, bool relative) {
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (slot && !cx.check_type(slot.obj(), Type::kHash)) return;
  int64_t when;
  if (!parse_field_ttl(cx, 2, seconds, relative ? cx.now_ms() : 0, &when)) return;
  size_t at = 3;
  int cond = kCondNone;
  if (cx.is_arg(3, "nx")) {
    cond = kCondNx;
  } else if (cx.is_arg(3, "xx")) {
    cond = kCondXx;
  } else if (cx.is_arg(3, "gt")) {
    cond = kCondGt;
  } else if (cx.is_arg(3, "lt")) {
    cond = kCondLt;
  }
  if (cond != kCondNone) at++;
  const int64_t n = fields_block(cx, at, "ERR Parameter `numFields` should be greater than 0");
  if (n == 0) return;
  const size_t first = at + 2;
  cx.reply().array(static_cast<size_t>(n));
  if (!slot) {
    for (int64_t i = 0; i < n; i++) cx.reply().integer(-2);
    return;
  }
  Object& o = *slot;
  const int64_t old_len = static_cast<int64_t>(HashType::size(o));
  HashType::enable_field_ttls(o);
  const int64_t now = cx.now_ms();
  int64_t updated = 0, deleted = 0;
  std::vector<std::string_view> kept;
  for (size_t i = first; i < cx.argc(); i++) {
    const std::string_view f = cx.arg(i);
    HashScratch s;
    std::string_view v;
    int64_t prev;
    if (!HashType::get_with_ttl(o, f, s, &v, &prev)) {
      cx.reply().integer(-2);
      continue;
    }
    // A field without TTL meets LT but not XX or GT (Redis 7.4).
    const bool refused = prev == 0 ? (cond & (kCondXx | kCondGt)) != 0
                                   : (cond == kCondNx || (cond == kCondGt && prev >= when) ||
                                      (cond == kCondLt && prev <= when));
    if (refused) {
      cx.reply().integer(0);
      continue;
    }
    if (when <= now && !g_clock.loading) {
      drop_expired_field(cx, o, f);
      deleted++;
      cx.reply().integer(2);
      continue;
    }
    HashType::set_field_ttl(o, f, when);
    updated++;
    if (propagating()) kept.push_back(f);
    cx.reply().integer(1);
  }
  if (deleted + updated == 0) return;
  if (deleted) HashType::removals_done(o);
  cx.notify(kNotifyHash, deleted ? "hdel" : "hexpire", cx.arg(1));
  if (HashType::size(o) == 0) cx.notify(kNotifyGeneric, "del", cx.arg(1));
  cx.db().length_changed(slot, old_len);
  cx.set_dirty(deleted + updated);
  if (updated == 0) return cx.prevent_propagation();
  // HPEXPIREAT with every field set goes out as received (Redis rewrites only what differs).
  const bool as_received = !seconds && !relative && updated == n;
  if (propagating() && !as_received) {
    const IntArg abs(when), count(updated);
    std::vector<std::string_view> argv = {seconds || relative ? std::string_view("HPEXPIREAT") : cx.arg(0),
                                          cx.arg(1), seconds || relative ? abs.view() : cx.arg(2)};
    if (cond != kCondNone) argv.push_back(cx.arg(3));
    argv.push_back("FIELDS");
    argv.push_back(count.view());
    argv.insert(argv.end(), kept.begin(), kept.end());
    cx.propagate_as(argv);
  }
}
void cmd_hexpire(CommandContext& cx) { hexpire_generic(cx, true, true); }
void cmd_hpexpire(CommandContext& cx) { hexpire_generic(cx, false, true); }
void cmd_hexpireat(CommandContext& cx) { hexpire_generic(cx, true, false); }
void cmd_hpexpireat(CommandContext& cx) { hexpire_generic(cx, false, false); }

// HTTL / HPTTL / HEXPIRETIME / HPEXPIRETIME key FIELDS numfields field... -> per field -2 (no
// such field, or its TTL passed), -1 (no TTL), else the TTL (seconds rounded up, or ms) or the
// absolute time.
void httl_generic(CommandContext& cx, bool seconds, bool relative) {
  const Object* o = cx.db().find(cx.key(1));
  if (o && !cx.check_type(o, Type::kHash)) return;
  const int64_t n = fields_block(cx, 2, kErrNumFieldsPositive);
  if (n == 0) return;
  const int64_t now = cx.now_ms();
  const int64_t base = relative ? now : 0;
  cx.reply().array(static_cast<size_t>(n));
  for (size_t i = 4; i < cx.argc(); i++) {
    HashScratch s;
    std::string_view v;
    int64_t ttl;
    if (!o || !HashType::get_with_ttl(*o, cx.arg(i), s, &v, &ttl) || ttl_passed(ttl, now)) {
      cx.reply().integer(-2);
    } else if (ttl == 0) {
      cx.reply().integer(-1);
    } else {
      cx.reply().integer(seconds ? (ttl + 999 - base) / 1000 : ttl - base);
    }
  }
}
void cmd_httl(CommandContext& cx) { httl_generic(cx, true, true); }
void cmd_hpttl(CommandContext& cx) { httl_generic(cx, false, true); }
void cmd_hexpiretime(CommandContext& cx) { httl_generic(cx, true, false); }
void cmd_hpexpiretime(CommandContext& cx) { httl_generic(cx, false, false); }

// HPERSIST key FIELDS numfields field... -> per field -2 (no such field or TTL passed), -1 (no
// TTL), 1 (TTL removed). One "hpersist" event and one dirty count when anything changed.
void cmd_hpersist(CommandContext& cx) {
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (slot && !cx.check_type(slot.obj(), Type::kHash)) return;
  const int64_t n = fields_block(cx, 2, kErrNumFieldsPositive);
  if (n == 0) return;
  cx.reply().array(static_cast<size_t>(n));
  if (!slot) {
    for (int64_t i = 0; i < n; i++) cx.reply().integer(-2);
    return;
  }
  Object& o = *slot;
  const int64_t now = cx.now_ms();
  bool changed = false;
  for (size_t i = 4; i < cx.argc(); i++) {
    HashScratch s;
    std::string_view v;
    int64_t ttl;
    if (!HashType::get_with_ttl(o, cx.arg(i), s, &v, &ttl) || ttl_passed(ttl, now)) {
      cx.reply().integer(-2);
    } else if (ttl == 0) {
      cx.reply().integer(-1);
    } else {
      HashType::set_field_ttl(o, cx.arg(i), 0);
      changed = true;
      cx.reply().integer(1);
    }
  }
  if (!changed) return;
  cx.notify(kNotifyHash, "hpersist", cx.arg(1));
  cx.db().length_changed(slot, static_cast<int64_t>(HashType::size(o)));
  cx.set_dirty(1);
}

// HGETDEL key FIELDS numfields field... (Redis 8.0) -> the values (null when absent), each
// present field deleted; the hash goes when emptied. Propagated as HDEL key field...
void cmd_hgetdel(CommandContext& cx) {
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (slot && !cx.check_type(slot.obj(), Type::kHash)) return;
  if (!begin_field_replies(cx, 2, static_cast<bool>(slot))) return;
  Object& o = *slot;
  const int64_t old_len = static_cast<int64_t>(HashType::size(o));
  const bool ttls = HashType::has_field_ttls(o);
  const int64_t now = cx.now_ms();
  int64_t deleted = 0, expired = 0;
  for (size_t i = 4; i < cx.argc(); i++) {
    const std::string_view f = cx.arg(i);
    HashScratch s;
    std::string_view v;
    int64_t ttl = 0;
    if (!read_live_field(cx, o, ttls, now, f, s, &v, &ttl, &expired)) continue;
    cx.reply().bulk(v);
    HashType::remove(o, f);
    deleted++;
  }
  if (deleted + expired == 0) return;
  HashType::removals_done(o);
  if (expired) cx.notify(kNotifyHash, "hexpired", cx.arg(1));
  if (deleted) cx.notify(kNotifyHash, "hdel", cx.arg(1));
  if (HashType::size(o) == 0) cx.notify(kNotifyGeneric, "del", cx.arg(1));
  if (deleted == 0) {
    cx.db().length_changed_quiet(slot, old_len);
    return;
  }
  cx.db().length_changed(slot, old_len);
  cx.set_dirty(deleted);
  if (propagating()) {
    std::vector<std::string_view> argv = {"HDEL", cx.arg(1)};
    for (size_t i = 4; i < cx.argc(); i++) argv.push_back(cx.arg(i));
    cx.propagate_as(argv);
  }
}

// HGETEX key [EX s | PX ms | EXAT s | PXAT ms | PERSIST] FIELDS numfields field... (Redis 8.0)
// -> the values (null when absent); with an option, each present field gets the TTL (or loses
// it). Propagated as HPEXPIREAT key <abs ms> FIELDS ... or HPERSIST key FIELDS ...; a time in the
// past deletes the fields (HDELs, the command itself is not propagated).
void cmd_hgetex(CommandContext& cx) {
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (slot && !cx.check_type(slot.obj(), Type::kHash)) return;
  enum { kNone, kTime, kPersist } mode = kNone;
  bool seconds = false, relative = false;
  if (cx.is_arg(2, "ex")) {
    mode = kTime, seconds = true, relative = true;
  } else if (cx.is_arg(2, "px")) {
    mode = kTime, relative = true;
  } else if (cx.is_arg(2, "exat")) {
    mode = kTime, seconds = true;
  } else if (cx.is_arg(2, "pxat")) {
    mode = kTime;
  } else if (cx.is_arg(2, "persist")) {
    mode = kPersist;
  }
  int64_t when = 0;
  size_t at = 2;  // FIELDS
  if (mode == kTime) {
    if (!parse_field_ttl(cx, 3, seconds, relative ? cx.now_ms() : 0, &when)) return;
    at = 4;
  } else if (mode == kPersist) {
    at = 3;
  }
  if (!begin_field_replies(cx, at, static_cast<bool>(slot))) return;
  Object& o = *slot;
  const int64_t old_len = static_cast<int64_t>(HashType::size(o));
  if (mode != kNone) HashType::enable_field_ttls(o);
  const bool ttls = HashType::has_field_ttls(o);
  const int64_t now = cx.now_ms();
  int64_t expired = 0, deleted = 0, updated = 0;
  for (size_t i = at + 2; i < cx.argc(); i++) {
    const std::string_view f = cx.arg(i);
    HashScratch s;
    std::string_view v;
    int64_t ttl = 0;
    if (!read_live_field(cx, o, ttls, now, f, s, &v, &ttl, &expired)) continue;
    cx.reply().bulk(v);
    if (mode == kPersist) {
      if (ttl != 0) {
        HashType::set_field_ttl(o, f, 0);
        updated++;
      }
    } else if (mode == kTime) {
      if (when <= now && !g_clock.loading) {
        drop_expired_field(cx, o, f);
        deleted++;
      } else {
        HashType::set_field_ttl(o, f, when);
        updated++;
      }
    }
  }
  if (expired + deleted + updated == 0) return;
  if (expired + deleted) HashType::removals_done(o);
  if (expired) cx.notify(kNotifyHash, "hexpired", cx.arg(1));
  if (updated) {
    cx.notify(kNotifyHash, mode == kPersist ? "hpersist" : "hexpire", cx.arg(1));
  } else if (deleted) {
    cx.notify(kNotifyHash, "hdel", cx.arg(1));
  }
  if (HashType::size(o) == 0) cx.notify(kNotifyGeneric, "del", cx.arg(1));
  if (deleted + updated == 0) {
    cx.db().length_changed_quiet(slot, old_len);
    return;
  }
  cx.db().length_changed(slot, old_len);
  cx.set_dirty(deleted + updated);
  if (updated == 0) return cx.prevent_propagation();  // the HDELs went already
  if (propagating()) {
    const IntArg abs(when);
    std::vector<std::string_view> argv;
    if (mode == kPersist) {
      argv = {"HPERSIST", cx.arg(1)};
    } else {
      argv = {"HPEXPIREAT", cx.arg(1), abs.view()};
    }
    for (size_t i = at; i < cx.argc(); i++) argv.push_back(cx.arg(i));
    cx.propagate_as(argv);
  }
}

// HSETEX key [FNX | FXX] [EX s | PX ms | EXAT s | PXAT ms | KEEPTTL] FIELDS numfields field value...
// (Redis 8.0) -> 1 when the fields were set, 0 when FNX / FXX refused. Without a TTL option the
// fields lose their TTLs (as HSET); KEEPTTL keeps them. Propagated with PXAT <abs ms> in place of
// a relative or seconds time; not at all when the time was past (the HDELs go instead).
void cmd_hsetex(CommandContext& cx) {
  enum : int { kEx = 1, kPx = 2, kExat = 4, kPxat = 8, kKeep = 16, kFnx = 32, kFxx = 64 };
  constexpr int kTimeFlags = kEx | kPx | kExat | kPxat;
  int flags = 0;
  int64_t when = 0;
  size_t when_pos = 0, first = 0;
  int64_t n = 0;
  for (size_t i = 2; i < cx.argc(); i++) {
    if (cx.is_arg(i, "fields")) {
      if (i + 3 >= cx.argc()) return cx.reply_arity_error();
      if (!parse_int64(cx.arg(i + 1), &n) || n < 1 || n > INT32_MAX) {
        return cx.reply().error("ERR invalid number of fields");
      }
      const size_t remaining = cx.argc() - i - 2;
      if (remaining % 2 != 0 || static_cast<size_t>(n) != remaining / 2) return cx.reply_arity_error();
      first = i + 2;
      break;
    }
    int time_flag = 0;
    if (cx.is_arg(i, "ex")) {
      time_flag = kEx;
    } else if (cx.is_arg(i, "px")) {
      time_flag = kPx;
    } else if (cx.is_arg(i, "exat")) {
      time_flag = kExat;
    } else if (cx.is_arg(i, "pxat")) {
      time_flag = kPxat;
    }
    if (time_flag != 0 || cx.is_arg(i, "keepttl")) {
      if (flags & (kTimeFlags | kKeep)) {
        return cx.reply().error("ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified");
      }
      if (time_flag == 0) {
        flags |= kKeep;
        continue;
      }
      if (i + 1 >= cx.argc()) return cx.reply().error("ERR missing expire time");
      flags |= time_flag;
      i++;
      if (!parse_field_ttl(cx, i, time_flag & (kEx | kExat), (time_flag & (kEx | kPx)) ? cx.now_ms() : 0, &when)) return;
      when_pos = i;
    } else if (cx.is_arg(i, "fxx") || cx.is_arg(i, "fnx")) {
      if (flags & (kFxx | kFnx)) return cx.reply().error("ERR Only one of FXX or FNX arguments can be specified");
      flags |= cx.is_arg(i, "fxx") ? kFxx : kFnx;
    } else {
      std::string e = "ERR unknown argument: ";
      e += cx.arg(i);
      return cx.reply().error(e);
    }
  }
  if (first == 0) return cx.reply().error(kErrSyntax);
  if (reject_huge(cx, first)) return;

  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (slot && !cx.check_type(slot.obj(), Type::kHash)) return;
  if (!slot && (flags & kFxx)) return cx.reply().integer(0);
  const bool created = !slot;
  Object* o = created ? HashType::create(cx.arg(1)) : slot.obj();
  const int64_t old_len = created ? 0 : static_cast<int64_t>(HashType::size(*o));
  const int64_t now = cx.now_ms();
  int64_t expired = 0, deleted = 0, updated = 0;
  if (flags & (kFxx | kFnx)) {
    int64_t found = 0;
    const bool ttls = HashType::has_field_ttls(*o);
    for (size_t i = first; i < cx.argc(); i += 2) {
      HashScratch s;
      std::string_view v;
      int64_t ttl = 0;
      bool exists = ttls ? HashType::get_with_ttl(*o, cx.arg(i), s, &v, &ttl) : HashType::get(*o, cx.arg(i), s, &v);
      if (exists && ttl_passed(ttl, now)) {
        exists = false;
        if (may_expire()) {
          drop_expired_field(cx, *o, cx.arg(i));
          expired++;
        }
      }
      found += exists;
      if (((flags & kFxx) && !exists) || ((flags & kFnx) && exists)) break;
    }
    if (((flags & kFnx) && found != 0) || ((flags & kFxx) && found != n)) {
      cx.reply().integer(0);
      if (created) return Object::destroy(o);  // (FNX on a new hash always passes)
      if (expired == 0) return;
      HashType::removals_done(*o);
      cx.notify(kNotifyHash, "hexpired", cx.arg(1));
      if (HashType::size(*o) == 0) cx.notify(kNotifyGeneric, "del", cx.arg(1));
      cx.db().length_changed_quiet(slot, old_len);
      return;
    }
  }
  const EncodingLimits& lim = encoding_limits();
  HashType::prepare_for(*o, cx.args().subspan(first), lim);
  if (flags & kTimeFlags) HashType::enable_field_ttls(*o);
  const bool keep = (flags & (kTimeFlags | kKeep)) != 0;
  for (size_t i = first; i < cx.argc(); i += 2) {
    const std::string_view f = cx.arg(i);
    if (keep) {
      HashType::set_keep_ttl(*o, f, cx.arg(i + 1), lim);
    } else {
      HashType::set(*o, f, cx.arg(i + 1), lim);
    }
    if (flags & kTimeFlags) {
      if (when <= now && !g_clock.loading) {
        drop_expired_field(cx, *o, f);
        deleted++;
      } else {
        HashType::set_field_ttl(*o, f, when);
        updated++;
      }
    }
  }
  if (deleted) HashType::removals_done(*o);
  const bool empty = HashType::size(*o) == 0;
  if (created) {
    if (!empty) {
      cx.db().insert(slot, o);  // "new", KEYSIZES absent -> n
    } else {
      Object::destroy(o);
    }
  }
  if (expired) cx.notify(kNotifyHash, "hexpired", cx.arg(1));
  cx.notify(kNotifyHash, "hset", cx.arg(1));
  if (deleted || updated) cx.notify(kNotifyHash, deleted ? "hdel" : "hexpire", cx.arg(1));
  if (empty) cx.notify(kNotifyGeneric, "del", cx.arg(1));
  if (!created) cx.db().length_changed(slot, old_len);
  cx.set_dirty(n);
  if (deleted) {
    cx.prevent_propagation();
  } else if ((flags & kTimeFlags) && !(flags & kPxat) && propagating()) {
    const IntArg abs(when);
    std::vector<std::string_view> argv(cx.args().begin(), cx.args().end());
    argv[when_pos - 1] = "PXAT";
    argv[when_pos] = abs.view();
    cx.propagate_as(argv);
  }
  cx.reply().integer(1);
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
     .keys = {ks(kKsRO | kKsAccess)},
     .tips = "nondeterministic_output_order"},
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
     .keys = {ks(kKsRO | kKsAccess)},
     .tips = "nondeterministic_output_order"},
    {.name = "hvals", .handler = cmd_hvals, .arity = 2, .flags = kReadOnly, .acl = kAclHash, .group = "hash",
     .summary = "Returns all values in a hash.", .since = "2.0.0", .complexity = "O(N) where N is the size of the hash.",
     .keys = {ks(kKsRO | kKsAccess)},
     .tips = "nondeterministic_output_order"},
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
     .keys = {ks(kKsRO | kKsAccess)},
     .tips = "nondeterministic_output"},
    {.name = "hscan", .handler = cmd_hscan, .arity = -3, .flags = kReadOnly, .acl = kAclHash, .group = "hash",
     .summary = "Iterates over fields and values of a hash.", .since = "2.8.0", .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.",
     .keys = {ks(kKsRO | kKsAccess)},
     .tips = "nondeterministic_output"},
    {.name = "hexpire", .handler = cmd_hexpire, .arity = -6, .flags = kRW | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Set expiry for hash field using relative time to expire (seconds)", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .keys = {ks(kKsRW | kKsUpdate)}},
    {.name = "hpexpire", .handler = cmd_hpexpire, .arity = -6, .flags = kRW | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Set expiry for hash field using relative time to expire (milliseconds)", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .keys = {ks(kKsRW | kKsUpdate)}},
    {.name = "hexpireat", .handler = cmd_hexpireat, .arity = -6, .flags = kRW | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Set expiry for hash field using an absolute Unix timestamp (seconds)", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .keys = {ks(kKsRW | kKsUpdate)}},
    {.name = "hpexpireat", .handler = cmd_hpexpireat, .arity = -6, .flags = kRW | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Set expiry for hash field using an absolute Unix timestamp (milliseconds)", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .keys = {ks(kKsRW | kKsUpdate)}},
    {.name = "httl", .handler = cmd_httl, .arity = -5, .flags = kReadOnly | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Returns the TTL in seconds of a hash field.", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "hpttl", .handler = cmd_hpttl, .arity = -5, .flags = kReadOnly | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Returns the TTL in milliseconds of a hash field.", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "hexpiretime", .handler = cmd_hexpiretime, .arity = -5, .flags = kReadOnly | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Returns the expiration time of a hash field as a Unix timestamp, in seconds.", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "hpexpiretime", .handler = cmd_hpexpiretime, .arity = -5, .flags = kReadOnly | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Returns the expiration time of a hash field as a Unix timestamp, in msec.", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "hpersist", .handler = cmd_hpersist, .arity = -5, .flags = kWrite | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Removes the expiration time for each specified field", .since = "7.4.0", .complexity = "O(N) where N is the number of specified fields",
     .keys = {ks(kKsRW | kKsUpdate)}},
    {.name = "hgetdel", .handler = cmd_hgetdel, .arity = -5, .flags = kWrite | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Returns the value of a field and deletes it from the hash.", .since = "8.0.0", .complexity = "O(N) where N is the number of specified fields",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete)}},
    {.name = "hgetex", .handler = cmd_hgetex, .arity = -5, .flags = kRW | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Get the value of one or more fields of a given hash key, and optionally set their expiration.", .since = "8.0.0", .complexity = "O(N) where N is the number of specified fields",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate)}},
    {.name = "hsetex", .handler = cmd_hsetex, .arity = -6, .flags = kRW | kFast, .acl = kAclHash, .group = "hash",
     .summary = "Set the value of one or more fields of a given hash key, and optionally set their expiration.", .since = "8.0.0", .complexity = "O(N) where N is the number of fields being set.",
     .keys = {ks(kKsRW | kKsUpdate)}},
};

}  // namespace

std::span<CommandSpec> hash_commands() { return kHashCommands; }

}  // namespace keel
