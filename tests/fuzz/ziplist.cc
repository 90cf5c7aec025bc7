// Fuzz target: ziplist_validate (ds/ziplist.h) on untrusted blobs, as old RDB files and DUMP
// payloads carry them, then reading and converting what it accepts.
//
// Input: byte 0 picks the blob:
//   0: the rest of the input as it is;
//   1: the rest with its header fixed up (zlbytes = length, zltail = 10, last byte 0xFF): the
//      shallow checks pass and the entry walk decides (zltail only matches for 0 or 1 entries,
//      so most multi-entry inputs fail there; mode 2 covers those);
//   2: a well-formed ziplist built from values in the input (type byte, then a string or an
//      integer of a chosen encoding), then one byte XORed (position and mask from the input).
// Checked: validation of an exact-size heap copy never reads past it; deep implies shallow; an
// accepted blob is read with ZiplistReader (every string view inside the blob) and converted to
// a listpack that is deep-valid and holds the same values in the same order.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ds/ziplist.h"
#include "fuzz_util.h"

using keel::fuzz::Input;
using keel::fuzz::exact_copy;

namespace {

void put_le(std::string& b, uint64_t v, int n) {
  for (int i = 0; i < n; i++) b.push_back(static_cast<char>(v >> (8 * i)));
}

// Encoding + data of one entry chosen by the input.
std::string entry_enc(Input& in) {
  const uint8_t t = in.u8();
  std::string e;
  switch (t % 9) {
    case 0: {  // 6-bit string
      const std::string_view s = in.bytes(in.u8() % 64);
      e.push_back(static_cast<char>(s.size()));
      e.append(s);
      break;
    }
    case 1: {  // 14-bit string, any length up to 16383 (a run of one byte when long)
      const size_t n = in.u16() % 16384;
      e.push_back(static_cast<char>(0x40 | (n >> 8)));
      e.push_back(static_cast<char>(n & 0xFF));
      e.append(n, static_cast<char>(in.u8()));
      break;
    }
    case 2: {  // 32-bit string
      const size_t n = in.u16() % 20000;
      e.push_back(static_cast<char>(0x80 | (t >> 6)));  // the low 6 bits are ignored on read
      for (int i = 3; i >= 0; i--) e.push_back(static_cast<char>(n >> (8 * i)));
      e.append(n, static_cast<char>(in.u8()));
      break;
    }
    case 3: e.push_back(static_cast<char>(0xF1 + in.u8() % 13)); break;
    case 4: e.push_back(static_cast<char>(0xFE)); put_le(e, in.u8(), 1); break;
    case 5: e.push_back(static_cast<char>(0xC0)); put_le(e, in.u16(), 2); break;
    case 6: e.push_back(static_cast<char>(0xF0)); put_le(e, in.u32(), 3); break;
    case 7: e.push_back(static_cast<char>(0xD0)); put_le(e, in.u32(), 4); break;
    default: e.push_back(static_cast<char>(0xE0)); put_le(e, in.u64(), 8); break;
  }
  return e;
}

std::string make_blob(Input& in) {
  const uint8_t mode = in.u8() % 3;
  if (mode == 0) return std::string(in.rest());
  if (mode == 1) {
    std::string b(in.rest());
    if (b.size() < keel::kZiplistEmptyBytes) return b;
    std::string h;
    put_le(h, b.size(), 4);
    put_le(h, keel::kZiplistHeaderSize, 4);
    b.replace(0, 8, h);
    b.back() = static_cast<char>(0xFF);
    return b;
  }
  std::string body;
  size_t prev = 0, tail = keel::kZiplistHeaderSize, count = 0;
  const size_t n = in.u8() % 32;
  for (size_t i = 0; i < n && !in.empty(); i++) {
    std::string entry;
    if (prev < 254) {
      entry.push_back(static_cast<char>(prev));
    } else {
      entry.push_back(static_cast<char>(0xFE));
      put_le(entry, prev, 4);
    }
    entry += entry_enc(in);
    tail = keel::kZiplistHeaderSize + body.size();
    body += entry;
    prev = entry.size();
    count++;
  }
  std::string b;
  put_le(b, keel::kZiplistHeaderSize + body.size() + 1, 4);
  put_le(b, tail, 4);
  put_le(b, in.flag() ? keel::kZiplistCountUnknown : count, 2);
  b += body;
  b.push_back(static_cast<char>(0xFF));
  const size_t at = in.u32() % b.size();
  b[at] = static_cast<char>(b[at] ^ in.u8());
  return b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  const std::string blob = make_blob(in);
  const std::unique_ptr<uint8_t[]> exact = exact_copy(blob);
  const bool shallow = keel::ziplist_validate(exact.get(), blob.size(), false);
  const bool deep = keel::ziplist_validate(exact.get(), blob.size(), true);
  FUZZ_CHECK(!deep || shallow);
  if (!deep) return 0;

  std::vector<std::string> values;
  keel::LpEntry e;
  char buf[keel::kLpIntBufSize];
  const auto* lo = reinterpret_cast<const char*>(exact.get());
  for (keel::ZiplistReader r(exact.get()); r.next(&e);) {
    if (!e.is_int) FUZZ_CHECK(e.sval.data() >= lo + keel::kZiplistHeaderSize && e.sval.data() + e.sval.size() < lo + blob.size());
    values.emplace_back(e.str(buf));
  }
  const uint16_t header_count = static_cast<uint16_t>(exact[8] | exact[9] << 8);
  FUZZ_CHECK(header_count == keel::kZiplistCountUnknown || header_count == values.size());

  keel::Listpack lp;
  FUZZ_CHECK(keel::ziplist_append_to_listpack(exact.get(), lp));
  FUZZ_CHECK(keel::listpack_validate(lp.data(), lp.bytes(), true));
  FUZZ_CHECK(lp.size() == values.size());
  size_t i = 0;
  for (keel::LpPos p = lp.first(); p != keel::kLpNone; p = lp.next(p), i++) {
    FUZZ_CHECK(lp.get(p).str(buf) == values[i]);
  }
  FUZZ_CHECK(i == values.size());
  return 0;
}
