// Stream: entries in listpack nodes under a radix tree (layout in stream.h).
#include "ds/stream.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/assert.h"
#include "base/memory.h"
#include "base/numbers.h"

namespace keel {
namespace {

std::string_view key_view(const uint8_t* k) { return {reinterpret_cast<const char*>(k), 16}; }

// An integer element (Redis's lpGetInteger: integers may also be stored as digits).
int64_t lp_int(const Listpack& lp, LpPos p) {
  const LpEntry e = lp.get(p);
  if (e.is_int) return e.ival;
  int64_t v = 0;
  (void)parse_int64(e.sval, &v);
  return v;
}

LpPos skip(const Listpack& lp, LpPos p, int64_t n) {
  while (n-- > 0 && p != kLpNone) p = lp.next(p);
  return p;
}

// Replaces the integer at p and returns by how many bytes the blob grew (positions after p
// shift by that much).
long replace_int(Listpack& lp, LpPos p, int64_t v) {
  const size_t before = lp.bytes();
  lp.replace_int(p, v);
  return static_cast<long>(lp.bytes()) - static_cast<long>(before);
}

void free_listpack(void* p) { free(p); }

bool parse_u64_like_redis(std::string_view s, uint64_t* out) {
  // Up to 19 plain digits (leading zeros too, which string2ll refuses: redis-benchmark's
  // __rand_int__ is zero-padded) are what strtoull would read, and cannot overflow.
  if (!s.empty() && s.size() <= 19) {
    uint64_t v = 0;
    size_t i = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; i++) v = v * 10 + static_cast<uint64_t>(s[i] - '0');
    if (i == s.size()) {
      *out = v;
      return true;
    }
  }
  int64_t ll;
  if (parse_int64(s, &ll)) {
    if (ll < 0) return false;
    *out = static_cast<uint64_t>(ll);
    return true;
  }
  char buf[128];
  if (s.empty() || s.size() >= sizeof(buf) || memchr(s.data(), 0, s.size())) return false;
  memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = strtoull(buf, &end, 10);
  if (errno == EINVAL || errno == ERANGE || *end != '\0') return false;
  *out = v;
  return true;
}

}  // namespace

// ---- StreamID ----------------------------------------------------------------------------------

void StreamID::encode(uint8_t* out) const {
  for (int i = 0; i < 8; i++) out[i] = static_cast<uint8_t>(ms >> (56 - 8 * i));
  for (int i = 0; i < 8; i++) out[8 + i] = static_cast<uint8_t>(seq >> (56 - 8 * i));
}

StreamID StreamID::decode(const uint8_t* in) {
  StreamID id;
  for (int i = 0; i < 8; i++) id.ms = (id.ms << 8) | in[i];
  for (int i = 0; i < 8; i++) id.seq = (id.seq << 8) | in[8 + i];
  return id;
}

bool StreamID::incr() {
  if (seq == UINT64_MAX) {
    if (ms == UINT64_MAX) return false;
    ms++;
    seq = 0;
  } else {
    seq++;
  }
  return true;
}

bool StreamID::decr() {
  if (seq == 0) {
    if (ms == 0) return false;
    ms--;
    seq = UINT64_MAX;
  } else {
    seq--;
  }
  return true;
}

size_t StreamID::format(char* buf) const {
  // "<ms>-<seq>" (at most 41 bytes and a NUL); every reply of an ID comes here, so no printf.
  size_t n = format_uint64(ms, buf);
  buf[n++] = '-';
  n += format_uint64(seq, buf + n);
  buf[n] = '\0';
  return n;
}

bool stream_parse_id(std::string_view s, uint64_t missing_seq, StreamID* out, bool* seq_given) {
  if (s.size() > 127) return false;
  if (seq_given) *seq_given = true;
  const size_t dash = s.find('-');
  if (dash == std::string_view::npos) {
    if (!parse_u64_like_redis(s, &out->ms)) return false;
    out->seq = missing_seq;
    return true;
  }
  if (!parse_u64_like_redis(s.substr(0, dash), &out->ms)) return false;
  const std::string_view rest = s.substr(dash + 1);
  if (seq_given && rest == "*") {
    *seq_given = false;
    out->seq = 0;
    return true;
  }
  return parse_u64_like_redis(rest, &out->seq);
}

// ---- groups ------------------------------------------------------------------------------------

