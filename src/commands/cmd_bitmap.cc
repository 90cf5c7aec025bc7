// Bitmap commands over string values: SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO.
// Bit 0 is the most significant bit of byte 0. Growth and in-place edits of the string go
// through types/string_type.h; every change of a key is reported to Db once.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <vector>

#include "base/numbers.h"
#include "commands/command.h"
#include "commands/command_table.h"
#include "protocol/resp_parser.h"
#include "types/string_type.h"

namespace keel {
namespace {

// A bit offset argument: a non-negative integer whose byte index is below proto-max-bulk-len;
// with `bits` > 0 a "#n" form means n * bits (BITFIELD).
bool bit_offset_arg(CommandContext& cx, size_t idx, int bits, uint64_t* out) {
  std::string_view s = cx.arg(idx);
  const bool hash = bits > 0 && !s.empty() && s[0] == '#';
  if (hash) s.remove_prefix(1);
  int64_t v;
  if (!parse_int64(s, &v) || (hash && __builtin_mul_overflow(v, int64_t{bits}, &v)) || v < 0 ||
      (v >> 3) >= protocol_limits().proto_max_bulk_len) {
    cx.reply().error(kErrBitOffset);
    return false;
  }
  *out = static_cast<uint64_t>(v);
  return true;
}

// Byte range [start, end] (or bit range when `bits`) of a string of `len` bytes after Redis's
// negative-index rules; false when the range is empty. Bit ranges come back as byte bounds plus
// masks of the bits outside the range in the first and last byte.
struct Range {
  int64_t start, end;
  uint8_t first_mask = 0, last_mask = 0;  // bits to ignore in the first / last byte
};
bool resolve_range(int64_t start, int64_t end, int64_t len, bool bits, Range* r) {
  int64_t total = bits ? len * 8 : len;
  if (start < 0) start += total;
  if (end < 0) end += total;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= total) end = total - 1;
  if (start > end) return false;
  r->start = start;
  r->end = end;
  if (bits) {
    r->first_mask = static_cast<uint8_t>(~((1u << (8 - (start & 7))) - 1));
    r->last_mask = static_cast<uint8_t>((1u << (7 - (end & 7))) - 1);
    r->start = start >> 3;
    r->end = end >> 3;
  }
  return true;
}

// BYTE|BIT unit argument; replies a syntax error otherwise.
bool unit_arg(CommandContext& cx, size_t idx, bool* bits) {
  if (cx.is_arg(idx, "bit")) {
    *bits = true;
  } else if (cx.is_arg(idx, "byte")) {
    *bits = false;
  } else {
    cx.reply().error(kErrSyntax);
    return false;
  }
  return true;
}

// The string at `key` for reading: sets *o (null when missing); false after a WRONGTYPE reply.
bool read_string(CommandContext& cx, size_t key_idx, Object** o) {
  *o = cx.db().find(cx.key(key_idx));
  return !*o || cx.check_type(*o, Type::kString);
}

// SETBIT key offset value -> the previous bit.
void cmd_setbit(CommandContext& cx) {
  uint64_t off;
  if (!bit_offset_arg(cx, 2, 0, &off)) return;
  int64_t on;
  if (!parse_int64(cx.arg(3), &on) || (on & ~1)) return cx.reply().error(kErrBitValue);
  const size_t byte = off >> 3;
  const uint8_t mask = static_cast<uint8_t>(1u << (7 - (off & 7)));
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) {
    Object* o = StringType::create_zeroed(cx.arg(1), byte + 1);
    if (on) o->raw()->data[byte] = static_cast<char>(mask);
    cx.db().insert(slot, o);
    cx.notify(kNotifyString, "setbit", cx.arg(1));
    return cx.reply().integer(0);
  }
  if (!cx.check_type(slot.obj(), Type::kString)) return;
  const int64_t old_len = object_length(slot.obj());
  const size_t new_len = std::max<size_t>(byte + 1, static_cast<size_t>(old_len));
  auto* p = reinterpret_cast<uint8_t*>(StringType::edit(*slot, new_len));  // raw, as Redis
  const bool was = p[byte] & mask;
  if (static_cast<int64_t>(new_len) != old_len || was != static_cast<bool>(on)) {
    p[byte] = static_cast<uint8_t>(on ? (p[byte] | mask) : (p[byte] & ~mask));
    cx.db().length_changed(slot, old_len);
    cx.notify(kNotifyString, "setbit", cx.arg(1));
  }
  cx.reply().integer(was ? 1 : 0);
}

