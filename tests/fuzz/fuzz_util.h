// Small helpers shared by the fuzz targets: a reader over the fuzzer's input and a check macro
// that reports and aborts (libFuzzer then saves the input as a crash artifact).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#define FUZZ_CHECK(cond)                                                            \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "FUZZ_CHECK failed: %s at %s:%d\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                 \
    }                                                                               \
  } while (0)

namespace keel::fuzz {

// Takes bytes from the front of the input; past the end every read returns zeros / empty.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  size_t left() const { return static_cast<size_t>(end_ - p_); }
  bool empty() const { return p_ == end_; }
  uint8_t u8() { return p_ < end_ ? *p_++ : 0; }
  uint16_t u16() {
    const uint16_t lo = u8();
    return static_cast<uint16_t>(lo | u8() << 8);
  }
  uint32_t u32() {
    const uint32_t lo = u16();
    return lo | uint32_t{u16()} << 16;
  }
  uint64_t u64() {
    const uint64_t lo = u32();
    return lo | uint64_t{u32()} << 32;
  }
  bool flag() { return u8() & 1; }
  // Up to n bytes.
  std::string_view bytes(size_t n) {
    if (n > left()) n = left();
    std::string_view s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  // A string whose length is the next byte (0..255, capped by what is left).
  std::string_view short_string() { return bytes(u8()); }
  std::string_view rest() { return bytes(left()); }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

// A heap copy of exactly blob.size() bytes (at least one allocated byte), so that a validator
// reading one byte too far is an ASan report.
inline std::unique_ptr<uint8_t[]> exact_copy(const std::string& blob) {
  std::unique_ptr<uint8_t[]> p(new uint8_t[blob.empty() ? 1 : blob.size()]);
  if (!blob.empty()) std::memcpy(p.get(), blob.data(), blob.size());
  return p;
}

// Printable form of bytes for failure messages.
inline std::string show(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 32 && c < 127 && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char b[8];
      std::snprintf(b, sizeof(b), "\\x%02x", c);
      out += b;
    }
  }
  return out;
}

}  // namespace keel::fuzz
