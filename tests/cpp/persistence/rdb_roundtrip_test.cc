// Every type x encoding Keel has, written and read back: as DUMP payloads at versions 10, 11 and
// 12 (with and without compression), and as whole snapshots through a file (several dbs, TTLs,
// an expired key dropped at load, duplicates refused unless merging). Also what each version
// writes for each encoding (the type byte) and Keel's encodings chosen at load.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "base/log.h"
#include "keyspace/keyspace.h"
#include "persistence/persistence.h"
#include "persistence/rdb_format.h"
#include "persistence/rdb_load.h"
#include "persistence/rdb_save.h"
#include "model.h"
#include "types/limits.h"

namespace keel {
namespace {

struct Sample {
  std::string name;
  Encoding enc;
  std::function<Object*(std::string_view key)> make;
};

std::string random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

Object* list_of(std::string_view key, size_t n, size_t elem_len) {
  Object* o = ListType::create(key);
  for (size_t i = 0; i < n; i++) {
    std::string v = std::to_string(i);
    if (i % 3 == 0) v += std::string(elem_len, 'e');
    ListType::push(*o, ListType::End::kTail, v);
  }
  return o;
}

Object* set_of(std::string_view key, const std::vector<std::string>& members) {
  Object* o = SetType::create(key, members[0], members.size());
  for (const auto& m : members) SetType::add(*o, m);
  return o;
}

Object* zset_of(std::string_view key, size_t n, bool specials) {
  Object* o = ZsetType::create(key, n + 4, 1);
  double ns;
  for (size_t i = 0; i < n; i++) {
    ZsetType::add(*o, static_cast<double>(i) * 0.5 - 3, "m" + std::to_string(i), 0, &ns);
  }
  if (specials) {
    ZsetType::add(*o, std::numeric_limits<double>::infinity(), "hi", 0, &ns);
    ZsetType::add(*o, -std::numeric_limits<double>::infinity(), "lo", 0, &ns);
    ZsetType::add(*o, 1e-300, "tiny", 0, &ns);
    ZsetType::add(*o, 0.1, "frac", 0, &ns);
  }
  return o;
}

Object* hash_of(std::string_view key, size_t n, size_t value_len) {
  Object* o = HashType::create(key);
  for (size_t i = 0; i < n; i++) {
    HashType::set(*o, "f" + std::to_string(i), i % 2 ? std::to_string(i) : std::string(value_len, 'v'),
                  encoding_limits());
  }
  return o;
}

std::vector<std::string> ints(size_t n, int64_t mul) {
  std::vector<std::string> v;
  for (size_t i = 0; i < n; i++) v.push_back(std::to_string(static_cast<int64_t>(i) * mul - 7));
  return v;
}
std::vector<std::string> strs(size_t n) {
  std::vector<std::string> v;
  for (size_t i = 0; i < n; i++) v.push_back("member:" + std::to_string(i));
  return v;
}

std::vector<Sample> samples() {
  return {
      {"int", Encoding::kInt, [](auto k) { return Object::create_string(k, "-9223372036854775808"); }},
      {"smallint", Encoding::kInt, [](auto k) { return Object::create_string(k, "12345"); }},
      {"embstr", Encoding::kEmbstr, [](auto k) { return Object::create_string(k, "hello world"); }},
      {"empty", Encoding::kEmbstr, [](auto k) { return Object::create_string(k, ""); }},
      {"raw", Encoding::kRaw, [](auto k) { return Object::create_string(k, std::string(300, 'x')); }},
      {"binary", Encoding::kRaw, [](auto k) { return Object::create_string(k, random_bytes(70000, 1)); }},
      {"list-listpack", Encoding::kListpack, [](auto k) { return list_of(k, 10, 5); }},
      {"list-quicklist", Encoding::kQuicklist, [](auto k) { return list_of(k, 3000, 20); }},
      {"list-plain", Encoding::kQuicklist, [](auto k) {
         Object* o = list_of(k, 5, 1);
         ListType::push(*o, ListType::End::kTail, std::string(20000, 'P'));
         ListType::push(*o, ListType::End::kHead, "head");
         return o;
       }},
      {"set-intset", Encoding::kIntset, [](auto k) { return set_of(k, ints(100, 3)); }},
      {"set-intset64", Encoding::kIntset, [](auto k) { return set_of(k, ints(20, int64_t{1} << 40)); }},
      {"set-listpack", Encoding::kListpack, [](auto k) { return set_of(k, strs(50)); }},
      {"set-hashtable", Encoding::kHashtable, [](auto k) { return set_of(k, strs(1000)); }},
      {"zset-listpack", Encoding::kListpack, [](auto k) { return zset_of(k, 20, true); }},
      {"zset-skiplist", Encoding::kSkiplist, [](auto k) { return zset_of(k, 500, true); }},
      {"hash-listpack", Encoding::kListpack, [](auto k) { return hash_of(k, 30, 10); }},
      {"hash-hashtable", Encoding::kHashtable, [](auto k) { return hash_of(k, 700, 10); }},
      {"hash-longval", Encoding::kHashtable, [](auto k) { return hash_of(k, 3, 100); }},
  };
}

class RdbRoundTrip : public ::testing::Test {
 protected:
  void SetUp() override {
    if (keyspace().count() == 0) keyspace().init(16);
    keyspace().flush_all();
    log_options().level = LogLevel::kWarning;  // the loader's notices would flood the output
    saved_ = encoding_limits();
    g_clock.now_ms = mstime_now();
    g_clock.lru_clock = static_cast<uint32_t>(g_clock.now_ms / 1000);
  }
  void TearDown() override {
    encoding_limits() = saved_;
    keyspace().flush_all();
  }
  static int64_t mstime_now() {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return int64_t(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
  }
  EncodingLimits saved_;
};

TEST_F(RdbRoundTrip, DumpPayloadEveryTypeAndEncoding) {
  for (int version : {10, 11, 12}) {
    for (bool compress : {true, false}) {
      for (const Sample& s : samples()) {
        SCOPED_TRACE(s.name + " v" + std::to_string(version) + (compress ? " lzf" : ""));
        Object* src = s.make("key:" + s.name);
        ASSERT_EQ(src->encoding(), s.enc);
        const std::string payload = rdb_dump_payload(*src, version, compress);
        int ver = 0;
        ASSERT_TRUE(rdb_verify_payload(payload, &ver));
        EXPECT_EQ(ver, version);
        std::string err;
        Object* back = rdb_payload_to_object(payload, "restored", true, &err);
        ASSERT_NE(back, nullptr) << err;
        EXPECT_EQ(back->key(), "restored");
        EXPECT_TRUE(model_of(*back) == model_of(*src));
        EXPECT_EQ(back->encoding(), s.enc);
        // What goes out for each encoding.
        const uint8_t type = static_cast<uint8_t>(payload[0]);
        switch (src->type()) {
          case Type::kString: EXPECT_EQ(type, kRdbString); break;
          case Type::kList: EXPECT_EQ(type, kRdbListQuicklist2); break;
          case Type::kSet:
            EXPECT_EQ(type, s.enc == Encoding::kIntset ? kRdbSetIntset
                            : s.enc == Encoding::kListpack && version >= 11 ? kRdbSetListpack
                                                                           : kRdbSet);
            break;
          case Type::kZset: EXPECT_EQ(type, s.enc == Encoding::kListpack ? kRdbZsetListpack : kRdbZset2); break;
          case Type::kHash: EXPECT_EQ(type, s.enc == Encoding::kListpack ? kRdbHashListpack : kRdbHash); break;
          default: break;
        }
        Object::destroy(back);
        Object::destroy(src);
      }
    }
  }
}

TEST_F(RdbRoundTrip, CompressedQuicklistNodesGoOutAsTheyAre) {
  encoding_limits().list_compress_depth = 1;
  Object* src = list_of("k", 5000, 30);
  ASSERT_EQ(src->encoding(), Encoding::kQuicklist);
  const std::string payload = rdb_dump_payload(*src, 11, true);
  std::string err;
  Object* back = rdb_payload_to_object(payload, "k", false, &err);
  ASSERT_NE(back, nullptr) << err;
  EXPECT_TRUE(model_of(*back) == model_of(*src));
  Object::destroy(back);
  Object::destroy(src);
}

TEST_F(RdbRoundTrip, LoadUsesKeelThresholds) {
  // Written as listpacks with the defaults, loaded with smaller limits: the big encodings.
  Object* h = hash_of("h", 30, 5);
  Object* z = zset_of("z", 30, false);
  Object* s = set_of("s", strs(30));
  Object* i = set_of("i", ints(30, 1));
  Object* l = list_of("l", 200, 10);
  encoding_limits().hash_max_listpack_entries = 10;
  encoding_limits().zset_max_listpack_entries = 10;
  encoding_limits().set_max_listpack_entries = 10;
  encoding_limits().set_max_intset_entries = 10;
  encoding_limits().list_max_listpack_size = 4;
  for (Object* o : {h, z, s, i, l}) {
    std::string err;
    Object* back = rdb_payload_to_object(rdb_dump_payload(*o, 11, true), "x", false, &err);
    ASSERT_NE(back, nullptr) << err;
    EXPECT_TRUE(model_of(*back) == model_of(*o));
    const Encoding want = o->type() == Type::kList   ? Encoding::kQuicklist
                          : o->type() == Type::kZset ? Encoding::kSkiplist
                                                     : Encoding::kHashtable;
    EXPECT_EQ(back->encoding(), want) << type_name(o->type());
    Object::destroy(back);
    Object::destroy(o);
  }
}

std::string temp_path() {
  char path[] = "/tmp/keel-rdb-XXXXXX";
  const int fd = mkstemp(path);
  close(fd);
  return path;
}

void save_to(const std::string& path, int version, bool compress, bool checksum) {
  std::string image;
  {
    RdbOut out(&image);
    rdb_write_snapshot(out, version, compress, checksum);
    out.flush();
  }
  std::ofstream(path, std::ios::binary) << image;
}

TEST_F(RdbRoundTrip, SnapshotThroughAFile) {
  const std::vector<Sample> all = samples();
  std::vector<std::pair<int, Model>> want;  // per key, in insertion order
  const int dbs[] = {0, 1, 15};
  for (size_t i = 0; i < all.size(); i++) {
    const int dbid = dbs[i % 3];
    Object* o = all[i].make("k:" + all[i].name);
    if (i % 2) o = Object::with_expire(o, g_clock.now_ms + 100000 + static_cast<int64_t>(i));
    ASSERT_TRUE(keyspace().db(dbid).load_add(o, false));
  }
  // Already expired when loaded: written, then dropped.
  ASSERT_TRUE(keyspace().db(0).load_add(Object::with_expire(Object::create_string("gone", "x"), 1000), false));
  const std::string path = temp_path();
  for (int version : {10, 11, 12}) {
    for (bool checksum : {true, false}) {
      SCOPED_TRACE("v" + std::to_string(version) + (checksum ? " crc" : " nocrc"));
      save_to(path, version, true, checksum);
      ASSERT_EQ(rdb_check_memory(nullptr, 0).status, RdbLoadResult::kError);
      // Copy the live keyspace aside, reload, compare.
      std::vector<std::vector<std::tuple<std::string, Model, int64_t, Encoding>>> before(16);
      for (int d = 0; d < 16; d++) {
        keyspace().db(d).for_each([&](const Object* o) {
          if (o->key() != "gone") before[size_t(d)].emplace_back(std::string(o->key()), model_of(*o), o->expire_ms(), o->encoding());
        });
      }
      keyspace().flush_all();
      RdbLoadResult r = rdb_load_file(path, false);
      ASSERT_EQ(r.status, RdbLoadResult::kOk) << r.reason << " at " << r.offset;
      EXPECT_EQ(r.keys_expired, 1u);
      EXPECT_EQ(r.keys_loaded, all.size());
      for (int d = 0; d < 16; d++) {
        EXPECT_EQ(keyspace().db(d).size(), before[size_t(d)].size());
        std::string diff;
        EXPECT_TRUE(keyspace().db(d).keysizes_consistent(&diff)) << diff;
        for (const auto& [k, m, exp, enc] : before[size_t(d)]) {
          const Object* o = keyspace().db(d).peek(KeyRef::of(k));
          ASSERT_NE(o, nullptr) << k;
          EXPECT_TRUE(model_of(*o) == m) << k;
          EXPECT_EQ(o->expire_ms(), exp) << k;
          EXPECT_EQ(o->encoding(), enc) << k;
        }
      }
      // Put the expired key back for the next round.
      keyspace().db(0).load_add(Object::with_expire(Object::create_string("gone", "x"), 1000), false);
    }
  }
  // Loading over existing keys: a duplicate fails the load, MERGE replaces.
  save_to(path, 11, true, true);
  RdbLoadResult dup = rdb_load_file(path, false);
  EXPECT_EQ(dup.status, RdbLoadResult::kError);
  EXPECT_NE(dup.reason.find("duplicated key"), std::string::npos) << dup.reason;
  RdbLoadResult merged = rdb_load_file(path, true);
  EXPECT_EQ(merged.status, RdbLoadResult::kOk) << merged.reason;
  unlink(path.c_str());
}

TEST_F(RdbRoundTrip, ChecksumMismatchAndDisabledChecksum) {
  keyspace().db(0).load_add(Object::create_string("a", "b"), false);
  const std::string path = temp_path();
  std::string image;
  {
    RdbOut out(&image);
    rdb_write_snapshot(out, 11, true, true);
    out.flush();
  }
  keyspace().flush_all();
  std::string bad = image;
  bad[bad.size() - 3] ^= 1;  // inside the stored CRC
  RdbLoadResult r = rdb_check_memory(reinterpret_cast<const uint8_t*>(bad.data()), bad.size());
  EXPECT_EQ(r.status, RdbLoadResult::kError);
  EXPECT_EQ(r.reason, "RDB CRC error");
  // A zero checksum means "saved with rdbchecksum no": accepted.
  std::string zero = image;
  for (size_t i = zero.size() - 8; i < zero.size(); i++) zero[i] = 0;
  EXPECT_EQ(rdb_check_memory(reinterpret_cast<const uint8_t*>(zero.data()), zero.size()).status,
            RdbLoadResult::kOk);
  // Header checks.
  std::string v13 = image;
  v13[7] = '1';
  v13[8] = '3';
  r = rdb_check_memory(reinterpret_cast<const uint8_t*>(v13.data()), v13.size());
  EXPECT_EQ(r.reason, "Can't handle RDB format version 13");
  std::string sig = image;
  sig[0] = 'X';
  r = rdb_check_memory(reinterpret_cast<const uint8_t*>(sig.data()), sig.size());
  EXPECT_EQ(r.reason, "Wrong signature trying to load DB from file");
  r = rdb_check_memory(reinterpret_cast<const uint8_t*>(image.data()), image.size() - 9);
  EXPECT_EQ(r.reason, "Unexpected EOF reading RDB file");
  unlink(path.c_str());
}

TEST_F(RdbRoundTrip, PayloadChecks) {
  Object* o = Object::create_string("k", "value");
  std::string p = rdb_dump_payload(*o, 11, true);
  Object::destroy(o);
  EXPECT_TRUE(rdb_verify_payload(p, nullptr));
  EXPECT_FALSE(rdb_verify_payload(p.substr(0, 9), nullptr));
  std::string flipped = p;
  flipped[1] ^= 4;
  EXPECT_FALSE(rdb_verify_payload(flipped, nullptr));
  // A version above 12 is refused even with a matching CRC.
  std::string v13 = p.substr(0, p.size() - 10);
  v13.push_back(13);
  v13.push_back(0);
  {
    std::string with_crc;
    RdbOut out(&with_crc);
    out.put(v13.data(), v13.size());
    out.put_u64_le(out.crc());
    out.flush();
    EXPECT_FALSE(rdb_verify_payload(with_crc, nullptr));
  }
  // An empty collection and an unknown type are "Bad data format".
  std::string err;
  for (std::string body : {std::string("\x02\x00", 2), std::string("\x08\x00", 2), std::string("\xFF", 1)}) {
    std::string full;
    RdbOut out(&full);
    out.put(body.data(), body.size());
    out.put_byte(11);
    out.put_byte(0);
    out.put_u64_le(out.crc());
    out.flush();
    ASSERT_TRUE(rdb_verify_payload(full, nullptr));
    EXPECT_EQ(rdb_payload_to_object(full, "k", false, &err), nullptr);
    EXPECT_EQ(err, "ERR Bad data format");
  }
}

}  // namespace
}  // namespace keel
