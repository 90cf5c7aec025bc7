// Fuzz target: ds/quicklist.h against a std::deque<std::string> model, with small fill sizes
// (many nodes), compression depths 0..3 and plain nodes for large elements.
//
// Input: byte 0 fill (-5..8), byte 1 compress depth (0..3), then operations, each an op byte
// followed by its operands: push head/tail, pop head/tail, index (LINDEX), insert before/after
// an index (LINSERT), replace (LSET), erase a range (LTRIM), a walk from an index in either
// direction that erases the elements equal to a value (LREM), a range read (LRANGE), the
// listpack round trip of the list type (can_convert_to_listpack / take_listpack /
// from_listpack), RDB-style node appends (append_listpack_node / append_plain_node) and large
// values (plain nodes). Values are short strings or integers (stored as listpack integers).
// After every operation the whole list is compared with the model, forwards and backwards, and
// the nodes are checked: counts add up, no empty node, plain nodes hold one element, listpack
// nodes are deep-valid with the right count (compressed ones after LZF decompression), nodes
// within the compress depth of either end are raw, and a packed node holding 2+ elements is
// within the fill limit (unless it came whole from an RDB-style append).
#include <liblzf/lzf.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "ds/quicklist.h"
#include "fuzz_util.h"

using keel::Quicklist;
using keel::fuzz::Input;
using End = Quicklist::End;

