// String commands: GET SET SETNX SETEX PSETEX MGET MSET MSETNX GETSET GETDEL GETEX APPEND STRLEN
// INCR DECR INCRBY DECRBY INCRBYFLOAT GETRANGE SUBSTR SETRANGE LCS. Bitmap commands (SETBIT,
// BITFIELD ...) live in cmd_bitmap.cc; in-place value edits live in types/string_type.cc.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "base/numbers.h"
#include "commands/command.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "protocol/resp_parser.h"
#include "types/string_type.h"

namespace keel {
namespace {

// Options shared by SET and GETEX (Redis parses both with one routine; the allowed set differs).
enum StringFlag : int {
  kSetNx = 1 << 0,
  kSetXx = 1 << 1,
  kSetGet = 1 << 2,
  kKeepTtl = 1 << 3,
  kEx = 1 << 4,
  kPx = 1 << 5,
  kExAt = 1 << 6,
  kPxAt = 1 << 7,
  kPersist = 1 << 8,
};
constexpr int kAnyExpire = kEx | kPx | kExAt | kPxAt;

// Parses SET (is_set) or GETEX options from argument `from` on. A repeated option is accepted
// (the last expire value wins), a conflicting one is a syntax error, as in Redis.
bool parse_string_options(CommandContext& cx, size_t from, bool is_set, int* flags,
                          size_t* expire_idx) {
  for (size_t j = from; j < cx.argc(); j++) {
    std::string_view o = cx.arg(j);
    const bool has_next = j + 1 < cx.argc();
    int f = *flags;
    if (is_set && equals_nocase(o, "nx") && !(f & kSetXx)) {
      f |= kSetNx;
    } else if (is_set && equals_nocase(o, "xx") && !(f & kSetNx)) {
      f |= kSetXx;
    } else if (is_set && equals_nocase(o, "get")) {
      f |= kSetGet;
    } else if (is_set && equals_nocase(o, "keepttl") && !(f & (kAnyExpire | kPersist))) {
      f |= kKeepTtl;
    } else if (!is_set && equals_nocase(o, "persist") && !(f & (kAnyExpire | kKeepTtl))) {
      f |= kPersist;
    } else if (has_next && !(f & (kKeepTtl | kPersist)) &&
               ((equals_nocase(o, "ex") && !(f & (kAnyExpire & ~kEx))) ||
                (equals_nocase(o, "px") && !(f & (kAnyExpire & ~kPx))) ||
                (equals_nocase(o, "exat") && !(f & (kAnyExpire & ~kExAt))) ||
                (equals_nocase(o, "pxat") && !(f & (kAnyExpire & ~kPxAt))))) {
      f |= equals_nocase(o, "ex") ? kEx : equals_nocase(o, "px") ? kPx : equals_nocase(o, "exat") ? kExAt : kPxAt;
      *expire_idx = ++j;
    } else {
      cx.reply().error(kErrSyntax);
      return false;
    }
    *flags = f;
  }
  return true;
}

void reply_invalid_expire(CommandContext& cx) {
  cx.reply().error_fmt("ERR invalid expire time in '%s' command", cx.command().full_name);
}

// The absolute expire time in ms for the expire argument at idx under `flags` (Redis's
// getExpireMillisecondsOrReply): positive, no overflow when scaled or made absolute.
bool expire_arg(CommandContext& cx, size_t idx, int flags, int64_t* when) {
  int64_t v;
  if (!cx.int_arg(idx, &v)) return false;
  const bool seconds = flags & (kEx | kExAt);
  if (v <= 0 || (seconds && v > INT64_MAX / 1000)) {
    reply_invalid_expire(cx);
    return false;
  }
  if (seconds) v *= 1000;
  if ((flags & (kEx | kPx)) && __builtin_add_overflow(v, cx.now_ms(), &v)) {
    reply_invalid_expire(cx);
    return false;
  }
  *when = v;
  return true;
}

// The value's bytes of a string object (int formatted into scratch).
std::string_view value_of(const Object* o, char* scratch) { return o->string_view(scratch); }

bool too_long(int64_t size, int64_t add) {
  const int64_t max = protocol_limits().proto_max_bulk_len;
  return size > max || add > max - size;
}

enum class SetReply { kOk, kInteger };

// How SET and its variants propagate (Redis 7): with an expire, as SET key value PXAT <absolute
// ms> whatever the form (SETEX, PSETEX, EX, PX, EXAT; the other options are dropped: the key
// was set); GETSET as SET key value; SET ... GET without its GET (the reply is not replayed).
void propagate_set(CommandContext& cx, int flags, size_t value_idx, int64_t when) {
  if (!propagating()) return;
  if (flags & kAnyExpire) {
    return cx.propagate_as({"SET", cx.arg(1), cx.arg(value_idx), "PXAT", IntArg(when)});
  }
  if (!(flags & kSetGet)) return;
  if (cx.command().name[0] == 'g') return cx.propagate_as({"SET", cx.arg(1), cx.arg(2)});  // GETSET
  std::string_view argv[8];  // SET key value plus at most NX|XX and KEEPTTL besides GET
  size_t n = 0;
  for (size_t i = 0; i < cx.argc() && n < std::size(argv); i++) {
    if (i < 3 || !cx.is_arg(i, "get")) argv[n++] = cx.arg(i);
  }
  cx.propagate_as(std::span<const std::string_view>(argv, n));
}

// SET and its variants. flags/expire_idx as parsed; value at argument value_idx.
void set_generic(CommandContext& cx, int flags, size_t value_idx, size_t expire_idx,
                 SetReply how) {
  int64_t when = 0;
  if ((flags & kAnyExpire) && !expire_arg(cx, expire_idx, flags, &when)) return;
  // With GET (and GETSET) Redis first reads the key through getGenericCommand: a read lookup,
  // so a missing key emits "keymiss" and counts a keyspace miss.
  if (flags & kSetGet) (void)cx.db().find(cx.key(1));
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (flags & kSetGet) {
    if (!slot) {
      cx.reply().null();
    } else {
      if (!cx.check_type(slot.obj(), Type::kString)) return;
      char scratch[24];
      cx.reply().bulk(value_of(slot.obj(), scratch));  // copied before the value changes
    }
  }
  const bool found = static_cast<bool>(slot);
  if (((flags & kSetNx) && found) || ((flags & kSetXx) && !found)) {
    if (!(flags & kSetGet)) {
      if (how == SetReply::kInteger) return cx.reply().integer(0);
      cx.reply().null();
    }
    return;
  }
  const bool has_expire = flags & kAnyExpire;
  cx.db().set_string(slot, cx.arg(value_idx), (flags & kKeepTtl) || has_expire, has_expire);
  cx.notify(kNotifyString, "set", cx.arg(1));
  if (has_expire) {
    cx.db().set_expire(slot, when);
    cx.notify(kNotifyGeneric, "expire", cx.arg(1));
  }
  cx.set_dirty(1);  // one change for Redis, with or without the TTL
  propagate_set(cx, flags, value_idx, when);
  if (flags & kSetGet) return;
  if (how == SetReply::kInteger) return cx.reply().integer(1);
  cx.reply().ok();
}

// GET key -> bulk or null.
void cmd_get(CommandContext& cx) {
  Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().null();
  if (!cx.check_type(o, Type::kString)) return;
  char scratch[24];
  cx.reply().bulk(o->string_view(scratch));
}

// COMMAND GETKEYSANDFLAGS for SET (its key spec has variable_flags): with a GET argument the
// old value is read (RW access update), without it only overwritten (OW update). As Redis,
// any argument after the value that reads "get" counts.
int set_getkeys(std::span<const std::string_view> args, std::vector<KeyArg>* keys) {
  uint16_t flags = kKsOW | kKsUpdate;
  for (size_t i = 3; i < args.size(); i++) {
    if (equals_nocase(args[i].substr(0, args[i].find('\0')), "get")) {
      flags = kKsRW | kKsAccess | kKsUpdate;
      break;
    }
  }
  keys->push_back({1, flags});
  return 1;
}

// SET key value [NX|XX] [GET] [EX s|PX ms|EXAT ts|PXAT ts-ms|KEEPTTL] -> OK / null / old value.
void cmd_set(CommandContext& cx) {
  int flags = 0;
  size_t expire_idx = 0;
  if (cx.argc() > 3 && !parse_string_options(cx, 3, true, &flags, &expire_idx)) return;
  set_generic(cx, flags, 2, expire_idx, SetReply::kOk);
}

// SETNX key value -> 1 when set, 0 when the key exists.
void cmd_setnx(CommandContext& cx) { set_generic(cx, kSetNx, 2, 0, SetReply::kInteger); }
// SETEX key seconds value / PSETEX key milliseconds value -> OK.
void cmd_setex(CommandContext& cx) { set_generic(cx, kEx, 3, 2, SetReply::kOk); }
void cmd_psetex(CommandContext& cx) { set_generic(cx, kPx, 3, 2, SetReply::kOk); }

// GETSET key value -> old value or null; the TTL is dropped.
void cmd_getset(CommandContext& cx) { set_generic(cx, kSetGet, 2, 0, SetReply::kOk); }

// GETDEL key -> value or null; deletes the key.
void cmd_getdel(CommandContext& cx) {
  // Redis reads through getGenericCommand first: a missing key emits "keymiss" and counts a
  // keyspace miss, an existing one a hit.
  const Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().null();
  if (!cx.check_type(o, Type::kString)) return;
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  char scratch[24];
  cx.reply().bulk(value_of(slot.obj(), scratch));
  cx.db().remove(slot);
  cx.notify(kNotifyGeneric, "del", cx.arg(1));
  cx.propagate_as({command_options().lazyfree_lazy_user_del ? "UNLINK" : "DEL", cx.arg(1)});
}

// GETEX key [EX s|PX ms|EXAT ts|PXAT ts-ms|PERSIST] -> value or null.
void cmd_getex(CommandContext& cx) {
  int flags = 0;
  size_t expire_idx = 0;
  if (!parse_string_options(cx, 2, false, &flags, &expire_idx)) return;
  if (flags == 0) return cmd_get(cx);
  // Redis looks the key up for reading (keymiss event and keyspace stats on a miss).
  if (!cx.db().find(cx.key(1))) return cx.reply().null();
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) return cx.reply().null();
  if (!cx.check_type(slot.obj(), Type::kString)) return;
  int64_t when = 0;
  if ((flags & kAnyExpire) && !expire_arg(cx, expire_idx, flags, &when)) return;
  char scratch[24];
  cx.reply().bulk(value_of(slot.obj(), scratch));
  // Propagated as what it did: DEL (UNLINK with lazyfree-lazy-expire), PEXPIREAT with the
  // absolute time, or PERSIST (Redis 7).
  if ((flags & (kExAt | kPxAt)) && when <= cx.now_ms()) {
    cx.db().remove(slot);  // an absolute time already past deletes the key
    cx.notify(kNotifyGeneric, "del", cx.arg(1));
    cx.propagate_as({command_options().lazyfree_lazy_expire ? "UNLINK" : "DEL", cx.arg(1)});
  } else if (flags & kAnyExpire) {
    cx.db().set_expire(slot, when);
    cx.notify(kNotifyGeneric, "expire", cx.arg(1));
    if (propagating()) cx.propagate_as({"PEXPIREAT", cx.arg(1), IntArg(when)});
  } else if ((flags & kPersist) && cx.db().persist(slot)) {
    cx.notify(kNotifyGeneric, "persist", cx.arg(1));
    cx.propagate_as({"PERSIST", cx.arg(1)});
  }
}

// MGET key [key ...] -> array; null for missing keys and non-strings.
void cmd_mget(CommandContext& cx) {
  cx.reply().array(cx.argc() - 1);
  for (size_t i = 1; i < cx.argc(); i++) {
    Object* o = cx.db().find(cx.key(i));
    if (!o || o->type() != Type::kString) {
      cx.reply().null();
      continue;
    }
    char scratch[24];
    cx.reply().bulk(o->string_view(scratch));
  }
}

void mset_generic(CommandContext& cx, bool nx) {
  if (cx.argc() % 2 == 0) return cx.reply_arity_error();
  if (nx) {
    for (size_t i = 1; i < cx.argc(); i += 2) {
      if (cx.db().find_for_write(cx.key(i))) return cx.reply().integer(0);
    }
  }
  for (size_t i = 1; i < cx.argc(); i += 2) {
    Db::Slot slot = cx.db().find_for_write(cx.key(i));
    cx.db().set_string(slot, cx.arg(i + 1));
    cx.notify(kNotifyString, "set", cx.arg(i));
  }
  if (nx) return cx.reply().integer(1);
  cx.reply().ok();
}

// MSET key value [key value ...] -> OK. MSETNX -> 1, or 0 (nothing set) when any key exists.
void cmd_mset(CommandContext& cx) { mset_generic(cx, false); }
void cmd_msetnx(CommandContext& cx) { mset_generic(cx, true); }

// APPEND key value -> the new length.
void cmd_append(CommandContext& cx) {
  std::string_view tail = cx.arg(2);
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) {
    Object* o = Object::create_string(cx.arg(1), tail);  // encoded as SET would
    cx.db().insert(slot, o);
    cx.notify(kNotifyString, "append", cx.arg(1));
    return cx.reply().integer(static_cast<int64_t>(tail.size()));
  }
  if (!cx.check_type(slot.obj(), Type::kString)) return;
  const int64_t old_len = object_length(slot.obj());
  if (too_long(old_len, static_cast<int64_t>(tail.size()))) return cx.reply().error(kErrStringTooLong);
  const size_t n = StringType::append(*slot, tail);
  cx.db().length_changed(slot, old_len);
  cx.notify(kNotifyString, "append", cx.arg(1));
  cx.reply().integer(static_cast<int64_t>(n));
}

