// The loader places keys a few keys late (a prefetch window) and the writer writes them a few
// keys late: order, duplicate detection (the right key and db named, however far apart the two
// copies are, across SELECTDB / RESIZEDB and at the end of the file), MERGE's last-copy-wins
// and the per-key progress hook of a BGSAVE child must behave as without the windows.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "base/log.h"
#include "keyspace/keyspace.h"
#include "persistence/persistence.h"
#include "persistence/rdb_format.h"
#include "persistence/rdb_load.h"
#include "persistence/rdb_save.h"

namespace keel {
namespace {

class RdbWindow : public ::testing::Test {
 protected:
  void SetUp() override {
    if (keyspace().count() == 0) keyspace().init(16);
    keyspace().flush_all();
    log_options().level = LogLevel::kWarning;
    path_ = "/tmp/keel-rdb-window-XXXXXX";
    const int fd = mkstemp(path_.data());
    close(fd);
  }
  void TearDown() override {
    keyspace().flush_all();
    unlink(path_.c_str());
  }

  // A file: for each (db, key, value) a string key, with SELECTDB + RESIZEDB whenever the db
  // changes (and, with resize_every > 0, a RESIZEDB after every that many keys too).
  void write_file(const std::vector<std::tuple<int, std::string, std::string>>& keys,
                  size_t resize_every = 0) {
    std::string image;
    {
      RdbOut out(&image);
      out.put("REDIS0011", 9);
      int db = -1;
      size_t n = 0;
      for (const auto& [d, k, v] : keys) {
        if (d != db || (resize_every > 0 && n % resize_every == 0 && n > 0)) {
          if (d != db) {
            out.put_byte(kRdbOpSelectDb);
            out.put_len(static_cast<uint64_t>(d));
          }
          out.put_byte(kRdbOpResizeDb);
          out.put_len(keys.size());
          out.put_len(0);
          db = d;
        }
        out.put_byte(0);  // string
        out.put_string(k, false);
        out.put_string(v, false);
        n++;
      }
      out.put_byte(kRdbOpEof);
      out.put_u64_le(out.crc());
      out.flush();
    }
    std::ofstream(path_, std::ios::binary) << image;
  }

  static std::vector<std::tuple<int, std::string, std::string>> distinct(int db, size_t n) {
    std::vector<std::tuple<int, std::string, std::string>> v;
    for (size_t i = 0; i < n; i++) v.emplace_back(db, "k" + std::to_string(i), "v" + std::to_string(i));
    return v;
  }

