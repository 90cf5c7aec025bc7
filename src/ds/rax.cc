// Rax: path-compressed radix tree (layout and invariants in rax.h).
#include "ds/rax.h"

#include <cstdlib>
#include <vector>

#include "base/assert.h"
#include "base/memory.h"

namespace keel {

struct Rax::Node {
  uint8_t has_value;
  uint8_t label_len;
  uint16_t nchild;
  uint8_t data[];  // label, edges, pad to 8 (from the node's start), [value], children

  // The pointer area starts at the first 8-byte boundary after the 4-byte header, the label
  // and the edges; it holds the value only when the node has one (a leaf of a stream's tree
  // is 4 + label + 8 bytes, not 16 + label + 8).
  static size_t ptr_offset(size_t label_len, size_t nchild) {
    return ((sizeof(Node) + label_len + nchild + 7) & ~size_t(7)) - sizeof(Node);
  }
  static size_t bytes_for(size_t label_len, size_t nchild, bool has_value) {
    return sizeof(Node) + ptr_offset(label_len, nchild) + 8 * (nchild + (has_value ? 1 : 0));
  }
  uint8_t* label() { return data; }
  uint8_t* edges() { return data + label_len; }
  void** ptrs() { return reinterpret_cast<void**>(data + ptr_offset(label_len, nchild)); }
  void*& value() { return ptrs()[0]; }  // only when has_value
  void* value_or_null() { return has_value ? value() : nullptr; }
  Node** children() { return reinterpret_cast<Node**>(ptrs() + has_value); }
  // Index of the child whose edge is c, or -1.
  int find_child(uint8_t c) {
    const uint8_t* e = edges();
    for (int k = 0; k < nchild; k++) {
      if (e[k] == c) return k;
      if (e[k] > c) break;
    }
    return -1;
  }
};
static_assert(sizeof(Rax::Node) == 4);

namespace {
using Node = Rax::Node;

Node* new_node(const uint8_t* label, size_t label_len, size_t nchild, bool has_value = false) {
  KEEL_ASSERT(label_len <= Rax::kMaxKey);
  auto* n = static_cast<Node*>(malloc(Node::bytes_for(label_len, nchild, has_value)));
  KEEL_ASSERT(n != nullptr);
  n->has_value = has_value ? 1 : 0;
  n->label_len = static_cast<uint8_t>(label_len);
  n->nchild = static_cast<uint16_t>(nchild);
  if (label_len) memcpy(n->label(), label, label_len);
  if (has_value) n->value() = nullptr;
  return n;
}

// A copy of n with another label and whether it has a value (the value, when both have one,
// and the children are kept); n is freed.
Node* rebuild(Node* n, const uint8_t* label, size_t label_len, bool has_value) {
  Node* m = new_node(label, label_len, n->nchild, has_value);
  if (has_value && n->has_value) m->value() = n->value();
  if (n->nchild) {
    memcpy(m->edges(), n->edges(), n->nchild);
    memcpy(m->children(), n->children(), sizeof(Node*) * n->nchild);
  }
  free(n);
  return m;
}

Node* relabel(Node* n, const uint8_t* label, size_t label_len) {
  return rebuild(n, label, label_len, n->has_value);
}

// A copy of n with one more child (edge c) at its sorted place; n is freed.
Node* add_child(Node* n, uint8_t c, Node* child) {
  Node* m = new_node(n->label(), n->label_len, n->nchild + 1u, n->has_value);
  if (n->has_value) m->value() = n->value();
  int at = 0;
  while (at < n->nchild && n->edges()[at] < c) at++;
  uint8_t* e = m->edges();
  Node** ch = m->children();
  for (int k = 0, d = 0; k <= n->nchild; k++) {
    if (k == at) {
      e[k] = c;
      ch[k] = child;
      continue;
    }
    e[k] = n->edges()[d];
    ch[k] = n->children()[d];
    d++;
  }
  free(n);
  return m;
}

// A copy of n without child `idx`; n is freed.
Node* remove_child(Node* n, int idx) {
  Node* m = new_node(n->label(), n->label_len, n->nchild - 1u, n->has_value);
  if (n->has_value) m->value() = n->value();
  for (int k = 0, d = 0; k < n->nchild; k++) {
    if (k == idx) continue;
    m->edges()[d] = n->edges()[k];
    m->children()[d] = n->children()[k];
    d++;
  }
  free(n);
  return m;
}

// n has no value and one child: returns the child relabelled with n's label + edge + its
// label; n is freed.
Node* merge_with_child(Node* n) {
  uint8_t buf[Rax::kMaxKey + 2];
  size_t len = n->label_len;
  memcpy(buf, n->label(), len);
  buf[len++] = n->edges()[0];
  Node* c = n->children()[0];
  memcpy(buf + len, c->label(), c->label_len);
  len += c->label_len;
  free(n);
  return relabel(c, buf, len);
}

void free_rec(Node* n, void (*free_value)(void*)) {
  for (int k = 0; k < n->nchild; k++) free_rec(n->children()[k], free_value);
  if (n->has_value && free_value) free_value(n->value());
  free(n);
}

size_t mem_rec(Node* n) {
  size_t b = allocation_size(n);
  for (int k = 0; k < n->nchild; k++) b += mem_rec(n->children()[k]);
  return b;
}

struct Out {
  uint8_t* buf;
  size_t len;
  void put(const uint8_t* p, size_t n) {
    memcpy(buf + len, p, n);
    len += n;
  }
};

void* max_below(Node* n, Out& o);
void* min_below(Node* n, Out& o);
void* minimal(Node* n, Out& o) {
  o.put(n->label(), n->label_len);
  return min_below(n, o);
}
void* maximal(Node* n, Out& o) {
  o.put(n->label(), n->label_len);
  return max_below(n, o);
}
// Smallest key at or under n, whose label is already in o.
void* min_below(Node* n, Out& o) {
  if (n->has_value) return n->value();
  if (n->nchild == 0) return nullptr;
  o.buf[o.len++] = n->edges()[0];
  return minimal(n->children()[0], o);
}
void* max_below(Node* n, Out& o) {
  if (n->nchild == 0) return n->value_or_null();
  o.buf[o.len++] = n->edges()[n->nchild - 1];
  return maximal(n->children()[n->nchild - 1], o);
}

void* seek_ge(Node* n, const uint8_t* key, size_t klen, size_t i, bool strict, Out& o) {
  const size_t start = o.len;
  o.put(n->label(), n->label_len);
  const size_t L = n->label_len, rem = klen - i, m = L < rem ? L : rem;
  size_t j = 0;
  while (j < m && n->label()[j] == key[i + j]) j++;
  if (j < m) {
    if (n->label()[j] > key[i + j]) return min_below(n, o);
    o.len = start;
    return nullptr;
  }
  if (rem < L) return min_below(n, o);  // key is a proper prefix: everything here is greater
  if (rem == L) {
    if (n->has_value && !strict) return n->value();
    if (n->nchild == 0) {
      o.len = start;
      return nullptr;
    }
    o.buf[o.len++] = n->edges()[0];
    return minimal(n->children()[0], o);
  }
  const uint8_t c = key[i + L];
  for (int k = 0; k < n->nchild; k++) {
    const uint8_t e = n->edges()[k];
    if (e < c) continue;
    o.buf[o.len++] = e;
    if (e > c) return minimal(n->children()[k], o);
    if (void* r = seek_ge(n->children()[k], key, klen, i + L + 1, strict, o)) return r;
    o.len--;
  }
  o.len = start;
  return nullptr;
}

void* seek_le(Node* n, const uint8_t* key, size_t klen, size_t i, bool strict, Out& o) {
  const size_t start = o.len;
  o.put(n->label(), n->label_len);
  const size_t L = n->label_len, rem = klen - i, m = L < rem ? L : rem;
  size_t j = 0;
  while (j < m && n->label()[j] == key[i + j]) j++;
  if (j < m) {
    if (n->label()[j] < key[i + j]) {
      if (void* r = max_below(n, o)) return r;
    }
    o.len = start;
    return nullptr;
  }
  if (rem <= L) {
    if (rem == L && n->has_value && !strict) return n->value();
    o.len = start;
    return nullptr;
  }
  const uint8_t c = key[i + L];
  for (int k = n->nchild - 1; k >= 0; k--) {
    const uint8_t e = n->edges()[k];
    if (e > c) continue;
    o.buf[o.len++] = e;
    if (e < c) return maximal(n->children()[k], o);
    if (void* r = seek_le(n->children()[k], key, klen, i + L + 1, strict, o)) return r;
    o.len--;
  }
  if (n->has_value) return n->value();
  o.len = start;
  return nullptr;
}

bool check_rec(Node* n, bool is_root, size_t depth, size_t* count, size_t* nodes) {
  (*nodes)++;
  if (n->has_value) (*count)++;
  depth += n->label_len;
  if (depth > Rax::kMaxKey) return false;
  if (!is_root && !n->has_value && n->nchild < 2) return false;
  for (int k = 0; k < n->nchild; k++) {
    if (k > 0 && n->edges()[k - 1] >= n->edges()[k]) return false;
    if (!check_rec(n->children()[k], false, depth + 1, count, nodes)) return false;
  }
  return true;
}
}  // namespace

Rax::Rax() : root_(new_node(nullptr, 0, 0)) {}
Rax::~Rax() {
  if (root_) free_rec(root_, nullptr);
}
Rax::Rax(Rax&& o) noexcept : root_(o.root_), size_(o.size_), nodes_(o.nodes_) {
  o.root_ = new_node(nullptr, 0, 0);
  o.size_ = 0;
  o.nodes_ = 1;
}
Rax& Rax::operator=(Rax&& o) noexcept {
  if (this != &o) {
    free_rec(root_, nullptr);
    root_ = o.root_;
    size_ = o.size_;
    nodes_ = o.nodes_;
    o.root_ = new_node(nullptr, 0, 0);
    o.size_ = 0;
    o.nodes_ = 1;
  }
  return *this;
}

size_t Rax::memory_usage() const { return mem_rec(root_); }

namespace {
// Redis nodes for n and below; x_is_node: the position before n's label is a Redis node (n is
// the root, or its parent branches).
size_t redis_nodes_rec(Node* n, bool x_is_node) {
  const bool y_is_node = n->has_value || n->nchild != 1;
  size_t count;
  if (n->label_len == 0) {
    count = (x_is_node || y_is_node) ? 1 : 0;
  } else {
    count = (x_is_node ? 1 : 0) + (y_is_node ? 1 : 0);
  }
  for (int k = 0; k < n->nchild; k++) count += redis_nodes_rec(n->children()[k], n->nchild >= 2);
  return count;
}
}  // namespace

size_t Rax::redis_node_count() const { return redis_nodes_rec(root_, true); }

void Rax::clear(void (*free_value)(void*)) {
  free_rec(root_, free_value);
  root_ = new_node(nullptr, 0, 0);
  size_ = 0;
  nodes_ = 1;
}

bool Rax::insert(std::string_view keysv, void* value) {
  const auto* key = reinterpret_cast<const uint8_t*>(keysv.data());
  const size_t klen = keysv.size();
  KEEL_ASSERT(klen <= kMaxKey);
  Node** link = &root_;
  size_t i = 0;
  for (;;) {
    Node* n = *link;
    const size_t L = n->label_len, rem = klen - i;
    size_t j = 0;
    while (j < L && j < rem && n->label()[j] == key[i + j]) j++;
    if (j < L) {
      // Split: n keeps the label after byte j under a new node holding label[0..j).
      Node* mid = new_node(n->label(), j, 1);
      const uint8_t edge = n->label()[j];
      uint8_t rest[kMaxKey];
      const size_t rest_len = L - j - 1;
      memcpy(rest, n->label() + j + 1, rest_len);
      mid->edges()[0] = edge;
      mid->children()[0] = relabel(n, rest, rest_len);
      *link = mid;
      nodes_++;
      n = mid;
    }
    i += n->label_len;
    if (i == klen) {
      const bool added = !n->has_value;
      if (added) {
        n = rebuild(n, n->label(), n->label_len, true);  // room for the value
        *link = n;
        size_++;
      }
      n->value() = value;
      return added;
    }
    const uint8_t c = key[i];
    const int idx = n->find_child(c);
    if (idx >= 0) {
      link = &n->children()[idx];
      i++;
      continue;
    }
    Node* leaf = new_node(key + i + 1, klen - i - 1, 0, true);
    leaf->value() = value;
    *link = add_child(n, c, leaf);
    size_++;
    nodes_++;
    return true;
  }
}

void* Rax::find(std::string_view keysv) const {
  const auto* key = reinterpret_cast<const uint8_t*>(keysv.data());
  const size_t klen = keysv.size();
  Node* n = root_;
  size_t i = 0;
  for (;;) {
    const size_t L = n->label_len;
    if (klen - i < L || memcmp(n->label(), key + i, L) != 0) return nullptr;
    i += L;
    if (i == klen) return n->value_or_null();
    const int idx = n->find_child(key[i]);
    if (idx < 0) return nullptr;
    n = n->children()[idx];
    i++;
  }
}

bool Rax::remove(std::string_view keysv, void** old) {
  const auto* key = reinterpret_cast<const uint8_t*>(keysv.data());
  const size_t klen = keysv.size();
  if (klen > kMaxKey) return false;
  Node** links[kMaxKey + 2];
  int edge_idx[kMaxKey + 2];
  int depth = 0;
  links[0] = &root_;
  edge_idx[0] = -1;
  Node* n = root_;
  size_t i = 0;
  for (;;) {
    const size_t L = n->label_len;
    if (klen - i < L || memcmp(n->label(), key + i, L) != 0) return false;
    i += L;
    if (i == klen) break;
    const int idx = n->find_child(key[i]);
    if (idx < 0) return false;
    depth++;
    links[depth] = &n->children()[idx];
    edge_idx[depth] = idx;
    n = n->children()[idx];
    i++;
  }
  if (!n->has_value) return false;
  if (old) *old = n->value();
  size_--;
  if (depth > 0 && n->nchild == 0) {
    // A leaf: unlink it from its parent, which may then need merging.
    free(n);
    nodes_--;
    Node** plink = links[depth - 1];
    Node* p = remove_child(*plink, edge_idx[depth]);
    *plink = p;
    if (!p->has_value && p->nchild == 1) {
      *plink = merge_with_child(p);
      nodes_--;
    } else if (depth - 1 == 0 && !p->has_value && p->nchild == 0 && p->label_len) {
      free(p);
      root_ = new_node(nullptr, 0, 0);
    }
    return true;
  }
  n = rebuild(n, n->label(), n->label_len, false);  // without the value's slot
  *links[depth] = n;
  // Restore the invariant: a valueless non-root node needs two children.
  if (depth == 0) {
    if (n->nchild == 1) {
      root_ = merge_with_child(n);
      nodes_--;
    } else if (n->nchild == 0 && n->label_len) {
      free(n);
      root_ = new_node(nullptr, 0, 0);
    }
    return true;
  }
  if (n->nchild == 1) {
    *links[depth] = merge_with_child(n);
    nodes_--;
  }
  return true;
}

void* Rax::seek(Seek op, std::string_view key, uint8_t* out, size_t* out_len) const {
  Out o{out, 0};
  const auto* k = reinterpret_cast<const uint8_t*>(key.data());
  void* r;
  switch (op) {
    case Seek::kGE: r = seek_ge(root_, k, key.size(), 0, false, o); break;
    case Seek::kGT: r = seek_ge(root_, k, key.size(), 0, true, o); break;
    case Seek::kLE: r = seek_le(root_, k, key.size(), 0, false, o); break;
    default: r = seek_le(root_, k, key.size(), 0, true, o); break;
  }
  *out_len = r ? o.len : 0;
  return r;
}

void* Rax::first(uint8_t* out, size_t* out_len) const {
  Out o{out, 0};
  void* r = minimal(root_, o);
  *out_len = r ? o.len : 0;
  return r;
}

void* Rax::last(uint8_t* out, size_t* out_len) const {
  Out o{out, 0};
  void* r = maximal(root_, o);
  *out_len = r ? o.len : 0;
  return r;
}

void** Rax::last_slot(uint8_t* out, size_t* out_len) {
  Node* n = root_;
  size_t len = 0;
  for (;;) {
    memcpy(out + len, n->label(), n->label_len);
    len += n->label_len;
    if (n->nchild == 0) break;
    out[len++] = n->edges()[n->nchild - 1];
    n = n->children()[n->nchild - 1];
  }
  // Only an empty tree's root ends without a value (every other leaf ends a key).
  *out_len = n->has_value ? len : 0;
  return n->has_value ? &n->value() : nullptr;
}

bool Rax::check() const {
  size_t count = 0, nodes = 0;
  if (!check_rec(root_, true, 0, &count, &nodes)) return false;
  return count == size_ && nodes == nodes_;
}

}  // namespace keel
