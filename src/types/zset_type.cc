// Sorted-set encodings and conversions (see zset_type.h for the layouts). Every operation is
// written once per encoding here; the commands only see ZsetType.
//
// Listpack pairs are kept ordered by (score, member), so every range operation is a linear walk
// over at most zset-max-listpack-entries pairs. The skiplist encoding answers ranks and ranges
// from the skiplist and member lookups from the table, whose entries are the nodes.
#include "types/zset_type.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "base/assert.h"
#include "base/hash.h"
#include "base/memory.h"
#include "base/numbers.h"
#include "base/util_random.h"
#include "ds/listpack.h"
#include "types/object_listpack.h"

namespace keel {
namespace {

struct NodeTraits {
  using Entry = SkiplistNode*;
  static std::string_view key(const SkiplistNode* n) { return n->member(); }
};
using ZsetTable = HashTable<NodeTraits>;

// The skiplist encoding's value: order and ranks from the list, member lookups from the table.
struct ZsetBig {
  Skiplist sl;
  ZsetTable table;
};

ZsetBig* big_of(const Object& o) { return static_cast<ZsetBig*>(o.ptr()); }
bool is_lp(const Object& o) { return o.encoding() == Encoding::kListpack; }

double entry_score(const LpEntry& e) {
  if (e.is_int) return static_cast<double>(e.ival);
  double d = 0;
  if (parse_double(e.sval, &d)) return d;
  // Text written by an older server (RDB): let strtod have the last word.
  char buf[128];
  const size_t n = std::min(e.sval.size(), sizeof(buf) - 1);
  std::memcpy(buf, e.sval.data(), n);
  buf[n] = 0;
  return std::strtod(buf, nullptr);
}

double lp_score_at(const Listpack& lp, LpPos pos) { return entry_score(lp.get(pos)); }

// A pair read from a listpack: the member text (integers formatted into buf) and the score.
struct LpPair {
  char buf[kLpIntBufSize];
  std::string_view member;
  double score;
  LpPos spos;
  void read(const Listpack& lp, LpPos mpos) {
    member = lp.get(mpos).str(buf);
    spos = lp.next(mpos);
    score = lp_score_at(lp, spos);
  }
};

// The score's listpack text (integers become integer entries when appended/inserted). -0 is
// stored as the integer 0, as Redis's zzlInsertAt does (its double2ll accepts -0.0): ZSCORE of a
// listpack member added with -0 answers 0, while a skiplist keeps the sign.
std::string_view score_text(double score, char* buf) {
  if (score == 0) score = 0.0;
  return {buf, format_double_shortest(score, buf)};
}

// (score, member) order.
int cmp_pair(double s1, std::string_view m1, double s2, std::string_view m2) {
  if (s1 < s2) return -1;
  if (s1 > s2) return 1;
  return compare_members(m1, m2);
}

// Inserts (member, score) at its ordered position. The member must not be present.
void lp_insert(Listpack& lp, double score, std::string_view member) {
  char sbuf[kDoubleBufSize];
  const std::string_view stext = score_text(score, sbuf);
  LpPair p;
  for (LpPos m = lp.first(); m != kLpNone; m = lp.next(p.spos)) {
    p.read(lp, m);
    if (cmp_pair(p.score, p.member, score, member) > 0) {
      const LpPos np = lp.insert(m, member, LpWhere::kBefore);
      lp.insert(np, stext, LpWhere::kAfter);
      return;
    }
  }
  lp.append(member);
  lp.append(stext);
}

LpPos lp_find(const Listpack& lp, std::string_view member) {
  const LpPos first = lp.first();
  if (first == kLpNone) return kLpNone;
  return lp.find(member, first, 1);
}

size_t lp_pairs(const Listpack& lp) { return lp.size() / 2; }

// ---- skiplist encoding helpers ----------------------------------------------------------------

SkiplistNode* big_find(const ZsetBig* z, std::string_view member) {
  return z->table.find(member, hash_key(member));
}

void big_insert_new(ZsetBig* z, double score, std::string_view member) {
  ZsetTable::Position pos = z->table.find_position(member, hash_key(member));
  KEEL_DCHECK(!pos.found());
  z->table.insert(pos, z->sl.insert(score, member));
}

void big_unlink_from_table(ZsetBig* z, SkiplistNode* n) {
  const std::string_view m = n->member();
  z->table.erase(m, hash_key(m));
}

ZsetBig* big_from_listpack(const Listpack& lp, size_t size_hint) {
  auto* z = new ZsetBig();
  z->table.reserve(std::max(size_hint, lp_pairs(lp)));
  LpPair p;
  for (LpPos m = lp.first(); m != kLpNone; m = lp.next(p.spos)) {
    p.read(lp, m);
    big_insert_new(z, p.score, p.member);
  }
  return z;
}

void free_big(ZsetBig* z) { delete z; }  // the skiplist frees the nodes; the table its buckets

void to_skiplist(Object& o, size_t size_hint) {
  if (!is_lp(o)) return;
  ZsetBig* z;
  {
    LpView lp(o);
    z = big_from_listpack(*lp, size_hint);
  }
  std::free(o.ptr());
  o.set_ptr(z);
  o.set_encoding(Encoding::kSkiplist);
}

const CollectionOps kZsetOps = {
    .free_value =
        [](Encoding e, void* p) {
          if (e == Encoding::kListpack) {
            std::free(p);
          } else {
            free_big(static_cast<ZsetBig*>(p));
          }
        },
    .copy_value = [](Encoding e, const void* p) -> void* {
      if (e == Encoding::kListpack) return LpView(p)->clone().release();
      const auto* src = static_cast<const ZsetBig*>(p);
      auto* z = new ZsetBig();
      z->table.reserve(src->sl.size());
      for (SkiplistNode* n = src->sl.first(); n != nullptr; n = n->next()) {
        big_insert_new(z, n->score(), n->member());
      }
      return z;
    },
    .length = [](Encoding e, const void* p) -> int64_t {
      if (e == Encoding::kListpack) return static_cast<int64_t>(lp_pairs(*LpView(p)));
      return static_cast<int64_t>(static_cast<const ZsetBig*>(p)->sl.size());
    },
    // listpack: the blob; skiplist: the pair of structures, the table's buckets, the skiplist
    // header and the nodes (a node holds its member: one allocation per member, sampled in
    // score order as Redis does).
    .memory_usage = [](Encoding e, const void* p, size_t samples) -> size_t {
      if (e == Encoding::kListpack) return allocation_size(p);
      const auto* z = static_cast<const ZsetBig*>(p);
      size_t n = allocation_size(z) + z->table.memory_usage() + z->sl.header_bytes();
      const size_t size = z->sl.size();
      if (samples == 0 || samples > size) samples = size;
      size_t seen = 0, bytes = 0;
      for (const SkiplistNode* x = z->sl.first(); x != nullptr && seen < samples; x = x->next()) {
        bytes += allocation_size(x);
        seen++;
      }
      if (seen > 0) n += static_cast<size_t>(double(bytes) / double(seen) * double(size));
      return n;
    },
};

struct RegisterZsetOps {
  RegisterZsetOps() { register_collection_ops(Type::kZset, &kZsetOps); }
} g_register_zset_ops;

bool fits_listpack(size_t count, size_t max_len) {
  const EncodingLimits& lim = encoding_limits();
  return static_cast<int64_t>(count) <= lim.zset_max_listpack_entries &&
         static_cast<int64_t>(max_len) <= lim.zset_max_listpack_value;
}

}  // namespace

// ---- ZsetType ---------------------------------------------------------------------------------

Object* ZsetType::create(std::string_view key, size_t size_hint, size_t max_len) {
  if (fits_listpack(size_hint, max_len)) {
    return Object::create_collection(key, Type::kZset, Encoding::kListpack, Listpack().release());
  }
  auto* z = new ZsetBig();
  z->table.reserve(size_hint);
  return Object::create_collection(key, Type::kZset, Encoding::kSkiplist, z);
}

void ZsetType::maybe_convert(Object& o, size_t size_hint) {
  if (is_lp(o) && !fits_listpack(size_hint, 0)) to_skiplist(o, size_hint);
}

void ZsetType::convert_to_skiplist(Object& o) {
  if (is_lp(o)) to_skiplist(o, size(o));
}

size_t ZsetType::size(const Object& o) {
  if (is_lp(o)) return lp_pairs(*LpView(o));
  return big_of(o)->sl.size();
}

void ZsetType::prefetch_member(const Object& o, uint64_t member_hash, int stage) {
  if (!is_lp(o)) big_of(o)->table.prefetch_step(member_hash, stage);
}

size_t ZsetType::start_descents(const Object& o, std::string_view member, uint64_t member_hash,
                               const double* new_score, bool increment,
                               Skiplist::Descent* out, size_t cap) {
  if (is_lp(o)) return 0;
  const ZsetBig* z = big_of(o);
  const SkiplistNode* node = z->table.find(member, member_hash);
  size_t n = 0;
  if (node != nullptr && n < cap) {
    out[n++] = z->sl.start_descent(node->score(), node->member());
  }
  if (new_score != nullptr && n < cap) {
    double s = *new_score;
    if (increment && node != nullptr) s += node->score();
    if (!std::isnan(s)) out[n++] = z->sl.start_descent(s, member);
  }
  return n;
}

bool ZsetType::score(const Object& o, std::string_view member, double* out) {
  if (is_lp(o)) {
    LpView lp(o);
    const LpPos m = lp_find(*lp, member);
    if (m == kLpNone) return false;
    *out = lp_score_at(*lp, lp->next(m));
    return true;
  }
  const SkiplistNode* n = big_find(big_of(o), member);
  if (n == nullptr) return false;
  *out = n->score();
  return true;
}

bool ZsetType::rank(const Object& o, std::string_view member, bool rev, size_t* rank,
                    double* score) {
  size_t r = 0;  // 0-based ascending rank
  size_t n = 0;
  if (is_lp(o)) {
    LpView lp(o);
    n = lp_pairs(*lp);
    bool found = false;
    for (LpPos m = lp->first(); m != kLpNone; m = lp->next(lp->next(m)), ++r) {
      if (lp->get(m).equals(member)) {
        *score = lp_score_at(*lp, lp->next(m));
        found = true;
        break;
      }
    }
    if (!found) return false;
  } else {
    const ZsetBig* z = big_of(o);
    const SkiplistNode* node = big_find(z, member);
    if (node == nullptr) return false;
    n = z->sl.size();
    r = z->sl.rank(node) - 1;
    *score = node->score();
  }
  *rank = rev ? n - 1 - r : r;
  return true;
}

ZsetType::AddResult ZsetType::add(Object& o, double score, std::string_view member, int flags,
                                  double* new_score) {
  const bool incr = flags & kIncr, nx = flags & kNx, xx = flags & kXx, gt = flags & kGt,
             lt = flags & kLt;
  if (is_lp(o)) {
    LpEdit lp(o);
    const LpPos m = lp_find(*lp, member);
    if (m != kLpNone) {
      if (nx) return AddResult::kNop;
      const LpPos sp = lp->next(m);
      const double cur = lp_score_at(*lp, sp);
      if (incr) {
        score += cur;
        if (std::isnan(score)) return AddResult::kNaN;
      }
      if ((lt && score >= cur) || (gt && score <= cur)) return AddResult::kNop;
      *new_score = score;
      if (score == cur) return AddResult::kSame;
      // Re-insert at the new position (delete the pair, insert in order).
      lp->erase_at(m, 2);
      lp_insert(*lp, score, member);
      return AddResult::kUpdated;
    }
    if (xx) return AddResult::kNop;
    const EncodingLimits& lim = encoding_limits();
    if (static_cast<int64_t>(lp_pairs(*lp)) + 1 <= lim.zset_max_listpack_entries &&
        static_cast<int64_t>(member.size()) <= lim.zset_max_listpack_value &&
        lp->bytes() + member.size() + 64 < kLpSafeBytes) {
      lp_insert(*lp, score, member);
      *new_score = score;
      return AddResult::kAdded;
    }
  }
  if (is_lp(o)) to_skiplist(o, 0);  // LpEdit above has put the blob back
  ZsetBig* z = big_of(o);
  ZsetTable::Position pos = z->table.find_position(member, hash_key(member));
  if (pos.found()) {
    if (nx) return AddResult::kNop;
    SkiplistNode* node = pos.entry();
    const double cur = node->score();
    if (incr) {
      score += cur;
      if (std::isnan(score)) return AddResult::kNaN;
    }
    if ((lt && score >= cur) || (gt && score <= cur)) return AddResult::kNop;
    *new_score = score;
    if (score == cur) return AddResult::kSame;
    z->sl.update_score(node, score);  // same node address: the table entry stays valid
    return AddResult::kUpdated;
  }
  if (xx) return AddResult::kNop;
  z->table.insert(pos, z->sl.insert(score, member));
  *new_score = score;
  return AddResult::kAdded;
}

bool ZsetType::remove(Object& o, std::string_view member) {
  if (is_lp(o)) {
    LpEdit lp(o);
    const LpPos m = lp_find(*lp, member);
    if (m == kLpNone) return false;
    lp->erase_at(m, 2);
    return true;
  }
  ZsetBig* z = big_of(o);
  ZsetTable::Position pos = z->table.find_position(member, hash_key(member));
  if (!pos.found()) return false;
  SkiplistNode* node = pos.entry();
  z->table.erase(pos);
  z->sl.erase(node);
  return true;
}

void ZsetType::after_removals(Object& o) {
  if (!is_lp(o)) big_of(o)->table.shrink_if_needed();
}

void ZsetType::range_by_rank(const Object& o, size_t start, size_t end, bool rev, ZEmit emit,
                             void* ctx) {
  size_t n = end - start + 1;
  if (is_lp(o)) {
    LpView lp(o);
    LpPair p;
    if (!rev) {
      for (LpPos m = lp->seek(static_cast<long>(2 * start)); m != kLpNone && n > 0; --n) {
        p.read(*lp, m);
        emit(ctx, p.member, p.score);
        m = lp->next(p.spos);
      }
    } else {
      for (LpPos m = lp->seek(-2 - 2 * static_cast<long>(start)); m != kLpNone && n > 0; --n) {
        p.read(*lp, m);
        emit(ctx, p.member, p.score);
        const LpPos s = lp->prev(m);
        m = s == kLpNone ? kLpNone : lp->prev(s);
      }
    }
    return;
  }
  const ZsetBig* z = big_of(o);
  const size_t len = z->sl.size();
  SkiplistNode* x = z->sl.node_by_rank(rev ? len - start : start + 1);
  for (; x != nullptr && n > 0; --n) {
    emit(ctx, x->member(), x->score());
    x = rev ? x->prev() : x->next();
  }
}

namespace {

// The walk shared by ZRANGEBYSCORE and ZRANGEBYLEX: `key(member, score)` picks what the range
// compares (score or member); `first`/`last` find the range's ends in the skiplist.
template <class Range, class KeyOf, class First, class Last>
size_t range_walk(const Object& o, const Range& r, bool rev, size_t offset, int64_t limit,
                  ZEmit emit, void* ctx, KeyOf key, First first, Last last) {
  size_t emitted = 0;
  if (r.empty()) return 0;
  auto room = [&] { return limit < 0 || emitted < static_cast<size_t>(limit); };
  if (is_lp(o)) {
    LpView lp(o);
    LpPair p;
    auto visit = [&](bool in_front, bool past_end) {  // false = stop the walk
      if (in_front) return true;
      if (past_end) return false;
      if (offset > 0) {
        --offset;
        return true;
      }
      if (!room()) return false;
      emit(ctx, p.member, p.score);
      ++emitted;
      return true;
    };
    if (!rev) {
      for (LpPos m = lp->first(); m != kLpNone; m = lp->next(p.spos)) {
        p.read(*lp, m);
        if (!visit(!r.gte_min(key(p.member, p.score)), !r.lte_max(key(p.member, p.score)))) break;
      }
    } else {
      for (LpPos s = lp->last(); s != kLpNone;) {
        const LpPos m = lp->prev(s);
        p.read(*lp, m);
        s = lp->prev(m);
        if (!visit(!r.lte_max(key(p.member, p.score)), !r.gte_min(key(p.member, p.score)))) break;
      }
    }
    return emitted;
  }
  const ZsetBig* z = big_of(o);
  size_t rank = 0;
  SkiplistNode* x;
  if (!rev) {
    x = first(z->sl, r, &rank);
    if (x != nullptr && offset > 0) x = z->sl.node_by_rank(rank + offset);
  } else {
    x = last(z->sl, r, &rank);
    if (x != nullptr && offset > 0) x = rank > offset ? z->sl.node_by_rank(rank - offset) : nullptr;
  }
  while (x != nullptr && room()) {
    if (rev ? !r.gte_min(key(x->member(), x->score())) : !r.lte_max(key(x->member(), x->score())))
      break;
    emit(ctx, x->member(), x->score());
    ++emitted;
    x = rev ? x->prev() : x->next();
  }
  return emitted;
}

}  // namespace

size_t ZsetType::range_by_score(const Object& o, const ZsetRange& r, bool rev, size_t offset,
                                int64_t limit, ZEmit emit, void* ctx) {
  return range_walk(
      o, r, rev, offset, limit, emit, ctx, [](std::string_view, double s) { return s; },
      [](const Skiplist& sl, const ZsetRange& rr, size_t* rank) { return sl.first_in_range(rr, rank); },
      [](const Skiplist& sl, const ZsetRange& rr, size_t* rank) { return sl.last_in_range(rr, rank); });
}

size_t ZsetType::range_by_lex(const Object& o, const ZsetLexRange& r, bool rev, size_t offset,
                              int64_t limit, ZEmit emit, void* ctx) {
  return range_walk(
      o, r, rev, offset, limit, emit, ctx, [](std::string_view m, double) { return m; },
      [](const Skiplist& sl, const ZsetLexRange& rr, size_t* rank) {
        return sl.first_in_lex_range(rr, rank);
      },
      [](const Skiplist& sl, const ZsetLexRange& rr, size_t* rank) {
        return sl.last_in_lex_range(rr, rank);
      });
}

size_t ZsetType::count_in_range(const Object& o, const ZsetRange& r) {
  if (r.empty()) return 0;
  if (is_lp(o)) {
    return range_by_score(o, r, false, 0, -1, [](void*, std::string_view, double) {}, nullptr);
  }
  const ZsetBig* z = big_of(o);
  size_t r1 = 0, r2 = 0;
  if (z->sl.first_in_range(r, &r1) == nullptr) return 0;
  z->sl.last_in_range(r, &r2);
  return r2 - r1 + 1;
}

size_t ZsetType::count_in_lex_range(const Object& o, const ZsetLexRange& r) {
  if (r.empty()) return 0;
  if (is_lp(o)) {
    return range_by_lex(o, r, false, 0, -1, [](void*, std::string_view, double) {}, nullptr);
  }
  const ZsetBig* z = big_of(o);
  size_t r1 = 0, r2 = 0;
  if (z->sl.first_in_lex_range(r, &r1) == nullptr) return 0;
  z->sl.last_in_lex_range(r, &r2);
  return r2 - r1 + 1;
}

size_t ZsetType::remove_range_by_rank(Object& o, size_t start, size_t end) {
  if (is_lp(o)) {
    LpEdit lp(o);
    return lp->erase_range(static_cast<long>(2 * start), 2 * (end - start + 1)) / 2;
  }
  ZsetBig* z = big_of(o);
  return z->sl.erase_range_by_rank(start + 1, end + 1,
                                   [z](SkiplistNode* n) { big_unlink_from_table(z, n); });
}

namespace {
// Removes the members inside `r` (a score or a lex range; key(pair) is what it compares) and
// returns how many went: in a listpack they form one run of pairs, erased at once.
template <class Range, class Key, class EraseBig>
size_t remove_range(Object& o, const Range& r, Key key, EraseBig erase_big) {
  if (r.empty()) return 0;
  if (is_lp(o)) {
    LpEdit lp(o);
    LpPair p;
    LpPos start = kLpNone;
    size_t n = 0;
    for (LpPos m = lp->first(); m != kLpNone; m = lp->next(p.spos)) {
      p.read(*lp, m);
      if (!r.gte_min(key(p))) continue;
      if (!r.lte_max(key(p))) break;
      if (start == kLpNone) start = m;
      ++n;
    }
    if (n > 0) lp->erase_at(start, 2 * n);
    return n;
  }
  ZsetBig* z = big_of(o);
  if (!z->sl.intersects(r)) return 0;
  return erase_big(z->sl, [z](SkiplistNode* n) { big_unlink_from_table(z, n); });
}
}  // namespace

size_t ZsetType::remove_range_by_score(Object& o, const ZsetRange& r) {
  return remove_range(o, r, [](const LpPair& p) { return p.score; },
                      [&r](Skiplist& sl, auto unlink) { return sl.erase_range_by_score(r, unlink); });
}

size_t ZsetType::remove_range_by_lex(Object& o, const ZsetLexRange& r) {
  return remove_range(o, r, [](const LpPair& p) { return p.member; },
                      [&r](Skiplist& sl, auto unlink) { return sl.erase_range_by_lex(r, unlink); });
}

size_t ZsetType::pop(Object& o, bool max, size_t count, ZEmit emit, void* ctx) {
  const size_t n = std::min(count, size(o));
  if (n == 0) return 0;
  if (is_lp(o)) {
    {
      LpView lp(o);
      LpPair p;
      if (!max) {
        LpPos m = lp->first();
        for (size_t i = 0; i < n; ++i) {
          p.read(*lp, m);
          emit(ctx, p.member, p.score);
          m = lp->next(p.spos);
        }
      } else {
        LpPos s = lp->last();
        for (size_t i = 0; i < n; ++i) {
          const LpPos m = lp->prev(s);
          p.read(*lp, m);
          emit(ctx, p.member, p.score);
          s = lp->prev(m);
        }
      }
    }
    LpEdit lp(o);
    lp->erase_range(max ? -2 * static_cast<long>(n) : 0, 2 * n);
    return n;
  }
  ZsetBig* z = big_of(o);
  for (size_t i = 0; i < n; ++i) {
    SkiplistNode* x = max ? z->sl.last() : z->sl.first();
    emit(ctx, x->member(), x->score());
    big_unlink_from_table(z, x);
    z->sl.erase(x);
  }
  return n;
}

void ZsetType::for_each(const Object& o, ZEmit emit, void* ctx) {
  if (is_lp(o)) {
    LpView lp(o);
    LpPair p;
    for (LpPos m = lp->first(); m != kLpNone; m = lp->next(p.spos)) {
      p.read(*lp, m);
      emit(ctx, p.member, p.score);
    }
    return;
  }
  for (SkiplistNode* x = big_of(o)->sl.first(); x != nullptr; x = x->next()) {
    emit(ctx, x->member(), x->score());
  }
}

void ZsetType::random_members(const Object& o, uint64_t count, bool unique, ZEmit emit,
                              void* ctx) {
  const size_t n = size(o);
  if (n == 0 || count == 0) return;
  if (unique && count >= n) return for_each(o, emit, ctx);
  if (is_lp(o)) {
    LpView lp(o);
    std::vector<LpPos> members;
    members.reserve(n);
    for (LpPos m = lp->first(); m != kLpNone; m = lp->next(lp->next(m))) members.push_back(m);
    LpPair p;
    if (unique) {  // partial Fisher-Yates over the pair positions
      for (size_t i = 0; i < count; ++i) {
        const size_t j = i + random_bounded(n - i);
        std::swap(members[i], members[j]);
        p.read(*lp, members[i]);
        emit(ctx, p.member, p.score);
      }
    } else {
      for (uint64_t i = 0; i < count; ++i) {
        p.read(*lp, members[random_bounded(n)]);
        emit(ctx, p.member, p.score);
      }
    }
    return;
  }
  const ZsetBig* z = big_of(o);
  if (!unique) {
    for (uint64_t i = 0; i < count; ++i) {
      const SkiplistNode* x = z->table.random_entry(random_u64());
      emit(ctx, x->member(), x->score());
    }
    return;
  }
  std::vector<const SkiplistNode*> nodes;
  nodes.reserve(n);
  for (const SkiplistNode* x = z->sl.first(); x != nullptr; x = x->next()) nodes.push_back(x);
  for (size_t i = 0; i < count; ++i) {
    const size_t j = i + random_bounded(n - i);
    std::swap(nodes[i], nodes[j]);
    emit(ctx, nodes[i]->member(), nodes[i]->score());
  }
}

uint64_t ZsetType::scan(const Object& o, uint64_t cursor, int64_t count, ZEmit emit, void* ctx) {
  if (is_lp(o)) {
    for_each(o, emit, ctx);
    return 0;
  }
  const ZsetBig* z = big_of(o);
  size_t emitted = 0;
  int64_t steps = std::max<int64_t>(count, 1) * 10;
  do {
    cursor = z->table.scan(cursor, [&](const SkiplistNode* x) {
      emit(ctx, x->member(), x->score());
      ++emitted;
    });
  } while (cursor != 0 && --steps > 0 && static_cast<int64_t>(emitted) < count);
  return cursor;
}

bool ZsetType::check(const Object& o) {
  if (is_lp(o)) {
    LpView lp(o);
    if (lp->size() % 2 != 0) return false;
    LpPair p;
    bool have_prev = false;
    double prev_score = 0;
    std::vector<char> prev_member;
    for (LpPos m = lp->first(); m != kLpNone; m = lp->next(p.spos)) {
      p.read(*lp, m);
      if (have_prev &&
          cmp_pair(prev_score, {prev_member.data(), prev_member.size()}, p.score, p.member) >= 0) {
        return false;
      }
      prev_member.assign(p.member.begin(), p.member.end());
      prev_score = p.score;
      have_prev = true;
    }
    return true;
  }
  const ZsetBig* z = big_of(o);
  if (!z->sl.check_invariants() || z->sl.size() != z->table.size()) return false;
  for (SkiplistNode* x = z->sl.first(); x != nullptr; x = x->next()) {
    if (big_find(z, x->member()) != x) return false;
  }
  return true;
}

// ---- ZsetAccumulator --------------------------------------------------------------------------

ZsetAccumulator::~ZsetAccumulator() {
  table_.clear([](Entry* e) { std::free(e); });
}

ZsetAccumulator::Entry* ZsetAccumulator::find(std::string_view member) const {
  return table_.find(member, hash_key(member));
}

ZsetAccumulator::Entry* ZsetAccumulator::upsert(std::string_view member, double score,
                                                bool* created) {
  auto pos = table_.find_position(member, hash_key(member));
  if (pos.found()) {
    *created = false;
    return pos.entry();
  }
  auto* e = static_cast<Entry*>(std::malloc(sizeof(Entry) + member.size()));
  KEEL_ASSERT(e != nullptr);
  e->score = score;
  e->len = static_cast<uint32_t>(member.size());
  if (!member.empty()) std::memcpy(e->data, member.data(), member.size());
  table_.insert(pos, e);
  *created = true;
  return e;
}

void ZsetAccumulator::erase(std::string_view member) {
  if (Entry* e = table_.erase(member, hash_key(member))) std::free(e);
}

void ZsetAccumulator::sort_entries() {
  sorted_.clear();
  sorted_.reserve(table_.size());
  table_.for_each([&](Entry* e) { sorted_.push_back(e); });
  std::sort(sorted_.begin(), sorted_.end(), [](const Entry* a, const Entry* b) {
    return cmp_pair(a->score, a->member(), b->score, b->member()) < 0;
  });
}

void ZsetAccumulator::emit_sorted(bool rev, ZEmit emit, void* ctx) {
  sort_entries();
  if (rev) {
    for (size_t i = sorted_.size(); i-- > 0;) emit(ctx, sorted_[i]->member(), sorted_[i]->score);
  } else {
    for (const Entry* e : sorted_) emit(ctx, e->member(), e->score);
  }
}

Object* ZsetAccumulator::build(std::string_view key) {
  sort_entries();
  size_t max_len = 0, total = 0;
  for (const Entry* e : sorted_) {
    max_len = std::max<size_t>(max_len, e->len);
    total += e->len;
  }
  Object* o;
  if (fits_listpack(sorted_.size(), max_len) && total < kLpSafeBytes / 2) {
    Listpack lp;
    std::vector<std::string_view> items;
    std::vector<char> scores(sorted_.size() * kDoubleBufSize);
    items.reserve(sorted_.size() * 2);
    for (size_t i = 0; i < sorted_.size(); ++i) {
      char* buf = scores.data() + i * kDoubleBufSize;
      items.push_back(sorted_[i]->member());
      items.push_back(score_text(sorted_[i]->score, buf));
    }
    lp.append_all(items);
    o = Object::create_collection(key, Type::kZset, Encoding::kListpack, lp.release());
  } else {
    auto* z = new ZsetBig();
    z->table.reserve(sorted_.size());
    for (const Entry* e : sorted_) big_insert_new(z, e->score, e->member());
    o = Object::create_collection(key, Type::kZset, Encoding::kSkiplist, z);
  }
  table_.clear([](Entry* e) { std::free(e); });
  sorted_.clear();
  return o;
}

}  // namespace keel
