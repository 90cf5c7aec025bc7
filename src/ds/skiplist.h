// Skiplist: the ordered half of the big sorted-set encoding (OBJECT ENCODING "skiplist"), nodes
// ordered by (score, member) with span counts so rank queries are O(log n). Also the score and
// lex range specs with parsers for ZRANGEBYSCORE / ZRANGEBYLEX bound syntax. The member -> node
// hash table, the listpack encoding and the conversions belong to types/zset_type.cc.
//
// Node (one malloc per member; the member bytes live inside the node):
//
//   +--------+----------+----------------------+---------------------------+---------------+
//   | score  | backward | member_len:56        | level[0] .. level[h-1]    | member bytes  |
//   | double | node*    | height:8             | {node* forward; size_t span} (16 bytes each)|
//   +--------+----------+----------------------+---------------------------+---------------+
//   0        8          16                     24                          24 + 16h
//
// The zset's hash table can store SkiplistNode* itself as its entry (key = node->member(),
// value = node->score()): a member then costs one allocation in all, and update_score() keeps
// the node's address, so the table never needs to be told about a score change.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace keel {

// Member order for equal scores, as Redis's sdscmp: memcmp over the common length, then the
// shorter first ("a" < "a\0" < "ab" < "b"). Returns <0, 0 or >0.
int compare_members(std::string_view a, std::string_view b);

// A score interval from ZRANGEBYSCORE / ZCOUNT / ZREMRANGEBYSCORE syntax.
struct ZsetRange {
  double min = 0;
  double max = 0;
  bool minex = false;  // "(" on min: exclusive
  bool maxex = false;

  bool gte_min(double v) const { return minex ? v > min : v >= min; }
  bool lte_max(double v) const { return maxex ? v < max : v <= max; }
  bool contains(double v) const { return gte_min(v) && lte_max(v); }
  // True when no score can be in the range (min > max, or min == max with an open end).
  bool empty() const { return min > max || (min == max && (minex || maxex)); }
};

// One bound: an optional "(" (exclusive), then a number parsed exactly as Redis's
// zslParseRange does with strtod(): the text up to the first NUL byte must be consumed
// entirely and must not be NaN. Hence, as *observed* on redis-server: "" and "(" are 0,
// leading whitespace is skipped (" 1"), overflow gives +-inf ("1e500"), underflow gives 0
// ("1e-400"), "inf"/"+inf"/"-inf"/"infinity" and hex "0x10" are accepted, "nan", "1 " and "abc"
// are not. (keel::parse_double is stricter on the first five, so it is not used here.)
[[nodiscard]] bool parse_zset_score_bound(std::string_view s, double* value, bool* exclusive);
// Both bounds; false (and *out unspecified) if either is invalid. The caller replies
// "ERR min or max is not a float". An empty range is valid here (check out->empty()).
[[nodiscard]] bool parse_zset_range(std::string_view min, std::string_view max, ZsetRange* out);

// A member interval from ZRANGEBYLEX / ZLEXCOUNT / ZREMRANGEBYLEX syntax. Values are views into
// the caller's argument bytes, which must outlive the range. Meaningful only when every member
// has the same score, as in Redis.
struct ZsetLexRange {
  enum class Kind : uint8_t { kValue, kMinusInf, kPlusInf };  // "[x"/"(x", "-", "+"
  struct Bound {
    std::string_view value;  // without the "[" or "("; empty for "-" and "+"
    Kind kind = Kind::kValue;
    bool exclusive = false;  // "(" (and "-"/"+", as Redis marks them)
  };
  Bound min;
  Bound max;

  bool gte_min(std::string_view member) const;
  bool lte_max(std::string_view member) const;
  bool contains(std::string_view m) const { return gte_min(m) && lte_max(m); }
  // True when no member can be in the range: min > max, or min == max with an open end
  // ("-" > "-" is false but both are marked open, so "- -" and "+ +" are empty, as in Redis).
  bool empty() const;
};

// "[a" (inclusive a), "(a" (exclusive a), "-", "+"; anything else is invalid (empty string,
// "a", "-x", "+x"). As Redis, which tests the byte after '-'/'+' against NUL, "+\0..." counts as
// "+". The value views into `s`.
[[nodiscard]] bool parse_zset_lex_bound(std::string_view s, ZsetLexRange::Bound* out);
// Both bounds; false if either is invalid (reply "ERR min or max not valid string range item").
[[nodiscard]] bool parse_zset_lex_range(std::string_view min, std::string_view max,
                                        ZsetLexRange* out);

class Skiplist;