StreamCG::~StreamCG() {
  for (auto& [id, nack] : pel) delete nack;
  for (auto& [name, c] : consumers) delete c;
}

StreamConsumer* stream_find_consumer(StreamCG& g, std::string_view name) {
  auto it = g.consumers.find(name);
  return it == g.consumers.end() ? nullptr : it->second;
}

StreamConsumer* stream_create_consumer(StreamCG& g, std::string_view name, int64_t now_ms) {
  if (stream_find_consumer(g, name)) return nullptr;
  auto* c = new StreamConsumer;
  c->name = std::string(name);
  c->seen_time = now_ms;
  c->active_time = -1;
  g.consumers.emplace(c->name, c);
  return c;
}

size_t stream_delete_consumer(StreamCG& g, std::string_view name) {
  auto it = g.consumers.find(name);
  if (it == g.consumers.end()) return 0;
  StreamConsumer* c = it->second;
  const size_t pending = c->pel.size();
  for (auto& [id, nack] : c->pel) {
    g.pel.erase(id);
    delete nack;
  }
  g.consumers.erase(it);
  delete c;
  return pending;
}

// ---- Stream ------------------------------------------------------------------------------------

Stream::~Stream() {
  rax.clear(free_listpack);
  if (cgroups) {
    for (auto& [name, g] : *cgroups) delete g;
    delete cgroups;
  }
}

Stream* Stream::deep_copy() const {
  auto* s = new Stream;
  rax.for_each([&](std::string_view k, void* v) {
    ListpackView lv(v);
    const Listpack& lp = *lv;
    s->rax.insert(k, Listpack::copy_of(lp.data(), lp.bytes()).release());
  });
  s->length = length;
  s->last_id = last_id;
  s->first_id = first_id;
  s->max_deleted_id = max_deleted_id;
  s->entries_added = entries_added;
  if (cgroups) {
    s->cgroups = new StreamGroups;
    for (auto& [name, g] : *cgroups) {
      auto* ng = new StreamCG;
      ng->last_id = g->last_id;
      ng->entries_read = g->entries_read;
      for (auto& [id, nack] : g->pel) ng->pel.emplace(id, new StreamNack(*nack));
      for (auto& [cname, c] : g->consumers) {
        auto* nc = new StreamConsumer;
        nc->name = c->name;
        nc->seen_time = c->seen_time;
        nc->active_time = c->active_time;
        for (auto& [id, nack] : c->pel) {
          StreamNack* n = ng->pel.at(id);
          n->consumer = nc;
          nc->pel.emplace(id, n);
        }
        ng->consumers.emplace(nc->name, nc);
      }
      s->cgroups->emplace(name, ng);
    }
  }
  return s;
}

