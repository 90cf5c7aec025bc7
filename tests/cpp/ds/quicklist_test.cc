// Tests for ds/quicklist.h: randomised operations against a std::vector<std::string> model for
// every fill from -5 to -1 and several positive ones, compress depths 0..3 (inner nodes really
// LZF-compressed, contents unchanged), plain nodes for huge elements, and the list type's
// listpack <-> quicklist boundaries (fill -2 with 100-byte elements: to quicklist at the 80th
// element, back at 39; fill 5: at 6, back at 2).
#include "ds/quicklist.h"

#include <gtest/gtest.h>
#include <liblzf/lzf.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace keel {
namespace {

uint32_t test_seed() {
  const uint32_t seed = static_cast<uint32_t>(testing::UnitTest::GetInstance()->random_seed());
  std::printf("[ seed ] %u (rerun with --gtest_random_seed=%u)\n", seed, seed);
  return seed;
}

using Model = std::vector<std::string>;

Model contents(Quicklist& ql) {
  Model out;
  char buf[kLpIntBufSize];
  for (Quicklist::Iterator it = ql.begin(Quicklist::End::kHead); it.valid(); it.next()) {
    out.emplace_back(it.entry().str(buf));
  }
  return out;
}

Model contents_backward(Quicklist& ql) {
  Model out;
  char buf[kLpIntBufSize];
  for (Quicklist::Iterator it = ql.begin(Quicklist::End::kTail); it.valid(); it.next()) {
    out.emplace_back(it.entry().str(buf));
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<Quicklist::NodeView> nodes_of(const Quicklist& ql) {
  std::vector<Quicklist::NodeView> out;
  ql.for_each_node([&](const Quicklist::NodeView& v) { out.push_back(v); });
  return out;
}

bool lzf_would_compress(const uint8_t* p, size_t n) {
  std::vector<uint8_t> out(n);
  const unsigned got =
      lzf_compress(p, static_cast<unsigned>(n), out.data(), static_cast<unsigned>(n));
  return got != 0 && got + kQuicklistMinCompressImprove < n;
}

// Structure checks; `deep` also decompresses and validates every node.
void check_invariants(const Quicklist& ql, bool deep) {
  const std::vector<Quicklist::NodeView> nodes = nodes_of(ql);
  ASSERT_EQ(nodes.size(), ql.node_count());
  const QuicklistLimit lim = quicklist_node_limit(ql.fill());
  const size_t depth = static_cast<size_t>(ql.compress_depth());
  size_t total = 0;
  bool decompressed_one = false;
  for (size_t i = 0; i < nodes.size(); i++) {
    const Quicklist::NodeView& n = nodes[i];
    SCOPED_TRACE("node " + std::to_string(i) + " of " + std::to_string(nodes.size()));
    ASSERT_GT(n.count, 0u);
    total += n.count;
    if (n.plain) {
      ASSERT_EQ(n.count, 1u);
      ASSERT_TRUE(quicklist_is_large_element(n.bytes, ql.fill()));
    } else if (n.count > 1) {
      ASSERT_FALSE(quicklist_exceeds_limit(ql.fill(), n.bytes, n.count)) << n.bytes;
      if (lim.count != SIZE_MAX) {
        ASSERT_LE(n.count, lim.count);
      }
    }
    const bool inner = depth > 0 && i >= depth && i + depth < nodes.size();
    if (!inner) {
      ASSERT_FALSE(n.compressed);
    } else if (!n.compressed) {
      // Left raw only when too small or not compressible enough.
      ASSERT_TRUE(n.bytes < kQuicklistMinCompressBytes || !lzf_would_compress(n.data, n.bytes));
    }
    if (n.compressed) {
      ASSERT_LT(n.stored_bytes + kQuicklistMinCompressImprove, n.bytes);
    }
    if (deep || (n.compressed && !decompressed_one)) {
      decompressed_one = true;  // shallow checks decompress one node, to stay fast
      std::vector<uint8_t> raw(n.bytes);
      const uint8_t* p = n.data;
      if (n.compressed) {
        ASSERT_EQ(lzf_decompress(n.data, static_cast<unsigned>(n.stored_bytes), raw.data(),
                                 static_cast<unsigned>(n.bytes)),
                  n.bytes);
        p = raw.data();
      }
      if (!n.plain) {
        ASSERT_TRUE(listpack_validate(p, n.bytes, true));
        Listpack lp = Listpack::copy_of(p, n.bytes);
        ASSERT_EQ(lp.size(), n.count);
      }
    }
  }
  ASSERT_EQ(total, ql.count());
}

std::string random_value(std::mt19937_64& rng, size_t limit) {
  const unsigned r = static_cast<unsigned>(rng() % 100);
  if (r < 30) return std::to_string(static_cast<int64_t>(rng() % 2000) - 1000);
  if (r < 60) return "v" + std::to_string(rng() % 40);
  if (r < 85) return std::string(rng() % 120, static_cast<char>('a' + rng() % 26));
  if (r < 97) return std::string(200 + rng() % (limit / 4), 'm');
  return std::string(limit + 1 + rng() % 100, 'P');  // a plain node
}

void run_random(int fill, int depth, std::mt19937_64& rng, int ops) {
  SCOPED_TRACE("fill " + std::to_string(fill) + " depth " + std::to_string(depth));
  Quicklist ql(fill, depth);
  Model model;
  const QuicklistLimit lim = quicklist_node_limit(fill);
  const size_t limit = lim.bytes == SIZE_MAX ? kQuicklistSafetyBytes : lim.bytes;
  char buf[kLpIntBufSize];
  for (int op = 0; op < ops; op++) {
    const std::string v = random_value(rng, limit);
    const long n = static_cast<long>(model.size());
    const unsigned kind = static_cast<unsigned>(rng() % 20);
    if (kind < 4) {
      ql.push_tail(v);
      model.push_back(v);
    } else if (kind < 7) {
      ql.push_head(v);
      model.insert(model.begin(), v);
    } else if (kind < 9) {
      std::string out;
      const bool head = rng() % 2;
      ASSERT_EQ(ql.pop(head ? Quicklist::End::kHead : Quicklist::End::kTail, &out), n > 0);
      if (n > 0) {
        ASSERT_EQ(out, head ? model.front() : model.back());
        if (head)
          model.erase(model.begin());
        else
          model.pop_back();
      }
    } else if (kind < 12) {
      if (n == 0) continue;
      const long i = static_cast<long>(rng() % static_cast<uint64_t>(n));
      const bool after = rng() % 2;
      Quicklist::Iterator it = ql.at(rng() % 2 ? i : i - n, rng() % 2);
      ASSERT_TRUE(it.valid());
      ASSERT_EQ(it.entry().str(buf), model[i]);
      ql.insert(it, v, after ? LpWhere::kAfter : LpWhere::kBefore);
      ASSERT_FALSE(it.valid());
      model.insert(model.begin() + i + (after ? 1 : 0), v);
    } else if (kind < 14) {
      if (n == 0) continue;
      const long i = static_cast<long>(rng() % static_cast<uint64_t>(n));
      ASSERT_TRUE(ql.replace_at(rng() % 2 ? i : i - n, v));
      model[i] = v;
    } else if (kind < 15) {
      ASSERT_FALSE(ql.replace_at(n, v));
      ASSERT_FALSE(ql.at(-n - 1).valid());
      if (n == 0) continue;
      const long start = static_cast<long>(rng() % static_cast<uint64_t>(n));
      const size_t cnt = rng() % 3 == 0 ? rng() % 200 : rng() % 5;
      const size_t want = std::min<size_t>(cnt, static_cast<size_t>(n - start));
      ASSERT_EQ(ql.erase_range(rng() % 2 ? start : start - n, cnt), want);
      model.erase(model.begin() + start, model.begin() + start + static_cast<long>(want));
    } else if (kind < 17) {
      // LREM-like: remove up to k elements equal to a target, from either end.
      if (n == 0) continue;
      const std::string target = model[rng() % model.size()];
      const bool forward = rng() % 2;
      size_t k = 1 + rng() % 3;
      const size_t k_initial = k;
      Quicklist::Iterator it = ql.begin(forward ? Quicklist::End::kHead : Quicklist::End::kTail);
      while (it.valid() && k > 0) {
        if (it.entry().equals(target)) {
          it.erase();
          k--;
        } else {
          it.next();
        }
      }
      const size_t removed = model.size() - ql.count();
      ASSERT_EQ(removed,
                std::min<size_t>(k_initial, std::count(model.begin(), model.end(), target)));
      Model next;
      next.reserve(model.size());
      size_t kk = 0;
      if (forward) {
        for (const std::string& s : model) {
          if (kk < removed && s == target)
            kk++;
          else
            next.push_back(s);
        }
      } else {
        for (auto r = model.rbegin(); r != model.rend(); ++r) {
          if (kk < removed && *r == target)
            kk++;
          else
            next.push_back(*r);
        }
        std::reverse(next.begin(), next.end());
      }
      model.swap(next);
    } else {
      // LINDEX / LRANGE from a random point in either direction.
      if (n == 0) continue;
      const long i = static_cast<long>(rng() % static_cast<uint64_t>(n));
      const bool forward = rng() % 2;
      Quicklist::Iterator it = ql.at(i - (rng() % 2 ? n : 0), forward);
      for (long j = i, steps = 0; steps < 30; steps++, j += forward ? 1 : -1) {
        if (j < 0 || j >= n) {
          ASSERT_FALSE(it.valid());
          break;
        }
        ASSERT_TRUE(it.valid());
        ASSERT_EQ(it.entry().str(buf), model[j]);
        it.next();
      }
    }
    ASSERT_EQ(ql.count(), model.size());
    SCOPED_TRACE("op " + std::to_string(op) + " kind " + std::to_string(kind));
    ASSERT_NO_FATAL_FAILURE(check_invariants(ql, op % 25 == 0));
    if (op % 10 == 0) {
      ASSERT_EQ(contents(ql), model);
      ASSERT_EQ(contents_backward(ql), model);
      ASSERT_NO_FATAL_FAILURE(check_invariants(ql, false));  // iteration changed nothing
    }
  }
  ASSERT_EQ(contents(ql), model);
}

TEST(QuicklistTest, RandomOpsAllFillsAndDepths) {
  std::mt19937_64 rng(test_seed());
  for (int fill : {-1, -2, -3, -4, -5, -6, 0, 1, 2, 5, 32, 128}) {
    for (int depth : {0, 1, 2, 3}) {
      run_random(fill, depth, rng, fill <= -4 ? 250 : 400);
      if (testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(QuicklistTest, NodeLimitsForEveryFill) {
  EXPECT_EQ(quicklist_node_limit(-1).bytes, 4096u);
  EXPECT_EQ(quicklist_node_limit(-2).bytes, 8192u);
  EXPECT_EQ(quicklist_node_limit(-3).bytes, 16384u);
  EXPECT_EQ(quicklist_node_limit(-4).bytes, 32768u);
  EXPECT_EQ(quicklist_node_limit(-5).bytes, 65536u);
  EXPECT_EQ(quicklist_node_limit(-6).bytes, 65536u);
  EXPECT_EQ(quicklist_node_limit(INT32_MIN).bytes, 65536u);
  EXPECT_EQ(quicklist_node_limit(0).count, 1u);
  EXPECT_EQ(quicklist_node_limit(7).count, 7u);
  EXPECT_TRUE(quicklist_exceeds_limit(100, 8193, 2));  // count limits are capped at 8 KB too
  EXPECT_FALSE(quicklist_exceeds_limit(100, 8192, 100));
  EXPECT_TRUE(quicklist_exceeds_limit(100, 10, 101));
  EXPECT_TRUE(quicklist_is_large_element(8193, 5));
  EXPECT_FALSE(quicklist_is_large_element(8192, 5));
  EXPECT_TRUE(quicklist_is_large_element(4097, -1));
  EXPECT_FALSE(quicklist_is_large_element(65536, -5));

  // Filling with 50-byte strings: every node but the last is as full as the rule allows.
  const std::string v(50, 'e');
  for (int fill = -5; fill <= -1; fill++) {
    Quicklist ql(fill, 0);
    for (int i = 0; i < 3000; i++) ql.push_tail(v);
    const std::vector<Quicklist::NodeView> nodes = nodes_of(ql);
    const size_t limit = quicklist_node_limit(fill).bytes;
    for (size_t i = 0; i + 1 < nodes.size(); i++) {
      EXPECT_LE(nodes[i].bytes, limit);
      EXPECT_GT(nodes[i].bytes + v.size() + 8, limit) << "fill " << fill << " node " << i;
    }
    check_invariants(ql, true);
  }
  for (int fill : {1, 3, 16, 1000}) {
    Quicklist ql(fill, 0);
    for (int i = 0; i < 400; i++) ql.push_head(v);
    for (const Quicklist::NodeView& n : nodes_of(ql)) {
      EXPECT_LE(n.count, static_cast<size_t>(fill));
      EXPECT_LE(n.bytes, kQuicklistSafetyBytes);
    }
    if (fill <= 16) {
      EXPECT_EQ(ql.node_count(), static_cast<size_t>((400 + fill - 1) / fill));
    }
  }
}

TEST(QuicklistTest, InnerNodesAreCompressed) {
  for (int depth = 0; depth <= 3; depth++) {
    SCOPED_TRACE("depth " + std::to_string(depth));
    Quicklist ql(-1, depth);
    Model model;
    for (int i = 0; i < 2000; i++) {
      std::string v = "value-" + std::to_string(i) + "-" + std::string(40, 'x');
      if (i % 2) {
        ql.push_tail(v);
        model.push_back(v);
      } else {
        ql.push_head(v);
        model.insert(model.begin(), v);
      }
    }
    std::vector<Quicklist::NodeView> nodes = nodes_of(ql);
    ASSERT_GT(nodes.size(), 20u);
    for (size_t i = 0; i < nodes.size(); i++) {
      const bool inner = depth > 0 && i >= static_cast<size_t>(depth) && i + depth < nodes.size();
      EXPECT_EQ(nodes[i].compressed, inner) << i;
      if (inner) {
        EXPECT_LT(nodes[i].stored_bytes * 2, nodes[i].bytes);
      }
    }
    check_invariants(ql, true);
    EXPECT_EQ(contents(ql), model);
    EXPECT_EQ(contents_backward(ql), model);
    {
      // Reading an inner node decompresses it only while the iterator is on it.
      Quicklist::Iterator it = ql.at(1000);
      char buf[kLpIntBufSize];
      EXPECT_EQ(it.entry().str(buf), model[1000]);
      if (depth > 0) {
        size_t raw = 0;
        for (const Quicklist::NodeView& n : nodes_of(ql)) raw += n.compressed ? 0 : 1;
        EXPECT_EQ(raw, 2 * static_cast<size_t>(depth) + 1);
      }
    }
    check_invariants(ql, false);
    // Deleting from the middle, popping down to a few nodes: the invariant holds throughout.
    EXPECT_EQ(ql.erase_range(300, 900), 900u);
    model.erase(model.begin() + 300, model.begin() + 1200);
    check_invariants(ql, true);
    std::string out;
    while (ql.node_count() > 2) {
      ASSERT_TRUE(ql.pop(Quicklist::End::kHead, &out));
      ASSERT_EQ(out, model.front());
      model.erase(model.begin());
      check_invariants(ql, false);
    }
    EXPECT_EQ(contents(ql), model);
    EXPECT_EQ(ql.erase_range(0, 100000), model.size());
    EXPECT_EQ(ql.count(), 0u);
    EXPECT_EQ(ql.node_count(), 0u);
  }
}

TEST(QuicklistTest, PlainNodes) {
  const std::string big(9000, 'B');
  const std::string big2(20000, 'C');
  Quicklist ql(-2, 1);
  ql.push_tail(big);
  EXPECT_EQ(ql.node_count(), 1u);
  EXPECT_TRUE(nodes_of(ql)[0].plain);
  EXPECT_FALSE(ql.can_convert_to_listpack(false));
  for (int i = 0; i < 200; i++) ql.push_tail("small-" + std::to_string(i));
  ql.push_head(big2);
  Model model = {big2, big};
  for (int i = 0; i < 200; i++) model.push_back("small-" + std::to_string(i));
  EXPECT_EQ(contents(ql), model);
  // A huge element into the middle of a packed node splits it around a plain node.
  {
    Quicklist::Iterator it = ql.at(50);
    ql.insert(it, big, LpWhere::kAfter);
    model.insert(model.begin() + 51, big);
  }
  EXPECT_EQ(contents(ql), model);
  std::vector<Quicklist::NodeView> nodes = nodes_of(ql);
  size_t plain = 0;
  for (const auto& n : nodes) plain += n.plain;
  EXPECT_EQ(plain, 3u);
  // packed -> plain and plain -> packed replacements.
  ASSERT_TRUE(ql.replace_at(100, big2));
  model[100] = big2;
  ASSERT_TRUE(ql.replace_at(0, "tiny"));
  model[0] = "tiny";
  ASSERT_TRUE(ql.replace_at(1, big2));  // plain -> plain in place
  model[1] = big2;
  EXPECT_EQ(contents(ql), model);
  EXPECT_EQ(contents_backward(ql), model);
  check_invariants(ql, true);
  std::string out;
  ASSERT_TRUE(ql.pop(Quicklist::End::kHead, &out));
  EXPECT_EQ(out, "tiny");
  ASSERT_TRUE(ql.pop(Quicklist::End::kHead, &out));
  EXPECT_EQ(out, big2);
  // Iterator erase over plain nodes.
  model.erase(model.begin(), model.begin() + 2);
  for (Quicklist::Iterator it = ql.begin(Quicklist::End::kTail); it.valid();) {
    if (it.entry().sval.size() > 8192)
      it.erase();
    else
      it.next();
  }
  std::erase_if(model, [](const std::string& s) { return s.size() > 8192; });
  EXPECT_EQ(contents(ql), model);
  check_invariants(ql, true);
  // Positive fill: plain above 8192 bytes.
  Quicklist q5(5, 0);
  q5.push_tail(std::string(8192, 'k'));
  q5.push_tail(std::string(8193, 'k'));
  nodes = nodes_of(q5);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_FALSE(nodes[0].plain);
  EXPECT_TRUE(nodes[1].plain);
}

// Simulates the list type: a listpack until list_listpack_needs_quicklist says otherwise, then a
// quicklist until can_convert_to_listpack(shrinking) after a removal.
struct ListSim {
  explicit ListSim(int f) : fill(f) {}
  int fill;
  bool is_lp = true;
  Listpack lp;
  Quicklist ql{-2, 0};

  void push(const std::string& v) {
    if (is_lp && list_listpack_needs_quicklist(fill, lp.bytes(), lp.size(), v.size(), 1)) {
      ql = Quicklist::from_listpack(std::move(lp), fill, 0);
      lp = Listpack();
      is_lp = false;
    }
    if (is_lp)
      lp.append(v);
    else
      ql.push_tail(v);
  }
  void pop() {
    if (is_lp) {
      lp.erase(lp.last());
      return;
    }
    ASSERT_TRUE(ql.pop(Quicklist::End::kTail, nullptr));
    if (ql.can_convert_to_listpack(true)) {
      lp = ql.take_listpack();
      is_lp = true;
    }
  }
  size_t size() const { return is_lp ? lp.size() : ql.count(); }
};

TEST(QuicklistTest, ConversionBoundariesFillMinus2) {
  const std::string v(100, 'e');  // 103 bytes per entry in a listpack
  ListSim s(-2);
  int converted_at = 0;
  for (int i = 1; i <= 100; i++) {
    s.push(v);
    if (!s.is_lp && converted_at == 0) converted_at = i;
  }
  EXPECT_EQ(converted_at, 80);  // 79 * 103 + 7 = 8144 <= 8192 < 8144 + 100
  int back_at = 0;
  while (s.size() > 0) {
    s.pop();
    if (s.is_lp) {
      back_at = static_cast<int>(s.size());
      break;
    }
  }
  EXPECT_EQ(back_at, 39);  // 39 * 103 + 7 = 4024 <= 4096 < 4127
  EXPECT_EQ(s.lp.bytes(), 39u * 103 + 7);
  // The listpack that came back is byte-identical to one built directly.
  Listpack fresh;
  for (int i = 0; i < 39; i++) fresh.append(v);
  ASSERT_EQ(fresh.bytes(), s.lp.bytes());
  EXPECT_EQ(std::memcmp(fresh.data(), s.lp.data(), fresh.bytes()), 0);
  EXPECT_TRUE(listpack_validate(s.lp.data(), s.lp.bytes(), true));
}

TEST(QuicklistTest, ConversionBoundariesFill5AndHugeElement) {
  ListSim s(5);
  int converted_at = 0;
  for (int i = 1; i <= 10; i++) {
    s.push("e" + std::to_string(i));
    if (!s.is_lp && converted_at == 0) converted_at = i;
  }
  EXPECT_EQ(converted_at, 6);
  int back_at = -1;
  while (s.size() > 0) {
    s.pop();
    if (s.is_lp) {
      back_at = static_cast<int>(s.size());
      break;
    }
  }
  EXPECT_EQ(back_at, 2);

  // A 9000-byte element converts an empty listpack at once and sits in a plain node.
  ListSim h(-2);
  h.push(std::string(9000, 'x'));
  EXPECT_FALSE(h.is_lp);
  ASSERT_EQ(h.ql.node_count(), 1u);
  EXPECT_TRUE(nodes_of(h.ql)[0].plain);
  EXPECT_FALSE(h.ql.can_convert_to_listpack(true));

  // Non-shrinking check uses the full limit.
  Quicklist q(-2, 0);
  for (int i = 0; i < 60; i++) q.push_tail(std::string(100, 'a'));
  EXPECT_TRUE(q.can_convert_to_listpack(false));
  EXPECT_FALSE(q.can_convert_to_listpack(true));
  Listpack back = q.take_listpack();
  EXPECT_EQ(back.size(), 60u);
  EXPECT_EQ(q.count(), 0u);
  // Empty listpack -> empty quicklist; RDB-style node appends.
  Quicklist e = Quicklist::from_listpack(Listpack(), -2, 0);
  EXPECT_EQ(e.node_count(), 0u);
  e.append_listpack_node(std::move(back));
  e.append_plain_node(std::string(10000, 'p'));
  EXPECT_EQ(e.count(), 61u);
  EXPECT_EQ(e.node_count(), 2u);
  check_invariants(e, true);
}

}  // namespace
}  // namespace keel
