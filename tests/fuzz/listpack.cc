// Fuzz target: listpack_validate (ds/listpack.h) on untrusted blobs, as RESTORE and RDB load will
// hand them over, and everything a validated blob is then used for.
//
// Input: byte 0 picks how the blob is made:
//   0: the rest of the input as it is;
//   1: the rest with its header fixed up (total-bytes = length, last byte 0xFF), so that the
//      deep walk over the entries is what decides;
//   2: a well-formed listpack built with append() from values in the input (byte length, bytes;
//      a length byte >= 200 means a long run of one byte, to reach the 12- and 32-bit string
//      encodings and 2- and 3-byte backlens), the count field optionally 65535, then one byte
//      XORed with a mask (position and mask from the input).
// Checked, when the blob passes the deep check:
//   - shallow validation passes too; walking forward (first/next) and backward (last/prev) gives
//     the same entries; size() is the number walked (also when the header said 65535);
//     seek(i) and find() agree with the walk; every entry's bytes lie inside the blob;
//   - the values re-encoded with append_all() give a valid listpack with the same values;
//   - the blob adopted as a Listpack survives mutations (append, prepend, insert, replace,
//     erase, erase_range) against a std::vector model, and stays deep-valid.
// A blob that fails the deep check must also never crash validation (ASan/UBSan watch it;
// validation reads an exact-size heap copy).
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ds/listpack.h"
#include "fuzz_util.h"

using keel::Listpack;
using keel::LpEntry;
using keel::LpPos;
using keel::fuzz::Input;
using keel::fuzz::exact_copy;

namespace {

std::string text_of(const LpEntry& e) {
  char buf[keel::kLpIntBufSize];
  return std::string(e.str(buf));
}

void put_u32(std::string& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; i++) b[at + i] = static_cast<char>(v >> (8 * i));
}

std::string make_blob(Input& in) {
  const uint8_t mode = in.u8() % 3;
  if (mode == 0) return std::string(in.rest());
  if (mode == 1) {
    std::string b(in.rest());
    if (b.size() < keel::kLpEmptyBytes) return b;
    put_u32(b, 0, static_cast<uint32_t>(b.size()));
    b.back() = static_cast<char>(keel::kLpEof);
    return b;
  }
  Listpack lp;
  const size_t n = in.u8() % 64;
  // At most ~40 KB in all: big enough for every encoding and for 3-byte backlens (an entry of
  // 16383 bytes or more), small enough to keep executions fast.
  for (size_t i = 0; i < n && !in.empty() && lp.bytes() < 40000; i++) {
    const uint8_t len = in.u8();
    if (len >= 200) {
      const size_t run = len == 255 ? 17000 : static_cast<size_t>(len - 199) * 97;
      lp.append(std::string(run, static_cast<char>(in.u8())));
    } else {
      lp.append(in.bytes(len));
    }
  }
  std::string b(reinterpret_cast<const char*>(lp.data()), lp.bytes());
  if (in.flag()) b[4] = b[5] = static_cast<char>(0xFF);
  const size_t at = in.u32() % b.size();
  b[at] = static_cast<char>(b[at] ^ in.u8());
  return b;
}

// Heap block of exactly the blob's size, from malloc (Listpack::adopt frees with free()).
uint8_t* malloc_copy(const std::string& b) {
  auto* p = static_cast<uint8_t*>(std::malloc(b.size() ? b.size() : 1));
  FUZZ_CHECK(p != nullptr);
  if (!b.empty()) std::memcpy(p, b.data(), b.size());
  return p;
}

std::vector<std::string> walk(const Listpack& lp, size_t blob_len) {
  std::vector<std::string> out;
  for (LpPos p = lp.first(); p != keel::kLpNone; p = lp.next(p)) {
    FUZZ_CHECK(p >= keel::kLpHeaderSize && p + lp.entry_bytes(p) < blob_len);
    const LpEntry e = lp.get(p);
    if (!e.is_int) {
      const auto* base = reinterpret_cast<const char*>(lp.data());
      FUZZ_CHECK(e.sval.data() >= base + p && e.sval.data() + e.sval.size() <= base + p + lp.entry_bytes(p));
    }
    out.push_back(text_of(e));
  }
  return out;
}