void Stream::append(StreamID id, std::span<const std::string_view> fv, const StreamLimits& lim) {
  const int64_t numfields = static_cast<int64_t>(fv.size() / 2);
  uint8_t key[Rax::kMaxKey];
  size_t klen = 0;
  // The tail node's value slot: the grown blob is stored back through it (one walk per XADD).
  void** tail_slot = rax.last_slot(key, &klen);
  auto* tail = tail_slot ? static_cast<uint8_t*>(*tail_slot) : nullptr;
  size_t totelelen = 0;
  for (std::string_view a : fv) totelelen += a.size();
  if (tail) {
    ListpackView lv(tail);
    const Listpack& lp = *lv;
    size_t max_bytes = static_cast<size_t>(lim.node_max_bytes);
    if (lim.node_max_bytes <= 0 || max_bytes > kStreamListpackMaxSize) max_bytes = kStreamListpackMaxSize;
    if (lp.bytes() + totelelen >= max_bytes) {
      tail = nullptr;
    } else if (lim.node_max_entries > 0) {
      const LpPos p = lp.first();
      const int64_t count = lp_int(lp, p) + lp_int(lp, lp.next(p));
      if (count >= lim.node_max_entries) tail = nullptr;
    }
  }

  int flags = kStreamFlagNone;
  StreamID master;
  Listpack lp;
  if (!tail) {
    master = id;
    id.encode(key);
    lp.append_int(1);
    lp.append_int(0);
    lp.append_int(numfields);
    for (int64_t i = 0; i < numfields; i++) lp.append(fv[2 * i]);
    lp.append_int(0);
    flags = kStreamFlagSameFields;
  } else {
    master = StreamID::decode(key);
    lp = Listpack::adopt(tail);
    LpPos p = lp.first();
    lp.replace_int(p, lp_int(lp, p) + 1);
    p = lp.next(lp.next(p));
    const int64_t master_fields = lp_int(lp, p);
    if (master_fields == numfields) {
      int64_t i = 0;
      for (p = lp.next(p); i < numfields; i++, p = lp.next(p)) {
        const LpEntry e = lp.get(p);
        char buf[kLpIntBufSize];
        if (e.str(buf) != fv[2 * i]) break;
      }
      if (i == numfields) flags = kStreamFlagSameFields;
    }
  }
  // The entry in one append: numbers formatted here are stored as integers by append_all.
  // (On the stack for up to 12 pairs: no allocation per XADD besides the node's own growth.)
  char nb[5][kInt64BufSize];
  std::string_view local[32];
  std::vector<std::string_view> heap;
  const size_t need = fv.size() + 5;
  std::string_view* items = local;
  if (need > 32) {
    heap.resize(need);
    items = heap.data();
  }
  size_t n = 0;
  auto num = [&](int slot, int64_t v) { items[n++] = std::string_view(nb[slot], format_int64(v, nb[slot])); };
  num(0, flags);
  num(1, static_cast<int64_t>(id.ms - master.ms));
  num(2, static_cast<int64_t>(id.seq - master.seq));
  const bool same = flags & kStreamFlagSameFields;
  if (!same) num(4, numfields);
  for (int64_t i = 0; i < numfields; i++) {
    if (!same) items[n++] = fv[2 * i];
    items[n++] = fv[2 * i + 1];
  }
  const int64_t lp_count = same ? numfields + 3 : 2 * numfields + 4;
  num(3, lp_count);
  lp.append_all(std::span<const std::string_view>(items, n));
  if (tail) {
    *tail_slot = lp.release();
  } else {
    rax.insert(key_view(key), lp.release());
  }
  if (length == 0) first_id = id;
  length++;
  entries_added++;
  last_id = id;
}

int64_t Stream::trim(const StreamTrimArgs& a) {
  if (a.strategy == StreamTrimStrategy::kNone) return 0;
  int64_t deleted = 0;
  uint8_t key[Rax::kMaxKey];
  size_t klen = 0;
  void* v = rax.first(key, &klen);
  while (v) {
    if (a.strategy == StreamTrimStrategy::kMaxLen && length <= a.maxlen) break;
    Listpack lp = Listpack::adopt(static_cast<uint8_t*>(v));
    LpPos p = lp.first();
    const int64_t entries = lp_int(lp, p);
    if (a.limit && deleted + entries > a.limit) {
      (void)lp.release();
      break;
    }
    const StreamID master = StreamID::decode(key);
    bool remove_node;
    if (a.strategy == StreamTrimStrategy::kMaxLen) {
      remove_node = length - static_cast<uint64_t>(entries) >= a.maxlen;
    } else {
      // The node's last entry (live or not) decides.
      const LpPos lc = lp.last();
      const LpPos fl = [&] {
        LpPos q = lc;
        for (int64_t n = lp_int(lp, lc); n > 0; n--) q = lp.prev(q);
        return q;
      }();
      const LpPos msp = lp.next(fl);
      StreamID last{master.ms + static_cast<uint64_t>(lp_int(lp, msp)),
                    master.seq + static_cast<uint64_t>(lp_int(lp, lp.next(msp)))};
      remove_node = last < a.minid;
    }
    if (remove_node) {
      rax.remove(key_view(key));
      length -= static_cast<uint64_t>(entries);
      deleted += entries;
      uint8_t prev[16];  // seek's output must not alias its input
      memcpy(prev, key, 16);
      v = rax.seek(Rax::Seek::kGT, key_view(prev), key, &klen);
      continue;  // lp frees the blob
    }
    if (a.approx) {
      (void)lp.release();
      break;
    }
    // Flag entries of this node until the condition holds.
    int64_t deleted_here = 0;
    p = lp.next(lp.next(p));
    const int64_t master_fields = lp_int(lp, p);
    p = skip(lp, p, master_fields + 2);  // fields, then the master terminator
    while (p != kLpNone) {
      const LpPos flags_pos = p;
      int64_t flags = lp_int(lp, p);
      p = lp.next(p);
      const StreamID cur{master.ms + static_cast<uint64_t>(lp_int(lp, p)),
                         master.seq + static_cast<uint64_t>(lp_int(lp, lp.next(p)))};
      p = lp.next(lp.next(p));
      const bool stop = a.strategy == StreamTrimStrategy::kMaxLen ? length <= a.maxlen : cur >= a.minid;
      if (stop) break;
      int64_t to_skip;
      if (flags & kStreamFlagSameFields) {
        to_skip = master_fields;
      } else {
        to_skip = lp_int(lp, p) * 2;
        p = lp.next(p);
      }
      p = skip(lp, p, to_skip + 1);  // values (and fields), then lp-count
      if (!(flags & kStreamFlagDeleted)) {
        flags |= kStreamFlagDeleted;
        lp.replace_int(flags_pos, flags);  // 0..3: same one-byte size, positions stay
        deleted_here++;
        length--;
      }
    }
    deleted += deleted_here;
    p = lp.first();
    lp.replace_int(p, entries - deleted_here);
    p = lp.next(p);
    lp.replace_int(p, lp_int(lp, p) + deleted_here);
    rax.insert(key_view(key), lp.release());
    break;
  }
  if (length) {
    first_entry_id(&first_id);
  } else {
    first_id = StreamID{};
  }
  return deleted;
}

