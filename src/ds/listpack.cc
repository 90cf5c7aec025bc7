// Listpack encoding, decoding, mutation and validation. The format diagram is in listpack.h.
// Every mutation computes the new entry's bytes first (Encoded), then reallocates the blob once
// and moves the tail with one memmove, as Redis does; the blob is always exactly total-bytes
// long so the bytes RDB writes are the bytes in memory.
#include "ds/listpack.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "base/assert.h"
#include "base/memory.h"

namespace keel {
namespace {

inline uint32_t read_u32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
inline void write_u32(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
  p[2] = static_cast<uint8_t>(v >> 16);
  p[3] = static_cast<uint8_t>(v >> 24);
}
inline uint16_t read_u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
inline void write_u16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}

// Bytes of the backlen that follows an entry whose encoding+data is `l` bytes. The 2-byte form
// stops at 16382, not 16383: Redis's thresholds are "< 16383", "< 2097151", "< 268435455", so
// one value per size class takes a byte more than it needs. We match it byte for byte.
inline size_t backlen_size(uint64_t l) {
  if (l <= 127) return 1;
  if (l < 16383) return 2;
  if (l < 2097151) return 3;
  if (l < 268435455) return 4;
  return 5;
}

// Writes the backlen of `l` into out[0..n) and returns n. Lowest address = most significant
// 7-bit group with bit 7 clear; every later byte has bit 7 set.
inline size_t write_backlen(uint64_t l, uint8_t* out) {
  const size_t n = backlen_size(l);
  for (size_t i = 0; i < n; i++) {
    const uint8_t group = static_cast<uint8_t>((l >> (7 * (n - 1 - i))) & 127);
    out[i] = i == 0 ? group : static_cast<uint8_t>(group | 128);
  }
  return n;
}

// Reads a backlen whose last byte is at `last` (trusted data). Sets *nbytes to its length.
inline uint64_t read_backlen(const uint8_t* last, size_t* nbytes) {
  uint64_t v = 0;
  unsigned shift = 0;
  size_t n = 0;
  for (;;) {
    const uint8_t b = last[-static_cast<ptrdiff_t>(n)];
    v |= uint64_t{static_cast<uint8_t>(b & 127)} << shift;
    n++;
    if (!(b & 128) || n == 5) break;
    shift += 7;
  }
  *nbytes = n;
  return v;
}

// Size of encoding+data of the (trusted) entry at p.
inline size_t enc_data_size(const uint8_t* p) {
  const uint8_t b = p[0];
  if ((b & 0x80) == 0) return 1;
  if ((b & 0xC0) == 0x80) return 1 + (b & 0x3F);
  if ((b & 0xE0) == 0xC0) return 2;
  if ((b & 0xF0) == 0xE0) return 2 + ((size_t{b & 0x0Fu} << 8) | p[1]);
  switch (b) {
    case 0xF0:
      return 5 + size_t{read_u32(p + 1)};
    case 0xF1:
      return 3;
    case 0xF2:
      return 4;
    case 0xF3:
      return 5;
    case 0xF4:
      return 9;
    default:
      break;
  }
  KEEL_ASSERT(false && "listpack: bad encoding byte");
  return 0;
}

inline size_t entry_size(const uint8_t* p) {
  const size_t e = enc_data_size(p);
  return e + backlen_size(e);
}

LpEntry decode(const uint8_t* p) {
  LpEntry out;
  const uint8_t b = p[0];
  auto as_int = [&out](int64_t v) {
    out.is_int = true;
    out.ival = v;
  };
  if ((b & 0x80) == 0) {
    as_int(b);
  } else if ((b & 0xC0) == 0x80) {
    out.sval = std::string_view(reinterpret_cast<const char*>(p + 1), b & 0x3F);
  } else if ((b & 0xE0) == 0xC0) {
    int64_t u = (int64_t{b & 0x1F} << 8) | p[1];
    if (u >= 4096) u -= 8192;
    as_int(u);
  } else if ((b & 0xF0) == 0xE0) {
    const size_t len = (size_t{b & 0x0Fu} << 8) | p[1];
    out.sval = std::string_view(reinterpret_cast<const char*>(p + 2), len);
  } else {
    switch (b) {
      case 0xF0:
        out.sval = std::string_view(reinterpret_cast<const char*>(p + 5), read_u32(p + 1));
        break;
      case 0xF1:
        as_int(static_cast<int16_t>(read_u16(p + 1)));
        break;
      case 0xF2: {
        int64_t u = int64_t{p[1]} | int64_t{p[2]} << 8 | int64_t{p[3]} << 16;
        if (u >= (int64_t{1} << 23)) u -= int64_t{1} << 24;
        as_int(u);
        break;
      }
      case 0xF3:
        as_int(static_cast<int32_t>(read_u32(p + 1)));
        break;
      case 0xF4: {
        const uint64_t u = uint64_t{read_u32(p + 1)} | uint64_t{read_u32(p + 5)} << 32;
        as_int(static_cast<int64_t>(u));
        break;
      }
      default:
        KEEL_ASSERT(false && "listpack: bad encoding byte");
    }
  }
  return out;
}

// Integer header bytes for v; returns the count (1..9).
size_t encode_int_header(int64_t v, uint8_t* out) {
  const uint64_t u = static_cast<uint64_t>(v);
  if (v >= 0 && v <= 127) {
    out[0] = static_cast<uint8_t>(v);
    return 1;
  }
  if (v >= -4096 && v <= 4095) {
    const uint64_t w = u & 0x1FFF;  // 13-bit two's complement
    out[0] = static_cast<uint8_t>(0xC0 | (w >> 8));
    out[1] = static_cast<uint8_t>(w);
    return 2;
  }
  size_t n;
  if (v >= -32768 && v <= 32767) {
    out[0] = 0xF1;
    n = 2;
  } else if (v >= -8388608 && v <= 8388607) {
    out[0] = 0xF2;
    n = 3;
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    out[0] = 0xF3;
    n = 4;
  } else {
    out[0] = 0xF4;
    n = 8;
  }
  for (size_t i = 0; i < n; i++) out[1 + i] = static_cast<uint8_t>(u >> (8 * i));
  return 1 + n;
}

size_t encode_str_header(size_t len, uint8_t* out) {
  if (len < 64) {
    out[0] = static_cast<uint8_t>(0x80 | len);
    return 1;
  }
  if (len < 4096) {
    out[0] = static_cast<uint8_t>(0xE0 | (len >> 8));
    out[1] = static_cast<uint8_t>(len);
    return 2;
  }
  KEEL_ASSERT(len <= UINT32_MAX);
  out[0] = 0xF0;
  write_u32(out + 1, static_cast<uint32_t>(len));
  return 5;
}

uint8_t* checked_realloc(uint8_t* p, size_t n) {
  auto* q = static_cast<uint8_t*>(std::realloc(p, n));
  KEEL_ASSERT(q != nullptr);
  return q;
}

// The blob from `old` to `n` bytes (see resize_block: no allocator call within a size class).
uint8_t* checked_resize(uint8_t* p, size_t old, size_t n) {
  auto* q = static_cast<uint8_t*>(resize_block(p, old, n));
  KEEL_ASSERT(q != nullptr);
  return q;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Encoded entry, built before the blob is touched.

struct Listpack::Encoded {
  uint8_t hdr[9];
  uint8_t bl[5];
  uint8_t hdr_len = 0;
  uint8_t bl_len = 0;
  const char* data = nullptr;
  size_t data_len = 0;

  size_t total() const { return hdr_len + data_len + bl_len; }
  void set_int(int64_t v) {
    hdr_len = static_cast<uint8_t>(encode_int_header(v, hdr));
    data = nullptr;
    data_len = 0;
    bl_len = static_cast<uint8_t>(write_backlen(hdr_len, bl));
  }
  void set(std::string_view v) {
    int64_t iv;
    if (parse_int64(v, &iv)) return set_int(iv);
    hdr_len = static_cast<uint8_t>(encode_str_header(v.size(), hdr));
    data = v.data();
    data_len = v.size();
    bl_len = static_cast<uint8_t>(write_backlen(hdr_len + data_len, bl));
  }
  void write(uint8_t* dst) const {
    std::memcpy(dst, hdr, hdr_len);
    if (data_len) std::memcpy(dst + hdr_len, data, data_len);
    std::memcpy(dst + hdr_len + data_len, bl, bl_len);
  }
};

bool LpEntry::equals(std::string_view s) const {
  if (!is_int) return sval == s;
  int64_t v;
  return parse_int64(s, &v) && v == ival;
}

size_t lp_entry_size_for_int(int64_t v) {
  uint8_t hdr[9];
  const size_t e = encode_int_header(v, hdr);
  return e + backlen_size(e);
}

size_t lp_entry_size_for(std::string_view v) {
  int64_t iv;
  if (parse_int64(v, &iv)) return lp_entry_size_for_int(iv);
  const size_t len = v.size();
  const size_t e = len + (len < 64 ? 1 : len < 4096 ? 2 : 5);
  return e + backlen_size(e);
}

// ---------------------------------------------------------------------------------------------
// Validation. Every read is bounds-checked against `end` (the offset of the terminator).

bool listpack_validate(const uint8_t* p, size_t len, bool deep) {
  if (p == nullptr || len < kLpEmptyBytes || len > UINT32_MAX) return false;
  if (read_u32(p) != len) return false;
  if (p[len - 1] != kLpEof) return false;
  if (!deep) return true;

  const size_t end = len - 1;
  size_t off = kLpHeaderSize;
  size_t count = 0;
  while (off < end) {
    const uint8_t b = p[off];
    uint64_t hdr = 0;      // header bytes of the encoding
    uint64_t payload = 0;  // data bytes after the header
    if ((b & 0x80) == 0) {
      hdr = 1;
    } else if ((b & 0xC0) == 0x80) {
      hdr = 1;
      payload = b & 0x3F;
    } else if ((b & 0xE0) == 0xC0) {
      hdr = 2;
    } else if ((b & 0xF0) == 0xE0) {
      hdr = 2;
      if (off + 2 > end) return false;
      payload = (uint64_t{b & 0x0Fu} << 8) | p[off + 1];
    } else {
      switch (b) {
        case 0xF0:
          hdr = 5;
          if (off + 5 > end) return false;
          payload = read_u32(p + off + 1);
          break;
        case 0xF1:
          hdr = 3;
          break;
        case 0xF2:
          hdr = 4;
          break;
        case 0xF3:
          hdr = 5;
          break;
        case 0xF4:
          hdr = 9;
          break;
        default:
          return false;  // 0xF5..0xFE unused; 0xFF before the end
      }
    }
    const uint64_t e = hdr + payload;
    const uint64_t bl = backlen_size(e);
    if (off + e + bl > end) return false;
    uint8_t expect[5];
    write_backlen(e, expect);
    // At most 5 bytes: a loop, not a memcmp call per entry (11% of loading small listpacks).
    for (uint64_t i = 0; i < bl; i++) {
      if (p[off + e + i] != expect[i]) return false;
    }
    off += e + bl;
    count++;
  }
  if (off != end) return false;
  const uint16_t hdr_count = read_u16(p + 4);
  return hdr_count == kLpCountUnknown || hdr_count == count;
}

// ---------------------------------------------------------------------------------------------
// Listpack

Listpack::Listpack() : lp_(checked_realloc(nullptr, kLpEmptyBytes)) {
  write_u32(lp_, kLpEmptyBytes);
  write_u16(lp_ + 4, 0);
  lp_[kLpHeaderSize] = kLpEof;
}


Listpack& Listpack::operator=(Listpack&& o) noexcept {
  if (this != &o) {
    std::free(lp_);
    lp_ = o.lp_;
    o.lp_ = nullptr;
  }
  return *this;
}

Listpack Listpack::adopt(uint8_t* blob) {
  KEEL_DCHECK(listpack_validate(blob, read_u32(blob), false));
  return Listpack(blob);
}

Listpack Listpack::copy_of(const uint8_t* p, size_t len) {
  uint8_t* q = checked_realloc(nullptr, len);
  std::memcpy(q, p, len);
  return Listpack(q);
}

size_t Listpack::bytes() const { return read_u32(lp_); }

void Listpack::set_bytes(size_t n) {
  KEEL_ASSERT(n <= UINT32_MAX);
  write_u32(lp_, static_cast<uint32_t>(n));
}

void Listpack::add_count(long delta) {
  const uint16_t h = read_u16(lp_ + 4);
  if (h == kLpCountUnknown) return;  // stays unknown until size() walks
  const long n = long{h} + delta;
  KEEL_DCHECK(n >= 0);
  write_u16(lp_ + 4, n >= kLpCountUnknown ? kLpCountUnknown : static_cast<uint16_t>(n));
}

size_t Listpack::size() const {
  const uint16_t h = read_u16(lp_ + 4);
  if (h != kLpCountUnknown) return h;
  size_t n = 0;
  for (size_t off = kLpHeaderSize; lp_[off] != kLpEof; off += entry_size(lp_ + off)) n++;
  if (n < kLpCountUnknown) write_u16(lp_ + 4, static_cast<uint16_t>(n));
  return n;
}

LpPos Listpack::first() const { return empty() ? kLpNone : LpPos{kLpHeaderSize}; }

LpPos Listpack::last() const {
  if (empty()) return kLpNone;
  return prev(static_cast<LpPos>(bytes() - 1));
}

LpPos Listpack::next(LpPos pos) const {
  const size_t off = pos + entry_size(lp_ + pos);
  return lp_[off] == kLpEof ? kLpNone : static_cast<LpPos>(off);
}

LpPos Listpack::prev(LpPos pos) const {
  if (pos <= kLpHeaderSize) return kLpNone;
  size_t n;
  const uint64_t e = read_backlen(lp_ + pos - 1, &n);
  return static_cast<LpPos>(pos - n - e);
}

LpEntry Listpack::get(LpPos pos) const { return decode(lp_ + pos); }

size_t Listpack::entry_bytes(LpPos pos) const { return entry_size(lp_ + pos); }

LpPos Listpack::seek(long index) const {
  const long n = static_cast<long>(size());
  if (index < 0) index += n;
  if (index < 0 || index >= n) return kLpNone;
  if (index <= n / 2) {
    LpPos p = first();
    for (long i = 0; i < index; i++) p = next(p);
    return p;
  }
  LpPos p = last();
  for (long i = n - 1; i > index; i--) p = prev(p);
  return p;
}

LpPos Listpack::find(std::string_view v, LpPos start, unsigned skip) const {
  if (start == kLpNone) return kLpNone;
  int64_t iv = 0;
  const bool v_is_int = parse_int64(v, &iv);
  unsigned skipcnt = 0;
  size_t off = start;
  while (lp_[off] != kLpEof) {
    if (skipcnt == 0) {
      const LpEntry e = decode(lp_ + off);
      if (e.is_int ? (v_is_int && e.ival == iv) : e.sval == v) return static_cast<LpPos>(off);
      skipcnt = skip;
    } else {
      skipcnt--;
    }
    off += entry_size(lp_ + off);
  }
  return kLpNone;
}

bool Listpack::aliases(const Encoded& e) const {
  const auto* lo = reinterpret_cast<const char*>(lp_);
  return e.data_len != 0 && e.data >= lo && e.data < lo + bytes();
}

LpPos Listpack::insert_encoded(uint32_t offset, const Encoded& e) {
  if (KEEL_UNLIKELY(aliases(e))) {  // the value is a view into this blob: copy it first
    const std::string copy(e.data, e.data_len);
    Encoded c = e;
    c.data = copy.data();
    return insert_encoded(offset, c);
  }
  const size_t old = bytes();
  const size_t add = e.total();
  KEEL_ASSERT(old + add <= UINT32_MAX);
  lp_ = checked_resize(lp_, old, old + add);
  std::memmove(lp_ + offset + add, lp_ + offset, old - offset);
  e.write(lp_ + offset);
  set_bytes(old + add);
  add_count(1);
  return offset;
}

void Listpack::append(std::string_view v) {
  Encoded e;
  e.set(v);
  insert_encoded(static_cast<uint32_t>(bytes() - 1), e);
}

void Listpack::append_int(int64_t v) {
  Encoded e;
  e.set_int(v);
  insert_encoded(static_cast<uint32_t>(bytes() - 1), e);
}

void Listpack::prepend(std::string_view v) {
  Encoded e;
  e.set(v);
  insert_encoded(kLpHeaderSize, e);
}

void Listpack::prepend_int(int64_t v) {
  Encoded e;
  e.set_int(v);
  insert_encoded(kLpHeaderSize, e);
}

void Listpack::append_all(std::span<const std::string_view> vs) {
  if (vs.empty()) return;
  const size_t old = bytes();
  size_t add = 0;
  Encoded e;
  for (std::string_view v : vs) {
    e.set(v);
    KEEL_ASSERT(!aliases(e));
    add += e.total();
  }
  KEEL_ASSERT(old + add <= UINT32_MAX);
  lp_ = checked_resize(lp_, old, old + add);
  size_t off = old - 1;
  for (std::string_view v : vs) {
    e.set(v);
    e.write(lp_ + off);
    off += e.total();
  }
  lp_[off] = kLpEof;
  set_bytes(old + add);
  add_count(static_cast<long>(vs.size()));
}

void Listpack::append_listpack(const Listpack& o) {
  KEEL_ASSERT(&o != this);
  const size_t old = bytes();
  const size_t add = o.bytes() - kLpEmptyBytes;  // entries only: no header, no terminator
  if (add == 0) return;
  KEEL_ASSERT(old + add <= UINT32_MAX);
  // Entries carry only their own length, so they are valid at any offset.
  lp_ = checked_resize(lp_, old, old + add);
  std::memcpy(lp_ + old - 1, o.lp_ + kLpHeaderSize, add);
  lp_[old + add - 1] = kLpEof;
  set_bytes(old + add);
  const uint16_t oc = read_u16(o.lp_ + 4);
  if (oc == kLpCountUnknown) {
    write_u16(lp_ + 4, kLpCountUnknown);
  } else {
    add_count(oc);
  }
}

LpPos Listpack::insert(LpPos pos, std::string_view v, LpWhere where) {
  Encoded e;
  e.set(v);
  const size_t off = where == LpWhere::kBefore ? pos : pos + entry_size(lp_ + pos);
  return insert_encoded(static_cast<uint32_t>(off), e);
}

LpPos Listpack::insert_int(LpPos pos, int64_t v, LpWhere where) {
  Encoded e;
  e.set_int(v);
  const size_t off = where == LpWhere::kBefore ? pos : pos + entry_size(lp_ + pos);
  return insert_encoded(static_cast<uint32_t>(off), e);
}

void Listpack::replace_encoded(LpPos pos, const Encoded& e) {
  if (KEEL_UNLIKELY(aliases(e))) {
    const std::string copy(e.data, e.data_len);
    Encoded c = e;
    c.data = copy.data();
    return replace_encoded(pos, c);
  }
  const size_t old = bytes();
  const size_t old_len = entry_size(lp_ + pos);
  const size_t new_len = e.total();
  const size_t tail = old - pos - old_len;  // includes the terminator
  const size_t now = old - old_len + new_len;
  KEEL_ASSERT(now <= UINT32_MAX);
  if (new_len > old_len) {
    lp_ = checked_resize(lp_, old, now);
    std::memmove(lp_ + pos + new_len, lp_ + pos + old_len, tail);
  } else if (new_len < old_len) {
    std::memmove(lp_ + pos + new_len, lp_ + pos + old_len, tail);
    lp_ = checked_resize(lp_, old, now);
  }
  e.write(lp_ + pos);
  set_bytes(now);
}

void Listpack::replace(LpPos pos, std::string_view v) {
  Encoded e;
  e.set(v);
  replace_encoded(pos, e);
}

void Listpack::replace_int(LpPos pos, int64_t v) {
  Encoded e;
  e.set_int(v);
  replace_encoded(pos, e);
}

void Listpack::erase_bytes(uint32_t offset, size_t len, size_t entries) {
  const size_t old = bytes();
  std::memmove(lp_ + offset, lp_ + offset + len, old - offset - len);
  lp_ = checked_resize(lp_, old, old - len);
  set_bytes(old - len);
  add_count(-static_cast<long>(entries));
}

LpPos Listpack::erase(LpPos pos) {
  erase_bytes(pos, entry_size(lp_ + pos), 1);
  return lp_[pos] == kLpEof ? kLpNone : pos;
}

size_t Listpack::erase_at(LpPos pos, size_t count) {
  if (pos == kLpNone || count == 0) return 0;
  size_t off = pos;
  size_t n = 0;
  while (n < count && lp_[off] != kLpEof) {
    off += entry_size(lp_ + off);
    n++;
  }
  erase_bytes(pos, off - pos, n);
  return n;
}

size_t Listpack::erase_range(long index, size_t count) { return erase_at(seek(index), count); }

}  // namespace keel
