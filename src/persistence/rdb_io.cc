// RdbOut / RdbIn: buffering, CRC64 and the length / string encodings (see rdb_io.h).
#include "persistence/rdb_io.h"

#include <liblzf/lzf.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <limits>

#include "base/numbers.h"
#include "persistence/crc64.h"
#include "persistence/rdb_format.h"

namespace keel {

// ---- RdbOut -------------------------------------------------------------------------------------

RdbOut::RdbOut(std::string* out) : buf_(new uint8_t[kBufSize]), str_(out) {}

RdbOut::RdbOut(int fd, size_t fsync_every)
    : buf_(new uint8_t[kBufSize]), fd_(fd), fsync_every_(fsync_every) {}

RdbOut::~RdbOut() = default;

void RdbOut::emit(const uint8_t* p, size_t n) {
  total_ += n;
  if (err_ != 0 || n == 0) return;
  if (str_ != nullptr) {
    str_->append(reinterpret_cast<const char*>(p), n);
    return;
  }
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      err_ = errno;
      return;
    }
    p += w;
    n -= static_cast<size_t>(w);
    since_fsync_ += static_cast<size_t>(w);
  }
  if (fsync_every_ > 0 && since_fsync_ >= fsync_every_) {
    since_fsync_ = 0;
    if (fdatasync(fd_) != 0) err_ = errno;
  }
}

void RdbOut::flush_buffer() {
  if (checksum_ && used_ > crc_done_) crc_ = crc64(crc_, buf_.get() + crc_done_, used_ - crc_done_);
  emit(buf_.get(), used_);
  used_ = 0;
  crc_done_ = 0;
}

void RdbOut::put_slow(const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  const size_t room = kBufSize - used_;
  std::memcpy(buf_.get() + used_, p, room);
  used_ += room;
  p += room;
  n -= room;
  flush_buffer();
  if (n >= kBufSize) {
    // A big value goes out directly rather than through the buffer.
    if (checksum_) crc_ = crc64(crc_, p, n);
    emit(p, n);
    return;
  }
  std::memcpy(buf_.get(), p, n);
  used_ = n;
}

uint64_t RdbOut::crc() {
  if (checksum_ && used_ > crc_done_) {
    crc_ = crc64(crc_, buf_.get() + crc_done_, used_ - crc_done_);
    crc_done_ = used_;
  }
  return crc_;
}

bool RdbOut::flush() {
  flush_buffer();
  return ok();
}

void RdbOut::put_len(uint64_t len) {
  uint8_t b[9];
  if (len < 64) {
    put_byte(static_cast<uint8_t>(len));
  } else if (len < 16384) {
    b[0] = static_cast<uint8_t>((len >> 8) | 0x40);
    b[1] = static_cast<uint8_t>(len & 0xff);
    put(b, 2);
  } else if (len <= UINT32_MAX) {
    b[0] = kRdbLen32;
    for (int i = 0; i < 4; i++) b[1 + i] = static_cast<uint8_t>(len >> (24 - 8 * i));
    put(b, 5);
  } else {
    b[0] = kRdbLen64;
    for (int i = 0; i < 8; i++) b[1 + i] = static_cast<uint8_t>(len >> (56 - 8 * i));
    put(b, 9);
  }
}

namespace {

// The int forms of a value within int32: C0 int8, C1 int16 LE, C2 int32 LE.
size_t encode_int(int64_t v, uint8_t* b) {
  if (v >= -128 && v <= 127) {
    b[0] = 0xC0 | kRdbEncInt8;
    b[1] = static_cast<uint8_t>(v);
    return 2;
  }
  if (v >= -32768 && v <= 32767) {
    b[0] = 0xC0 | kRdbEncInt16;
    const auto u = static_cast<uint16_t>(v);
    b[1] = static_cast<uint8_t>(u);
    b[2] = static_cast<uint8_t>(u >> 8);
    return 3;
  }
  b[0] = 0xC0 | kRdbEncInt32;
  const auto u = static_cast<uint32_t>(v);
  for (int i = 0; i < 4; i++) b[1 + i] = static_cast<uint8_t>(u >> (8 * i));
  return 5;
}

bool fits_int32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

}  // namespace

void RdbOut::put_string(std::string_view s, bool compress) {
  const size_t n = s.size();
  if (n <= 11 && n > 0) {
    int64_t v;
    if (parse_int64(s, &v) && fits_int32(v)) {
      uint8_t b[5];
      put(b, encode_int(v, b));
      return;
    }
  }
  put_blob(s.data(), n, compress);
}