// STRLEN key -> length, 0 when missing.
void cmd_strlen(CommandContext& cx) {
  Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().integer(0);
  if (!cx.check_type(o, Type::kString)) return;
  cx.reply().integer(static_cast<int64_t>(o->string_length()));
}

// INCR family core: one write lookup; an existing value is rewritten in place as an int.
void incr_generic(CommandContext& cx, int64_t delta) {
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) {
    cx.db().insert(slot, Object::create_int(cx.arg(1), delta));
    cx.notify(kNotifyString, "incrby", cx.arg(1));
    return cx.reply().integer(delta);
  }
  if (!cx.check_type(slot.obj(), Type::kString)) return;
  const int64_t old_len = object_length(slot.obj());
  int64_t v;
  switch (StringType::incr_by(*slot, delta, &v)) {
    case StringType::IncrResult::kNotInteger: return cx.reply().error(kErrNotInteger);
    case StringType::IncrResult::kOverflow: return cx.reply().error(kErrOverflow);
    case StringType::IncrResult::kOk: break;
  }
  cx.db().length_changed(slot, old_len);
  cx.notify(kNotifyString, "incrby", cx.arg(1));
  cx.reply().integer(v);
}

// INCR key / DECR key / INCRBY key n / DECRBY key n -> the new value.
void cmd_incr(CommandContext& cx) { incr_generic(cx, 1); }
void cmd_decr(CommandContext& cx) { incr_generic(cx, -1); }
void cmd_incrby(CommandContext& cx) {
  int64_t n;
  if (!cx.int_arg(2, &n)) return;
  incr_generic(cx, n);
}
void cmd_decrby(CommandContext& cx) {
  int64_t n;
  if (!cx.int_arg(2, &n)) return;
  if (n == INT64_MIN) return cx.reply().error("ERR decrement would overflow");
  incr_generic(cx, -n);
}