// GETBIT key offset -> the bit (0 past the end or for a missing key).
void cmd_getbit(CommandContext& cx) {
  uint64_t off;
  if (!bit_offset_arg(cx, 2, 0, &off)) return;
  Object* o;
  if (!read_string(cx, 1, &o)) return;
  if (!o) return cx.reply().integer(0);
  char scratch[24];
  std::string_view s = o->string_view(scratch);
  const size_t byte = off >> 3;
  if (byte >= s.size()) return cx.reply().integer(0);
  cx.reply().integer((static_cast<uint8_t>(s[byte]) >> (7 - (off & 7))) & 1);
}

int64_t popcount(const uint8_t* p, size_t n) {
  int64_t c = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    c += std::popcount(w);
  }
  for (; i < n; i++) c += std::popcount(static_cast<unsigned>(p[i]));
  return c;
}

// BITCOUNT key [start end [BYTE|BIT]] -> number of set bits. Arguments are checked before the
// key is looked up (Redis 7.2+: a bad range is an error even for a missing key).
void cmd_bitcount(CommandContext& cx) {
  int64_t start = 0, end = -1;
  bool bits = false;
  const bool ranged = cx.argc() == 4 || cx.argc() == 5;
  if (!ranged && cx.argc() != 2) return cx.reply().error(kErrSyntax);
  if (ranged) {
    if (!cx.int_arg(2, &start) || !cx.int_arg(3, &end)) return;
    if (cx.argc() == 5 && !unit_arg(cx, 4, &bits)) return;
  }
  Object* o;
  if (!read_string(cx, 1, &o)) return;
  if (!o) return cx.reply().integer(0);
  char scratch[24];
  std::string_view s = o->string_view(scratch);
  if (ranged && start < 0 && end < 0 && start > end) return cx.reply().integer(0);
  Range r;
  if (!resolve_range(start, end, static_cast<int64_t>(s.size()), bits, &r)) return cx.reply().integer(0);
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  int64_t n = popcount(p + r.start, static_cast<size_t>(r.end - r.start + 1));
  n -= std::popcount(static_cast<unsigned>(p[r.start] & r.first_mask));
  n -= std::popcount(static_cast<unsigned>(p[r.end] & r.last_mask));
  cx.reply().integer(n);
}

// BITPOS key bit [start [end [BYTE|BIT]]] -> position of the first bit equal to `bit`, or -1.
// Without an explicit end the string is treated as followed by zeros, so a search for 0 in an
// all-ones string answers the first bit after it.
void cmd_bitpos(CommandContext& cx) {
  int64_t bit;
  if (!cx.int_arg(2, &bit)) return;
  if (bit != 0 && bit != 1) return cx.reply().error("ERR The bit argument must be 1 or 0.");
  int64_t start = 0, end = -1;
  bool bits = false, end_given = false;
  if (cx.argc() > 6) return cx.reply().error(kErrSyntax);
  if (cx.argc() >= 4) {
    if (!cx.int_arg(3, &start)) return;
    if (cx.argc() == 6 && !unit_arg(cx, 5, &bits)) return;
    if (cx.argc() >= 5) {
      if (!cx.int_arg(4, &end)) return;
      end_given = true;
    }
  }
  Object* o;
  if (!read_string(cx, 1, &o)) return;
  if (!o) return cx.reply().integer(bit ? -1 : 0);
  char scratch[24];
  std::string_view s = o->string_view(scratch);
  Range r;
  if (!resolve_range(start, end, static_cast<int64_t>(s.size()), bits, &r)) {
    return cx.reply().integer(-1);
  }
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  // Scan byte by byte; bits outside the range are forced to the value not searched for.
  const uint8_t skip = bit ? 0x00 : 0xff;
  for (int64_t i = r.start; i <= r.end; i++) {
    uint8_t c = p[i];
    if (i == r.start) c = static_cast<uint8_t>((c & ~r.first_mask) | (skip & r.first_mask));
    if (i == r.end) c = static_cast<uint8_t>((c & ~r.last_mask) | (skip & r.last_mask));
    if (c != skip) {
      const uint8_t want = bit ? c : static_cast<uint8_t>(~c);
      return cx.reply().integer(i * 8 + std::countl_zero(want));
    }
  }
  if (bit == 1 || end_given) return cx.reply().integer(-1);
  cx.reply().integer((r.end + 1) * 8);
}