namespace {

using Model = std::deque<std::string>;

std::string value(Input& in) {
  const uint8_t t = in.u8();
  char buf[keel::kInt64BufSize];
  switch (t % 4) {
    case 0:
      return std::string(buf, keel::format_int64(static_cast<int8_t>(in.u8()), buf));
    case 1:
      return std::string(buf, keel::format_int64(static_cast<int64_t>(in.u64()), buf));
    default:
      return std::string(in.bytes(t >> 3));  // 0..31 bytes
  }
}

std::string large_value(Input& in) {
  const size_t n = 8000 + in.u16() % 12000;  // around the 8 KB plain-node threshold
  return std::string(n, static_cast<char>(in.u8()));
}

long index_in(Input& in, size_t n) {
  // -n-1 .. n: includes one out-of-range index on each side.
  const long span = 2 * static_cast<long>(n) + 2;
  return static_cast<long>(in.u16() % span) - static_cast<long>(n) - 1;
}

size_t absolute(long i, size_t n) { return static_cast<size_t>(i < 0 ? i + static_cast<long>(n) : i); }
bool in_range(long i, size_t n) { return i >= -static_cast<long>(n) && i < static_cast<long>(n); }

std::string text(const keel::LpEntry& e) {
  char buf[keel::kLpIntBufSize];
  return std::string(e.str(buf));
}

void check(Quicklist& ql, const Model& model, bool rdb_nodes) {
  FUZZ_CHECK(ql.count() == model.size());
  size_t i = 0;
  for (Quicklist::Iterator it = ql.begin(End::kHead); it.valid(); it.next(), i++) {
    FUZZ_CHECK(i < model.size() && text(it.entry()) == model[i]);
  }
  FUZZ_CHECK(i == model.size());
  for (Quicklist::Iterator it = ql.begin(End::kTail); it.valid(); it.next()) {
    FUZZ_CHECK(i > 0 && text(it.entry()) == model[i - 1]);
    i--;
  }
  FUZZ_CHECK(i == 0);

  std::vector<Quicklist::NodeView> nodes;
  ql.for_each_node([&](const Quicklist::NodeView& v) { nodes.push_back(v); });
  FUZZ_CHECK(nodes.size() == ql.node_count());
  size_t total = 0;
  const size_t depth = static_cast<size_t>(ql.compress_depth());
  for (size_t k = 0; k < nodes.size(); k++) {
    const Quicklist::NodeView& v = nodes[k];
    FUZZ_CHECK(v.count > 0);
    total += v.count;
    if (depth > 0 && (k < depth || nodes.size() - 1 - k < depth)) FUZZ_CHECK(!v.compressed);
    if (depth == 0) FUZZ_CHECK(!v.compressed);
    if (v.plain) {
      FUZZ_CHECK(v.count == 1);
      FUZZ_CHECK(v.compressed || v.stored_bytes == v.bytes);
      continue;
    }
    const uint8_t* lp = v.data;
    std::unique_ptr<uint8_t[]> raw;
    if (v.compressed) {
      FUZZ_CHECK(v.stored_bytes + keel::kQuicklistMinCompressImprove < v.bytes);
      raw.reset(new uint8_t[v.bytes]);
      FUZZ_CHECK(lzf_decompress(v.data, static_cast<unsigned>(v.stored_bytes), raw.get(),
                                static_cast<unsigned>(v.bytes)) == v.bytes);
      lp = raw.get();
    }
    FUZZ_CHECK(keel::listpack_validate(lp, v.bytes, true));
    keel::ListpackView view(lp);
    FUZZ_CHECK(view->size() == v.count);
    if (!rdb_nodes && v.count >= 2) FUZZ_CHECK(!keel::quicklist_exceeds_limit(ql.fill(), v.bytes, v.count));
  }
  FUZZ_CHECK(total == model.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  const int fill = static_cast<int>(in.u8() % 14) - 5;
  const int depth = in.u8() % 4;
  Quicklist ql(fill, depth);
  Model model;
  bool rdb_nodes = false;
  for (int ops = 0; ops < 200 && !in.empty(); ops++) {
    const uint8_t op = in.u8();
    const size_t n = model.size();
    switch (op % 14) {
      case 0:
      case 1: {
        const std::string v = value(in);
        const End end = op % 14 == 0 ? End::kHead : End::kTail;
        ql.push(end, v);
        end == End::kHead ? model.push_front(v) : model.push_back(v);
        break;
      }
      case 2:
      case 3: {
        std::string got;
        const End end = op % 14 == 2 ? End::kHead : End::kTail;
        FUZZ_CHECK(ql.pop(end, &got) == (n > 0));
        if (n > 0) {
          FUZZ_CHECK(got == (end == End::kHead ? model.front() : model.back()));
          end == End::kHead ? model.pop_front() : model.pop_back();
        }
        break;
      }
      case 4: {  // LINDEX
        const long i = index_in(in, n);
        Quicklist::Iterator it = ql.at(i);
        FUZZ_CHECK(it.valid() == in_range(i, n));
        if (it.valid()) FUZZ_CHECK(text(it.entry()) == model[absolute(i, n)]);
        break;
      }
      case 5: {  // LINSERT
        const long i = index_in(in, n);
        const bool after = op & 0x80;
        const std::string v = (op & 0x40) ? large_value(in) : value(in);
        Quicklist::Iterator it = ql.at(i);
        if (!it.valid()) {
          FUZZ_CHECK(!in_range(i, n));
          break;
        }
        ql.insert(it, v, after ? keel::LpWhere::kAfter : keel::LpWhere::kBefore);
        model.insert(model.begin() + static_cast<long>(absolute(i, n) + (after ? 1 : 0)), v);
        break;
      }
      case 6: {  // LSET
        const long i = index_in(in, n);
        const std::string v = (op & 0x40) ? large_value(in) : value(in);
        FUZZ_CHECK(ql.replace_at(i, v) == in_range(i, n));
        if (in_range(i, n)) model[absolute(i, n)] = v;
        break;
      }
      case 7: {  // LTRIM-style range delete
        const long start = index_in(in, n);
        const size_t count = in.u8();
        const size_t got = ql.erase_range(start, count);
        size_t want = 0;
        if (in_range(start, n) && count > 0) {
          const size_t s = absolute(start, n);
          want = std::min(count, n - s);
          model.erase(model.begin() + static_cast<long>(s), model.begin() + static_cast<long>(s + want));
        }
        FUZZ_CHECK(got == want);
        break;
      }
      case 8: {  // LREM: from an index, one way, erase up to `limit` elements equal to v
        const long i = index_in(in, n);
        const bool forward = op & 0x80;
        const size_t limit = in.u8() % 8;
        // Compare against an element that exists most of the time.
        std::string v = n > 0 && (op & 0x40) ? model[in.u16() % n] : value(in);
        Quicklist::Iterator it = ql.at(i, forward);
        if (!it.valid()) break;
        long k = static_cast<long>(absolute(i, n));
        size_t removed = 0;
        while (it.valid() && removed < limit) {
          FUZZ_CHECK(k >= 0 && static_cast<size_t>(k) < model.size() && text(it.entry()) == model[static_cast<size_t>(k)]);
          if (model[static_cast<size_t>(k)] == v) {
            it.erase();
            model.erase(model.begin() + k);
            removed++;
            if (!forward) k--;
          } else {
            it.next();
            k += forward ? 1 : -1;
          }
        }
        break;
      }
      case 9: {  // LRANGE-style read
        const long i = index_in(in, n);
        const bool forward = op & 0x80;
        size_t steps = in.u8();
        Quicklist::Iterator it = ql.at(i, forward);
        FUZZ_CHECK(it.valid() == in_range(i, n));
        long k = static_cast<long>(absolute(i, n));
        for (; it.valid() && steps > 0; it.next(), steps--) {
          FUZZ_CHECK(text(it.entry()) == model[static_cast<size_t>(k)]);
          k += forward ? 1 : -1;
        }
        break;
      }
      case 10: {  // the list type's conversions: to a listpack and back
        const bool shrinking = op & 0x80;
        if (n > 0 && !ql.can_convert_to_listpack(shrinking)) break;
        keel::Listpack lp = ql.take_listpack();
        FUZZ_CHECK(ql.count() == 0 && lp.size() == n);
        ql = Quicklist::from_listpack(std::move(lp), fill, depth);
        break;
      }
      case 11: {  // RDB load: a whole listpack node
        keel::Listpack lp;
        const size_t k = in.u8() % 16;
        for (size_t j = 0; j < k; j++) {
          const std::string v = value(in);
          lp.append(v);
          model.push_back(v);
        }
        ql.append_listpack_node(std::move(lp));
        rdb_nodes = true;
        break;
      }
      case 12: {  // RDB load: a plain node
        const std::string v = (op & 0x40) ? large_value(in) : value(in);
        ql.append_plain_node(v);
        model.push_back(v);
        rdb_nodes = true;
        break;
      }
      default: {  // a large element at either end
        const std::string v = large_value(in);
        const End end = (op & 0x80) ? End::kHead : End::kTail;
        ql.push(end, v);
        end == End::kHead ? model.push_front(v) : model.push_back(v);
        break;
      }
    }
    check(ql, model, rdb_nodes);
  }
  return 0;
}