// INCRBYFLOAT key increment -> the new value as a bulk string. The value is replaced by a new
// (never int-encoded) string; the TTL is kept.
void cmd_incrbyfloat(CommandContext& cx) {
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (slot && !cx.check_type(slot.obj(), Type::kString)) return;
  long double v = 0, incr;
  if ((slot && !StringType::to_long_double(*slot, &v)) || !parse_long_double(cx.arg(2), &incr)) {
    return cx.reply().error(kErrNotFloat);
  }
  v += incr;
  if (std::isnan(v) || std::isinf(v)) {
    return cx.reply().error("ERR increment would produce NaN or Infinity");
  }
  char buf[kLongDoubleBufSize];
  std::string_view text(buf, format_long_double_human(v, buf, sizeof(buf)));
  Object* o = Object::create_string_noint(cx.arg(1), text);
  if (slot) {
    cx.db().overwrite(slot, o, /*keep_ttl=*/true);
  } else {
    cx.db().insert(slot, o);
  }
  cx.notify(kNotifyString, "incrbyfloat", cx.arg(1));
  // Propagated as the value it produced: replicas must not redo the float arithmetic.
  cx.propagate_as({"SET", cx.arg(1), text, "KEEPTTL"});
  cx.reply().bulk(text);
}

// GETRANGE key start end (and the old name SUBSTR) -> the substring, "" when out of range.
void cmd_getrange(CommandContext& cx) {
  int64_t start, end;
  if (!cx.int_arg(2, &start) || !cx.int_arg(3, &end)) return;
  Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().bulk("");
  if (!cx.check_type(o, Type::kString)) return;
  char scratch[24];
  std::string_view s = o->string_view(scratch);
  const int64_t len = static_cast<int64_t>(s.size());
  if (start < 0 && end < 0 && start > end) return cx.reply().bulk("");
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  // Redis 8.0: a negative end that still points before the string gives "" (7.x clamped it to 0
  // and returned the first byte).
  if (end < 0) return cx.reply().bulk("");
  if (end >= len) end = len - 1;
  if (start > end || len == 0) return cx.reply().bulk("");
  cx.reply().bulk(s.substr(static_cast<size_t>(start), static_cast<size_t>(end - start + 1)));
}