// BITOP AND|OR|XOR|NOT destkey key [key ...] -> length of the stored result. Missing keys are
// empty strings; an empty result deletes the destination.
void cmd_bitop(CommandContext& cx) {
  enum { kAnd, kOr, kXor, kNot } op;
  if (cx.is_arg(1, "and")) {
    op = kAnd;
  } else if (cx.is_arg(1, "or")) {
    op = kOr;
  } else if (cx.is_arg(1, "xor")) {
    op = kXor;
  } else if (cx.is_arg(1, "not")) {
    op = kNot;
  } else {
    return cx.reply().error(kErrSyntax);
  }
  if (op == kNot && cx.argc() != 4) {
    return cx.reply().error("ERR BITOP NOT must be called with a single source key.");
  }
  const size_t n = cx.argc() - 3;
  std::vector<std::string_view> src(n);
  std::vector<std::array<char, 24>> scratch(n);
  size_t maxlen = 0;
  for (size_t i = 0; i < n; i++) {
    Object* o;
    if (!read_string(cx, 3 + i, &o)) return;
    if (o) src[i] = o->string_view(scratch[i].data());
    maxlen = std::max(maxlen, src[i].size());
  }
  Object* result = nullptr;
  if (maxlen > 0) {
    char* out;
    result = StringType::create_raw_uninit(cx.arg(2), maxlen, &out);
    for (size_t b = 0; b < maxlen; b++) {
      auto byte_of = [&](size_t i) -> uint8_t {
        return b < src[i].size() ? static_cast<uint8_t>(src[i][b]) : 0;
      };
      uint8_t v = byte_of(0);
      if (op == kNot) v = static_cast<uint8_t>(~v);
      for (size_t i = 1; i < n; i++) {
        if (op == kAnd) v &= byte_of(i);
        else if (op == kOr) v |= byte_of(i);
        else v ^= byte_of(i);
      }
      out[b] = static_cast<char>(v);
    }
  }
  Db::Slot slot = cx.db().find_for_write(cx.key(2));
  if (result) {
    if (slot) {
      cx.db().overwrite(slot, result);
    } else {
      cx.db().insert(slot, result);
    }
    cx.notify(kNotifyString, "set", cx.arg(2));
  } else if (slot) {
    cx.db().remove(slot);
    cx.notify(kNotifyGeneric, "del", cx.arg(2));
  }
  cx.reply().integer(static_cast<int64_t>(maxlen));
}

// ---- BITFIELD -------------------------------------------------------------------------------

enum class Overflow : uint8_t { kWrap, kSat, kFail };
struct FieldOp {
  enum Kind : uint8_t { kGet, kSet, kIncrBy } kind;
  bool sign;
  Overflow ow;
  int bits;
  uint64_t offset;
  int64_t value;
};

// Reads `bits` bits at bit `offset`, most significant first; bytes at or past `len` read as 0.
uint64_t get_bits(const uint8_t* p, size_t len, uint64_t offset, int bits) {
  uint64_t v = 0;
  for (int i = 0; i < bits; i++, offset++) {
    const size_t byte = offset >> 3;
    const unsigned bit = byte < len ? (p[byte] >> (7 - (offset & 7))) & 1 : 0;
    v = (v << 1) | bit;
  }
  return v;
}

void set_bits(uint8_t* p, uint64_t offset, int bits, uint64_t v) {
  for (int i = bits - 1; i >= 0; i--, offset++) {
    const uint8_t mask = static_cast<uint8_t>(1u << (7 - (offset & 7)));
    if ((v >> i) & 1) {
      p[offset >> 3] |= mask;
    } else {
      p[offset >> 3] &= static_cast<uint8_t>(~mask);
    }
  }
}

