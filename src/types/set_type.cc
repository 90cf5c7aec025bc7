// The set type's encodings and conversions (see set_type.h for the encodings). Every rule about
// when a set changes encoding lives in this file, and each one matches what Redis 7.4 does:
//   - creation: intset if the first member is an integer and the size hint fits the intset
//     limit, else listpack if the hint fits the listpack limit, else a pre-sized hashtable;
//   - intset + integer: stays intset until the count exceeds set-max-intset-entries (capped at
//     2^30), then hashtable;
//   - intset + non-integer: listpack when the intset has fewer than set-max-listpack-entries
//     members, the new member and every integer's digits fit set-max-listpack-value; else
//     hashtable;
//   - listpack + new member: hashtable when the count would exceed set-max-listpack-entries or
//     the member is longer than set-max-listpack-value;
//   - removals never convert back; a hashtable shrinks only in after_removals().
#include "types/set_type.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/assert.h"
#include "base/hash.h"
#include "base/memory.h"
#include "base/numbers.h"
#include "base/util_random.h"
#include "ds/intset.h"
#include "ds/listpack.h"
#include "types/memory_usage.h"

namespace keel {

SetMember* SetMember::create(std::string_view s) {
  KEEL_ASSERT(s.size() <= UINT32_MAX);
  auto* m = static_cast<SetMember*>(std::malloc(sizeof(SetMember) + s.size()));
  KEEL_ASSERT(m != nullptr);
  m->len = static_cast<uint32_t>(s.size());
  if (!s.empty()) std::memcpy(m->data, s.data(), s.size());
  return m;
}

void SetMember::destroy(SetMember* m) { std::free(m); }

std::string_view SetElem::text(char* buf) const {
  if (!is_int) return str;
  return {buf, format_int64(ival, buf)};
}

namespace {

// A set value detached from its Object: the encoding and the structure pointer. The internal
// functions work on this so that a value can be built before it has an Object (SPOP rebuild).
struct Val {
  Encoding enc;
  void* ptr;
};

Val load(const Object& o) { return {o.encoding(), o.ptr()}; }
void store(Object& o, Val v) {
  o.set_encoding(v.enc);
  o.set_ptr(v.ptr);
}

Intset* is_of(Val v) { return static_cast<Intset*>(v.ptr); }
SetTable* ht_of(Val v) { return static_cast<SetTable*>(v.ptr); }

SetElem from_lp(const LpEntry& e) {
  SetElem s;
  s.is_int = e.is_int;
  s.ival = e.ival;
  s.str = e.sval;
  return s;
}
SetElem from_int(int64_t v) {
  SetElem s;
  s.is_int = true;
  s.ival = v;
  return s;
}
SetElem from_str(std::string_view v) {
  SetElem s;
  s.str = v;
  return s;
}

size_t intset_max_entries() {
  const int64_t m = encoding_limits().set_max_intset_entries;
  if (m >= (int64_t{1} << 30)) return size_t{1} << 30;
  return m < 0 ? 0 : static_cast<size_t>(m);
}
size_t lp_max_entries() {
  const int64_t m = encoding_limits().set_max_listpack_entries;
  return m < 0 ? 0 : static_cast<size_t>(m);
}
size_t lp_max_value() {
  const int64_t m = encoding_limits().set_max_listpack_value;
  return m < 0 ? 0 : static_cast<size_t>(m);
}

size_t val_size(Val v) {
  switch (v.enc) {
    case Encoding::kIntset: return intset_size(is_of(v));
    case Encoding::kListpack: return ListpackView(v.ptr)->size();
    case Encoding::kHashtable: return ht_of(v)->size();
    default: KEEL_ASSERT(false && "bad set encoding"); return 0;
  }
}

void free_val(Val v) {
  switch (v.enc) {
    case Encoding::kIntset: intset_free(is_of(v)); break;
    case Encoding::kListpack: std::free(v.ptr); break;
    case Encoding::kHashtable: {
      SetTable* t = ht_of(v);
      t->clear([](SetMember* m) { SetMember::destroy(m); });
      delete t;
      break;
    }
    default: KEEL_ASSERT(false && "bad set encoding");
  }
}

// Calls f(SetElem) for every member until it returns false.
template <class F>
bool val_for_each(Val v, F&& f) {
  switch (v.enc) {
    case Encoding::kIntset:
      for (int64_t x : IntsetValues(is_of(v))) {
        if (!f(from_int(x))) return false;
      }
      return true;
    case Encoding::kListpack: {
      ListpackView lp(v.ptr);
      for (LpPos p = lp->first(); p != kLpNone; p = lp->next(p)) {
        if (!f(from_lp(lp->get(p)))) return false;
      }
      return true;
    }
    case Encoding::kHashtable: {
      bool go = true;
      ht_of(v)->for_each([&](SetMember* m) {
        if (go) go = f(from_str(m->view()));
      });
      return go;
    }
    default: KEEL_ASSERT(false && "bad set encoding"); return false;
  }
}

// Inserts a member known to be absent into a hashtable.
void ht_insert_new(SetTable* t, std::string_view m) {
  const bool ok = t->insert(SetMember::create(m), hash_key(m));
  KEEL_DCHECK(ok);
  (void)ok;
}

// Converts any encoding to a hashtable sized for `hint` members.
void to_hashtable(Val& v, size_t hint) {
  if (v.enc == Encoding::kHashtable) return;
  auto* t = new SetTable();
  t->reserve(std::max(hint, val_size(v)));
  char buf[kInt64BufSize];
  val_for_each(v, [&](const SetElem& e) {
    ht_insert_new(t, e.text(buf));
    return true;
  });
  free_val(v);
  v = {Encoding::kHashtable, t};
}

void intset_to_listpack(Val& v) {
  Listpack lp;
  for (int64_t x : IntsetValues(is_of(v))) lp.append_int(x);
  intset_free(is_of(v));
  v = {Encoding::kListpack, lp.release()};
}

bool val_contains_str(Val v, std::string_view m) {
  switch (v.enc) {
    case Encoding::kIntset: {
      int64_t x;
      return parse_int64(m, &x) && intset_find(is_of(v), x);
    }
    case Encoding::kListpack: {
      ListpackView lp(v.ptr);
      return lp->find(m, lp->first()) != kLpNone;
    }
    case Encoding::kHashtable: return ht_of(v)->find(m, hash_key(m)) != nullptr;
    default: KEEL_ASSERT(false && "bad set encoding"); return false;
  }
}

bool val_contains(Val v, const SetElem& e) {
  if (e.is_int && v.enc == Encoding::kIntset) return intset_find(is_of(v), e.ival);
  char buf[kInt64BufSize];
  return val_contains_str(v, e.text(buf));
}

// setTypeAdd: see the conversion rules at the top of this file.
bool val_add_str(Val& v, std::string_view m) {
  switch (v.enc) {
    case Encoding::kHashtable: {
      SetTable* t = ht_of(v);
      const uint64_t h = hash_key(m);
      SetTable::Position pos = t->find_position(m, h);
      if (pos.found()) return false;
      t->insert(pos, SetMember::create(m));
      return true;
    }
    case Encoding::kListpack: {
      size_t n;
      {
        ListpackEdit lp(v.ptr);
        if (lp->find(m, lp->first()) != kLpNone) return false;
        n = lp->size();
        if (n < lp_max_entries() && m.size() <= lp_max_value() &&
            lp->bytes() + lp_entry_size_for(m) < kLpSafeBytes) {
          lp->append(m);
          return true;
        }
      }
      to_hashtable(v, n + 1);
      ht_insert_new(ht_of(v), m);
      return true;
    }
    case Encoding::kIntset: {
      int64_t x;
      if (parse_int64(m, &x)) {
        bool added = false;
        v.ptr = intset_add(is_of(v), x, &added);
        if (added && intset_size(is_of(v)) > intset_max_entries()) {
          to_hashtable(v, intset_size(is_of(v)));
        }
        return added;
      }
      const Intset* is = is_of(v);
      const size_t n = intset_size(is);
      size_t max_digits = 0;
      if (n != 0) {
        char buf[kInt64BufSize];
        max_digits = std::max(format_int64(intset_min(is), buf), format_int64(intset_max(is), buf));
      }
      if (n < lp_max_entries() && m.size() <= lp_max_value() && max_digits <= lp_max_value()) {
        intset_to_listpack(v);
        ListpackEdit lp(v.ptr);
        lp->append(m);
      } else {
        to_hashtable(v, n + 1);
        ht_insert_new(ht_of(v), m);
      }
      return true;
    }
    default: KEEL_ASSERT(false && "bad set encoding"); return false;
  }
}

bool val_add(Val& v, const SetElem& e) {
  if (e.is_int && v.enc == Encoding::kIntset) {
    bool added = false;
    v.ptr = intset_add(is_of(v), e.ival, &added);
    if (added && intset_size(is_of(v)) > intset_max_entries()) {
      to_hashtable(v, intset_size(is_of(v)));
    }
    return added;
  }
  char buf[kInt64BufSize];
  return val_add_str(v, e.text(buf));
}

bool val_remove_str(Val& v, std::string_view m) {
  switch (v.enc) {
    case Encoding::kHashtable: {
      SetMember* e = ht_of(v)->erase(m, hash_key(m));
      if (e == nullptr) return false;
      SetMember::destroy(e);
      return true;
    }
    case Encoding::kListpack: {
      ListpackEdit lp(v.ptr);
      const LpPos p = lp->find(m, lp->first());
      if (p == kLpNone) return false;
      lp->erase(p);
      return true;
    }
    case Encoding::kIntset: {
      int64_t x;
      if (!parse_int64(m, &x)) return false;
      bool removed = false;
      v.ptr = intset_remove(is_of(v), x, &removed);
      return removed;
    }
    default: KEEL_ASSERT(false && "bad set encoding"); return false;
  }
}

bool val_remove(Val& v, const SetElem& e) {
  if (e.is_int && v.enc == Encoding::kIntset) {
    bool removed = false;
    v.ptr = intset_remove(is_of(v), e.ival, &removed);
    return removed;
  }
  char buf[kInt64BufSize];
  return val_remove_str(v, e.text(buf));
}

SetElem val_random(Val v) {
  switch (v.enc) {
    case Encoding::kIntset: return from_int(intset_random(is_of(v)));
    case Encoding::kListpack: {
      ListpackView lp(v.ptr);
      const size_t n = lp->size();
      KEEL_ASSERT(n > 0);
      return from_lp(lp->get(lp->seek(static_cast<long>(random_bounded(n)))));
    }
    case Encoding::kHashtable: {
      SetMember* m = ht_of(v)->random_entry(random_u64());
      KEEL_ASSERT(m != nullptr);
      return from_str(m->view());
    }
    default: KEEL_ASSERT(false && "bad set encoding"); return {};
  }
}

// Selection sampling (Knuth's algorithm S): marks exactly k of n positions, each k-subset
// equally likely, in one ordered pass.
std::vector<bool> choose_k_of_n(size_t k, size_t n) {
  std::vector<bool> pick(n, false);
  size_t need = k;
  for (size_t i = 0; i < n && need > 0; ++i) {
    if (random_bounded(n - i) < need) {
      pick[i] = true;
      --need;
    }
  }
  return pick;
}

// The positions of every listpack entry, in order.
std::vector<LpPos> lp_positions(const Listpack& lp) {
  std::vector<LpPos> out;
  out.reserve(lp.size());
  for (LpPos p = lp.first(); p != kLpNone; p = lp.next(p)) out.push_back(p);
  return out;
}

// Non-owning table used to de-duplicate random picks from a hashtable set.
struct PickTraits {
  using Entry = SetMember*;
  static std::string_view key(const SetMember* m) { return m->view(); }
};

const CollectionOps kSetOps = {
    .free_value = [](Encoding e, void* p) { free_val({e, p}); },
    .copy_value =
        [](Encoding e, const void* p) -> void* {
          Val v{e, const_cast<void*>(p)};
          switch (e) {
            case Encoding::kIntset: return intset_dup(is_of(v));
            case Encoding::kListpack: return ListpackView(v.ptr)->clone().release();
            case Encoding::kHashtable: {
              auto* t = new SetTable();
              t->reserve(ht_of(v)->size());
              ht_of(v)->for_each([&](SetMember* m) { ht_insert_new(t, m->view()); });
              return t;
            }
            default: KEEL_ASSERT(false && "bad set encoding"); return nullptr;
          }
        },
    .length = [](Encoding e, const void* p) -> int64_t {
      return static_cast<int64_t>(val_size({e, const_cast<void*>(p)}));
    },
    // intset and listpack: their blob; hashtable: the table, its buckets and the members.
    .memory_usage = [](Encoding e, const void* p, size_t samples) -> size_t {
      if (e != Encoding::kHashtable) return allocation_size(p);
      const SetTable* t = static_cast<const SetTable*>(p);
      return allocation_size(t) + t->memory_usage() +
             sampled_table_entries(*t, samples, [](const SetMember* m) { return allocation_size(m); });
    },
};

struct RegisterSetOps {
  RegisterSetOps() { register_collection_ops(Type::kSet, &kSetOps); }
} g_register_set_ops;

}  // namespace

// ---- SetType ----------------------------------------------------------------------------------

Object* SetType::create(std::string_view key, std::string_view first, size_t size_hint) {
  int64_t x;
  if (parse_int64(first, &x) && size_hint <= static_cast<size_t>(std::max<int64_t>(
                                                 0, encoding_limits().set_max_intset_entries))) {
    return Object::create_collection(key, Type::kSet, Encoding::kIntset, intset_new());
  }
  if (size_hint <= lp_max_entries()) {
    return Object::create_collection(key, Type::kSet, Encoding::kListpack, Listpack().release());
  }
  auto* t = new SetTable();
  t->reserve(size_hint);
  return Object::create_collection(key, Type::kSet, Encoding::kHashtable, t);
}

Object* SetType::create_result(std::string_view key) {
  return Object::create_collection(key, Type::kSet, Encoding::kIntset, intset_new());
}

Object* SetType::create_inter_result(std::string_view key, const Object& smallest) {
  if (smallest.encoding() == Encoding::kIntset) return create_result(key);
  return Object::create_collection(key, Type::kSet, Encoding::kListpack, Listpack().release());
}

size_t SetType::size(const Object& o) { return val_size(load(o)); }

void SetType::prefetch_member(const Object& o, uint64_t member_hash, int stage) {
  if (o.encoding() == Encoding::kHashtable) ht_of(load(o))->prefetch_step(member_hash, stage);
}

bool SetType::contains(const Object& o, std::string_view member) {
  return val_contains_str(load(o), member);
}
bool SetType::contains(const Object& o, const SetElem& e) { return val_contains(load(o), e); }

void SetType::maybe_convert(Object& o, size_t size_hint) {
  const Encoding e = o.encoding();
  if ((e == Encoding::kListpack && size_hint > lp_max_entries()) ||
      (e == Encoding::kIntset &&
       size_hint > static_cast<size_t>(
                       std::max<int64_t>(0, encoding_limits().set_max_intset_entries)))) {
    Val v = load(o);
    to_hashtable(v, size_hint);
    store(o, v);
  }
}

bool SetType::add(Object& o, std::string_view member) {
  Val v = load(o);
  const bool added = val_add_str(v, member);
  store(o, v);
  return added;
}
bool SetType::add(Object& o, const SetElem& e) {
  Val v = load(o);
  const bool added = val_add(v, e);
  store(o, v);
  return added;
}

bool SetType::remove(Object& o, std::string_view member) {
  Val v = load(o);
  const bool removed = val_remove_str(v, member);
  store(o, v);
  return removed;
}
bool SetType::remove(Object& o, const SetElem& e) {
  Val v = load(o);
  const bool removed = val_remove(v, e);
  store(o, v);
  return removed;
}

void SetType::after_removals(Object& o) {
  if (o.encoding() == Encoding::kHashtable) ht_of(load(o))->shrink_if_needed();
}

bool SetType::for_each_raw(const Object& o, RawVisit f, void* ctx) {
  return val_for_each(load(o), [&](const SetElem& e) { return f(ctx, e); });
}

SetElem SetType::random_member(const Object& o) { return val_random(load(o)); }

size_t SetType::random_members(const Object& o, uint64_t count, bool unique, SetEmit emit,
                               void* ctx) {
  const Val v = load(o);
  const size_t n = val_size(v);
  if (n == 0 || count == 0) return 0;
  if (!unique || count == 1) {
    // With repetition: independent uniform picks. A listpack is indexed once so each pick is
    // O(1) instead of a walk.
    if (v.enc == Encoding::kListpack) {
      ListpackView lp(v.ptr);
      const std::vector<LpPos> pos = lp_positions(*lp);
      for (uint64_t i = 0; i < count; ++i) emit(ctx, from_lp(lp->get(pos[random_bounded(n)])));
    } else {
      for (uint64_t i = 0; i < count; ++i) emit(ctx, val_random(v));
    }
    return count;
  }
  if (count >= n) {
    val_for_each(v, [&](const SetElem& e) {
      emit(ctx, e);
      return true;
    });
    return n;
  }
  switch (v.enc) {
    case Encoding::kIntset: {
      const std::vector<bool> pick = choose_k_of_n(count, n);
      for (size_t i = 0; i < n; ++i) {
        if (pick[i]) emit(ctx, from_int(intset_get(is_of(v), static_cast<uint32_t>(i))));
      }
      return count;
    }
    case Encoding::kListpack: {
      ListpackView lp(v.ptr);
      const std::vector<bool> pick = choose_k_of_n(count, n);
      size_t i = 0;
      for (LpPos p = lp->first(); p != kLpNone; p = lp->next(p), ++i) {
        if (pick[i]) emit(ctx, from_lp(lp->get(p)));
      }
      return count;
    }
    case Encoding::kHashtable: {
      const SetTable* t = ht_of(v);
      if (count * 3 > n) {
        // Close to the whole set: take every member and keep a random `count` of them.
        std::vector<SetMember*> all;
        all.reserve(n);
        t->for_each([&](SetMember* m) { all.push_back(m); });
        for (size_t i = 0; i < count; ++i) {
          std::swap(all[i], all[i + random_bounded(n - i)]);
          emit(ctx, from_str(all[i]->view()));
        }
        return count;
      }
      // Much smaller than the set: draw until `count` distinct members were seen.
      HashTable<PickTraits> seen;
      seen.reserve(count);
      size_t got = 0;
      while (got < count) {
        SetMember* m = t->random_entry(random_u64());
        if (!seen.insert(m)) continue;
        emit(ctx, from_str(m->view()));
        ++got;
      }
      return count;
    }
    default: KEEL_ASSERT(false && "bad set encoding"); return 0;
  }
}

void SetType::pop_random_many(Object& o, size_t count, SetEmit emit, void* ctx) {
  Val v = load(o);
  const size_t n = val_size(v);
  KEEL_ASSERT(count > 0 && count < n);
  const size_t remaining = n - count;
  if (remaining * 5 > count) {
    // Few members leave: pick and remove them one by one.
    switch (v.enc) {
      case Encoding::kIntset: {
        const std::vector<bool> pick = choose_k_of_n(count, n);
        std::vector<int64_t> out;
        out.reserve(count);
        for (size_t i = 0; i < n; ++i) {
          if (pick[i]) out.push_back(intset_get(is_of(v), static_cast<uint32_t>(i)));
        }
        for (int64_t x : out) {
          emit(ctx, from_int(x));
          bool removed = false;
          v.ptr = intset_remove(is_of(v), x, &removed);
        }
        break;
      }
      case Encoding::kListpack: {
        ListpackEdit lp(v.ptr);
        const std::vector<bool> pick = choose_k_of_n(count, n);
        std::vector<LpPos> chosen;
        chosen.reserve(count);
        size_t i = 0;
        for (LpPos p = lp->first(); p != kLpNone; p = lp->next(p), ++i) {
          if (pick[i]) {
            emit(ctx, from_lp(lp->get(p)));
            chosen.push_back(p);
          }
        }
        // Back to front, so the earlier positions stay valid.
        for (auto it = chosen.rbegin(); it != chosen.rend(); ++it) lp->erase(*it);
        break;
      }
      case Encoding::kHashtable: {
        SetTable* t = ht_of(v);
        for (size_t k = 0; k < count; ++k) {
          SetMember* m = t->random_entry(random_u64());
          emit(ctx, from_str(m->view()));
          SetMember* gone = t->erase(m->view(), hash_key(m->view()));
          KEEL_DCHECK(gone == m);
          SetMember::destroy(gone);
        }
        t->shrink_if_needed();
        break;
      }
      default: KEEL_ASSERT(false && "bad set encoding");
    }
    store(o, v);
    return;
  }

  // Most members leave: move the few that stay into a new value, hand out everything left in
  // the old one, then free it. The new value starts small: a listpack stays a listpack; from an
  // intset or hashtable it starts as an intset when the first member kept is an integer (only
  // intset members are), else as a listpack, and grows by the usual rules.
  Val nv{Encoding::kListpack, nullptr};
  if (v.enc == Encoding::kListpack) {
    Listpack out;
    {
      ListpackView lp(v.ptr);
      const std::vector<bool> keep = choose_k_of_n(remaining, n);
      size_t i = 0;
      for (LpPos p = lp->first(); p != kLpNone; p = lp->next(p), ++i) {
        const LpEntry e = lp->get(p);
        if (keep[i]) {
          if (e.is_int) {
            out.append_int(e.ival);
          } else {
            out.append(e.sval);
          }
        } else {
          emit(ctx, from_lp(e));
        }
      }
    }
    nv.ptr = out.release();
  } else {
    for (size_t k = 0; k < remaining; ++k) {
      const SetElem e = val_random(v);
      if (nv.ptr == nullptr) {
        nv = e.is_int ? Val{Encoding::kIntset, intset_new()}
                      : Val{Encoding::kListpack, Listpack().release()};
      }
      val_add(nv, e);
      val_remove(v, e);  // after the add: e may point into v
    }
    val_for_each(v, [&](const SetElem& e) {
      emit(ctx, e);
      return true;
    });
  }
  free_val(v);
  store(o, nv);
}

uint64_t SetType::scan(const Object& o, uint64_t cursor, int64_t count, SetEmit emit,
                       void* ctx) {
  const Val v = load(o);
  if (v.enc != Encoding::kHashtable) {
    val_for_each(v, [&](const SetElem& e) {
      emit(ctx, e);
      return true;
    });
    return 0;
  }
  const SetTable* t = ht_of(v);
  int64_t sampled = 0;
  int64_t max_steps = count * 10;
  do {
    cursor = t->scan(cursor, [&](SetMember* m) {
      ++sampled;
      emit(ctx, from_str(m->view()));
    });
  } while (cursor != 0 && max_steps-- > 0 && sampled < count);
  return cursor;
}

void SetType::maybe_to_intset(Object& o) {
  Val v = load(o);
  if (v.enc == Encoding::kIntset) return;
  if (val_size(v) > intset_max_entries()) return;
  Intset* is = intset_new();
  const bool all_ints = val_for_each(v, [&](const SetElem& e) {
    int64_t x = e.ival;
    if (!e.is_int && !parse_int64(e.str, &x)) return false;
    is = intset_add(is, x, nullptr);
    return true;
  });
  if (!all_ints) {
    intset_free(is);
    return;
  }
  free_val(v);
  store(o, {Encoding::kIntset, is});
}

}  // namespace keel