// A node of the skiplist. Read-only to everyone but Skiplist; freed by Skiplist only.
class SkiplistNode {
 public:
  double score() const { return score_; }
  std::string_view member() const {
    return {reinterpret_cast<const char*>(levels() + height_), static_cast<size_t>(member_len_)};
  }
  // Forward / backward iteration: nullptr past the last / before the first node.
  SkiplistNode* next() const { return levels()[0].forward; }
  SkiplistNode* prev() const { return backward_; }
  int height() const { return static_cast<int>(height_); }

 private:
  friend class Skiplist;
  struct Level {
    SkiplistNode* forward;
    size_t span;  // nodes crossed by `forward` (distance in rank); see README
  };
  Level* levels() { return reinterpret_cast<Level*>(this + 1); }
  const Level* levels() const { return reinterpret_cast<const Level*>(this + 1); }

  double score_;
  SkiplistNode* backward_;
  uint64_t member_len_ : 56;
  uint64_t height_ : 8;
};
static_assert(sizeof(SkiplistNode) == 24);

// Ranks are 1-based throughout (rank 1 = the lowest (score, member)), as in Redis's zsl*
// functions; ZRANK's reply is rank - 1. Not thread-safe. Node pointers stay valid until that
// node is erased (including by a range erase or clear); update_score keeps them valid.
class Skiplist {
 public:
  static constexpr int kMaxLevel = 32;  // level of a new node: P(level >= k + 1) = (1/4)^k

  Skiplist();  // allocates the header node (kMaxLevel levels)
  ~Skiplist();
  Skiplist(Skiplist&& o) noexcept;
  Skiplist& operator=(Skiplist&& o) noexcept;
  Skiplist(const Skiplist&) = delete;
  Skiplist& operator=(const Skiplist&) = delete;

  size_t size() const { return length_; }
  bool empty() const { return length_ == 0; }
  // Lowest / highest node, nullptr when empty. O(1).
  SkiplistNode* first() const;
  SkiplistNode* last() const { return tail_; }

  // Inserts a new node. The caller guarantees that `member` is not in the list (the zset's
  // hash table knows) and that `score` is not NaN. O(log n) expected; one allocation.
  SkiplistNode* insert(double score, std::string_view member);
  // Erases and frees the node with exactly (score, member). Returns false if there is none.
  // Remove the node from the owner's hash table before (its member view dies here). O(log n).
  bool erase(double score, std::string_view member);
  void erase(SkiplistNode* node);
  // Changes the score of the node with (cur_score, member), which must exist, and returns it.
  // The node is not reallocated: the same pointer stays valid. When the new score keeps it
  // between its neighbours it is updated in place (no relinking, as Redis's zslUpdateScore);
  // otherwise it is unlinked and relinked at its new position with its old height. O(log n).
  SkiplistNode* update_score(double cur_score, std::string_view member, double new_score);
  void update_score(SkiplistNode* node, double new_score);

  // 1-based rank of (score, member), 0 if it is not in the list. O(log n).
  size_t rank(double score, std::string_view member) const;
  size_t rank(const SkiplistNode* node) const { return rank(node->score(), node->member()); }
  // Node at 1-based `rank`, nullptr when rank is 0 or > size(). O(log n).
  SkiplistNode* node_by_rank(size_t rank) const;

  // First / last node whose score is in `range`, nullptr if none (also for an empty range).
  // If `rank` is given it receives the node's 1-based rank (untouched when nullptr is
  // returned), so ZCOUNT is two descents and LIMIT offsets are node_by_rank(rank + offset).
  // O(log n).
  SkiplistNode* first_in_range(const ZsetRange& range, size_t* rank = nullptr) const;
  SkiplistNode* last_in_range(const ZsetRange& range, size_t* rank = nullptr) const;
  // The same by member, assuming equal scores (ZRANGEBYLEX semantics).
  SkiplistNode* first_in_lex_range(const ZsetLexRange& range, size_t* rank = nullptr) const;
  SkiplistNode* last_in_lex_range(const ZsetLexRange& range, size_t* rank = nullptr) const;
  // Whether any node can be in the range (Redis zslIsInRange / zslIsInLexRange). O(1).
  bool intersects(const ZsetRange& range) const;
  bool intersects(const ZsetLexRange& range) const;