// SETRANGE key offset value -> the new length.
void cmd_setrange(CommandContext& cx) {
  int64_t offset;
  if (!cx.int_arg(2, &offset)) return;
  if (offset < 0) return cx.reply().error("ERR offset is out of range");
  std::string_view v = cx.arg(3);
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) {
    if (v.empty()) return cx.reply().integer(0);
    if (too_long(offset, static_cast<int64_t>(v.size()))) return cx.reply().error(kErrStringTooLong);
    const size_t len = static_cast<size_t>(offset) + v.size();
    Object* o = StringType::create_zeroed(cx.arg(1), len);
    memcpy(o->raw()->data + offset, v.data(), v.size());
    cx.db().insert(slot, o);
    cx.notify(kNotifyString, "setrange", cx.arg(1));
    return cx.reply().integer(static_cast<int64_t>(len));
  }
  if (!cx.check_type(slot.obj(), Type::kString)) return;
  const int64_t old_len = object_length(slot.obj());
  if (v.empty()) return cx.reply().integer(old_len);
  if (too_long(offset, static_cast<int64_t>(v.size()))) return cx.reply().error(kErrStringTooLong);
  const size_t n = StringType::set_range(*slot, static_cast<size_t>(offset), v);
  cx.db().length_changed(slot, old_len);
  cx.notify(kNotifyString, "setrange", cx.arg(1));
  cx.reply().integer(static_cast<int64_t>(n));
}

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN] -> the longest common subsequence,
// its length, or the matching ranges (walked from the end of both strings, as Redis does).
void cmd_lcs(CommandContext& cx) {
  Object* oa = cx.db().find(cx.key(1));
  Object* ob = cx.db().find(cx.key(2));
  if ((oa && oa->type() != Type::kString) || (ob && ob->type() != Type::kString)) {
    return cx.reply().error("ERR The specified keys must contain string values");
  }
  char sa[24], sb[24];
  const std::string_view a = oa ? oa->string_view(sa) : std::string_view();
  const std::string_view b = ob ? ob->string_view(sb) : std::string_view();
  bool want_len = false, want_idx = false, with_len = false;
  int64_t min_len = 0;
  for (size_t j = 3; j < cx.argc(); j++) {
    if (cx.is_arg(j, "idx")) {
      want_idx = true;
    } else if (cx.is_arg(j, "len")) {
      want_len = true;
    } else if (cx.is_arg(j, "withmatchlen")) {
      with_len = true;
    } else if (cx.is_arg(j, "minmatchlen") && j + 1 < cx.argc()) {
      if (!cx.int_arg(j + 1, &min_len)) return;
      if (min_len < 0) min_len = 0;
      j++;
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  if (want_idx && want_len) {
    return cx.reply().error("ERR If you want both the length and indexes, please just use IDX.");
  }
  if (a.size() >= UINT32_MAX - 1 || b.size() >= UINT32_MAX - 1) {
    return cx.reply().error("ERR String too long for LCS");
  }
  const size_t alen = a.size(), blen = b.size();
  const unsigned long long cells = (alen + 1ull) * (blen + 1ull);
  if (cells * sizeof(uint32_t) > static_cast<unsigned long long>(protocol_limits().proto_max_bulk_len)) {
    return cx.reply().error(
        "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
  }
  // dp[i][j] = LCS length of a[0..i) and b[0..j).
  std::vector<uint32_t> dp(cells, 0);
  auto at = [&](size_t i, size_t j) -> uint32_t& { return dp[j + i * (blen + 1)]; };
  for (size_t i = 1; i <= alen; i++) {
    for (size_t j = 1; j <= blen; j++) {
      at(i, j) = a[i - 1] == b[j - 1] ? at(i - 1, j - 1) + 1 : std::max(at(i - 1, j), at(i, j - 1));
    }
  }
  const uint32_t total = at(alen, blen);
  if (want_len) return cx.reply().integer(total);

  std::string result(total, '\0');
  size_t deferred = 0, nranges = 0;
  if (want_idx) {
    cx.reply().map(2);
    cx.reply().bulk("matches");
    deferred = cx.reply().begin_deferred();
  }
  // Ranges are found walking back from the ends; `none` marks "no range open".
  const size_t none = alen;
  size_t a_start = none, a_end = 0, b_start = 0, b_end = 0;
  size_t i = alen, j = blen, k = total;
  while (i > 0 && j > 0) {
    bool emit = false;
    if (a[i - 1] == b[j - 1]) {
      result[--k] = a[i - 1];
      if (a_start == none) {
        a_start = a_end = i - 1;
        b_start = b_end = j - 1;
      } else if (a_start == i && b_start == j) {
        a_start--;
        b_start--;
      } else {
        emit = true;
      }
      if (a_start == 0 || b_start == 0) emit = true;
      i--;
      j--;
    } else {
      if (at(i - 1, j) > at(i, j - 1)) {
        i--;
      } else {
        j--;
      }
      if (a_start != none) emit = true;
    }
    if (emit) {
      const size_t match_len = a_end - a_start + 1;
      if (want_idx && (min_len == 0 || match_len >= static_cast<uint64_t>(min_len))) {
        cx.reply().array(with_len ? 3 : 2);
        cx.reply().array(2);
        cx.reply().integer(static_cast<int64_t>(a_start));
        cx.reply().integer(static_cast<int64_t>(a_end));
        cx.reply().array(2);
        cx.reply().integer(static_cast<int64_t>(b_start));
        cx.reply().integer(static_cast<int64_t>(b_end));
        if (with_len) cx.reply().integer(static_cast<int64_t>(match_len));
        nranges++;
      }
      a_start = none;
    }
  }
  if (want_idx) {
    cx.reply().end_deferred_array(deferred, nranges);
    cx.reply().bulk("len");
    cx.reply().integer(total);
    return;
  }
  cx.reply().bulk(result);
}

constexpr uint32_t kRW = kWrite | kDenyOom;

CommandSpec kStringCommands[] = {
    {.name = "get", .handler = cmd_get, .arity = 2, .flags = kReadOnly | kFast, .acl = kAclString, .group = "string",
     .summary = "Returns the string value of a key.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "set", .handler = cmd_set, .arity = -3, .flags = kRW, .acl = kAclString, .group = "string",
     .summary = "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate | kKsVariableFlags, 1, fk_range(), "RW and ACCESS due to the optional `GET` argument")},
     .getkeys = set_getkeys},
    {.name = "setnx", .handler = cmd_setnx, .arity = 3, .flags = kRW | kFast, .acl = kAclString, .group = "string",
     .summary = "Set the string value of a key only when the key doesn't exist.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsOW | kKsInsert)}},
    {.name = "setex", .handler = cmd_setex, .arity = 4, .flags = kRW, .acl = kAclString, .group = "string",
     .summary = "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.", .since = "2.0.0", .complexity = "O(1)",
     .keys = {ks(kKsOW | kKsUpdate)}},
    {.name = "psetex", .handler = cmd_psetex, .arity = 4, .flags = kRW, .acl = kAclString, .group = "string",
     .summary = "Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn't exist.", .since = "2.6.0", .complexity = "O(1)",
     .keys = {ks(kKsOW | kKsUpdate)}},
    {.name = "mget", .handler = cmd_mget, .arity = -2, .flags = kReadOnly | kFast, .acl = kAclString, .group = "string",
     .summary = "Atomically returns the string values of one or more keys.", .since = "1.0.0", .complexity = "O(N) where N is the number of keys to retrieve.",
     .keys = {ks(kKsRO | kKsAccess, 1, fk_range(-1, 1, 0))},
     .tips = "request_policy:multi_shard"},
    {.name = "mset", .handler = cmd_mset, .arity = -3, .flags = kRW, .acl = kAclString, .group = "string",
     .summary = "Atomically creates or modifies the string values of one or more keys.", .since = "1.0.1", .complexity = "O(N) where N is the number of keys to set.",
     .keys = {ks(kKsOW | kKsUpdate, 1, fk_range(-1, 2, 0))},
     .tips = "request_policy:multi_shard response_policy:all_succeeded"},
    {.name = "msetnx", .handler = cmd_msetnx, .arity = -3, .flags = kRW, .acl = kAclString, .group = "string",
     .summary = "Atomically modifies the string values of one or more keys only when all keys don't exist.", .since = "1.0.1", .complexity = "O(N) where N is the number of keys to set.",
     .keys = {ks(kKsOW | kKsInsert, 1, fk_range(-1, 2, 0))},
     .tips = "request_policy:multi_shard response_policy:agg_min"},
    {.name = "getset", .handler = cmd_getset, .arity = 3, .flags = kRW | kFast, .acl = kAclString, .group = "string",
     .summary = "Returns the previous string value of a key after setting it to a new value.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate)}},
    {.name = "getdel", .handler = cmd_getdel, .arity = 2, .flags = kWrite | kFast, .acl = kAclString, .group = "string",
     .summary = "Returns the string value of a key after deleting the key.", .since = "6.2.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete)}},
    {.name = "getex", .handler = cmd_getex, .arity = -2, .flags = kWrite | kFast, .acl = kAclString, .group = "string",
     .summary = "Returns the string value of a key after setting its expiration time.", .since = "6.2.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate, 1, fk_range(), "RW and UPDATE because it changes the TTL")}},
    {.name = "append", .handler = cmd_append, .arity = 3, .flags = kRW | kFast, .acl = kAclString, .group = "string",
     .summary = "Appends a string to the value of a key. Creates the key if it doesn't exist.", .since = "2.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsInsert)}},
    {.name = "strlen", .handler = cmd_strlen, .arity = 2, .flags = kReadOnly | kFast, .acl = kAclString, .group = "string",
     .summary = "Returns the length of a string value.", .since = "2.2.0", .complexity = "O(1)",
     .keys = {ks(kKsRO)}},
    {.name = "incr", .handler = cmd_incr, .arity = 2, .flags = kRW | kFast, .acl = kAclString, .group = "string",
     .summary = "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate)}},
    {.name = "decr", .handler = cmd_decr, .arity = 2, .flags = kRW | kFast, .acl = kAclString, .group = "string",
     .summary = "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate)}},
    {.name = "incrby", .handler = cmd_incrby, .arity = 3, .flags = kRW | kFast, .acl = kAclString, .group = "string",
     .summary = "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate)}},
    {.name = "decrby", .handler = cmd_decrby, .arity = 3, .flags = kRW | kFast, .acl = kAclString, .group = "string",
     .summary = "Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn't exist.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate)}},
    {.name = "incrbyfloat", .handler = cmd_incrbyfloat, .arity = 3, .flags = kRW | kFast, .acl = kAclString, .group = "string",
     .summary = "Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn't exist.", .since = "2.6.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate)}},
    {.name = "getrange", .handler = cmd_getrange, .arity = 4, .flags = kReadOnly, .acl = kAclString, .group = "string",
     .summary = "Returns a substring of the string stored at a key.", .since = "2.4.0", .complexity = "O(N) where N is the length of the returned string.",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "substr", .handler = cmd_getrange, .arity = 4, .flags = kReadOnly, .acl = kAclString, .group = "string",
     .summary = "Returns a substring from a string value.", .since = "1.0.0", .complexity = "O(N) where N is the length of the returned string.",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "setrange", .handler = cmd_setrange, .arity = 4, .flags = kRW, .acl = kAclString, .group = "string",
     .summary = "Overwrites a part of a string value with another by an offset. Creates the key if it doesn't exist.", .since = "2.2.0", .complexity = "O(1), not counting the time taken to copy the new string in place.",
     .keys = {ks(kKsRW | kKsUpdate)}},
    {.name = "lcs", .handler = cmd_lcs, .arity = -3, .flags = kReadOnly, .acl = kAclString, .group = "string",
     .summary = "Finds the longest common substring.", .since = "7.0.0", .complexity = "O(N*M) where N and M are the lengths of s1 and s2, respectively",
     .keys = {ks(kKsRO | kKsAccess, 1, fk_range(1, 1, 0))}},
};

}  // namespace

std::span<CommandSpec> string_commands() { return kStringCommands; }

}  // namespace keel