int64_t sign_extend(uint64_t v, int bits) {
  if (bits < 64 && (v & (uint64_t{1} << (bits - 1)))) v |= ~uint64_t{0} << bits;
  return static_cast<int64_t>(v);
}

// Overflow rules of Redis's checkSignedBitfieldOverflow, in wrapping unsigned arithmetic so the
// corner cases (a SET value outside int64 arithmetic of the limits) answer the same: returns
// 0, or +1/-1 with *limit set to the wrapped or saturated result.
int signed_overflow(int64_t value, int64_t incr, int bits, Overflow ow, int64_t* limit) {
  const int64_t max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  const int64_t min = -max - 1;
  const auto maxincr = static_cast<int64_t>(static_cast<uint64_t>(max) - static_cast<uint64_t>(value));
  const auto minincr = static_cast<int64_t>(static_cast<uint64_t>(min) - static_cast<uint64_t>(value));
  int dir = 0;
  if (value > max || (bits != 64 && incr > maxincr) || (value >= 0 && incr > 0 && incr > maxincr)) {
    dir = 1;
  } else if (value < min || (bits != 64 && incr < minincr) ||
             (value < 0 && incr < 0 && incr < minincr)) {
    dir = -1;
  }
  if (dir == 0) return 0;
  if (ow == Overflow::kSat) {
    *limit = dir > 0 ? max : min;
  } else if (ow == Overflow::kWrap) {
    uint64_t c = static_cast<uint64_t>(value) + static_cast<uint64_t>(incr);
    if (bits < 64) {
      const uint64_t high = ~uint64_t{0} << bits;
      c = (c & (uint64_t{1} << (bits - 1))) ? (c | high) : (c & ~high);
    }
    *limit = static_cast<int64_t>(c);
  }
  return dir;
}

// Unsigned counterpart (bits <= 63).
int unsigned_overflow(uint64_t value, int64_t incr, int bits, Overflow ow, uint64_t* limit) {
  const uint64_t max = (uint64_t{1} << bits) - 1;
  const auto maxincr = static_cast<int64_t>(max - value);
  const auto minincr = static_cast<int64_t>(uint64_t{0} - value);
  int dir = 0;
  if (value > max || (incr > 0 && incr > maxincr)) {
    dir = 1;
  } else if (incr < 0 && incr < minincr) {
    dir = -1;
  }
  if (dir == 0) return 0;
  if (ow == Overflow::kSat) {
    *limit = dir > 0 ? max : 0;
  } else if (ow == Overflow::kWrap) {
    *limit = (value + static_cast<uint64_t>(incr)) & max;
  }
  return dir;
}

// i<1..64> or u<1..63>.
bool field_type_arg(CommandContext& cx, size_t idx, bool* sign, int* bits) {
  std::string_view s = cx.arg(idx);
  int64_t n;
  if (s.empty() || (s[0] != 'i' && s[0] != 'u') || !parse_int64(s.substr(1), &n) || n < 1 ||
      (s[0] == 'i' && n > 64) || (s[0] == 'u' && n > 63)) {
    cx.reply().error(
        "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
        "i64 is.");
    return false;
  }
  *sign = s[0] == 'i';
  *bits = static_cast<int>(n);
  return true;
}