void RdbOut::put_blob(const void* p, size_t n, bool compress) {
  if (compress && n > kRdbLzfMinLength && n <= UINT32_MAX) {
    // Kept only when it saves at least 4 bytes: lzf_compress fails when the output does not
    // fit n - 4 bytes.
    const size_t cap = n - 4;
    if (lzf_.size() < cap + 1) lzf_.resize(cap + 1);
    const unsigned clen =
        lzf_compress(p, static_cast<unsigned>(n), lzf_.data(), static_cast<unsigned>(cap));
    if (clen > 0) {
      put_lzf(lzf_.data(), clen, n);
      return;
    }
  }
  put_len(n);
  put(p, n);
}

void RdbOut::put_lzf(const void* compressed, size_t clen, size_t orig_len) {
  put_byte(0xC0 | kRdbEncLzf);
  put_len(clen);
  put_len(orig_len);
  put(compressed, clen);
}

void RdbOut::put_int_string(int64_t v) {
  if (fits_int32(v)) {
    uint8_t b[5];
    put(b, encode_int(v, b));
    return;
  }
  char buf[kInt64BufSize];
  const size_t n = format_int64(v, buf);
  put_len(n);
  put(buf, n);
}

void RdbOut::put_u64_le(uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; i++) b[i] = static_cast<uint8_t>(v >> (8 * i));
  put(b, 8);
}

// ---- RdbIn --------------------------------------------------------------------------------------

RdbIn::RdbIn(const uint8_t* p, size_t n) : buf_(p), end_(n), size_(n) {}

RdbIn::RdbIn(int fd, uint64_t size) : buf_(nullptr), size_(size), fd_(fd), own_(new uint8_t[kBufSize]) {
  buf_ = own_.get();
}

void RdbIn::fail(std::string reason) const { throw RdbError{offset(), std::move(reason)}; }

void RdbIn::refill(size_t need) {
  if (fd_ < 0) fail_eof();
  if (checksum_ && pos_ > crc_done_) crc_ = crc64(crc_, buf_ + crc_done_, pos_ - crc_done_);
  uint8_t* b = own_.get();
  const size_t keep = end_ - pos_;
  if (keep > 0) std::memmove(b, b + pos_, keep);
  base_ += pos_;
  pos_ = 0;
  crc_done_ = 0;
  end_ = keep;
  while (end_ < need) {
    const ssize_t r = ::read(fd_, b + end_, kBufSize - end_);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) fail_eof();
    end_ += static_cast<size_t>(r);
  }
}

void RdbIn::read(void* dst, size_t n) {
  auto* d = static_cast<uint8_t*>(dst);
  const size_t avail = end_ - pos_;
  if (n <= avail) {
    std::memcpy(d, buf_ + pos_, n);
    pos_ += n;
    return;
  }
  if (fd_ < 0 || n > remaining()) fail_eof();
  if (avail > 0) std::memcpy(d, buf_ + pos_, avail);
  pos_ = end_;
  d += avail;
  n -= avail;
  if (n >= kBufSize / 2) {
    // Large values skip the buffer: hash what it held, then read straight into place.
    if (checksum_ && end_ > crc_done_) crc_ = crc64(crc_, buf_ + crc_done_, end_ - crc_done_);
    base_ += end_;
    pos_ = end_ = crc_done_ = 0;
    size_t got = 0;
    while (got < n) {
      const ssize_t r = ::read(fd_, d + got, n - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        base_ += got;
        fail_eof();
      }
      got += static_cast<size_t>(r);
    }
    if (checksum_) crc_ = crc64(crc_, d, n);
    base_ += n;
    return;
  }
  refill(n);
  std::memcpy(d, buf_ + pos_, n);
  pos_ += n;
}

uint64_t RdbIn::crc() {
  if (checksum_ && pos_ > crc_done_) {
    crc_ = crc64(crc_, buf_ + crc_done_, pos_ - crc_done_);
    crc_done_ = pos_;
  }
  return crc_;
}

