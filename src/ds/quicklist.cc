// Quicklist node management, Redis's fill and plain-node rules, and LZF compression of inner
// nodes (Debian's liblzf). The layout and limits are described in quicklist.h.
//
// Compression invariant, kept after every public call: the `depth` nodes at each end are raw;
// every other node is compressed unless it is under 48 bytes, LZF would not save more than 8
// bytes, or an iterator is reading it (then `recompress` is set and the node is compressed
// again when the iterator leaves it). As in Redis, after a call only the nodes it touched and
// the two nodes just inside the depth boundary are looked at: O(depth), not O(nodes).
#include "ds/quicklist.h"

#include <liblzf/lzf.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "base/assert.h"
#include "base/memory.h"

namespace keel {
namespace {

constexpr size_t kNodeEstimateOverhead = 8;  // Redis SIZE_ESTIMATE_OVERHEAD

// Borrows a raw packed node's listpack for one scope and writes back the (possibly moved)
// pointer and size when done.
template <class N>
class NodeLp {
 public:
  explicit NodeLp(N* n) : n_(n), lp_(Listpack::adopt(n->data)) {
    KEEL_DCHECK(!n->compressed && !n->plain);
  }
  ~NodeLp() {
    n_->sz = lp_.bytes();
    n_->data = lp_.release();
  }
  NodeLp(const NodeLp&) = delete;
  NodeLp& operator=(const NodeLp&) = delete;
  Listpack* operator->() { return &lp_; }
  Listpack& operator*() { return lp_; }