  // Range erasure (ZREMRANGEBYSCORE / BYLEX / BYRANK and their internal users). For each erased
  // node, in ascending order, `on_erase(SkiplistNode*)` is called after the node is unlinked and
  // before it is freed: the owner removes it from its hash table there. The callback must not
  // touch this skiplist. Returns the number erased. O(log n + erased).
  template <class F>
  size_t erase_range_by_score(const ZsetRange& range, F&& on_erase);
  template <class F>
  size_t erase_range_by_lex(const ZsetLexRange& range, F&& on_erase);
  // Ranks `start`..`end`, 1-based and inclusive; a range past the end erases what exists.
  template <class F>
  size_t erase_range_by_rank(size_t start, size_t end, F&& on_erase);

  // ---- batch prefetch (commands/batch_prefetch.cc) ----
  // A read-only walk down to the position of (score, member), as an insert, erase, rank or
  // update_score of that pair will make. Each step reads only lines an earlier step prefetched,
  // moves one node, and prefetches the node the following step reads. A lone descent gains
  // nothing; run_descents() steps many of them in turn (of one list or several), so their cache
  // misses overlap, and the operations that follow find their paths in cache. Nothing is
  // changed; a descent is valid until its list is next modified.
  struct Descent {
    const SkiplistNode* x;    // last node known to be before the position
    std::string_view member;  // must stay readable until the descent ends
    double score;
    int level;                // -1: done
  };
  Descent start_descent(double score, std::string_view member) const;
  // Runs d[0..n) to their ends (level -1, x = the predecessor: the node an insert of the pair
  // would follow, or the header). Returns with d[] reordered.
  static void run_descents(Descent* d, size_t n);

  // Frees every node; the list stays usable.
  void clear();
  // Bytes malloc'd for `node` (header, levels, member), for MEMORY USAGE.
  static size_t node_bytes(const SkiplistNode* node);
  size_t header_bytes() const { return node_bytes(header_); }  // the kMaxLevel header node

  // Walks every level and checks order, spans, backward links, tail and length; false on the
  // first violation. O(n * levels); for tests and DEBUG.
  bool check_invariants() const;

 private:
  using Update = SkiplistNode* [kMaxLevel];

  static SkiplistNode* alloc_node(int height, double score, std::string_view member);
  static void free_node(SkiplistNode* n);
  static int random_height();
  // Fills update[i] with the last node at level i before the position of (score, member), and
  // rank[i] (if given) with that node's rank. Returns update[0].
  SkiplistNode* find_predecessors(double score, std::string_view member, Update& update,
                                  size_t* rank) const;
  void link(SkiplistNode* x, Update& update, const size_t* rank);
  void unlink(SkiplistNode* x, Update& update);
  // Predecessor fill for the range erasers: the first node in range is update[0]->next().
  SkiplistNode* seek_score(const ZsetRange& range, Update& update) const;
  SkiplistNode* seek_lex(const ZsetLexRange& range, Update& update) const;
  // Fills update and returns the node at 1-based rank `start` (nullptr if past the end).
  SkiplistNode* seek_rank(size_t start, Update& update) const;
  void release_all();
  static void prefetch_forward(const SkiplistNode* x, int level);

  SkiplistNode* header_;
  SkiplistNode* tail_ = nullptr;
  size_t length_ = 0;
  int level_ = 1;  // levels in use (>= 1)
};

template <class F>
size_t Skiplist::erase_range_by_score(const ZsetRange& range, F&& on_erase) {
  Update update;
  SkiplistNode* x = seek_score(range, update);
  size_t erased = 0;
  // After unlinking x, update[] still holds the predecessors of x's successor at every level.
  while (x != nullptr && range.lte_max(x->score())) {
    SkiplistNode* next = x->next();
    unlink(x, update);
    on_erase(x);
    free_node(x);
    ++erased;
    x = next;
  }
  return erased;
}

template <class F>
size_t Skiplist::erase_range_by_lex(const ZsetLexRange& range, F&& on_erase) {
  Update update;
  SkiplistNode* x = seek_lex(range, update);
  size_t erased = 0;
  while (x != nullptr && range.lte_max(x->member())) {
    SkiplistNode* next = x->next();
    unlink(x, update);
    on_erase(x);
    free_node(x);
    ++erased;
    x = next;
  }
  return erased;
}

template <class F>
size_t Skiplist::erase_range_by_rank(size_t start, size_t end, F&& on_erase) {
  if (start == 0) start = 1;
  if (start > end) return 0;
  Update update;
  SkiplistNode* x = seek_rank(start, update);
  size_t erased = 0;
  for (size_t r = start; x != nullptr && r <= end; ++r) {
    SkiplistNode* next = x->next();
    unlink(x, update);
    on_erase(x);
    free_node(x);
    ++erased;
    x = next;
  }
  return erased;
}

}  // namespace keel