uint64_t RdbIn::u64_le() {
  const uint8_t* p = take(8);
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

uint32_t RdbIn::u32_le() {
  const uint8_t* p = take(4);
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

uint64_t RdbIn::len(bool* special) {
  const uint8_t b = byte();
  const int kind = (b & 0xC0) >> 6;
  if (kind == kRdbEncVal) {
    // As Redis: without a caller interested in encodings, the low six bits are the length.
    if (special) *special = true;
    return b & 0x3F;
  }
  if (special) *special = false;
  if (kind == kRdbLen6) return b & 0x3F;
  if (kind == kRdbLen14) return (uint64_t{b & 0x3Fu} << 8) | byte();
  if (b == kRdbLen32) {
    const uint8_t* p = take(4);
    return uint64_t{p[0]} << 24 | uint64_t{p[1]} << 16 | uint64_t{p[2]} << 8 | p[3];
  }
  if (b == kRdbLen64) {
    const uint8_t* p = take(8);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return v;
  }
  fail("Unknown length encoding " + std::to_string(b) + " in rdbLoadLen()");
}

void RdbIn::string_header(uint64_t* n, int* kind) {
  bool special;
  *n = len(&special);
  *kind = special ? static_cast<int>(*n) : -1;
}

void RdbIn::lzf_into(uint8_t* dst, size_t orig_len, size_t clen) {
  if (clen > remaining()) fail_eof();
  const uint8_t* src;
  if (clen <= 64 * 1024) {
    src = take(clen);
  } else {
    scratch_.resize(clen);
    read(scratch_.data(), clen);
    src = scratch_.data();
  }
  // liblzf checks every back reference and the output bound (CHECK_INPUT).
  const unsigned got = lzf_decompress(src, static_cast<unsigned>(clen), dst,
                                      static_cast<unsigned>(orig_len));
  if (got != orig_len) fail("Invalid LZF compressed string");
}

namespace {

// Decoded text of an int form into buf (kInt64BufSize); returns the length.
size_t int_form_text(RdbIn& in, int enc, char* buf) {
  int64_t v;
  if (enc == kRdbEncInt8) {
    v = static_cast<int8_t>(in.byte());
  } else if (enc == kRdbEncInt16) {
    const uint8_t* p = in.take(2);
    v = static_cast<int16_t>(static_cast<uint16_t>(p[0] | p[1] << 8));
  } else {
    v = static_cast<int32_t>(in.u32_le());
  }
  return format_int64(v, buf);
}

// LZF expands at most 88 times (a 3-byte back reference copies 264 bytes): a larger claimed
// size is corrupt, and refusing it keeps a tiny payload from asking for a huge allocation.
bool lzf_sizes_plausible(uint64_t clen, uint64_t orig) {
  return orig > 0 && clen > 0 && orig <= clen * 88 + 8 && orig <= UINT32_MAX && clen <= UINT32_MAX;
}

}  // namespace

void RdbIn::string(std::string& out) {
  uint64_t n;
  int kind;
  string_header(&n, &kind);
  if (kind < 0) {
    if (n > remaining()) fail_eof();
    out.resize(n);
    read(out.data(), n);
    return;
  }
  if (kind == kRdbEncInt8 || kind == kRdbEncInt16 || kind == kRdbEncInt32) {
    char buf[kInt64BufSize];
    const size_t len = int_form_text(*this, kind, buf);
    out.assign(buf, len);
    return;
  }
  if (kind == kRdbEncLzf) {
    const uint64_t clen = len();
    const uint64_t orig = len();
    if (!lzf_sizes_plausible(clen, orig)) fail("Invalid LZF compressed string");
    out.resize(orig);
    lzf_into(reinterpret_cast<uint8_t*>(out.data()), orig, clen);
    return;
  }
  fail("Unknown RDB string encoding type " + std::to_string(kind));
}

MallocPtr RdbIn::blob(size_t* out_len) {
  uint64_t n;
  int kind;
  string_header(&n, &kind);
  auto alloc = [this](uint64_t len) {
    void* p = std::malloc(len > 0 ? len : 1);
    if (p == nullptr) fail("Out of memory loading a value of " + std::to_string(len) + " bytes");
    return MallocPtr(static_cast<uint8_t*>(p), std::free);
  };
  if (kind < 0) {
    if (n > remaining()) fail_eof();
    MallocPtr b = alloc(n);
    read(b.get(), n);
    *out_len = n;
    return b;
  }
  if (kind == kRdbEncInt8 || kind == kRdbEncInt16 || kind == kRdbEncInt32) {
    char buf[kInt64BufSize];
    const size_t len = int_form_text(*this, kind, buf);
    MallocPtr b = alloc(len);
    std::memcpy(b.get(), buf, len);
    *out_len = len;
    return b;
  }
  if (kind == kRdbEncLzf) {
    const uint64_t clen = len();
    const uint64_t orig = len();
    if (!lzf_sizes_plausible(clen, orig)) fail("Invalid LZF compressed string");
    MallocPtr b = alloc(orig);
    lzf_into(b.get(), orig, clen);
    *out_len = orig;
    return b;
  }
  fail("Unknown RDB string encoding type " + std::to_string(kind));
}

double RdbIn::text_double() {
  const uint8_t n = byte();
  if (n == 253) return std::numeric_limits<double>::quiet_NaN();
  if (n == 254) return std::numeric_limits<double>::infinity();
  if (n == 255) return -std::numeric_limits<double>::infinity();
  char buf[256];
  read(buf, n);
  buf[n] = '\0';
  char* end = nullptr;
  const double v = std::strtod(buf, &end);
  if (end == buf) fail("Invalid double value");
  return v;
}

double RdbIn::binary_double() {
  const uint64_t bits = u64_le();
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

}  // namespace keel
