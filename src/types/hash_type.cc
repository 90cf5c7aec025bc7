// Hash encodings and conversions. listpack: field, value, field, value... in insertion order (an
// HSET of an existing field replaces its value entry in place). hashtable: a HashDict of
// HashEntry blocks (field + value in one allocation). A listpack hash converts once, when a
// field or value passes hash-max-listpack-value, when its pair count passes
// hash-max-listpack-entries (or a single command brings more pairs than that: Redis 7.4's
// up-front conversion), or when the listpack would pass 1 GB. It never converts back.
#include "types/hash_type.h"

#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unordered_set>
#include <vector>

#include "base/assert.h"
#include "base/hash.h"
#include "base/memory.h"
#include "base/numbers.h"
#include "types/memory_usage.h"

namespace keel {
namespace hash_detail {
// Shared with hash_type_ttl.cc.
HashEntry* new_entry(std::string_view field, std::string_view value);
HashEntry* assign_value(HashEntry* e, std::string_view value);
void convert_to_dict(Object& o, size_t extra);
}  // namespace hash_detail
using hash_detail::new_entry;
using hash_detail::assign_value;
using hash_detail::convert_to_dict;

namespace {

HashDict& dict(Object& o) { return *static_cast<HashDict*>(o.ptr()); }

HashEntry* checked_malloc_entry(size_t bytes) {
  void* p = std::malloc(bytes);
  KEEL_ASSERT(p != nullptr);
  return static_cast<HashEntry*>(p);
}

}  // namespace

HashEntry* hash_detail::new_entry(std::string_view field, std::string_view value) {
  HashEntry* e = checked_malloc_entry(sizeof(HashEntry) + field.size() + value.size());
  e->flen = static_cast<uint32_t>(field.size());
  e->vlen = static_cast<uint32_t>(value.size());
  if (!field.empty()) std::memcpy(e->data, field.data(), field.size());
  if (!value.empty()) std::memcpy(e->data + field.size(), value.data(), value.size());
  return e;
}

// Gives entry e the value `value`: in place when the block has room and would not be left more
// than half empty, else in a new block (returned; e is freed). `value` may not point into e.
HashEntry* hash_detail::assign_value(HashEntry* e, std::string_view value) {
  const size_t need = sizeof(HashEntry) + e->flen + value.size();
  const size_t have = malloc_usable_size(e);
  if (need <= have && (need * 2 >= have || have <= 32)) {
    if (!value.empty()) std::memcpy(e->data + e->flen, value.data(), value.size());
    e->vlen = static_cast<uint32_t>(value.size());
    return e;
  }
  HashEntry* n = new_entry(e->field(), value);
  std::free(e);
  return n;
}

namespace {
// The listpack position of `field`'s entry, or kLpNone.
LpPos lp_find_field(const Listpack& lp, std::string_view field) {
  return lp.find(field, lp.first(), 1);
}

// Converts a listpack hash to a hashtable sized for its pairs plus `extra` expected new ones.
// A listpackex becomes a kHashtableEx with the same TTLs.
}  // namespace

void hash_detail::convert_to_dict(Object& o, size_t extra) {
  if (o.encoding() == Encoding::kListpackEx) {
    auto* d = new HashDictEx();
    {
      Listpack lp = Listpack::adopt(static_cast<uint8_t*>(o.ptr()));  // freed at the end of scope
      d->reserve(lp.size() / 3 + extra);
      HashScratch s;
      for (LpPos p = lp.first(); p != kLpNone;) {
        const LpPos v = lp.next(p);
        const LpPos t = lp.next(v);
        const std::string_view f = lp.get(p).str(s.field);
        HashEntry* e = new_entry(f, lp.get(v).str(s.value));
        const bool added = d->insert(e, hash_key(f));
        KEEL_ASSERT(added);
        if (const int64_t ttl = lp.get(t).ival; ttl != 0) d->set_ttl(e, ttl);
        p = lp.next(t);
      }
    }
    o.set_ptr(d);
    o.set_encoding(Encoding::kHashtableEx);
    return;
  }
  KEEL_DCHECK(o.encoding() == Encoding::kListpack);
  auto* d = new HashDict();
  {
    Listpack lp = Listpack::adopt(static_cast<uint8_t*>(o.ptr()));  // freed at the end of scope
    d->reserve(lp.size() / 2 + extra);
    HashScratch s;
    for (LpPos p = lp.first(); p != kLpNone;) {
      const LpPos v = lp.next(p);
      const std::string_view f = lp.get(p).str(s.field);
      HashEntry* e = new_entry(f, lp.get(v).str(s.value));
      const bool added = d->insert(e, hash_key(f));
      KEEL_ASSERT(added);
      p = lp.next(v);
    }
  }
  o.set_ptr(d);
  o.set_encoding(Encoding::kHashtable);
}

namespace {
bool too_long_for_listpack(std::string_view s, const EncodingLimits& lim) {
  return static_cast<int64_t>(s.size()) > lim.hash_max_listpack_value;
}

// True when a listpack hash holds more pairs than hash-max-listpack-entries allows.
bool lp_over_entries(const Listpack& lp, const EncodingLimits& lim) {
  return static_cast<int64_t>(lp.size() / 2) > lim.hash_max_listpack_entries;
}

}  // namespace

Object* HashType::create(std::string_view key) {
  Listpack lp;
  return Object::create_collection(key, Type::kHash, Encoding::kListpack, lp.release());
}

void HashType::prepare_for(Object& o, std::span<const std::string_view> args,
                           const EncodingLimits& lim) {
  if (!is_lp(o)) return;
  const size_t pairs = args.size() / 2;
  if (static_cast<int64_t>(pairs) > lim.hash_max_listpack_entries) {
    convert_to_dict(o, pairs);
    return;
  }
  size_t sum = 0;
  for (std::string_view a : args) {
    if (too_long_for_listpack(a, lim)) {
      convert_to_dict(o, 0);
      return;
    }
    sum += a.size();
  }
  bool unsafe;
  {
    LpView lp(o);
    unsafe = lp->bytes() + sum > kLpSafeBytes;
  }
  if (unsafe) convert_to_dict(o, 0);
}

void HashType::convert_to_hashtable(Object& o, size_t size_hint) {
  if (!is_lp(o)) return;
  const size_t have = LpView(o)->size() / lp_stride(o);
  convert_to_dict(o, size_hint > have ? size_hint - have : 0);
}

size_t HashType::size(const Object& o) {
  if (o.encoding() == Encoding::kListpack) return LpView(o)->size() / 2;
  if (o.encoding() == Encoding::kListpackEx) return LpView(o)->size() / 3;
  return hash_detail::dict_of(o).size();
}

void HashType::prefetch_member(const Object& o, uint64_t member_hash, int stage) {
  if (o.encoding() == Encoding::kHashtable) {
    hash_detail::dict_of(o).prefetch_step(member_hash, stage);
  }
}

bool HashType::get(const Object& o, std::string_view field, HashScratch& scratch,
                   std::string_view* out) {
  if (o.encoding() == Encoding::kListpack) {
    LpView lp(o);
    const LpPos p = lp_find_field(*lp, field);
    if (p == kLpNone) return false;
    *out = lp->get(lp->next(p)).str(scratch.value);
    return true;
  }
  if (o.encoding() == Encoding::kListpackEx) [[unlikely]] {
    int64_t ttl;
    return get_with_ttl(o, field, scratch, out, &ttl);
  }
  const HashEntry* e = hash_detail::dict_of(o).find(field, hash_key(field));
  if (e == nullptr) return false;
  *out = e->value();
  return true;
}

bool HashType::exists(const Object& o, std::string_view field) {
  if (o.encoding() == Encoding::kListpack) {
    LpView lp(o);
    return lp_find_field(*lp, field) != kLpNone;
  }
  if (o.encoding() == Encoding::kListpackEx) [[unlikely]] {
    LpView lp(o);
    return lp->find(field, lp->first(), 2) != kLpNone;
  }
  return hash_detail::dict_of(o).find(field, hash_key(field)) != nullptr;
}

bool HashType::set(Object& o, std::string_view field, std::string_view value,
                   const EncodingLimits& lim) {
  // HSET on a TTL hash: the field loses its TTL (Redis 7.4).
  if (has_field_ttls(o)) [[unlikely]] return set_ex(o, field, value, lim, /*keep_ttl=*/false);
  if (o.encoding() == Encoding::kListpack) {
    if (too_long_for_listpack(field, lim) || too_long_for_listpack(value, lim)) {
      convert_to_dict(o, 0);
    } else {
      bool added, convert;
      {
        LpEdit lp(o);
        const LpPos p = lp_find_field(*lp, field);
        if (p != kLpNone) {
          lp->replace(lp->next(p), value);
          added = false;
        } else {
          const std::string_view pair[2] = {field, value};
          lp->append_all(pair);
          added = true;
        }
        // Checked after an update too, as Redis does: a listpack left over the limit by a later
        // CONFIG SET converts at its next write.
        convert = lp_over_entries(*lp, lim) || lp->bytes() > kLpSafeBytes;
      }
      if (convert) convert_to_dict(o, 0);
      return added;
    }
  }
  HashDict& d = dict(o);
  HashDict::Position pos = d.find_position(field, hash_key(field));
  if (pos.found()) {
    HashEntry* e = pos.entry();
    HashEntry* n = assign_value(e, value);
    if (n != e) pos.set(n);
    return false;
  }
  d.insert(pos, new_entry(field, value));
  return true;
}

bool HashType::remove(Object& o, std::string_view field) {
  if (o.encoding() == Encoding::kListpack) {
    LpEdit lp(o);
    const LpPos p = lp_find_field(*lp, field);
    if (p == kLpNone) return false;
    lp->erase_at(p, 2);
    return true;
  }
  if (o.encoding() == Encoding::kListpackEx) [[unlikely]] {
    LpEdit lp(o);
    const LpPos p = lp->find(field, lp->first(), 2);
    if (p == kLpNone) return false;
    lp->erase_at(p, 3);
    return true;
  }
  HashEntry* e = dict(o).erase(field, hash_key(field));
  if (e == nullptr) return false;
  if (o.encoding() == Encoding::kHashtableEx) [[unlikely]] static_cast<HashDictEx*>(o.ptr())->forget(e);
  std::free(e);
  return true;
}

void HashType::removals_done(Object& o) {
  if (o.encoding() == Encoding::kHashtable || o.encoding() == Encoding::kHashtableEx) {
    dict(o).shrink_if_needed();
  }
}

HashType::IncrResult HashType::incr_by(Object& o, std::string_view field, int64_t delta,
                                       int64_t* result, const EncodingLimits& lim) {
  char buf[kInt64BufSize];
  if (has_field_ttls(o)) [[unlikely]] {
    // HINCRBY keeps the field's TTL (Redis 7.4). Not a hot path: look up, then set.
    HashScratch s;
    std::string_view old;
    int64_t ttl, cur = 0;
    if (get_with_ttl(o, field, s, &old, &ttl) && !parse_int64(old, &cur)) return IncrResult::kNotNumber;
    if (__builtin_add_overflow(cur, delta, result)) return IncrResult::kOverflow;
    set_keep_ttl(o, field, std::string_view(buf, format_int64(*result, buf)), lim);
    return IncrResult::kOk;
  }
  if (o.encoding() == Encoding::kListpack) {
    LpPos vpos = kLpNone;
    int64_t cur = 0;
    {
      LpEdit lp(o);
      const LpPos p = lp_find_field(*lp, field);
      if (p != kLpNone) {
        vpos = lp->next(p);
        const LpEntry v = lp->get(vpos);
        if (v.is_int) {
          cur = v.ival;
        } else if (!parse_int64(v.sval, &cur)) {
          return IncrResult::kNotNumber;
        }
        if (__builtin_add_overflow(cur, delta, result)) return IncrResult::kOverflow;
        // Redis converts when the new value's text passes hash-max-listpack-value (possible
        // with a small setting); set() below does that.
        if (static_cast<int64_t>(format_int64(*result, buf)) <= lim.hash_max_listpack_value &&
            !lp_over_entries(*lp, lim)) {
          lp->replace_int(vpos, *result);
          return IncrResult::kOk;
        }
      }
    }
    if (vpos == kLpNone) *result = delta;
    set(o, field, std::string_view(buf, format_int64(*result, buf)), lim);
    return IncrResult::kOk;
  }
  HashDict& d = dict(o);
  HashDict::Position pos = d.find_position(field, hash_key(field));
  int64_t cur = 0;
  if (pos.found() && !parse_int64(pos.entry()->value(), &cur)) return IncrResult::kNotNumber;
  if (__builtin_add_overflow(cur, delta, result)) return IncrResult::kOverflow;
  const std::string_view text(buf, format_int64(*result, buf));
  if (pos.found()) {
    HashEntry* e = pos.entry();
    HashEntry* n = assign_value(e, text);
    if (n != e) pos.set(n);
  } else {
    d.insert(pos, new_entry(field, text));
  }
  return IncrResult::kOk;
}

HashType::IncrResult HashType::incr_by_float(Object& o, std::string_view field, long double delta,
                                             char* buf, size_t* len, const EncodingLimits& lim) {
  long double cur = 0;
  HashScratch s;
  std::string_view old;
  if (get(o, field, s, &old) && !parse_long_double(old, &cur)) return IncrResult::kNotNumber;
  const long double v = cur + delta;
  if (std::isnan(v) || std::isinf(v)) return IncrResult::kNanOrInf;
  *len = format_long_double_human(v, buf, kLongDoubleBufSize);
  // A second field lookup: HINCRBYFLOAT is not a hot path, and set() handles the conversion a
  // long result needs (Redis converts when the new text passes hash-max-listpack-value).
  // The field keeps its TTL.
  if (has_field_ttls(o)) [[unlikely]] {
    set_keep_ttl(o, field, std::string_view(buf, *len), lim);
  } else {
    set(o, field, std::string_view(buf, *len), lim);
  }
  return IncrResult::kOk;
}

void HashType::random_pair(const Object& o, HashScratch& scratch, std::string_view* field,
                           std::string_view* value) {
  if (is_lp(o)) {
    LpView lp(o);
    const unsigned stride = lp_stride(o);
    const size_t n = lp->size() / stride;
    const LpPos p = lp->seek(static_cast<long>(stride * random_bounded(n)));
    *field = lp->get(p).str(scratch.field);
    *value = lp->get(lp->next(p)).str(scratch.value);
    return;
  }
  const HashEntry* e = random_entry(hash_detail::dict_of(o));
  *field = e->field();
  *value = e->value();
}

size_t HashType::average_pair_bytes(const Object& o) {
  if (is_lp(o)) {
    LpView lp(o);
    const size_t n = std::max<size_t>(1, lp->size() / lp_stride(o));
    return lp->bytes() / n;
  }
  const HashDict& d = hash_detail::dict_of(o);
  size_t sum = 0;
  constexpr int kSamples = 16;
  for (int i = 0; i < kSamples; i++) {
    const HashEntry* e = random_entry(d);
    sum += e->flen + e->vlen;
  }
  return sum / kSamples;
}

void HashType::pair_positions(const Listpack& lp, LpPos* out, unsigned stride) {
  size_t i = 0;
  for (LpPos p = lp.first(); p != kLpNone;) {
    out[i++] = p;
    for (unsigned k = 0; k < stride && p != kLpNone; k++) p = lp.next(p);
  }
}

const HashEntry* HashType::random_entry(const HashDict& d) {
  return d.random_entry(random_u64());
}

void HashType::distinct_entries(const HashDict& d, uint64_t count, const HashEntry** out) {
  const size_t n = d.size();
  KEEL_DCHECK(count < n);
  if (count * 3 > n) {
    // Many of them: a partial Fisher-Yates shuffle of all entries.
    std::vector<const HashEntry*> all;
    all.reserve(n);
    d.for_each([&](const HashEntry* e) { all.push_back(e); });
    for (uint64_t i = 0; i < count; i++) {
      const uint64_t j = i + random_bounded(n - i);
      std::swap(all[i], all[j]);
      out[i] = all[i];
    }
    return;
  }
  // Few of them: random picks until `count` distinct ones (expected < 1.5 picks each).
  std::unordered_set<const HashEntry*> seen;
  seen.reserve(count);
  uint64_t got = 0;
  while (got < count) {
    const HashEntry* e = random_entry(d);
    if (seen.insert(e).second) out[got++] = e;
  }
}

void HashType::free_value(Encoding e, void* p) {
  if (e == Encoding::kListpack || e == Encoding::kListpackEx) {
    std::free(p);
    return;
  }
  if (e == Encoding::kHashtableEx) {
    auto* d = static_cast<HashDictEx*>(p);
    d->clear([](HashEntry* x) { std::free(x); });
    delete d;
    return;
  }
  auto* d = static_cast<HashDict*>(p);
  d->clear([](HashEntry* x) { std::free(x); });
  delete d;
}

void* HashType::copy_value(Encoding e, const void* p) {
  if (e == Encoding::kHashtableEx) {
    const auto& src = *static_cast<const HashDictEx*>(p);
    auto* d = new HashDictEx();
    d->reserve(src.size());
    src.for_each([&](const HashEntry* x) {
      HashEntry* c = new_entry(x->field(), x->value());
      d->insert(c, hash_key(c->field()));
      if (const int64_t ttl = src.ttl_of(x); ttl != 0) d->set_ttl(c, ttl);
    });
    return d;
  }
  if (e == Encoding::kListpack || e == Encoding::kListpackEx) {
    const auto* blob = static_cast<const uint8_t*>(p);
    uint32_t bytes;
    std::memcpy(&bytes, blob, 4);
    return Listpack::copy_of(blob, bytes).release();
  }
  const auto& src = *static_cast<const HashDict*>(p);
  auto* d = new HashDict();
  d->reserve(src.size());
  src.for_each([&](const HashEntry* x) {
    HashEntry* c = new_entry(x->field(), x->value());
    d->insert(c, hash_key(c->field()));
  });
  return d;
}

int64_t HashType::length(Encoding e, const void* p) {
  if (e == Encoding::kListpack || e == Encoding::kListpackEx) {
    Listpack lp = Listpack::adopt(static_cast<uint8_t*>(const_cast<void*>(p)));
    const size_t n = lp.size() / (e == Encoding::kListpackEx ? 3 : 2);
    (void)lp.release();
    return static_cast<int64_t>(n);
  }
  return static_cast<int64_t>(static_cast<const HashDict*>(p)->size());
}

// listpack: the blob; hashtable: the table, its buckets and the entries (field and value share
// one allocation).
size_t HashType::memory_usage(Encoding e, const void* p, size_t samples) {
  if (e == Encoding::kListpack || e == Encoding::kListpackEx) return allocation_size(p);
  const HashDict& d = *static_cast<const HashDict*>(p);
  size_t extra = 0;
  if (e == Encoding::kHashtableEx) {
    // The TTL index: roughly one map node and one set node per field with a TTL.
    const auto& x = *static_cast<const HashDictEx*>(p);
    extra = x.ttl.size() * (32 + 48) + x.ttl.bucket_count() * sizeof(void*);
  }
  return allocation_size(&d) + d.memory_usage() + extra +
         sampled_table_entries(d, samples, [](const HashEntry* x) { return allocation_size(x); });
}

namespace {
constexpr CollectionOps kHashOps = {&HashType::free_value, &HashType::copy_value,
                                    &HashType::length, &HashType::memory_usage};
// Registers the ops before main() runs (g_ops is constant-initialised, so order is safe).
struct HashOpsRegistrar {
  HashOpsRegistrar() { register_collection_ops(Type::kHash, &kHashOps); }
};
const HashOpsRegistrar g_hash_ops_registrar;
}  // namespace

}  // namespace keel
