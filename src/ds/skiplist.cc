// Skiplist implementation and the ZRANGEBYSCORE / ZRANGEBYLEX bound parsers. The span
// bookkeeping follows one invariant (see src/ds/README.md): for a node n at level i,
// span = rank(forward) - rank(n), or size() - rank(n) when forward is null, the header having
// rank 0. Every splice below keeps it with O(1) work per level.
#include "ds/skiplist.h"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <utility>

#include "base/assert.h"
#include "base/util_random.h"

namespace keel {

int compare_members(std::string_view a, std::string_view b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  if (n > 0) {
    const int c = std::memcmp(a.data(), b.data(), n);
    if (c != 0) return c;
  }
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

// ---- score ranges ----

bool parse_zset_score_bound(std::string_view s, double* value, bool* exclusive) {
  *exclusive = false;
  if (!s.empty() && s[0] == '(') {
    *exclusive = true;
    s.remove_prefix(1);
  }
  // Redis runs strtod() on the NUL-terminated argument and accepts when the end pointer is at a
  // NUL byte, so whatever follows an embedded NUL is ignored ("1\0x" is 1) and an empty text is
  // 0 (ZRANGEBYSCORE z "" "" is the range [0, 0] on redis-server).
  const size_t nul = s.find('\0');
  if (nul != std::string_view::npos) s = s.substr(0, nul);
  char small[128];
  std::string big;
  const char* text;
  if (s.size() < sizeof(small)) {
    std::memcpy(small, s.data(), s.size());
    small[s.size()] = '\0';
    text = small;
  } else {
    big.assign(s);
    text = big.c_str();
  }
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (*end != '\0' || std::isnan(v)) return false;
  *value = v;
  return true;
}

bool parse_zset_range(std::string_view min, std::string_view max, ZsetRange* out) {
  return parse_zset_score_bound(min, &out->min, &out->minex) &&
         parse_zset_score_bound(max, &out->max, &out->maxex);
}

// ---- lex ranges ----

namespace {

using Kind = ZsetLexRange::Kind;

// Member vs bound, as Redis's zslCmpLex with the member never being a sentinel.
int compare_to_bound(std::string_view member, const ZsetLexRange::Bound& b) {
  if (b.kind == Kind::kMinusInf) return 1;
  if (b.kind == Kind::kPlusInf) return -1;
  return compare_members(member, b.value);
}

// Bound vs bound: equal sentinels compare equal, "-" is below and "+" above everything.
int compare_bounds(const ZsetLexRange::Bound& a, const ZsetLexRange::Bound& b) {
  if (a.kind == b.kind && a.kind != Kind::kValue) return 0;
  if (a.kind == Kind::kMinusInf || b.kind == Kind::kPlusInf) return -1;
  if (a.kind == Kind::kPlusInf || b.kind == Kind::kMinusInf) return 1;
  return compare_members(a.value, b.value);
}

}  // namespace

bool ZsetLexRange::gte_min(std::string_view member) const {
  const int c = compare_to_bound(member, min);
  return min.exclusive ? c > 0 : c >= 0;
}

bool ZsetLexRange::lte_max(std::string_view member) const {
  const int c = compare_to_bound(member, max);
  return max.exclusive ? c < 0 : c <= 0;
}

bool ZsetLexRange::empty() const {
  const int c = compare_bounds(min, max);
  return c > 0 || (c == 0 && (min.exclusive || max.exclusive));
}

bool parse_zset_lex_bound(std::string_view s, ZsetLexRange::Bound* out) {
  if (s.empty()) return false;
  switch (s[0]) {
    case '+':
    case '-':
      // Redis checks only that the next byte is the terminating NUL.
      if (s.size() > 1 && s[1] != '\0') return false;
      *out = {std::string_view(), s[0] == '+' ? Kind::kPlusInf : Kind::kMinusInf, true};
      return true;
    case '(':
    case '[':
      *out = {s.substr(1), Kind::kValue, s[0] == '('};
      return true;
    default:
      return false;
  }
}

bool parse_zset_lex_range(std::string_view min, std::string_view max, ZsetLexRange* out) {
  return parse_zset_lex_bound(min, &out->min) && parse_zset_lex_bound(max, &out->max);
}

// ---- nodes ----

namespace {

// (node's score, node's member) < (score, member)
bool node_less(const SkiplistNode* n, double score, std::string_view member) {
  return n->score() < score || (n->score() == score && compare_members(n->member(), member) < 0);
}

}  // namespace

SkiplistNode* Skiplist::alloc_node(int height, double score, std::string_view member) {
  const size_t bytes = sizeof(SkiplistNode) +
                       static_cast<size_t>(height) * sizeof(SkiplistNode::Level) + member.size();
  auto* n = static_cast<SkiplistNode*>(std::malloc(bytes));
  if (n == nullptr) std::abort();  // out of memory: maxmemory is enforced before DENYOOM commands
  n->score_ = score;
  n->backward_ = nullptr;
  n->member_len_ = member.size();
  n->height_ = static_cast<uint64_t>(height);
  SkiplistNode::Level* lv = n->levels();
  for (int i = 0; i < height; ++i) lv[i] = {nullptr, 0};
  if (!member.empty()) std::memcpy(lv + height, member.data(), member.size());
  return n;
}

void Skiplist::free_node(SkiplistNode* n) { std::free(n); }

size_t Skiplist::node_bytes(const SkiplistNode* n) {
  return sizeof(SkiplistNode) + static_cast<size_t>(n->height_) * sizeof(SkiplistNode::Level) +
         static_cast<size_t>(n->member_len_);
}

// Each further level with probability 1/4: two random bits per level, all zero to go up.
int Skiplist::random_height() {
  const int h = 1 + std::countr_zero(random_u64()) / 2;
  return h < kMaxLevel ? h : kMaxLevel;
}

// ---- lifetime ----

Skiplist::Skiplist() : header_(alloc_node(kMaxLevel, 0, {})) {}

Skiplist::~Skiplist() {
  if (header_ == nullptr) return;  // moved from
  release_all();
  free_node(header_);
}

Skiplist::Skiplist(Skiplist&& o) noexcept
    : header_(o.header_), tail_(o.tail_), length_(o.length_), level_(o.level_) {
  o.header_ = nullptr;
  o.tail_ = nullptr;
  o.length_ = 0;
  o.level_ = 1;
}

Skiplist& Skiplist::operator=(Skiplist&& o) noexcept {
  if (this != &o) {
    if (header_ != nullptr) {
      release_all();
      free_node(header_);
    }
    header_ = o.header_;
    tail_ = o.tail_;
    length_ = o.length_;
    level_ = o.level_;
    o.header_ = nullptr;
    o.tail_ = nullptr;
    o.length_ = 0;
    o.level_ = 1;
  }
  return *this;
}

void Skiplist::release_all() {
  SkiplistNode* x = header_->levels()[0].forward;
  while (x != nullptr) {
    SkiplistNode* next = x->levels()[0].forward;
    free_node(x);
    x = next;
  }
}

void Skiplist::clear() {
  release_all();
  SkiplistNode::Level* lv = header_->levels();
  for (int i = 0; i < kMaxLevel; ++i) lv[i] = {nullptr, 0};
  tail_ = nullptr;
  length_ = 0;
  level_ = 1;
}

SkiplistNode* Skiplist::first() const { return header_->levels()[0].forward; }

// ---- splicing ----

SkiplistNode* Skiplist::find_predecessors(double score, std::string_view member, Update& update,
                                          size_t* rank) const {
  SkiplistNode* x = header_;
  size_t r = 0;
  for (int i = level_ - 1; i >= 0; --i) {
    SkiplistNode* f;
    while ((f = x->levels()[i].forward) != nullptr && node_less(f, score, member)) {
      r += x->levels()[i].span;
      x = f;
    }
    update[i] = x;
    if (rank != nullptr) rank[i] = r;
  }
  return x;
}

// Links x (height already set) after update[i] at each of its levels. rank[i] is the rank of
// update[i]; x's rank will be rank[0] + 1.
void Skiplist::link(SkiplistNode* x, Update& update, const size_t* rank_in) {
  size_t rank[kMaxLevel];
  const int h = x->height();
  for (int i = 0; i < level_; ++i) rank[i] = rank_in[i];
  if (h > level_) {
    // New top levels start at the header, whose null-forward span is the whole length.
    for (int i = level_; i < h; ++i) {
      rank[i] = 0;
      update[i] = header_;
      header_->levels()[i].span = length_;
    }
    level_ = h;
  }
  SkiplistNode::Level* xl = x->levels();
  for (int i = 0; i < h; ++i) {
    SkiplistNode::Level& ul = update[i]->levels()[i];
    xl[i].forward = ul.forward;
    ul.forward = x;
    // update[i] .. x crosses rank[0] - rank[i] + 1 nodes; x takes over the rest of the old span.
    xl[i].span = ul.span - (rank[0] - rank[i]);
    ul.span = rank[0] - rank[i] + 1;
  }
  for (int i = h; i < level_; ++i) update[i]->levels()[i].span++;
  x->backward_ = update[0] == header_ ? nullptr : update[0];
  if (xl[0].forward != nullptr) {
    xl[0].forward->backward_ = x;
  } else {
    tail_ = x;
  }
  ++length_;
}

void Skiplist::unlink(SkiplistNode* x, Update& update) {
  SkiplistNode::Level* xl = x->levels();
  for (int i = 0; i < level_; ++i) {
    SkiplistNode::Level& ul = update[i]->levels()[i];
    if (ul.forward == x) {
      ul.span += xl[i].span - 1;
      ul.forward = xl[i].forward;
    } else {
      ul.span -= 1;
    }
  }
  if (xl[0].forward != nullptr) {
    xl[0].forward->backward_ = x->backward_;
  } else {
    tail_ = x->backward_;
  }
  while (level_ > 1 && header_->levels()[level_ - 1].forward == nullptr) --level_;
  --length_;
}

// ---- point operations ----

SkiplistNode* Skiplist::insert(double score, std::string_view member) {
  KEEL_DCHECK(!std::isnan(score));
  Update update;
  size_t rank[kMaxLevel];
  find_predecessors(score, member, update, rank);
  SkiplistNode* x = alloc_node(random_height(), score, member);
  link(x, update, rank);
  return x;
}

bool Skiplist::erase(double score, std::string_view member) {
  Update update;
  SkiplistNode* x = find_predecessors(score, member, update, nullptr)->levels()[0].forward;
  if (x == nullptr || x->score() != score || compare_members(x->member(), member) != 0) {
    return false;
  }
  unlink(x, update);
  free_node(x);
  return true;
}

void Skiplist::erase(SkiplistNode* node) {
  if (node == header_->levels()[0].forward) {
    // The first node (ZPOPMIN): the header precedes it at every level, no descent needed.
    Update update;
    for (int i = 0; i < level_; ++i) update[i] = header_;
    unlink(node, update);
    free_node(node);
    return;
  }
  // The member view points into `node`, which stays allocated until unlink is done.
  const bool erased = erase(node->score(), node->member());
  KEEL_ASSERT(erased);
}

SkiplistNode* Skiplist::update_score(double cur_score, std::string_view member, double new_score) {
  KEEL_DCHECK(!std::isnan(new_score));
  Update update;
  SkiplistNode* x = find_predecessors(cur_score, member, update, nullptr)->levels()[0].forward;
  KEEL_ASSERT(x != nullptr && x->score() == cur_score && compare_members(x->member(), member) == 0);
  member = x->member();  // from here on the node's own bytes (the caller's view may be x's)
  SkiplistNode* prev = x->backward_;
  SkiplistNode* next = x->levels()[0].forward;
  // Still strictly between its neighbours: the order is unchanged, update in place.
  if ((prev == nullptr || node_less(prev, new_score, member)) &&
      (next == nullptr || !node_less(next, new_score, member))) {
    x->score_ = new_score;
    return x;
  }
  unlink(x, update);
  x->score_ = new_score;
  size_t rank[kMaxLevel];
  find_predecessors(new_score, member, update, rank);
  link(x, update, rank);
  return x;
}

void Skiplist::update_score(SkiplistNode* node, double new_score) {
  update_score(node->score(), node->member(), new_score);
}

// ---- batch prefetch ----
//
// The node a descent reads next is x->levels()[level].forward: its score (first line) and, if
// it is moved to, its own slot at the same level, which for tall or unaligned nodes is on a
// later line. Both lines are prefetched together when the forward pointer is known. Going down
// a level reads the slot 16 bytes below the current one, usually on the line already fetched.

void Skiplist::prefetch_forward(const SkiplistNode* x, int level) {
  const SkiplistNode* f = x->levels()[level].forward;
  if (f == nullptr) return;
  __builtin_prefetch(f);
  __builtin_prefetch(&f->levels()[level]);
}

Skiplist::Descent Skiplist::start_descent(double score, std::string_view member) const {
  Descent d{header_, member, score, level_ - 1};
  prefetch_forward(header_, d.level);
  return d;
}

void Skiplist::run_descents(Descent* d, size_t n) {
  // Round-robin over the unfinished descents; a finished one is swapped behind [0, n), so at
  // the end every descent is still in d[], in some order, at its predecessor.
  while (n > 0) {
    for (size_t i = 0; i < n;) {
      Descent& c = d[i];
      const SkiplistNode* f = c.x->levels()[c.level].forward;
      if (f != nullptr && node_less(f, c.score, c.member)) {
        c.x = f;
      } else if (--c.level < 0) {
        std::swap(c, d[--n]);
        continue;
      }
      prefetch_forward(c.x, c.level);
      ++i;
    }
  }
}

// ---- rank ----

size_t Skiplist::rank(double score, std::string_view member) const {
  const SkiplistNode* x = header_;
  size_t r = 0;
  for (int i = level_ - 1; i >= 0; --i) {
    const SkiplistNode* f;
    while ((f = x->levels()[i].forward) != nullptr &&
           (f->score() < score ||
            (f->score() == score && compare_members(f->member(), member) <= 0))) {
      r += x->levels()[i].span;
      x = f;
    }
    // x is the last node <= (score, member); if it is equal we are done.
    if (x != header_ && x->score() == score && compare_members(x->member(), member) == 0) {
      return r;
    }
  }
  return 0;
}

SkiplistNode* Skiplist::node_by_rank(size_t rank) const {
  if (rank == 0 || rank > length_) return nullptr;
  SkiplistNode* x = header_;
  size_t traversed = 0;
  for (int i = level_ - 1; i >= 0; --i) {
    SkiplistNode* f;
    while ((f = x->levels()[i].forward) != nullptr && traversed + x->levels()[i].span <= rank) {
      traversed += x->levels()[i].span;
      x = f;
    }
    if (traversed == rank) return x;
  }
  return nullptr;
}

// ---- ranges ----

bool Skiplist::intersects(const ZsetRange& range) const {
  if (range.empty() || tail_ == nullptr) return false;
  return range.gte_min(tail_->score()) && range.lte_max(first()->score());
}

bool Skiplist::intersects(const ZsetLexRange& range) const {
  if (range.empty() || tail_ == nullptr) return false;
  return range.gte_min(tail_->member()) && range.lte_max(first()->member());
}

SkiplistNode* Skiplist::first_in_range(const ZsetRange& range, size_t* rank) const {
  if (!intersects(range)) return nullptr;
  SkiplistNode* x = header_;
  size_t r = 0;
  for (int i = level_ - 1; i >= 0; --i) {
    SkiplistNode* f;
    while ((f = x->levels()[i].forward) != nullptr && !range.gte_min(f->score())) {
      r += x->levels()[i].span;
      x = f;
    }
  }
  x = x->levels()[0].forward;  // not null: the last node is >= min
  if (!range.lte_max(x->score())) return nullptr;
  if (rank != nullptr) *rank = r + 1;
  return x;
}

SkiplistNode* Skiplist::last_in_range(const ZsetRange& range, size_t* rank) const {
  if (!intersects(range)) return nullptr;
  SkiplistNode* x = header_;
  size_t r = 0;
  for (int i = level_ - 1; i >= 0; --i) {
    SkiplistNode* f;
    while ((f = x->levels()[i].forward) != nullptr && range.lte_max(f->score())) {
      r += x->levels()[i].span;
      x = f;
    }
  }
  // x is not the header: the first node is <= max.
  if (!range.gte_min(x->score())) return nullptr;
  if (rank != nullptr) *rank = r;
  return x;
}

SkiplistNode* Skiplist::first_in_lex_range(const ZsetLexRange& range, size_t* rank) const {
  if (!intersects(range)) return nullptr;
  SkiplistNode* x = header_;
  size_t r = 0;
  for (int i = level_ - 1; i >= 0; --i) {
    SkiplistNode* f;
    while ((f = x->levels()[i].forward) != nullptr && !range.gte_min(f->member())) {
      r += x->levels()[i].span;
      x = f;
    }
  }
  x = x->levels()[0].forward;
  if (!range.lte_max(x->member())) return nullptr;
  if (rank != nullptr) *rank = r + 1;
  return x;
}

SkiplistNode* Skiplist::last_in_lex_range(const ZsetLexRange& range, size_t* rank) const {
  if (!intersects(range)) return nullptr;
  SkiplistNode* x = header_;
  size_t r = 0;
  for (int i = level_ - 1; i >= 0; --i) {
    SkiplistNode* f;
    while ((f = x->levels()[i].forward) != nullptr && range.lte_max(f->member())) {
      r += x->levels()[i].span;
      x = f;
    }
  }
  if (!range.gte_min(x->member())) return nullptr;
  if (rank != nullptr) *rank = r;
  return x;
}

SkiplistNode* Skiplist::seek_score(const ZsetRange& range, Update& update) const {
  SkiplistNode* x = header_;
  for (int i = level_ - 1; i >= 0; --i) {
    SkiplistNode* f;
    while ((f = x->levels()[i].forward) != nullptr && !range.gte_min(f->score())) x = f;
    update[i] = x;
  }
  return x->levels()[0].forward;
}

SkiplistNode* Skiplist::seek_lex(const ZsetLexRange& range, Update& update) const {
  SkiplistNode* x = header_;
  for (int i = level_ - 1; i >= 0; --i) {
    SkiplistNode* f;
    while ((f = x->levels()[i].forward) != nullptr && !range.gte_min(f->member())) x = f;
    update[i] = x;
  }
  return x->levels()[0].forward;
}

SkiplistNode* Skiplist::seek_rank(size_t start, Update& update) const {
  SkiplistNode* x = header_;
  size_t traversed = 0;
  for (int i = level_ - 1; i >= 0; --i) {
    SkiplistNode* f;
    while ((f = x->levels()[i].forward) != nullptr && traversed + x->levels()[i].span < start) {
      traversed += x->levels()[i].span;
      x = f;
    }
    update[i] = x;
  }
  return x->levels()[0].forward;
}

// ---- checking ----

bool Skiplist::check_invariants() const {
  if (header_ == nullptr) return false;
  if (level_ < 1 || level_ > kMaxLevel) return false;
  std::unordered_map<const SkiplistNode*, size_t> rank_of;
  rank_of[header_] = 0;
  size_t n = 0;
  const SkiplistNode* prev = nullptr;
  for (const SkiplistNode* x = first(); x != nullptr; x = x->next()) {
    ++n;
    rank_of[x] = n;
    if (x->backward_ != prev) return false;
    if (x->height() < 1 || x->height() > level_) return false;
    if (prev != nullptr && !node_less(prev, x->score(), x->member())) return false;
    prev = x;
  }
  if (n != length_ || tail_ != prev) return false;
  if (length_ > 0 && header_->levels()[level_ - 1].forward == nullptr && level_ > 1) return false;
  for (int i = level_; i < kMaxLevel; ++i) {
    if (header_->levels()[i].forward != nullptr) return false;
  }
  for (const auto& [node, r] : rank_of) {
    const int h = node == header_ ? level_ : node->height();
    for (int i = 0; i < h; ++i) {
      const SkiplistNode* f = node->levels()[i].forward;
      const size_t want = f == nullptr ? length_ - r : rank_of.at(f) - r;
      if (node->levels()[i].span != want) return false;
      if (f != nullptr && f->height() <= i) return false;
    }
  }
  // Each level must be exactly the nodes tall enough for it, in order.
  for (int i = 1; i < level_; ++i) {
    const SkiplistNode* x = header_;
    for (const SkiplistNode* y = first(); y != nullptr; y = y->next()) {
      if (y->height() > i) {
        if (x->levels()[i].forward != y) return false;
        x = y;
      }
    }
    if (x->levels()[i].forward != nullptr) return false;
  }
  return true;
}

}  // namespace keel