void check_contents(const Listpack& lp, const std::vector<std::string>& model) {
  FUZZ_CHECK(keel::listpack_validate(lp.data(), lp.bytes(), true));
  FUZZ_CHECK(walk(lp, lp.bytes()) == model);
  FUZZ_CHECK(lp.size() == model.size());
  std::vector<std::string> back;
  for (LpPos p = lp.last(); p != keel::kLpNone; p = lp.prev(p)) back.push_back(text_of(lp.get(p)));
  FUZZ_CHECK(back.size() == model.size());
  for (size_t i = 0; i < model.size(); i++) FUZZ_CHECK(back[model.size() - 1 - i] == model[i]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  const std::string blob = make_blob(in);
  // Validation reads only an exact-size copy: one byte too far is an ASan report.
  {
    const std::unique_ptr<uint8_t[]> exact = exact_copy(blob);
    const bool shallow = keel::listpack_validate(exact.get(), blob.size(), false);
    const bool deep = keel::listpack_validate(exact.get(), blob.size(), true);
    FUZZ_CHECK(!deep || shallow);
    if (!deep) return 0;
  }

  Listpack lp = Listpack::adopt(malloc_copy(blob));
  const std::vector<std::string> values = walk(lp, blob.size());
  FUZZ_CHECK(lp.size() == values.size());  // may store a counted 65535 back into the header
  check_contents(lp, values);
  const long n = static_cast<long>(values.size());
  for (int probe = 0; probe < 4 && n > 0; probe++) {
    const long i = static_cast<long>(in.u16() % (2 * n)) - n;  // -n .. n-1
    const LpPos p = lp.seek(i);
    FUZZ_CHECK(p != keel::kLpNone);
    FUZZ_CHECK(text_of(lp.get(p)) == values[static_cast<size_t>(i < 0 ? i + n : i)]);
    // find() returns the first equal entry at or after first().
    const std::string& v = values[static_cast<size_t>(i < 0 ? i + n : i)];
    const LpPos f = lp.find(v, lp.first());
    FUZZ_CHECK(f != keel::kLpNone && lp.get(f).equals(v));
  }
  FUZZ_CHECK(lp.seek(n) == keel::kLpNone && lp.seek(-n - 1) == keel::kLpNone);

  // Re-encoded from the values: the same values (integers keep their text form).
  {
    std::vector<std::string_view> views(values.begin(), values.end());
    Listpack copy;
    copy.append_all(views);
    check_contents(copy, values);
  }

  // Mutations on the adopted blob.
  std::vector<std::string> model = values;
  for (int op = 0; op < 8 && !in.empty(); op++) {
    const uint8_t kind = in.u8() % 7;
    const std::string v(in.short_string());
    const size_t m = model.size();
    switch (kind) {
      case 0:
        lp.append(v);
        model.push_back(v);
        break;
      case 1:
        lp.prepend(v);
        model.insert(model.begin(), v);
        break;
      case 2:
        if (m == 0) break;
        {
          const size_t i = in.u16() % m;
          const bool after = in.flag();
          lp.insert(lp.seek(static_cast<long>(i)), v, after ? keel::LpWhere::kAfter : keel::LpWhere::kBefore);
          model.insert(model.begin() + static_cast<long>(i + (after ? 1 : 0)), v);
        }
        break;
      case 3:
        if (m == 0) break;
        {
          const size_t i = in.u16() % m;
          lp.replace(lp.seek(static_cast<long>(i)), v);
          model[i] = v;
        }
        break;
      case 4:
        if (m == 0) break;
        {
          const size_t i = in.u16() % m;
          lp.erase(lp.seek(static_cast<long>(i)));
          model.erase(model.begin() + static_cast<long>(i));
        }
        break;
      case 5: {
        const long start = static_cast<long>(in.u16() % (2 * m + 1)) - static_cast<long>(m);
        const size_t count = in.u8();
        const size_t got = lp.erase_range(start, count);
        const long s = start < 0 ? start + static_cast<long>(m) : start;
        size_t want = 0;
        if (s >= 0 && static_cast<size_t>(s) < m) {
          want = std::min(count, m - static_cast<size_t>(s));
          model.erase(model.begin() + s, model.begin() + s + static_cast<long>(want));
        }
        FUZZ_CHECK(got == want);
        break;
      }
      case 6:
        lp.append_int(static_cast<int64_t>(in.u64()));
        {
          char buf[keel::kInt64BufSize];
          const LpEntry e = lp.get(lp.last());
          FUZZ_CHECK(e.is_int);
          model.emplace_back(buf, keel::format_int64(e.ival, buf));
        }
        break;
    }
    // Integer-looking strings come back in canonical form only if they were canonical, which
    // append() guarantees by storing exactly the canonical ones as integers.
    check_contents(lp, model);
  }
  return 0;
}