bool Stream::remove(StreamID id) {
  StreamIterator it(*this, id, id, false);
  StreamID got;
  int64_t nf;
  if (!it.next(&got, &nf)) return false;
  it.remove_current();
  return true;
}

bool Stream::first_entry_id(StreamID* out) const {
  StreamIterator it(const_cast<Stream&>(*this), StreamID{}, StreamID::max(), false);
  int64_t nf;
  return it.next(out, &nf);
}

bool Stream::last_entry_id(StreamID* out) const {
  StreamIterator it(const_cast<Stream&>(*this), StreamID{}, StreamID::max(), true);
  int64_t nf;
  return it.next(out, &nf);
}

bool Stream::first_raw_id(StreamID* out) const {
  uint8_t key[Rax::kMaxKey];
  size_t klen;
  void* v = rax.first(key, &klen);
  if (!v) return false;
  ListpackView lv(v);
  const Listpack& lp = *lv;
  LpPos p = lp.first();
  p = lp.next(lp.next(p));
  p = skip(lp, p, lp_int(lp, p) + 2);  // master fields and terminator: p is the first flags
  if (p == kLpNone) return false;
  p = lp.next(p);
  const StreamID master = StreamID::decode(key);
  *out = StreamID{master.ms + static_cast<uint64_t>(lp_int(lp, p)),
                  master.seq + static_cast<uint64_t>(lp_int(lp, lp.next(p)))};
  return true;
}

StreamCG* Stream::find_group(std::string_view name) const {
  if (!cgroups) return nullptr;
  auto it = cgroups->find(name);
  return it == cgroups->end() ? nullptr : it->second;
}

StreamCG* Stream::create_group(std::string_view name, StreamID id, int64_t entries_read) {
  if (!cgroups) cgroups = new StreamGroups;
  if (cgroups->find(name) != cgroups->end()) return nullptr;
  auto* g = new StreamCG;
  g->last_id = id;
  g->entries_read = entries_read;
  cgroups->emplace(std::string(name), g);
  return g;
}

bool Stream::destroy_group(std::string_view name) {
  if (!cgroups) return false;
  auto it = cgroups->find(name);
  if (it == cgroups->end()) return false;
  delete it->second;
  cgroups->erase(it);
  return true;
}

bool Stream::range_has_tombstones(StreamID start, StreamID end) const {
  if (length == 0 || max_deleted_id == StreamID{}) return false;
  return start <= max_deleted_id && max_deleted_id <= end;
}

bool Stream::group_lag(const StreamCG& g, int64_t* lag) const {
  if (entries_added == 0) {
    *lag = 0;
    return true;
  }
  if (g.entries_read != kStreamEntriesReadUnknown && !range_has_tombstones(g.last_id, StreamID::max())) {
    *lag = static_cast<int64_t>(entries_added) - g.entries_read;
    return true;
  }
  const int64_t read = estimate_entries_read(g.last_id);
  if (read == kStreamEntriesReadUnknown) return false;
  *lag = static_cast<int64_t>(entries_added) - read;
  return true;
}

