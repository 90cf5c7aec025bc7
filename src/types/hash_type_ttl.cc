// Hash-field TTLs (Redis 7.4): the listpackex encoding (field, value, ttl triplets; fields with a
// TTL first in expiry order, then the fields without one in insertion order, ttl 0 meaning none,
// byte for byte Redis's layout so RDB type 25 is a copy) and kHashtableEx (a HashDict plus the
// TTL index of HashDictEx). Plain listpack and hashtable hashes never come here: each entry
// point in hash_type.cc tests the encoding once and the TTL code stays out of their way.
#include <cstdlib>
#include <string>

#include "base/assert.h"
#include "base/hash.h"
#include "types/hash_type.h"

namespace keel {
namespace hash_detail {
HashEntry* new_entry(std::string_view field, std::string_view value);
HashEntry* assign_value(HashEntry* e, std::string_view value);
void convert_to_dict(Object& o, size_t extra);
}  // namespace hash_detail

void HashDictEx::set_ttl(const HashEntry* e, int64_t ms) {
  auto it = ttl.find(e);
  if (it != ttl.end()) {
    if (it->second == ms) return;
    by_time.erase({it->second, e});
    if (ms == 0) {
      ttl.erase(it);
      return;
    }
    it->second = ms;
  } else {
    if (ms == 0) return;
    ttl.emplace(e, ms);
  }
  by_time.emplace(ms, e);
}

void HashDictEx::moved(const HashEntry* from, const HashEntry* to) {
  auto it = ttl.find(from);
  if (it == ttl.end()) return;
  const int64_t ms = it->second;
  ttl.erase(it);
  by_time.erase({ms, from});
  ttl.emplace(to, ms);
  by_time.emplace(ms, to);
}

namespace {

LpPos lpx_find(const Listpack& lp, std::string_view field) { return lp.find(field, lp.first(), 2); }

// Inserts a triplet where it belongs: a field with a TTL before the first field that expires
// later or has no TTL; a field without TTL at the end (Redis's order).
void lpx_insert(Listpack& lp, std::string_view field, std::string_view value, int64_t ttl) {
  LpPos before = kLpNone;
  if (ttl != 0) {
    for (LpPos p = lp.first(); p != kLpNone;) {
      const LpPos t = lp.next(lp.next(p));
      const int64_t x = lp.get(t).ival;
      if (x == 0 || x > ttl) {
        before = p;
        break;
      }
      p = lp.next(t);
    }
  }
  if (before == kLpNone) {
    lp.append(field);
    lp.append(value);
    lp.append_int(ttl);
    return;
  }
  LpPos p = lp.insert(before, field, LpWhere::kBefore);
  p = lp.insert(p, value, LpWhere::kAfter);
  lp.insert_int(p, ttl, LpWhere::kAfter);
}

bool too_long(std::string_view s, const EncodingLimits& lim) {
  return static_cast<int64_t>(s.size()) > lim.hash_max_listpack_value;
}

}  // namespace

void HashType::enable_field_ttls(Object& o) {
  if (o.encoding() == Encoding::kListpack) {
    Listpack out;
    {
      LpView lp(o);
      HashScratch s;
      for (LpPos p = lp->first(); p != kLpNone;) {
        const LpPos v = lp->next(p);
        out.append(lp->get(p).str(s.field));
        out.append(lp->get(v).str(s.value));
        out.append_int(0);
        p = lp->next(v);
      }
    }
    std::free(o.ptr());
    o.set_ptr(out.release());
    o.set_encoding(Encoding::kListpackEx);
  } else if (o.encoding() == Encoding::kHashtable) {
    auto* old = static_cast<HashDict*>(o.ptr());
    auto* d = new HashDictEx();
    static_cast<HashDict&>(*d) = std::move(*old);
    delete old;
    o.set_ptr(d);
    o.set_encoding(Encoding::kHashtableEx);
  }
}

bool HashType::get_with_ttl(const Object& o, std::string_view field, HashScratch& scratch,
                            std::string_view* value, int64_t* ttl) {
  *ttl = 0;
  if (o.encoding() == Encoding::kListpackEx) {
    LpView lp(o);
    const LpPos p = lpx_find(*lp, field);
    if (p == kLpNone) return false;
    const LpPos v = lp->next(p);
    *value = lp->get(v).str(scratch.value);
    *ttl = lp->get(lp->next(v)).ival;
    return true;
  }
  if (o.encoding() == Encoding::kHashtableEx) {
    const HashDictEx& d = hash_detail::dict_ex_of(o);
    const HashEntry* e = d.find(field, hash_key(field));
    if (e == nullptr) return false;
    *value = e->value();
    *ttl = d.ttl_of(e);
    return true;
  }
  return get(o, field, scratch, value);
}

bool HashType::set_field_ttl(Object& o, std::string_view field, int64_t ms) {
  if (o.encoding() == Encoding::kListpackEx) {
    LpEdit lp(o);
    const LpPos p = lpx_find(*lp, field);
    if (p == kLpNone) return false;
    const LpPos v = lp->next(p);
    if (lp->get(lp->next(v)).ival == ms) return true;
    // Moves the triplet to its new place in expiry order (the views are copied first).
    HashScratch s;
    const std::string f(lp->get(p).str(s.field));
    const std::string val(lp->get(v).str(s.value));
    lp->erase_at(p, 3);
    lpx_insert(*lp, f, val, ms);
    return true;
  }
  KEEL_DCHECK(o.encoding() == Encoding::kHashtableEx);
  auto& d = *static_cast<HashDictEx*>(o.ptr());
  const HashEntry* e = d.find(field, hash_key(field));
  if (e == nullptr) return false;
  d.set_ttl(e, ms);
  return true;
}

bool HashType::set_keep_ttl(Object& o, std::string_view field, std::string_view value,
                            const EncodingLimits& lim) {
  if (!has_field_ttls(o)) return set(o, field, value, lim);
  return set_ex(o, field, value, lim, /*keep_ttl=*/true);
}

bool HashType::set_ex(Object& o, std::string_view field, std::string_view value,
                      const EncodingLimits& lim, bool keep_ttl) {
  if (o.encoding() == Encoding::kListpackEx) {
    if (too_long(field, lim) || too_long(value, lim)) {
      hash_detail::convert_to_dict(o, 0);
    } else {
      bool added, convert;
      {
        LpEdit lp(o);
        const LpPos p = lpx_find(*lp, field);
        if (p != kLpNone) {
          const LpPos v = lp->next(p);
          if (keep_ttl || lp->get(lp->next(v)).ival == 0) {
            lp->replace(v, value);
          } else {
            // The TTL goes: the field moves among the fields without one, at the end.
            lp->erase_at(p, 3);
            lpx_insert(*lp, field, value, 0);
          }
          added = false;
        } else {
          lpx_insert(*lp, field, value, 0);
          added = true;
        }
        convert = static_cast<int64_t>(lp->size() / 3) > lim.hash_max_listpack_entries ||
                  lp->bytes() > kLpSafeBytes;
      }
      if (convert) hash_detail::convert_to_dict(o, 0);
      return added;
    }
  }
  auto& d = *static_cast<HashDictEx*>(o.ptr());
  HashDict::Position pos = d.find_position(field, hash_key(field));
  if (pos.found()) {
    HashEntry* e = pos.entry();
    HashEntry* n = hash_detail::assign_value(e, value);
    if (n != e) {
      pos.set(n);
      d.moved(e, n);
    }
    if (!keep_ttl) d.forget(n);
    return false;
  }
  d.insert(pos, hash_detail::new_entry(field, value));
  return true;
}

int64_t HashType::min_field_ttl(const Object& o) {
  if (o.encoding() == Encoding::kListpackEx) {
    LpView lp(o);
    const LpPos t = lp->seek(2);
    return t == kLpNone ? 0 : lp->get(t).ival;
  }
  if (o.encoding() == Encoding::kHashtableEx) {
    const HashDictEx& d = hash_detail::dict_ex_of(o);
    return d.by_time.empty() ? 0 : d.by_time.begin()->first;
  }
  return 0;
}

size_t HashType::expired_count(const Object& o, int64_t now_ms) {
  size_t n = 0;
  if (o.encoding() == Encoding::kListpackEx) {
    LpView lp(o);
    for (LpPos p = lp->first(); p != kLpNone;) {
      const LpPos t = lp->next(lp->next(p));
      const int64_t ttl = lp->get(t).ival;
      if (ttl == 0 || ttl >= now_ms) break;
      n++;
      p = lp->next(t);
    }
  } else if (o.encoding() == Encoding::kHashtableEx) {
    const HashDictEx& d = hash_detail::dict_ex_of(o);
    for (auto it = d.by_time.begin(); it != d.by_time.end() && it->first < now_ms; ++it) n++;
  }
  return n;
}

void HashType::lpx_erase_first(Object& o, size_t n) {
  LpEdit lp(o);
  lp->erase_at(lp->first(), 3 * n);
}

void HashType::dict_ex_erase(Object& o, const HashEntry* e) {
  auto& d = *static_cast<HashDictEx*>(o.ptr());
  d.forget(e);
  HashEntry* x = d.erase(e->field(), hash_key(e->field()));
  KEEL_ASSERT(x == e);
  std::free(x);
}

}  // namespace keel
