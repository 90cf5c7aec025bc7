// The keyspace choke point. Every method that changes a key ends in exactly one KeySizes::update
// call and one signal() (dirty counter + WATCH hook).
#include "keyspace/db.h"

#include <cstdio>
#include <string>

#include "base/lazyfree.h"
#include "base/time.h"
#include "base/util_random.h"
#include "keyspace/lazyfree.h"
#include "keyspace/notify.h"
#include "types/hash_type.h"

namespace keel {

KeyspaceHooks g_keyspace_hooks;
KeyspaceClock g_clock;

constinit KeyspaceStats g_keyspace_stats;

Db::~Db() {
  expires_.clear([](Object*) {});
  keys_.clear([](Object* o) { Object::destroy(o); });
}

Object* Db::peek(const KeyRef& key) const { return keys_.find(key.name, key.hash); }

Object* Db::find(const KeyRef& key, int flags) {
  Object* o = keys_.find(key.name, key.hash);
  if (o && KEEL_UNLIKELY(expired(o))) {
    if (!g_clock.expire_paused) (void)find_for_write(key);  // deletes it and emits "expired"
    o = nullptr;
  }
  if (!o) {
    if (!(flags & kNoStats)) keyspace_stats().keyspace_misses++;
    if (!(flags & kNoNotify)) notify(kNotifyKeyMiss, "keymiss", key.name, id_);
    return nullptr;
  }
  if (!(flags & kNoStats)) keyspace_stats().keyspace_hits++;
  if (!(flags & kNoTouch) && !g_clock.no_touch) touch(o);
  return o;
}

Db::Slot Db::find_for_write(const KeyRef& key) {
  Slot slot;
  slot.key_ = key;
  slot.pos_ = keys_.find_position(key.name, key.hash);
  slot.epoch_ = ++epoch_;
  if (slot.pos_.found()) {
    slot.obj_ = slot.pos_.entry();
    // The table position is re-found lazily (insert() calls ensure_pos): the caller's key view
    // may point into the object just freed (RANDOMKEY, SCAN), so it must not be read here.
    if (KEEL_UNLIKELY(expired(slot.obj_))) {
      expire_now(slot);
    } else if (!g_clock.no_touch) {
      touch(slot.obj_);
    }
  }
  return slot;
}

void Db::expire_now(Slot& slot) {
  // The event goes out before the object (which holds the key bytes) is freed; publishing does
  // not read the keyspace, so subscribers cannot tell the difference, and no copy is needed.
  keyspace_stats().expired_keys++;
  notify(kNotifyExpired, "expired", slot.obj_->key(), id_);
  if (KEEL_UNLIKELY(g_keyspace_hooks.expired != nullptr)) g_keyspace_hooks.expired(id_, slot.obj_->key());
  erase_object(slot, object_length(slot.obj_), false, g_keyspace_lazyfree.expire);
}

size_t Db::sample(bool volatile_only, Object** out, size_t n) const {
  const ObjectTable& t = volatile_only ? expires_ : keys_;
  if (t.empty()) return 0;
  // Each key as likely as any other: whole buckets drawn at random, read as one stream over
  // the calls (HashTable::random_entries). Redis draws its pool policies' samples from
  // consecutive buckets (dictGetSomeKeys); a walk like that over Keel's 7-slot buckets taking
  // one random entry per bucket favours the keys of sparse buckets and measured a lower hit
  // rate (utils/bench/evict.py's Zipf cache at 1M keys: LRU 0.7569 vs 0.7589, LFU 0.7850 vs
  // 0.7902; Redis 0.7628 / 0.7906).
  n = t.random_entries(random_u64(), out, n, sample_ahead_[volatile_only ? 1 : 0]);
  for (size_t i = 0; i < n; i++) __builtin_prefetch(out[i]);  // the caller reads their LRU fields
  return n;
}

bool Db::evict(std::string_view key, bool lazy, const uint32_t* sampled_lru, const Object** touched) {
  const KeyRef k = KeyRef::of(key);
  Slot slot;
  slot.key_ = k;
  slot.pos_ = keys_.find_position(k.name, k.hash);
  slot.epoch_ = ++epoch_;
  if (!slot.pos_.found()) return false;
  slot.obj_ = slot.pos_.entry();
  if (sampled_lru != nullptr && slot.obj_->lru() != *sampled_lru) {
    *touched = slot.obj_;
    return false;
  }
  keyspace_stats().evicted_keys++;
  notify(kNotifyEvicted, "evicted", key, id_);
  if (KEEL_UNLIKELY(g_keyspace_hooks.evicted != nullptr)) g_keyspace_hooks.evicted(id_, key);
  // Not a change the dirty counter counts (Redis propagates it as a DEL instead), but WATCH and
  // client-side caching see it.
  erase_object(slot, object_length(slot.obj_), false, lazy);
  return true;
}

void Db::signal_hooks(std::string_view key) const {
  if (g_keyspace_hooks.touched) g_keyspace_hooks.touched(id_, key);
  if (g_keyspace_hooks.tracking) g_keyspace_hooks.tracking(key);
}

void Db::insert(Slot& slot, Object* obj) {
  KEEL_DCHECK(slot.obj_ == nullptr);
  obj->set_lru(KEEL_UNLIKELY(g_clock.lfu) ? lfu_initial() : g_clock.lru_clock);
  ensure_pos(slot);
  keys_.insert(slot.pos_, obj);
  if (KEEL_UNLIKELY(obj->has_expire())) expires_.insert(obj, slot.key_.hash);
  slot.obj_ = obj;
  slot.epoch_ = 0;
  epoch_++;
  hist_.update(obj->type(), KeySizes::kAbsent, obj->type(), object_length(obj));
  hfe_note_added(obj);
  signal(obj->key());
  notify(kNotifyNew, "new", obj->key(), id_);
  if (KEEL_UNLIKELY(g_keyspace_hooks.key_created != nullptr)) g_keyspace_hooks.key_created(id_, obj->key());
}

bool Db::load_add(Object* obj, bool replace) {
  const KeyRef k = KeyRef::of(obj->key());
  ObjectTable::Position pos = keys_.find_position(k.name, k.hash);
  epoch_++;
  if (pos.found()) {
    if (!replace) return false;
    Object* old = pos.entry();
    hist_.update(old->type(), object_length(old), obj->type(), object_length(obj));
    if (old->has_expire()) expires_.erase(old->key(), k.hash);
    if (obj->has_expire()) expires_.insert(obj, k.hash);
    hfe_note_gone(old);
    pos.set(obj);
    Object::destroy(old);
    hfe_note_added(obj);
    return true;
  }
  keys_.insert(pos, obj);
  if (obj->has_expire()) expires_.insert(obj, k.hash);
  hist_.update(obj->type(), KeySizes::kAbsent, obj->type(), object_length(obj));
  hfe_note_added(obj);
  return true;
}

void Db::overwrite(Slot& slot, Object* obj, bool keep_ttl) {
  Object* old = slot.obj_;
  ensure_pos(slot);
  hist_.update(old->type(), object_length(old), obj->type(), object_length(obj));
  // Under LFU a replaced value keeps the key's counter (Redis's dbOverwrite).
  obj->set_lru(KEEL_UNLIKELY(g_clock.lfu) ? old->lru() : g_clock.lru_clock);
  if (keep_ttl) {
    if (old->has_expire()) {
      obj = Object::with_expire(obj, old->expire_ms());  // may move obj (not in a table yet)
    } else {
      obj->clear_expire_field();
    }
  }
  // The expires index holds object pointers: swap old for obj (or drop/add the entry).
  if (old->has_expire()) expires_.erase(old->key(), slot.key_.hash);
  if (obj->has_expire()) expires_.insert(obj, slot.key_.hash);
  slot.pos_.set(obj);
  slot.obj_ = obj;
  hfe_note_gone(old);
  if (KEEL_UNLIKELY(g_keyspace_lazyfree.server_del)) {
    free_object_lazily(old);
  } else {
    Object::destroy(old);
  }
  hfe_note_added(obj);
  signal(obj->key());
  if (KEEL_UNLIKELY(g_keyspace_hooks.key_created != nullptr)) g_keyspace_hooks.key_created(id_, obj->key());
}

void Db::set_string(Slot& slot, std::string_view value, bool keep_ttl, bool expire_room) {
  if (!slot.obj_) {
    insert(slot, Object::create_string(slot.key_.name, value, expire_room));
    return;
  }
  Object* o = slot.obj_;
  const Type old_type = o->type();
  const int64_t old_len = object_length(o);
  if (o->assign_string_in_place(value)) {
    if (o->has_expire() && !keep_ttl) {
      expires_.erase(o->key(), slot.key_.hash);
      o->clear_expire_field();
    }
    if (!g_clock.lfu) o->set_lru(g_clock.lru_clock);
    hist_.update(old_type, old_len, Type::kString, static_cast<int64_t>(value.size()));
    signal(o->key());
    return;
  }
  overwrite(slot, Object::create_string(o->key(), value, expire_room || (keep_ttl && o->has_expire())), keep_ttl);
}

void Db::erase_object(Slot& slot, int64_t old_len, bool count_dirty, bool lazy) {
  Object* o = slot.obj_;
  ensure_pos(slot);
  hist_.update(o->type(), old_len, o->type(), KeySizes::kAbsent);
  if (o->has_expire()) expires_.erase(o->key(), slot.key_.hash);
  hfe_note_gone(o);
  keys_.erase(slot.pos_);
  slot.obj_ = nullptr;
  slot.epoch_ = 0;
  epoch_++;
  signal(slot.key_.name, count_dirty);
  // A blocked XREADGROUP learns that its stream is gone (commands/blocking.cc).
  if (KEEL_UNLIKELY(g_keyspace_hooks.key_created != nullptr)) g_keyspace_hooks.key_created(id_, slot.key_.name);
  if (KEEL_UNLIKELY(lazy)) {
    free_object_lazily(o);
  } else {
    Object::destroy(o);
  }
}

void Db::remove(Slot& slot, bool lazy) { erase_object(slot, object_length(slot.obj_), true, lazy); }

bool Db::remove(const KeyRef& key) {
  Slot slot = find_for_write(key);
  if (!slot) return false;
  remove(slot);
  return true;
}

bool Db::length_changed(Slot& slot, int64_t old_len) {
  Object* o = slot.obj_;
  const int64_t new_len = object_length(o);
  if (new_len == 0 && o->type() != Type::kString && o->type() != Type::kStream) {  // streams stay
    erase_object(slot, old_len);  // one update: (type, old_len) -> absent
    return true;
  }
  hist_.update(o->type(), old_len, o->type(), new_len);
  hfe_note_added(o);
  signal(o->key());
  return false;
}

bool Db::length_changed_quiet(Slot& slot, int64_t old_len) {
  Object* o = slot.obj_;
  const int64_t new_len = object_length(o);
  if (new_len == 0 && o->type() != Type::kString) {
    erase_object(slot, old_len, false);
    return true;
  }
  hist_.update(o->type(), old_len, o->type(), new_len);
  hfe_note_added(o);
  signal(o->key(), false);
  return false;
}

void Db::set_expire(Slot& slot, int64_t when_ms) {
  Object* o = slot.obj_;
  const bool had_ttl = o->has_expire();
  // A key's first TTL may move its object to a block with the expire field.
  if (KEEL_UNLIKELY(!o->has_expire_room())) ensure_pos(slot);
  Object* n = Object::with_expire(o, when_ms);
  if (KEEL_UNLIKELY(n != o)) {
    slot.pos_.set(n);
    slot.obj_ = n;
  }
  if (!had_ttl) expires_.insert(n, slot.key_.hash);
  signal(n->key());
}

bool Db::persist(Slot& slot) {
  Object* o = slot.obj_;
  if (!o->has_expire()) return false;
  expires_.erase(o->key(), slot.key_.hash);
  o->clear_expire_field();
  signal(o->key());
  return true;
}

void Db::move_to(Slot& from, Db& dst, Slot& to) {
  Object* o = from.obj_;
  const int64_t len = object_length(o);
  ensure_pos(from);
  if (o->has_expire()) expires_.erase(o->key(), from.key_.hash);
  keys_.erase(from.pos_);
  from.obj_ = nullptr;
  from.epoch_ = 0;
  epoch_++;
  hist_.update(o->type(), len, o->type(), KeySizes::kAbsent);
  hfe_note_gone(o);
  signal(from.key_.name);
  if (KEEL_UNLIKELY(g_keyspace_hooks.key_created != nullptr)) g_keyspace_hooks.key_created(id_, from.key_.name);
  Object* n = Object::rekey(o, to.key_.name);
  dst.hfe_note_added(n);
  dst.ensure_pos(to);
  dst.keys_.insert(to.pos_, n);
  to.obj_ = n;
  to.epoch_ = 0;
  dst.epoch_++;
  if (n->has_expire()) dst.expires_.insert(n, to.key_.hash);
  dst.hist_.update(n->type(), KeySizes::kAbsent, n->type(), len);
  dst.signal(n->key());
  notify(kNotifyNew, "new", n->key(), dst.id_);
  if (KEEL_UNLIKELY(g_keyspace_hooks.key_created != nullptr)) g_keyspace_hooks.key_created(dst.id_, n->key());
}

namespace {
// A flushed database's tables on their way to the lazyfree thread.
struct DetachedTables {
  ObjectTable keys, expires;
};
void free_tables_job(void* arg) {
  auto* t = static_cast<DetachedTables*>(arg);
  t->expires.clear([](Object*) {});
  t->keys.clear([](Object* o) { Object::destroy(o); });
  delete t;
}
}  // namespace

size_t Db::flush(bool async) {
  if (g_keyspace_hooks.flushed) g_keyspace_hooks.flushed(id_, -1);
  const size_t removed = keys_.size();
  if (async && removed > 0) {
    // The tables move out whole (O(1) here); the thread frees every object and bucket.
    auto* t = new DetachedTables{std::move(keys_), std::move(expires_)};
    lazyfree_submit(free_tables_job, t, removed);
  } else {
    expires_.clear([](Object*) {});
    keys_.clear([](Object* o) { Object::destroy(o); });
  }
  hist_.clear();
  hfe_min_.clear();
  hfe_by_time_.clear();
  expire_cursor_ = 0;
  avg_ttl_ = 0;
  keyspace_stats().dirty += removed;
  if (KEEL_UNLIKELY(g_keyspace_hooks.emptied != nullptr) && removed) g_keyspace_hooks.emptied(id_);
  return removed;
}

void Db::swap(Db& other) {
  // Tested before each call: the first may remove the last watch and uninstall the hook.
  if (g_keyspace_hooks.flushed) g_keyspace_hooks.flushed(id_, other.id_);
  if (g_keyspace_hooks.flushed) g_keyspace_hooks.flushed(other.id_, id_);
  std::swap(keys_, other.keys_);
  std::swap(expires_, other.expires_);
  std::swap(hist_, other.hist_);
  std::swap(expire_cursor_, other.expire_cursor_);
  std::swap(avg_ttl_, other.avg_ttl_);
  std::swap(hfe_min_, other.hfe_min_);
  std::swap(hfe_by_time_, other.hfe_by_time_);
  if (KEEL_UNLIKELY(g_keyspace_hooks.dbs_swapped != nullptr)) g_keyspace_hooks.dbs_swapped(id_, other.id_);
}

bool Db::expire_if_needed(Object* o) {
  if (!expired(o)) return false;
  if (g_clock.expire_paused) return true;
  // The key bytes live in o, which the expiry frees: look it up through a copy.
  std::string name(o->key());
  (void)find_for_write(KeyRef::of(name));
  return true;
}

Object* Db::random_key() {
  for (int tries = 0; tries < 100 && !keys_.empty(); tries++) {
    Object* o = keys_.random_entry(random_u64());
    if (!o) return nullptr;
    // An expired key is deleted on the way, so every retry looks at a smaller table.
    if (!expire_if_needed(o)) return o;
  }
  return keys_.empty() ? nullptr : keys_.random_entry(random_u64());
}

size_t Db::active_expire(int64_t deadline_us, size_t* sampled) {
  size_t expired_count = 0;
  if (expires_.empty()) return 0;
  // Sample a few buckets of the expires index per round, Redis-style: keep going while more
  // than 10% of the sampled keys had expired and the time budget allows.
  Object* batch[64];
  // 128 bits: a few TTLs near INT64_MAX (PEXPIREAT 9223372036854775000) overflow 64.
  __int128 ttl_sum = 0;
  int64_t ttl_n = 0;
  for (;;) {
    size_t n = 0, checked = 0, round_expired = 0;
    do {
      expire_cursor_ = expires_.scan(expire_cursor_, [&](Object* o) {
        checked++;
        if (o->expire_ms() < g_clock.now_ms) {
          if (n < 64) batch[n++] = o;
        } else {
          ttl_sum += o->expire_ms() - g_clock.now_ms;
          ttl_n++;
        }
      });
    } while (expire_cursor_ != 0 && checked < 20 && n < 64);
    for (size_t i = 0; i < n; i++) {
      KeyRef k = KeyRef::of(batch[i]->key());
      Slot s;
      s.key_ = k;
      s.pos_ = keys_.find_position(k.name, k.hash);
      s.epoch_ = ++epoch_;
      if (s.pos_.found()) {
        s.obj_ = s.pos_.entry();
        expire_now(s);
        round_expired++;
      }
    }
    expired_count += round_expired;
    *sampled += checked;
    if (expires_.empty() || checked == 0 || round_expired * 10 <= checked) break;
    if (monotonic_us() >= deadline_us) {
      keyspace_stats().expired_time_cap_reached_count++;
      break;
    }
  }
  if (ttl_n > 0) {
    // Running average like Redis's: weight the new sample against the old estimate.
    const int64_t avg = static_cast<int64_t>(ttl_sum / ttl_n);
    avg_ttl_ = avg_ttl_ == 0 ? avg : (avg_ttl_ / 50) * 49 + (avg / 50);
  }
  return expired_count;
}

void Db::hfe_update(const Object* o) {
  const int64_t min = HashType::min_field_ttl(*o);
  std::string key(o->key());
  auto it = hfe_min_.find(key);
  if (it != hfe_min_.end()) {
    if (it->second == min) return;
    hfe_by_time_.erase({it->second, key});
    if (min == 0) {
      hfe_min_.erase(it);
      return;
    }
    it->second = min;
    hfe_by_time_.emplace(min, std::move(key));
    return;
  }
  if (min == 0) return;
  hfe_min_.emplace(key, min);
  hfe_by_time_.emplace(min, std::move(key));
}

void Db::hfe_forget(std::string_view key) {
  if (hfe_min_.empty()) return;
  std::string k(key);
  auto it = hfe_min_.find(k);
  if (it == hfe_min_.end()) return;
  hfe_by_time_.erase({it->second, k});
  hfe_min_.erase(it);
}

size_t Db::active_expire_fields(int64_t deadline_us, size_t max_fields) {
  size_t done = 0;
  unsigned visited = 0;
  while (!hfe_by_time_.empty() && done < max_fields) {
    const auto it = hfe_by_time_.begin();
    if (it->first >= g_clock.now_ms) break;
    if ((++visited & 15) == 0 && monotonic_us() >= deadline_us) break;
    const std::string name = it->second;  // the entry may go while the hash is handled
    Slot slot = find_for_write(KeyRef::of(name));
    Object* o = slot.obj_;
    if (o == nullptr || !HashType::has_field_ttls(*o)) {
      hfe_forget(name);  // gone (or expired whole just now): nothing left to index
      continue;
    }
    const int64_t old_len = object_length(o);
    const size_t n = HashType::remove_expired(*o, g_clock.now_ms, max_fields - done, [&](std::string_view f) {
      if (KEEL_UNLIKELY(g_keyspace_hooks.field_expired != nullptr)) g_keyspace_hooks.field_expired(id_, name, f);
    });
    if (n == 0) {
      // The index said a field was due but none was (a listpackex out of expiry order can only
      // come from a damaged load): drop the hash from the index rather than spin on it.
      hfe_forget(name);
      continue;
    }
    done += n;
    keyspace_stats().expired_subkeys += n;
    HashType::removals_done(*o);
    notify(kNotifyHash, "hexpired", name, id_);
    if (object_length(o) == 0) notify(kNotifyGeneric, "del", name, id_);
    length_changed_quiet(slot, old_len);
  }
  return done;
}

void Db::cron(int64_t budget_us) {
  keys_.shrink_if_needed();
  expires_.shrink_if_needed();
  if (keys_.rehashing()) keys_.rehash_for_us(budget_us);
  if (expires_.rehashing()) expires_.rehash_for_us(budget_us);
}

bool Db::keysizes_consistent(std::string* diff) const {
  KeySizes fresh;
  keys_.for_each([&](Object* o) {
    fresh.update(o->type(), KeySizes::kAbsent, o->type(), object_length(o));
  });
  if (fresh == hist_) return true;
  if (diff) {
    std::string a, b;
    hist_.append_info(id_, a);
    fresh.append_info(id_, b);
    *diff = "kept: " + a + " recounted: " + b;
  }
  return false;
}

}  // namespace keel