int64_t Stream::estimate_entries_read(StreamID id) const {
  if (entries_added == 0) return 0;
  if (length == 0 && id <= last_id) return static_cast<int64_t>(entries_added);
  if (id == last_id) return static_cast<int64_t>(entries_added);
  if (id > last_id) return kStreamEntriesReadUnknown;
  if (max_deleted_id == StreamID{} || max_deleted_id < first_id) {
    if (id < first_id) return static_cast<int64_t>(entries_added - length);
    if (id == first_id) return static_cast<int64_t>(entries_added - length + 1);
  }
  return kStreamEntriesReadUnknown;
}

size_t Stream::memory_usage(size_t samples) const {
  size_t n = allocation_size(this) + rax.memory_usage();
  size_t seen = 0, bytes = 0;
  rax.for_each([&](std::string_view, void* v) {
    if (samples == 0 || seen < samples) {
      bytes += allocation_size(v);
      seen++;
    }
  });
  if (seen) n += static_cast<size_t>(static_cast<double>(bytes) / static_cast<double>(seen) *
                                     static_cast<double>(rax.size()));
  if (cgroups) {
    for (auto& [name, g] : *cgroups) {
      n += sizeof(StreamCG) + name.size() + 64;
      n += g->pel.size() * (sizeof(StreamNack) + 64);
      for (auto& [cname, c] : g->consumers) n += sizeof(StreamConsumer) + cname.size() + 64 + c->pel.size() * 48;
    }
  }
  return n;
}

bool Stream::check(std::string* why) const {
  uint64_t live = 0;
  bool ok = true;
  StreamID prev{};
  bool any = false;
  rax.for_each([&](std::string_view k, void* v) {
    if (!ok) return;
    ListpackView lv(v);
    const Listpack& lp = *lv;
    const StreamID master = StreamID::decode(reinterpret_cast<const uint8_t*>(k.data()));
    LpPos p = lp.first();
    const int64_t count = lp_int(lp, p);
    p = lp.next(p);
    const int64_t del = lp_int(lp, p);
    p = lp.next(p);
    const int64_t mf = lp_int(lp, p);
    p = skip(lp, p, mf + 2);
    int64_t c_live = 0, c_del = 0;
    while (p != kLpNone) {
      const int64_t flags = lp_int(lp, p);
      p = lp.next(p);
      const StreamID id{master.ms + static_cast<uint64_t>(lp_int(lp, p)),
                        master.seq + static_cast<uint64_t>(lp_int(lp, lp.next(p)))};
      p = lp.next(lp.next(p));
      int64_t n = mf, elems = 3 + mf;
      if (!(flags & kStreamFlagSameFields)) {
        n = lp_int(lp, p) * 2;
        p = lp.next(p);
        elems = 4 + n;
      }
      p = skip(lp, p, n);
      if (lp_int(lp, p) != elems) {
        ok = false;
        if (why) *why = "bad lp-count";
        return;
      }
      p = lp.next(p);
      if (any && id <= prev) {
        ok = false;
        if (why) *why = "IDs not ascending";
        return;
      }
      prev = id;
      any = true;
      if (id > last_id) {
        ok = false;
        if (why) *why = "entry after last_id";
        return;
      }
      if (flags & kStreamFlagDeleted) {
        c_del++;
      } else {
        c_live++;
      }
    }
    // A MINID trim may leave a node whose live entries are all gone (its last entry was
    // already deleted), as Redis does.
    if (c_live != count || c_del != del) {
      ok = false;
      if (why) *why = "node counters " + std::to_string(count) + "/" + std::to_string(c_live) + " " + std::to_string(del) + "/" + std::to_string(c_del);
      return;
    }
    live += static_cast<uint64_t>(count);
  });
  if (ok && live != length) {
    ok = false;
    if (why) *why = "length";
  }
  if (ok && !rax.check()) {
    ok = false;
    if (why) *why = "rax";
  }
  return ok;
}

// ---- StreamIterator ----------------------------------------------------------------------------

StreamIterator::StreamIterator(Stream& s, StreamID start, StreamID end, bool rev)
    : s_(s), start_(start), end_(end), rev_(rev) {}

void StreamIterator::set_node(uint8_t* blob) {
  lpv_.reset();
  lp_ = blob;
  if (blob) lpv_.emplace(blob);
}

