// A byte ring that keeps the newest `limit` bytes written to it, addressed by stream offset:
// the replication backlog (server/replication.cc). Appending never moves the bytes already held
// (the old backlog, a string trimmed from the front, moved a whole backlog's worth every time it
// passed twice its size); the storage grows geometrically up to the limit, so a small stream
// does not allocate the whole repl-backlog-size at once.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "base/assert.h"

namespace keel {

class ByteRing {
 public:
  ByteRing() = default;
  ByteRing(const ByteRing&) = delete;
  ByteRing& operator=(const ByteRing&) = delete;
  ~ByteRing() { free(data_); }

  // Forgets everything and frees the storage; the next byte written has offset `next_off`.
  void reset(int64_t next_off, size_t limit) {
    free(data_);
    data_ = nullptr;
    cap_ = head_ = len_ = 0;
    limit_ = std::max<size_t>(limit, 1);
    end_ = next_off;
  }

  size_t limit() const { return limit_; }
  size_t size() const { return len_; }               // bytes held (repl_backlog_histlen)
  size_t capacity() const { return cap_; }           // bytes allocated
  int64_t end_offset() const { return end_; }        // offset of the next byte written
  int64_t first_offset() const { return end_ - static_cast<int64_t>(len_); }  // oldest held

  void append(const char* p, size_t n) {
    if (n == 0) return;
    end_ += static_cast<int64_t>(n);
    if (n >= limit_) {  // only the tail of it stays
      p += n - limit_;
      n = limit_;
      if (cap_ < limit_) regrow(limit_, false);
      memcpy(data_, p, n);
      head_ = 0;
      len_ = n;
      return;
    }
    if (KEEL_UNLIKELY(cap_ - len_ < n && cap_ < limit_)) {
      regrow(std::min(limit_, std::max(cap_ * 2, std::max<size_t>(len_ + n, 4096))), true);
    }
    // Write at head_, wrapping; what is overwritten is the oldest data.
    const size_t first = std::min(n, cap_ - head_);
    memcpy(data_ + head_, p, first);
    if (n > first) memcpy(data_, p + first, n - first);
    head_ += n;
    if (head_ >= cap_) head_ -= cap_;  // n <= cap_ here: one wrap at most, no division
    len_ = std::min(cap_, len_ + n);
  }

  // Changes the limit (CONFIG SET repl-backlog-size), keeping the newest bytes that fit.
  void set_limit(size_t limit) {
    limit = std::max<size_t>(limit, 1);
    if (limit == limit_) return;
    limit_ = limit;
    if (cap_ > limit_) regrow(limit_, true);
  }

  // The held bytes from offset `off` (first_offset() <= off <= end_offset()) to the end, as at
  // most two pieces in order; the second is empty unless they wrap.
  void read_from(int64_t off, std::string_view* a, std::string_view* b) const {
    KEEL_ASSERT(off >= first_offset() && off <= end_);
    const size_t n = static_cast<size_t>(end_ - off);
    *a = *b = std::string_view();
    if (n == 0) return;
    const size_t start = (head_ + cap_ - n) % cap_;
    const size_t first = std::min(n, cap_ - start);
    *a = std::string_view(data_ + start, first);
    if (n > first) *b = std::string_view(data_, n - first);
  }

 private:
  // New storage of `cap` bytes holding the newest min(len_, cap) bytes from index 0.
  void regrow(size_t cap, bool keep) {
    char* d = static_cast<char*>(malloc(cap));
    KEEL_ASSERT(d != nullptr);
    size_t keep_n = keep ? std::min(len_, cap) : 0;
    if (keep_n != 0) {
      std::string_view a, b;
      read_from(end_ - static_cast<int64_t>(keep_n), &a, &b);
      memcpy(d, a.data(), a.size());
      if (!b.empty()) memcpy(d + a.size(), b.data(), b.size());
    }
    free(data_);
    data_ = d;
    cap_ = cap;
    len_ = keep_n;
    head_ = keep_n % cap_;
  }

  char* data_ = nullptr;
  size_t cap_ = 0;     // allocated
  size_t limit_ = 1;   // most bytes held
  size_t head_ = 0;    // index of the next byte written
  size_t len_ = 0;     // bytes held
  int64_t end_ = 0;    // stream offset of the next byte written
};

}  // namespace keel
