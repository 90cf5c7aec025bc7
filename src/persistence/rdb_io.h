// The byte streams under RDB: RdbOut (a buffered sink to a file descriptor or a string, with
// the running CRC64) and RdbIn (a buffered source from a file descriptor or a memory block, with
// the CRC64 of what was consumed), plus the length and string encodings on top of them.
//
// RdbOut never fails loudly: a write error is remembered (errno) and later writes are dropped;
// the caller asks ok() at the end. RdbIn throws RdbError on a short read or a malformed length
// or string, carrying the offset where it happened; the loader (rdb_load.cc) catches it. Only
// code inside persistence/ sees the exception.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace keel {

// Unique owner of a malloc'd blob.
using MallocPtr = std::unique_ptr<uint8_t, void (*)(void*)>;

struct RdbError {
  uint64_t offset;
  std::string reason;
  bool unsupported = false;  // a valid value of a type Keel does not have (streams, modules)
};

class RdbOut {
 public:
  // To a string (DUMP payloads): bytes are appended to *out.
  explicit RdbOut(std::string* out);
  // To a file descriptor (not owned). With fsync_every > 0, fdatasync() after each such many
  // bytes (rdb-save-incremental-fsync: the page cache never holds a huge dirty backlog).
  RdbOut(int fd, size_t fsync_every);
  ~RdbOut();
  RdbOut(const RdbOut&) = delete;
  RdbOut& operator=(const RdbOut&) = delete;

  // With checksum off (rdbchecksum no) crc() stays 0 and nothing is hashed.
  void set_checksum(bool on) { checksum_ = on; }

  void put(const void* p, size_t n) {
    if (n <= kBufSize - used_) {
      std::memcpy(buf_.get() + used_, p, n);
      used_ += n;
      return;
    }
    put_slow(p, n);
  }
  void put_byte(uint8_t b) {
    if (used_ == kBufSize) flush_buffer();
    buf_[used_++] = b;
  }
  void put_len(uint64_t len);
  // A string with Redis's writer rules: the int forms for short canonical integers that fit 32
  // bits, else LZF when `compress` and it is longer than 20 bytes and saves at least 4 bytes,
  // else the length and the bytes.
  void put_string(std::string_view s, bool compress);
  // A binary blob (listpack, intset, quicklist node): LZF as put_string, never an int form.
  void put_blob(const void* p, size_t n, bool compress);
  // An integer value (an int-encoded string): the int forms when it fits 32 bits, else text.
  void put_int_string(int64_t v);
  // A string already LZF-compressed: C3, compressed length, original length, the bytes.
  void put_lzf(const void* compressed, size_t clen, size_t orig_len);
  void put_u64_le(uint64_t v);

  // CRC64 of every byte put so far (flushes the pending bytes through the CRC, not to the fd).
  uint64_t crc();
  // Writes the buffered bytes out (file mode) and returns ok().
  bool flush();
  bool ok() const { return err_ == 0; }
  int error() const { return err_; }  // errno of the first failure
  uint64_t written() const { return total_ + used_; }

 private:
  static constexpr size_t kBufSize = 64 * 1024;
  void put_slow(const void* p, size_t n);
  void flush_buffer();
  void emit(const uint8_t* p, size_t n);  // to the target, after the CRC

  std::unique_ptr<uint8_t[]> buf_;
  size_t used_ = 0;
  size_t crc_done_ = 0;  // bytes of buf_ already in crc_
  uint64_t crc_ = 0;
  uint64_t total_ = 0;   // bytes emitted
  bool checksum_ = true;
  std::string* str_ = nullptr;
  int fd_ = -1;
  size_t fsync_every_ = 0;
  size_t since_fsync_ = 0;
  int err_ = 0;
  std::vector<uint8_t> lzf_;  // compression scratch
};

class RdbIn {
 public:
  // Over memory the caller keeps alive (DUMP payloads, tests).
  RdbIn(const uint8_t* p, size_t n);
  // Over a file descriptor (not owned) of `size` bytes, read in large blocks.
  RdbIn(int fd, uint64_t size);
  RdbIn(const RdbIn&) = delete;
  RdbIn& operator=(const RdbIn&) = delete;

  void set_checksum(bool on) { checksum_ = on; }
  uint64_t offset() const { return base_ + pos_; }
  uint64_t remaining() const { return size_ - offset(); }

  [[noreturn]] void fail(std::string reason) const;
  [[noreturn]] void fail_eof() const { fail("Unexpected EOF reading RDB file"); }

  uint8_t byte() {
    if (pos_ == end_) refill(1);
    return buf_[pos_++];
  }
  // n contiguous bytes (n <= 64 KB), valid until the next call.
  const uint8_t* take(size_t n) {
    if (end_ - pos_ < n) refill(n);
    const uint8_t* p = buf_ + pos_;
    pos_ += n;
    return p;
  }
  void read(void* dst, size_t n);
  uint64_t u64_le();
  uint32_t u32_le();

  // A length; *special is set when the byte says a special string encoding follows (then the
  // return value is that encoding). Without `special`, a special encoding is an error.
  uint64_t len(bool* special = nullptr);
  // A string into `out` (resized; its capacity is kept), decoding int forms and LZF.
  void string(std::string& out);
  // A string into a malloc'd block of exactly its length (blobs that become listpacks or
  // intsets as they are). *n gets the length.
  MallocPtr blob(size_t* n);
  // A text double of types ZSET (1-byte length, 253/254/255 = nan/inf/-inf).
  double text_double();
  double binary_double();

  // CRC64 of every byte consumed so far.
  uint64_t crc();

 private:
  static constexpr size_t kBufSize = 1 << 20;
  void refill(size_t need);
  void lzf_into(uint8_t* dst, size_t orig_len, size_t clen);
  void string_header(uint64_t* n, int* kind);  // kind: -1 raw, else special encoding

  const uint8_t* buf_;
  size_t pos_ = 0;
  size_t end_ = 0;
  uint64_t base_ = 0;  // file offset of buf_[0]
  uint64_t size_;
  int fd_ = -1;
  std::unique_ptr<uint8_t[]> own_;
  size_t crc_done_ = 0;  // bytes of buf_ already hashed
  uint64_t crc_ = 0;
  bool checksum_ = true;
  std::vector<uint8_t> scratch_;
};

}  // namespace keel