// Finds the next node in the walk's direction (the first one on the first call) and parses its
// master entry. False when there is none.
bool StreamIterator::enter_node() {
  size_t klen;
  void* v;
  if (!started_) {
    started_ = true;
    uint8_t k[16];
    if (!rev_) {
      start_.encode(k);
      v = s_.rax.seek(Rax::Seek::kLE, key_view(k), key_, &klen);
      if (!v) v = s_.rax.seek(Rax::Seek::kGT, key_view(k), key_, &klen);
    } else {
      end_.encode(k);
      v = s_.rax.seek(Rax::Seek::kLE, key_view(k), key_, &klen);
    }
  } else {
    uint8_t k[16];
    memcpy(k, key_, 16);
    v = s_.rax.seek(rev_ ? Rax::Seek::kLT : Rax::Seek::kGT, key_view(k), key_, &klen);
  }
  if (!v) return false;
  set_node(static_cast<uint8_t*>(v));
  master_ = StreamID::decode(key_);
  if (!rev_ && master_ > end_) return false;
  const Listpack& lp = view();
  LpPos p = lp.first();
  p = lp.next(lp.next(p));
  master_fields_ = lp_int(lp, p);
  master_fields_pos_ = lp.next(p);
  master_end_ = skip(lp, p, master_fields_ + 1);
  cursor_ = rev_ ? lp.last() : lp.next(master_end_);
  return true;
}

bool StreamIterator::next(StreamID* id, int64_t* numfields) {
  for (;;) {
    if (!lp_) {
      if (!enter_node()) {
        set_node(nullptr);
        return false;
      }
    }
    const Listpack& lp = view();
    if (!rev_) {
      if (cursor_ == kLpNone) {
        set_node(nullptr);
        continue;
      }
      cur_flags_ = cursor_;
    } else {
      if (cursor_ == master_end_ || cursor_ == kLpNone) {
        set_node(nullptr);
        if (master_ < start_) return false;
        continue;
      }
      LpPos q = cursor_;
      for (int64_t n = lp_int(lp, cursor_); n > 0; n--) q = lp.prev(q);
      cur_flags_ = q;
    }
    LpPos p = cur_flags_;
    const int64_t flags = lp_int(lp, p);
    p = lp.next(p);
    const StreamID cur{master_.ms + static_cast<uint64_t>(lp_int(lp, p)),
                       master_.seq + static_cast<uint64_t>(lp_int(lp, lp.next(p)))};
    p = lp.next(lp.next(p));
    same_fields_ = flags & kStreamFlagSameFields;
    if (same_fields_) {
      numfields_ = master_fields_;
      fields_pos_ = master_fields_pos_;
      values_pos_ = p;
    } else {
      numfields_ = lp_int(lp, p);
      p = lp.next(p);
      fields_pos_ = p;
      values_pos_ = lp.next(p);
    }
    if (!rev_) {
      cursor_ = lp.next(skip(lp, p, same_fields_ ? numfields_ : 2 * numfields_));
      if (cur > end_) {
        set_node(nullptr);
        return false;
      }
      if (cur < start_) continue;
    } else {
      cursor_ = lp.prev(cur_flags_);
      if (cur < start_) {
        set_node(nullptr);
        return false;
      }
      if (cur > end_) continue;
    }
    if (flags & kStreamFlagDeleted) continue;
    *id = cur;
    *numfields = numfields_;
    return true;
  }
}

void StreamIterator::remove_current() {
  Listpack lp = Listpack::adopt(lp_);
  lpv_.reset();
  const int64_t flags = lp_int(lp, cur_flags_);
  lp.replace_int(cur_flags_, flags | kStreamFlagDeleted);
  LpPos p = lp.first();
  const int64_t count = lp_int(lp, p) - 1;
  long shift = replace_int(lp, p, count);
  p = lp.next(p);
  shift += replace_int(lp, p, lp_int(lp, p) + 1);
  s_.length--;
  if (count == 0) {
    s_.rax.remove(key_view(key_));
    lp_ = nullptr;  // lp frees the blob; the next call seeks past key_
    return;
  }
  auto move = [&](LpPos& q) {
    if (q != kLpNone) q = static_cast<LpPos>(static_cast<long>(q) + shift);
  };
  move(master_fields_pos_);
  move(master_end_);
  move(cursor_);
  move(cur_flags_);
  move(fields_pos_);
  move(values_pos_);
  uint8_t* blob = lp.release();
  s_.rax.insert(key_view(key_), blob);
  set_node(blob);
}

}  // namespace keel
