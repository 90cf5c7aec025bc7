// Databases and the periodic keyspace work (active expiry, incremental rehash).
#include "keyspace/keyspace.h"

#include "base/fork.h"
#include "base/time.h"

namespace keel {

Keyspace& keyspace() {
  static Keyspace ks;
  return ks;
}

void set_fork_child_exists(bool exists) {
  g_fork_child_exists = exists;
  if (exists) g_clock.no_touch = true;
}

void Keyspace::init(int databases) {
  dbs_.clear();
  for (int i = 0; i < databases; i++) dbs_.push_back(std::make_unique<Db>(i));
}

size_t Keyspace::flush_all(bool async) {
  size_t removed = 0;
  for (auto& db : dbs_) removed += db->flush(async);
  return removed;
}

size_t Keyspace::total_keys() const {
  size_t n = 0;
  for (auto& db : dbs_) n += db->size();
  return n;
}

void Keyspace::active_expire_cycle(int64_t deadline_us) {
  if (!g_clock.active_expire_enabled || g_clock.expire_paused || dbs_.empty()) return;
  for (size_t i = 0; i < dbs_.size(); i++) {
    Db& db = *dbs_[size_t(expire_db_)];
    expire_db_ = (expire_db_ + 1) % count();
    size_t sampled = 0;
    db.active_expire(deadline_us, &sampled);
    // Hash fields whose TTL passed (Redis 7.4): at most this many per db and cycle, so a huge
    // batch of due fields spreads over cycles as keys do.
    constexpr size_t kFieldsPerCycle = 10000;
    if (db.hfe_count() > 0) db.active_expire_fields(deadline_us, kFieldsPerCycle);
    if (monotonic_us() >= deadline_us) break;
  }
}

void Keyspace::cron(int64_t budget_us) {
  for (auto& db : dbs_) db->cron(budget_us);
}

}  // namespace keel