  std::string path_;
};

TEST_F(RdbWindow, DuplicatesAreFoundAtAnyDistanceAndNamed) {
  // The second copy of k10 at distances 1, 5, 15, 16, 17, 40 and as the very last key.
  for (size_t at : {11u, 15u, 25u, 26u, 27u, 50u, 99u}) {
    SCOPED_TRACE("second copy at " + std::to_string(at));
    auto keys = distinct(0, 100);
    keys.insert(keys.begin() + static_cast<long>(at), {0, "k10", "again"});
    write_file(keys);
    keyspace().flush_all();
    RdbLoadResult r = rdb_load_file(path_, false);
    ASSERT_EQ(r.status, RdbLoadResult::kError);
    EXPECT_EQ(r.reason, "RDB has duplicated key 'k10' in DB 0");
    EXPECT_EQ(r.key, "k10");
  }
}

TEST_F(RdbWindow, DuplicatePendingWhenTheDbChangesIsNamedWithItsDb) {
  auto keys = distinct(3, 6);
  keys.emplace_back(3, "k2", "again");
  for (auto& k : distinct(4, 30)) keys.push_back(k);  // SELECTDB 4 + RESIZEDB flush db 3's keys
  write_file(keys);
  RdbLoadResult r = rdb_load_file(path_, false);
  ASSERT_EQ(r.status, RdbLoadResult::kError);
  EXPECT_EQ(r.reason, "RDB has duplicated key 'k2' in DB 3");
  // A RESIZEDB in the middle of one db, right after the duplicate.
  keyspace().flush_all();
  keys = distinct(0, 8);
  keys.emplace_back(0, "k7", "again");
  for (size_t i = 8; i < 40; i++) keys.emplace_back(0, "k" + std::to_string(i), "v");
  write_file(keys, 9);
  r = rdb_load_file(path_, false);
  ASSERT_EQ(r.status, RdbLoadResult::kError);
  EXPECT_EQ(r.reason, "RDB has duplicated key 'k7' in DB 0");
}

TEST_F(RdbWindow, SameNamesInOtherDbsAndMergeKeepTheLastCopy) {
  auto keys = distinct(0, 50);
  for (auto& k : distinct(1, 50)) keys.push_back(k);
  for (auto& k : distinct(2, 5)) keys.push_back(k);  // fewer keys than the window
  write_file(keys);
  RdbLoadResult r = rdb_load_file(path_, false);
  ASSERT_EQ(r.status, RdbLoadResult::kOk) << r.reason;
  EXPECT_EQ(r.keys_loaded, 105u);
  EXPECT_EQ(keyspace().db(0).size(), 50u);
  EXPECT_EQ(keyspace().db(1).size(), 50u);
  EXPECT_EQ(keyspace().db(2).size(), 5u);
  // MERGE: the file's copies replace, in file order (the last copy of a repeated key wins).
  keys = {{0, "a", "1"}, {0, "b", "1"}, {0, "a", "2"}};
  for (size_t i = 0; i < 30; i++) keys.emplace_back(0, "x" + std::to_string(i), "v");
  keys.emplace_back(0, "a", "3");
  write_file(keys);
  r = rdb_load_file(path_, true);
  ASSERT_EQ(r.status, RdbLoadResult::kOk) << r.reason;
  char buf[32];
  EXPECT_EQ(keyspace().db(0).peek(KeyRef::of("a"))->string_view(buf), "3");
  EXPECT_EQ(keyspace().db(0).peek(KeyRef::of("k3"))->string_view(buf), "v3");  // kept
}

TEST_F(RdbWindow, AnErrorWithKeysPendingFreesThem) {
  // A truncated file: the keys read before the cut are pending in the window when the error is
  // thrown (ASan reports a leak if they are not freed).
  write_file(distinct(0, 10));
  std::ifstream f(path_, std::ios::binary);
  std::string image((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::ofstream(path_, std::ios::binary) << image.substr(0, image.size() - 12);
  RdbLoadResult r = rdb_load_file(path_, false);
  EXPECT_EQ(r.status, RdbLoadResult::kError);
}

uint64_t g_progress_calls = 0, g_progress_last = 0;
void count_progress(uint64_t keys) {
  g_progress_calls++;
  g_progress_last = keys;
}

TEST_F(RdbWindow, WriterKeepsEveryKeyAndReportsProgressEvery1024) {
  for (int db : {0, 5}) {
    for (size_t i = 0; i < 3000; i++) {
      keyspace().db(db).load_add(Object::create_string("key" + std::to_string(i), std::string(i % 300, 'v')), false);
    }
  }
  keyspace().db(9).load_add(Object::create_string("alone", "1"), false);
  g_progress_calls = 0;
  g_rdb_save_progress = count_progress;
  std::string image;
  {
    RdbOut out(&image);
    rdb_write_snapshot(out, 11, true, true);
    out.flush();
  }
  g_rdb_save_progress = nullptr;
  // Keys 1, 1025, 2049, ... of 6001.
  EXPECT_EQ(g_progress_calls, 6u);
  EXPECT_EQ(g_progress_last, 5121u);
  std::ofstream(path_, std::ios::binary) << image;
  keyspace().flush_all();
  RdbLoadResult r = rdb_load_file(path_, false);
  ASSERT_EQ(r.status, RdbLoadResult::kOk) << r.reason;
  EXPECT_EQ(keyspace().db(0).size(), 3000u);
  EXPECT_EQ(keyspace().db(5).size(), 3000u);
  EXPECT_EQ(keyspace().db(9).size(), 1u);
  char buf[32];
  EXPECT_EQ(keyspace().db(5).peek(KeyRef::of("key299"))->string_view(buf), std::string(299, 'v'));
}

}  // namespace
}  // namespace keel