void bitfield_generic(CommandContext& cx, bool ro_command) {
  std::vector<FieldOp> ops;
  Overflow ow = Overflow::kWrap;
  bool readonly = true;
  uint64_t highest = 0;  // highest bit written
  for (size_t j = 2; j < cx.argc(); j++) {
    const size_t rest = cx.argc() - j - 1;
    FieldOp op{};
    if (cx.is_arg(j, "get") && rest >= 2) {
      op.kind = FieldOp::kGet;
    } else if (cx.is_arg(j, "set") && rest >= 3) {
      op.kind = FieldOp::kSet;
    } else if (cx.is_arg(j, "incrby") && rest >= 3) {
      op.kind = FieldOp::kIncrBy;
    } else if (cx.is_arg(j, "overflow") && rest >= 1) {
      j++;
      if (cx.is_arg(j, "wrap")) {
        ow = Overflow::kWrap;
      } else if (cx.is_arg(j, "sat")) {
        ow = Overflow::kSat;
      } else if (cx.is_arg(j, "fail")) {
        ow = Overflow::kFail;
      } else {
        return cx.reply().error("ERR Invalid OVERFLOW type specified");
      }
      continue;
    } else {
      return cx.reply().error(kErrSyntax);
    }
    if (!field_type_arg(cx, j + 1, &op.sign, &op.bits)) return;
    if (!bit_offset_arg(cx, j + 2, op.bits, &op.offset)) return;
    op.ow = ow;
    if (op.kind != FieldOp::kGet) {
      readonly = false;
      highest = std::max(highest, op.offset + static_cast<uint64_t>(op.bits) - 1);
      if (!cx.int_arg(j + 3, &op.value)) return;
    }
    ops.push_back(op);
    j += op.kind == FieldOp::kGet ? 2 : 3;
  }

  if (readonly) {
    Object* o;
    if (!read_string(cx, 1, &o)) return;
    char scratch[24];
    std::string_view s = o ? o->string_view(scratch) : std::string_view();
    const auto* p = reinterpret_cast<const uint8_t*>(s.data());
    cx.reply().array(ops.size());
    for (const FieldOp& op : ops) {
      const uint64_t v = get_bits(p, s.size(), op.offset, op.bits);
      cx.reply().integer(op.sign ? sign_extend(v, op.bits) : static_cast<int64_t>(v));
    }
    return;
  }
  if (ro_command) return cx.reply().error("ERR BITFIELD_RO only supports the GET subcommand");

  // Make room up to the highest bit written, as Redis does before running any operation.
  const size_t need = (highest >> 3) + 1;
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (slot && !cx.check_type(slot.obj(), Type::kString)) return;
  bool grown;
  const bool created = !slot;
  int64_t old_len = 0;
  if (created) {
    cx.db().insert(slot, StringType::create_zeroed(cx.arg(1), need));
    grown = true;
  } else {
    old_len = object_length(slot.obj());
    StringType::edit(*slot, std::max<size_t>(need, static_cast<size_t>(old_len)));
    grown = static_cast<int64_t>(slot->string_length()) != old_len;
  }
  RawString* r = slot->raw();
  auto* p = reinterpret_cast<uint8_t*>(r->data);
  size_t changes = 0;
  cx.reply().array(ops.size());
  for (const FieldOp& op : ops) {
    const uint64_t raw_old = get_bits(p, r->len, op.offset, op.bits);
    if (op.kind == FieldOp::kGet) {
      cx.reply().integer(op.sign ? sign_extend(raw_old, op.bits) : static_cast<int64_t>(raw_old));
      continue;
    }
    uint64_t newbits;
    int64_t ret;
    bool fail;
    if (op.sign) {
      const int64_t oldv = sign_extend(raw_old, op.bits);
      int64_t limit = 0, newv;
      int of;
      if (op.kind == FieldOp::kIncrBy) {
        of = signed_overflow(oldv, op.value, op.bits, op.ow, &limit);
        newv = of ? limit
                  : static_cast<int64_t>(static_cast<uint64_t>(oldv) + static_cast<uint64_t>(op.value));
        ret = newv;
      } else {
        of = signed_overflow(op.value, 0, op.bits, op.ow, &limit);
        newv = of ? limit : op.value;
        ret = oldv;
      }
      fail = of && op.ow == Overflow::kFail;
      newbits = static_cast<uint64_t>(newv);
      if (!fail && (grown || oldv != newv)) changes++;
    } else {
      const uint64_t oldv = raw_old;
      uint64_t limit = 0, newv;
      int of;
      if (op.kind == FieldOp::kIncrBy) {
        of = unsigned_overflow(oldv, op.value, op.bits, op.ow, &limit);
        newv = of ? limit : oldv + static_cast<uint64_t>(op.value);
        ret = static_cast<int64_t>(newv);
      } else {
        of = unsigned_overflow(static_cast<uint64_t>(op.value), 0, op.bits, op.ow, &limit);
        newv = of ? limit : static_cast<uint64_t>(op.value);
        ret = static_cast<int64_t>(oldv);
      }
      fail = of && op.ow == Overflow::kFail;
      newbits = newv;
      if (!fail && (grown || oldv != newv)) changes++;
    }
    if (fail) {
      cx.reply().null();
      continue;
    }
    cx.reply().integer(ret);
    if (op.bits < 64) newbits &= (uint64_t{1} << op.bits) - 1;
    set_bits(p, op.offset, op.bits, newbits);
  }
  // A created key was counted by insert(); an existing one reports its growth or change here.
  if (!created && (grown || changes)) cx.db().length_changed(slot, old_len);
  if (changes) cx.notify(kNotifyString, "setbit", cx.arg(1));
}

