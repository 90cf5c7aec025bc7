// Ziplist validation, reading and conversion to listpack. The format diagram is in ziplist.h.
// The validator bounds every read by the offset of the terminator, so the reader that follows
// can trust the blob and checks nothing.
#include "ds/ziplist.h"

#include <cstring>

namespace keel {
namespace {

inline uint32_t le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
inline uint32_t be32(const uint8_t* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | uint32_t{p[3]};
}

// Sizes of an entry's parts, decoded from trusted or already bounds-checked bytes.
struct EntryLayout {
  size_t prevlen_bytes;  // 1 or 5
  size_t prevlen;        // size of the previous entry
  size_t enc_bytes;      // encoding bytes (1, 2 or 5)
  size_t data_bytes;     // string length or integer width
  bool is_int;
  size_t total() const { return prevlen_bytes + enc_bytes + data_bytes; }
};

// Integer data width for an integer encoding byte, or -1 if the byte is not a valid one.
int int_width(uint8_t b) {
  switch (b) {
    case 0xC0: return 2;
    case 0xD0: return 4;
    case 0xE0: return 8;
    case 0xF0: return 3;
    case 0xFE: return 1;
    default:
      if (b >= 0xF1 && b <= 0xFD) return 0;
      return -1;
  }
}

// Decodes the layout of the entry at `off`, reading nothing at or past `end` (the offset of the
// terminator). False when the entry's header or data would reach `end` or the encoding is
// invalid.
bool layout_at(const uint8_t* p, size_t off, size_t end, EntryLayout* e) {
  if (off >= end) return false;
  if (p[off] < 0xFE) {
    e->prevlen_bytes = 1;
    e->prevlen = p[off];
  } else if (p[off] == 0xFE) {
    if (end - off < 5) return false;
    e->prevlen_bytes = 5;
    e->prevlen = le32(p + off + 1);
  } else {
    return false;  // 0xFF is the terminator, not an entry
  }
  size_t at = off + e->prevlen_bytes;
  if (at >= end) return false;
  const uint8_t b = p[at];
  switch (b >> 6) {
    case 0:
      e->enc_bytes = 1;
      e->data_bytes = b & 0x3F;
      e->is_int = false;
      break;
    case 1:
      if (end - at < 2) return false;
      e->enc_bytes = 2;
      e->data_bytes = (size_t{b & 0x3Fu} << 8) | p[at + 1];
      e->is_int = false;
      break;
    case 2:
      if (end - at < 5) return false;
      e->enc_bytes = 5;
      e->data_bytes = be32(p + at + 1);
      e->is_int = false;
      break;
    default: {
      const int w = int_width(b);
      if (w < 0) return false;
      e->enc_bytes = 1;
      e->data_bytes = static_cast<size_t>(w);
      e->is_int = true;
      break;
    }
  }
  // Header and data must end before the terminator (sizes are < 2^33, no overflow).
  return e->total() <= end - off;
}

int64_t read_int(const uint8_t* enc, size_t width) {
  const uint8_t b = enc[0];
  const uint8_t* d = enc + 1;
  switch (width) {
    case 0:
      return (b & 0x0F) - 1;
    case 1:
      return static_cast<int8_t>(d[0]);
    case 2:
      return static_cast<int16_t>(static_cast<uint16_t>(d[0] | d[1] << 8));
    case 3: {
      int32_t v = static_cast<int32_t>(uint32_t{d[0]} | uint32_t{d[1]} << 8 | uint32_t{d[2]} << 16);
      if (v >= (1 << 23)) v -= (1 << 24);
      return v;
    }
    case 4:
      return static_cast<int32_t>(le32(d));
    default: {
      const uint64_t u = uint64_t{le32(d)} | uint64_t{le32(d + 4)} << 32;
      return static_cast<int64_t>(u);
    }
  }
}

}  // namespace

bool ziplist_validate(const uint8_t* p, size_t len, bool deep) {
  if (p == nullptr || len < kZiplistEmptyBytes || len > UINT32_MAX) return false;
  if (le32(p) != len || p[len - 1] != 0xFF) return false;
  const size_t end = len - 1;
  const size_t tail = le32(p + 4);
  if (tail < kZiplistHeaderSize || tail > end) return false;
  if (!deep) return true;

  size_t off = kZiplistHeaderSize;
  size_t prev_size = 0;
  size_t last = 0;  // offset of the last entry, 0 while there is none
  size_t count = 0;
  while (off < end) {
    EntryLayout e;
    if (!layout_at(p, off, end, &e)) return false;
    if (e.prevlen != prev_size) return false;
    prev_size = e.total();
    last = off;
    off += e.total();
    count++;
  }
  if (off != end) return false;
  if (last != 0 && tail != last) return false;
  const uint16_t header_count = static_cast<uint16_t>(p[8] | p[9] << 8);
  return header_count == kZiplistCountUnknown || header_count == count;
}

bool ZiplistReader::next(LpEntry* out) {
  if (zl_[off_] == 0xFF) return false;
  EntryLayout e;
  // Trusted (validated) blob: the terminator bounds nothing here, so pass the maximum.
  layout_at(zl_, off_, SIZE_MAX, &e);
  const uint8_t* enc = zl_ + off_ + e.prevlen_bytes;
  if (e.is_int) {
    out->is_int = true;
    out->ival = read_int(enc, e.data_bytes);
    out->sval = {};
  } else {
    out->is_int = false;
    out->sval = std::string_view(reinterpret_cast<const char*>(enc + e.enc_bytes), e.data_bytes);
  }
  off_ += e.total();
  return true;
}

bool ziplist_append_to_listpack(const uint8_t* zl, Listpack& lp) {
  size_t add = 0;
  LpEntry e;
  for (ZiplistReader r(zl); r.next(&e);) {
    add += e.is_int ? lp_entry_size_for_int(e.ival) : lp_entry_size_for(e.sval);
    if (lp.bytes() + add > kLpSafeBytes) return false;
  }
  for (ZiplistReader r(zl); r.next(&e);) {
    if (e.is_int) {
      lp.append_int(e.ival);
    } else {
      lp.append(e.sval);
    }
  }
  return true;
}

}  // namespace keel
