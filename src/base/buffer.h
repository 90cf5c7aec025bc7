// A growable byte buffer that keeps its capacity when cleared: the per-client query and output
// buffers, so that steady-state traffic allocates nothing. Not a general string class.
#pragma once
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "base/assert.h"

namespace keel {

class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { free(data_); }

  char* data() { return data_; }
  const char* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return cap_; }
  bool empty() const { return size_ == 0; }
  std::string_view view() const { return {data_, size_}; }

  void clear() { size_ = 0; }
  // Makes room for at least n more bytes after size() and returns where they start.
  char* reserve_tail(size_t n) {
    if (KEEL_UNLIKELY(cap_ - size_ < n)) grow(n);
    return data_ + size_;
  }
  void commit(size_t n) { size_ += n; }
  void append(const void* p, size_t n) {
    memcpy(reserve_tail(n), p, n);
    size_ += n;
  }
  void append(std::string_view s) { append(s.data(), s.size()); }
  void push_back(char c) {
    *reserve_tail(1) = c;
    size_++;
  }
  void resize(size_t n) {
    if (n > size_) reserve_tail(n - size_);
    size_ = n;
  }
  // Drops the first n bytes, moving the rest to the front.
  void consume_front(size_t n) {
    if (n >= size_) {
      size_ = 0;
      return;
    }
    memmove(data_, data_ + n, size_ - n);
    size_ -= n;
  }
  // Inserts bytes at offset `at` (moves the tail; used for deferred reply lengths).
  void insert(size_t at, std::string_view s) {
    reserve_tail(s.size());
    memmove(data_ + at + s.size(), data_ + at, size_ - at);
    memcpy(data_ + at, s.data(), s.size());
    size_ += s.size();
  }
  // Frees memory beyond `keep` bytes of capacity when the buffer is empty (idle clients).
  void shrink_if_idle(size_t keep) {
    if (size_ == 0 && cap_ > keep) {
      free(data_);
      data_ = nullptr;
      cap_ = 0;
    }
  }
  void swap(Buffer& o) {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(cap_, o.cap_);
  }

 private:
  void grow(size_t n) {
    size_t want = size_ + n;
    size_t cap = cap_ ? cap_ : 64;
    while (cap < want) cap = cap < (size_t{1} << 30) ? cap * 2 : cap + (size_t{1} << 30);
    char* p = static_cast<char*>(realloc(data_, cap));
    KEEL_ASSERT(p != nullptr);
    data_ = p;
    cap_ = cap;
  }

  char* data_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = 0;
};

}  // namespace keel