// COMMAND GETKEYSANDFLAGS for BITFIELD (variable_flags): RO access when every operation is a
// complete GET (OVERFLOW allowed), else RW access update (SET, INCRBY, or arguments that do
// not parse, which are safer taken as a write), as Redis decides.
int bitfield_getkeys(std::span<const std::string_view> args, std::vector<KeyArg>* keys) {
  bool read_only = true;
  const size_t argc = args.size();
  for (size_t i = 2; i < argc; i++) {
    const size_t rest = argc - i - 1;
    const std::string_view a = args[i].substr(0, args[i].find('\0'));
    if (equals_nocase(a, "get") && rest >= 2) {
      i += 2;
    } else if (equals_nocase(a, "overflow") && rest >= 1) {
      i += 1;
    } else {
      read_only = false;  // SET / INCRBY, or a syntax error
      break;
    }
  }
  keys->push_back({1, read_only ? uint16_t(kKsRO | kKsAccess) : uint16_t(kKsRW | kKsAccess | kKsUpdate)});
  return 1;
}

void cmd_bitfield(CommandContext& cx) { bitfield_generic(cx, false); }
void cmd_bitfield_ro(CommandContext& cx) { bitfield_generic(cx, true); }

constexpr uint32_t kRW = kWrite | kDenyOom;

CommandSpec kBitmapCommands[] = {
    {.name = "setbit", .handler = cmd_setbit, .arity = 4, .flags = kRW, .acl = kAclBitmap, .group = "bitmap",
     .summary = "Sets or clears the bit at offset of the string value. Creates the key if it doesn't exist.", .since = "2.2.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate)}},
    {.name = "getbit", .handler = cmd_getbit, .arity = 3, .flags = kReadOnly | kFast, .acl = kAclBitmap, .group = "bitmap",
     .summary = "Returns a bit value by offset.", .since = "2.2.0", .complexity = "O(1)",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "bitcount", .handler = cmd_bitcount, .arity = -2, .flags = kReadOnly, .acl = kAclBitmap, .group = "bitmap",
     .summary = "Counts the number of set bits (population counting) in a string.", .since = "2.6.0", .complexity = "O(N)",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "bitpos", .handler = cmd_bitpos, .arity = -3, .flags = kReadOnly, .acl = kAclBitmap, .group = "bitmap",
     .summary = "Finds the first set (1) or clear (0) bit in a string.", .since = "2.8.7", .complexity = "O(N)",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "bitop", .handler = cmd_bitop, .arity = -4, .flags = kRW, .acl = kAclBitmap, .group = "bitmap",
     .summary = "Performs bitwise operations on multiple strings, and stores the result.", .since = "2.6.0", .complexity = "O(N)",
     .keys = {ks(kKsOW | kKsUpdate, 2), ks(kKsRO | kKsAccess, 3, fk_range(-1, 1, 0))}},
    {.name = "bitfield", .handler = cmd_bitfield, .arity = -2, .flags = kRW, .acl = kAclBitmap, .group = "bitmap",
     .summary = "Performs arbitrary bitfield integer operations on strings.", .since = "3.2.0", .complexity = "O(1) for each subcommand specified",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate | kKsVariableFlags, 1, fk_range(), "This command allows both access and modification of the key")},
     .getkeys = bitfield_getkeys},
    {.name = "bitfield_ro", .handler = cmd_bitfield_ro, .arity = -2, .flags = kReadOnly | kFast, .acl = kAclBitmap, .group = "bitmap",
     .summary = "Performs arbitrary read-only bitfield integer operations on strings.", .since = "6.0.0", .complexity = "O(1) for each subcommand specified",
     .keys = {ks(kKsRO | kKsAccess)}},
};

}  // namespace

std::span<CommandSpec> bitmap_commands() { return kBitmapCommands; }

}  // namespace keel
