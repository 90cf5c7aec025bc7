// The set of numbered databases ("databases" directive) and whole-keyspace operations.
#pragma once
#include <memory>
#include <vector>

#include "keyspace/db.h"

namespace keel {

class Keyspace {
 public:
  void init(int databases);
  int count() const { return static_cast<int>(dbs_.size()); }
  Db& db(int i) { return *dbs_[static_cast<size_t>(i)]; }
  size_t flush_all(bool async = false);  // returns the keys removed
  void swap(int a, int b) { dbs_[size_t(a)]->swap(*dbs_[size_t(b)]); }
  size_t total_keys() const;
  // Runs active expiry over the dbs round-robin until deadline_us (monotonic).
  void active_expire_cycle(int64_t deadline_us);
  void cron(int64_t budget_us);

 private:
  std::vector<std::unique_ptr<Db>> dbs_;
  int expire_db_ = 0;
};

Keyspace& keyspace();

// A fork child (BGSAVE, AOF rewrite, full sync) starts or ends: sets g_fork_child_exists
// (base/fork.h) and, while a child exists, keeps lookups from writing LRU fields (the keyspace
// reads g_clock.no_touch; call() resets it to this state after each unit).
void set_fork_child_exists(bool exists);

}  // namespace keel
