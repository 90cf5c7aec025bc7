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
  size_t flush_all();  // returns the keys removed
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

}  // namespace keel