 private:
  N* n_;
  Listpack lp_;
};

uint8_t* xmalloc(size_t n) {
  auto* p = static_cast<uint8_t*>(std::malloc(n == 0 ? 1 : n));
  KEEL_ASSERT(p != nullptr);
  return p;
}

}  // namespace

QuicklistLimit quicklist_node_limit(int fill) {
  static constexpr size_t kLevels[] = {4096, 8192, 16384, 32768, 65536};
  if (fill >= 0) return {SIZE_MAX, fill == 0 ? size_t{1} : static_cast<size_t>(fill)};
  size_t level = static_cast<size_t>(-static_cast<long>(fill)) - 1;
  if (level > 4) level = 4;
  return {kLevels[level], SIZE_MAX};
}

bool quicklist_exceeds_limit(int fill, size_t bytes, size_t count) {
  const QuicklistLimit l = quicklist_node_limit(fill);
  if (l.bytes != SIZE_MAX) return bytes > l.bytes;
  if (bytes > kQuicklistSafetyBytes) return true;
  return count > l.count;
}

size_t Quicklist::memory_usage(size_t samples) const {
  size_t n = allocation_size(this);
  size_t bytes = 0, elements = 0, seen = 0;
  for (const Node* x = head_; x != nullptr && (samples == 0 || seen < samples); x = x->next, seen++) {
    bytes += allocation_size(x) + allocation_size(x->data);
    elements += x->count;
  }
  if (elements > 0) n += static_cast<size_t>(double(bytes) / double(elements) * double(count_));
  return n;
}

namespace {
size_t g_packed_threshold = kQuicklistDefaultPackedThreshold;
}  // namespace

void quicklist_set_packed_threshold(size_t bytes) { g_packed_threshold = bytes; }

bool quicklist_is_large_element(size_t len, int fill) {
  if (KEEL_UNLIKELY(g_packed_threshold != kQuicklistDefaultPackedThreshold)) {
    return len >= g_packed_threshold;
  }
  if (fill >= 0) return len > kQuicklistSafetyBytes;
  return len > quicklist_node_limit(fill).bytes;
}

// ---------------------------------------------------------------------------------------------
// Construction

Quicklist::Quicklist(int fill, int compress_depth)
    : fill_(fill), depth_(compress_depth < 0 ? 0 : compress_depth) {}

Quicklist::~Quicklist() { clear(); }

Quicklist::Quicklist(Quicklist&& o) noexcept
    : head_(o.head_),
      tail_(o.tail_),
      count_(o.count_),
      len_(o.len_),
      fill_(o.fill_),
      depth_(o.depth_) {
  o.head_ = o.tail_ = nullptr;
  o.count_ = o.len_ = 0;
}

Quicklist& Quicklist::operator=(Quicklist&& o) noexcept {
  if (this != &o) {
    clear();
    head_ = o.head_;
    tail_ = o.tail_;
    count_ = o.count_;
    len_ = o.len_;
    fill_ = o.fill_;
    depth_ = o.depth_;
    o.head_ = o.tail_ = nullptr;
    o.count_ = o.len_ = 0;
  }
  return *this;
}

void Quicklist::clear() {
  for (Node* n = head_; n != nullptr;) {
    Node* next = n->next;
    std::free(n->data);
    delete n;
    n = next;
  }
  head_ = tail_ = nullptr;
  count_ = len_ = 0;
}

Quicklist Quicklist::from_listpack(Listpack&& lp, int fill, int compress_depth) {
  Quicklist ql(fill, compress_depth);
  ql.append_listpack_node(std::move(lp));
  return ql;
}

// ---------------------------------------------------------------------------------------------
// Nodes

Quicklist::Node* Quicklist::new_node(std::string_view v) {
  Node* n = new Node;
  if (quicklist_is_large_element(v.size(), fill_)) {
    n->plain = true;
    n->data = xmalloc(v.size());
    if (!v.empty()) std::memcpy(n->data, v.data(), v.size());
    n->sz = v.size();
  } else {
    Listpack lp;
    lp.append(v);
    n->sz = lp.bytes();
    n->data = lp.release();
  }
  n->count = 1;
  return n;
}

void Quicklist::link(Node* at, Node* n, bool after) {
  if (at == nullptr) {
    KEEL_DCHECK(head_ == nullptr);
    head_ = tail_ = n;
  } else if (after) {
    n->prev = at;
    n->next = at->next;
    if (at->next)
      at->next->prev = n;
    else
      tail_ = n;
    at->next = n;
  } else {
    n->next = at;
    n->prev = at->prev;
    if (at->prev)
      at->prev->next = n;
    else
      head_ = n;
    at->prev = n;
  }
  len_++;
}

void Quicklist::unlink_free(Node* n) {
  if (n->prev)
    n->prev->next = n->next;
  else
    head_ = n->next;
  if (n->next)
    n->next->prev = n->prev;
  else
    tail_ = n->prev;
  len_--;
  count_ -= n->count;
  std::free(n->data);
  delete n;
}

void Quicklist::delete_node(Node* n) {
  unlink_free(n);
  compress_around(nullptr);  // nodes that moved inside the depth get decompressed
}

bool Quicklist::allow_insert(const Node* n, size_t len) const {
  if (n == nullptr || n->plain || quicklist_is_large_element(len, fill_)) return false;
  // Over-estimates the entry's encoded size so a node never ends a few bytes over the limit.
  return !quicklist_exceeds_limit(fill_, n->sz + len + kNodeEstimateOverhead, n->count + 1);
}

bool Quicklist::allow_merge(const Node* a, const Node* b) const {
  if (a == nullptr || b == nullptr || a->plain || b->plain) return false;
  return !quicklist_exceeds_limit(fill_, a->sz + b->sz - kLpEmptyBytes, a->count + b->count);
}

// Appends b's entries to a and frees b. Returns a.
Quicklist::Node* Quicklist::merge(Node* a, Node* b) {
  decompress_node(a);
  decompress_node(b);
  {
    NodeLp<Node> la(a);
    Listpack lb = Listpack::adopt(b->data);
    la->append_listpack(lb);
    b->data = lb.release();
  }
  a->count += b->count;
  b->count = 0;  // its elements now live in a
  unlink_free(b);
  return a;
}

// Splits n after its first k entries (0 < k < count); returns the new node holding the rest.
Quicklist::Node* Quicklist::split(Node* n, size_t k) {
  KEEL_DCHECK(k > 0 && k < n->count);
  decompress_node(n);
  Node* m = new Node;
  {
    NodeLp<Node> lp(n);
    Listpack rest = lp->clone();
    rest.erase_range(0, k);
    lp->erase_range(static_cast<long>(k), n->count - k);
    m->sz = rest.bytes();
    m->data = rest.release();
  }
  m->count = static_cast<uint32_t>(n->count - k);
  n->count = static_cast<uint32_t>(k);
  link(n, m, true);
  return m;
}

void Quicklist::node_insert(Node* n, LpPos pos, std::string_view v, LpWhere where) {
  NodeLp<Node> lp(n);
  lp->insert(pos, v, where);
  n->count++;
}

// ---------------------------------------------------------------------------------------------
// Compression

void Quicklist::ensure_raw(Node* n) {
  if (n->compressed) {
    decompress_node(n);
    n->recompress = true;
  }
}

void Quicklist::decompress_node(Node* n) {
  n->recompress = false;
  if (!n->compressed) return;
  uint8_t* raw = xmalloc(n->sz);
  const unsigned got = lzf_decompress(n->data, n->lzf_sz, raw, static_cast<unsigned>(n->sz));
  KEEL_ASSERT(got == n->sz);
  std::free(n->data);
  n->data = raw;
  n->compressed = false;
}

void Quicklist::compress_node(Node* n) {
  n->recompress = false;
  if (n->compressed || n->sz < kQuicklistMinCompressBytes || n->sz > UINT_MAX) return;
  uint8_t* out = xmalloc(n->sz);
  const unsigned got =
      lzf_compress(n->data, static_cast<unsigned>(n->sz), out, static_cast<unsigned>(n->sz));
  // Redis keeps the raw node when compression fails or saves 8 bytes or less.
  if (got == 0 || got + kQuicklistMinCompressImprove >= n->sz) {
    std::free(out);
    return;
  }
  auto* shrunk = static_cast<uint8_t*>(std::realloc(out, got));
  std::free(n->data);
  n->data = shrunk != nullptr ? shrunk : out;
  n->lzf_sz = got;
  n->compressed = true;
}

// Makes the `depth` nodes at each end raw and compresses the nodes just past them, plus `n`
// if it lies past them too. `wide` also compresses the second node past each boundary (for
// callers that added two nodes at once).
void Quicklist::compress_around(Node* n, bool wide) {
  if (depth_ == 0) return;
  if (len_ < 2 * static_cast<size_t>(depth_)) {
    // Every node is within the depth. Usually none is compressed, but a range delete can
    // remove many nodes at once, so make sure (at most 2 * depth nodes).
    for (Node* x = head_; x != nullptr; x = x->next) decompress_node(x);
    return;
  }
  Node* fwd = head_;
  Node* rev = tail_;
  bool in_depth = false;
  for (int i = 0; i < depth_; i++) {
    decompress_node(fwd);
    decompress_node(rev);
    if (fwd == n || rev == n) in_depth = true;
    if (fwd == rev || fwd->next == rev) return;  // the two ends met: nothing is inner
    fwd = fwd->next;
    rev = rev->prev;
  }
  if (n != nullptr && !in_depth) compress_node(n);
  compress_node(fwd);
  compress_node(rev);
  if (wide && fwd != rev) {  // fwd is at index depth, rev at len-1-depth: their inner sides
    compress_node(fwd->next);
    compress_node(rev->prev);
  }
}

void Quicklist::release_node(Node* n) {
  if (n->recompress) {
    n->recompress = false;
    compress_around(n);
  }
}

// ---------------------------------------------------------------------------------------------
// Ends

void Quicklist::push(End end, std::string_view v) {
  const bool head = end == End::kHead;
  Node* e = head ? head_ : tail_;
  if (e != nullptr) decompress_node(e);  // ends are raw already; this is a cheap check
  if (allow_insert(e, v.size())) {
    NodeLp<Node> lp(e);
    if (head)
      lp->prepend(v);
    else
      lp->append(v);
    e->count++;
  } else {
    link(e, new_node(v), !head);
    compress_around(e);
  }
  count_++;
}

bool Quicklist::pop(End end, std::string* out) {
  Node* e = end == End::kHead ? head_ : tail_;
  if (e == nullptr) return false;
  decompress_node(e);
  if (e->plain) {
    if (out) out->assign(reinterpret_cast<const char*>(e->data), e->sz);
    delete_node(e);
    return true;
  }
  {
    NodeLp<Node> lp(e);
    const LpPos p = end == End::kHead ? lp->first() : lp->last();
    if (out) {
      char buf[kLpIntBufSize];
      out->assign(lp->get(p).str(buf));
    }
    lp->erase(p);
  }
  e->count--;
  count_--;
  if (e->count == 0) delete_node(e);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Iteration

Quicklist::Iterator& Quicklist::Iterator::operator=(Iterator&& o) noexcept {
  if (this != &o) {
    reset();
    ql_ = o.ql_;
    node_ = o.node_;
    pos_ = o.pos_;
    forward_ = o.forward_;
    o.node_ = nullptr;
  }
  return *this;
}

void Quicklist::Iterator::reset() {
  if (node_ != nullptr) ql_->release_node(node_);
  node_ = nullptr;
}

void Quicklist::Iterator::move_to_node(Node* n) {
  node_ = n;
  if (n == nullptr) return;
  ql_->ensure_raw(n);
  if (n->plain) {
    pos_ = kLpNone;
    return;
  }
  NodeLp<Node> lp(n);
  pos_ = forward_ ? lp->first() : lp->last();
}

LpEntry Quicklist::Iterator::entry() {
  KEEL_DCHECK(node_ != nullptr);
  ql_->ensure_raw(node_);
  if (node_->plain) {
    LpEntry e;
    e.sval = std::string_view(reinterpret_cast<const char*>(node_->data), node_->sz);
    return e;
  }
  NodeLp<Node> lp(node_);
  return lp->get(pos_);
}

void Quicklist::Iterator::next() {
  KEEL_DCHECK(node_ != nullptr);
  ql_->ensure_raw(node_);
  if (!node_->plain) {
    NodeLp<Node> lp(node_);
    const LpPos p = forward_ ? lp->next(pos_) : lp->prev(pos_);
    if (p != kLpNone) {
      pos_ = p;
      return;
    }
  }
  Node* old = node_;
  Node* nn = forward_ ? old->next : old->prev;
  ql_->release_node(old);
  move_to_node(nn);
}

void Quicklist::Iterator::erase() {
  KEEL_DCHECK(node_ != nullptr);
  Quicklist* q = ql_;
  Node* n = node_;
  q->ensure_raw(n);
  if (n->plain || n->count == 1) {
    Node* nn = forward_ ? n->next : n->prev;
    node_ = nullptr;
    q->delete_node(n);
    move_to_node(nn);
    return;
  }
  LpPos np;
  {
    NodeLp<Node> lp(n);
    if (forward_) {
      np = lp->erase(pos_);  // the following entry now starts where the erased one did
    } else {
      np = lp->prev(pos_);  // unaffected by erasing bytes after it
      lp->erase(pos_);
    }
  }
  n->count--;
  q->count_--;
  if (np != kLpNone) {
    pos_ = np;
    return;
  }
  Node* nn = forward_ ? n->next : n->prev;
  q->release_node(n);
  move_to_node(nn);
}

Quicklist::Iterator Quicklist::begin(End from) {
  Iterator it;
  it.ql_ = this;
  it.forward_ = from == End::kHead;
  it.move_to_node(from == End::kHead ? head_ : tail_);
  return it;
}

Quicklist::Node* Quicklist::locate(long index, size_t* offset) const {
  const long n = static_cast<long>(count_);
  if (index < 0) index += n;
  if (index < 0 || index >= n) return nullptr;
  size_t idx = static_cast<size_t>(index);
  if (idx < count_ / 2) {
    for (Node* node = head_; node != nullptr; node = node->next) {
      if (idx < node->count) {
        *offset = idx;
        return node;
      }
      idx -= node->count;
    }
  } else {
    size_t from_end = count_ - 1 - idx;
    for (Node* node = tail_; node != nullptr; node = node->prev) {
      if (from_end < node->count) {
        *offset = node->count - 1 - from_end;
        return node;
      }
      from_end -= node->count;
    }
  }
  KEEL_ASSERT(false && "quicklist: counts out of sync");
  return nullptr;
}

Quicklist::Iterator Quicklist::at(long index, bool forward) {
  Iterator it;
  it.ql_ = this;
  it.forward_ = forward;
  size_t off = 0;
  Node* n = locate(index, &off);
  if (n == nullptr) return it;
  it.node_ = n;
  ensure_raw(n);
  if (!n->plain) {
    NodeLp<Node> lp(n);
    it.pos_ = lp->seek(static_cast<long>(off));
  }
  return it;
}

// ---------------------------------------------------------------------------------------------
// Middle mutations

void Quicklist::insert(Iterator& it, std::string_view v, LpWhere where) {
  Node* n = it.node_;
  KEEL_ASSERT(n != nullptr && it.ql_ == this);
  const LpPos pos = it.pos_;
  it.node_ = nullptr;  // invalid from here on; compression is settled below
  decompress_node(n);
  const bool after = where == LpWhere::kAfter;
  bool at_tail = after;
  bool at_head = !after;
  size_t idx = 0;  // index of `pos` inside n
  if (!n->plain) {
    NodeLp<Node> lp(n);
    at_tail = after && lp->next(pos) == kLpNone;
    at_head = !after && lp->prev(pos) == kLpNone;
    for (LpPos p = lp->first(); p != pos; p = lp->next(p)) idx++;
  }
  const size_t k = idx + (after ? 1 : 0);  // split point if one is needed
  Node* touched[3] = {n, nullptr, nullptr};

  if (quicklist_is_large_element(v.size(), fill_)) {
    Node* m = new_node(v);
    if (n->plain || at_tail || at_head) {
      link(n, m, after);
    } else {
      touched[2] = split(n, k);
      link(n, m, true);
    }
    touched[1] = m;
  } else if (allow_insert(n, v.size())) {
    node_insert(n, pos, v, where);
  } else if (at_tail && allow_insert(n->next, v.size())) {
    Node* nx = n->next;
    decompress_node(nx);
    NodeLp<Node>(nx)->prepend(v);
    nx->count++;
    touched[1] = nx;
  } else if (at_head && allow_insert(n->prev, v.size())) {
    Node* pv = n->prev;
    decompress_node(pv);
    NodeLp<Node>(pv)->append(v);
    pv->count++;
    touched[1] = pv;
  } else if (at_tail || at_head) {
    Node* m = new_node(v);
    link(n, m, after);
    touched[1] = m;
  } else {
    // A full packed node, inserting in its middle: split at the insertion point, put the
    // element into whichever half takes it (else a node of its own in between), then let the
    // halves merge with their outer neighbours if they fit.
    Node* b = split(n, k);
    if (allow_insert(n, v.size())) {
      NodeLp<Node>(n)->append(v);
      n->count++;
    } else if (allow_insert(b, v.size())) {
      NodeLp<Node>(b)->prepend(v);
      b->count++;
    } else {
      touched[1] = new_node(v);
      link(n, touched[1], true);
    }
    if (allow_merge(b, b->next)) merge(b, b->next);
    if (allow_merge(n->prev, n)) n = merge(n->prev, n);
    touched[0] = n;
    touched[2] = b;
  }
  count_++;
  // Up to two nodes were added next to n, which can push two raw nodes from inside the depth
  // to just past it: settle two nodes at each boundary.
  for (Node* t : touched) {
    if (t != nullptr) compress_around(t);
  }
  compress_around(nullptr, /*wide=*/true);
}

bool Quicklist::replace_at(long index, std::string_view v) {
  size_t off = 0;
  Node* n = locate(index, &off);
  if (n == nullptr) return false;
  const bool large = quicklist_is_large_element(v.size(), fill_);
  if (!n->plain && !large) {
    decompress_node(n);
    bool done = false;
    {
      NodeLp<Node> lp(n);
      const LpPos p = lp->seek(static_cast<long>(off));
      const size_t new_sz = n->sz - lp->entry_bytes(p) + lp_entry_size_for(v);
      if (!quicklist_exceeds_limit(fill_, new_sz, n->count)) {
        lp->replace(p, v);
        done = true;
      }
    }
    compress_around(n);
    if (done) return true;
  } else if (n->plain && large) {
    decompress_node(n);
    uint8_t* d = xmalloc(v.size());
    std::memcpy(d, v.data(), v.size());
    std::free(n->data);
    n->data = d;
    n->sz = v.size();
    compress_around(n);
    return true;
  }
  // Does not fit in place (or changes between plain and packed): delete, then insert anew.
  const long idx = index < 0 ? index + static_cast<long>(count_) : index;
  erase_range(idx, 1);
  if (static_cast<size_t>(idx) < count_) {
    Iterator it = at(idx);
    insert(it, v, LpWhere::kBefore);
  } else {
    push_tail(v);
  }
  return true;
}

size_t Quicklist::erase_range(long start, size_t n) {
  if (start < 0) start += static_cast<long>(count_);
  if (n == 0 || start < 0 || static_cast<size_t>(start) >= count_) return 0;
  n = std::min(n, count_ - static_cast<size_t>(start));
  size_t off = 0;
  Node* node = locate(start, &off);
  size_t left = n;
  Node* partial[2] = {nullptr, nullptr};
  int npartial = 0;
  while (left > 0 && node != nullptr) {
    Node* next = node->next;
    if (off == 0 && left >= node->count) {
      left -= node->count;
      unlink_free(node);
    } else {
      decompress_node(node);
      const size_t k = std::min(left, node->count - off);
      {
        NodeLp<Node> lp(node);
        lp->erase_range(static_cast<long>(off), k);
      }
      node->count -= static_cast<uint32_t>(k);
      count_ -= k;
      left -= k;
      partial[npartial++] = node;  // at most the first and the last node
    }
    off = 0;
    node = next;
  }
  compress_around(nullptr);
  for (int i = 0; i < npartial; i++) compress_around(partial[i]);
  return n;
}

// ---------------------------------------------------------------------------------------------
// Conversions and RDB

bool Quicklist::can_convert_to_listpack(bool shrinking) const {
  if (len_ != 1 || head_->plain) return false;
  QuicklistLimit l = quicklist_node_limit(fill_);
  if (shrinking) {
    l.bytes /= 2;
    l.count /= 2;
  }
  return head_->sz <= l.bytes && count_ <= l.count;
}

Listpack Quicklist::take_listpack() {
  if (head_ == nullptr) return Listpack();
  KEEL_ASSERT(len_ == 1 && !head_->plain);
  decompress_node(head_);
  Listpack lp = Listpack::adopt(head_->data);
  delete head_;
  head_ = tail_ = nullptr;
  count_ = len_ = 0;
  return lp;
}

void Quicklist::append_listpack_node(Listpack&& lp) {
  const size_t c = lp.size();
  if (c == 0) return;
  Node* n = new Node;
  n->sz = lp.bytes();
  n->count = static_cast<uint32_t>(c);
  n->data = lp.release();
  Node* old = tail_;
  link(old, n, true);
  count_ += c;
  compress_around(old);
}

void Quicklist::append_plain_node(std::string_view v) {
  Node* n = new Node;
  n->plain = true;
  n->data = xmalloc(v.size());
  if (!v.empty()) std::memcpy(n->data, v.data(), v.size());
  n->sz = v.size();
  n->count = 1;
  Node* old = tail_;
  link(old, n, true);
  count_++;
  compress_around(old);
}

}  // namespace keel
