// Inputs no fixture covers, built byte by byte: the encodings of old servers (type 1 lists,
// type 3 zsets with text scores, zipmaps, ziplist lists / zsets / hashes, version-1
// quicklists), the opcodes around keys (EXPIRETIME in seconds, IDLE, FREQ, SLOT_INFO, AUX,
// RESIZEDB, SELECTDB), files without a checksum (version < 5), and the refusals: duplicates,
// NaN scores, odd pair counts, module data, pre-release functions, a db beyond `databases`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "base/log.h"
#include "keyspace/keyspace.h"
#include "model.h"
#include "persistence/rdb_io.h"
#include "persistence/rdb_load.h"
#include "types/limits.h"

namespace keel {
namespace {

// ---- builders -------------------------------------------------------------------------------

std::string u32le(uint32_t v) {
  std::string s(4, '\0');
  for (int i = 0; i < 4; i++) s[size_t(i)] = static_cast<char>(v >> (8 * i));
  return s;
}

// A ziplist of the given elements: strings with 6-bit lengths, "#n" for the integer n (int8 form,
// or the 0..12 immediate).
std::string ziplist(const std::vector<std::string>& elems) {
  std::string entries;
  size_t prev = 0, last_off = 10;
  for (const std::string& e : elems) {
    std::string enc;
    if (!e.empty() && e[0] == '#') {
      const int v = std::stoi(e.substr(1));
      if (v >= 0 && v <= 12) {
        enc.push_back(static_cast<char>(0xF1 + v));
      } else {
        enc.push_back(static_cast<char>(0xFE));
        enc.push_back(static_cast<char>(static_cast<int8_t>(v)));
      }
    } else {
      enc.push_back(static_cast<char>(e.size()));  // < 64
      enc += e;
    }
    std::string entry;
    entry.push_back(static_cast<char>(prev));  // prevlen < 254 here
    entry += enc;
    last_off = 10 + entries.size();
    entries += entry;
    prev = entry.size();
  }
  const uint32_t total = static_cast<uint32_t>(10 + entries.size() + 1);
  std::string z = u32le(total) + u32le(static_cast<uint32_t>(last_off));
  z.push_back(static_cast<char>(elems.size()));
  z.push_back(0);
  return z + entries + "\xFF";
}

std::string zipmap(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string z(1, static_cast<char>(pairs.size()));
  for (const auto& [k, v] : pairs) {
    z.push_back(static_cast<char>(k.size()));
    z += k;
    z.push_back(static_cast<char>(v.size()));
    z.push_back(0);  // no free bytes
    z += v;
  }
  return z + "\xFF";
}

// RDB string (raw form, length < 64 or 14-bit).
std::string str(const std::string& s) {
  std::string out;
  RdbOut o(&out);
  o.put_len(s.size());
  o.put(s.data(), s.size());
  o.flush();
  return out;
}
std::string len(uint64_t n) {
  std::string out;
  RdbOut o(&out);
  o.put_len(n);
  o.flush();
  return out;
}

std::string with_footer(const std::string& body, int version = 9) {
  std::string p = body;
  p.push_back(static_cast<char>(version));
  p.push_back(0);
  std::string out;
  RdbOut o(&out);
  o.put(p.data(), p.size());
  o.put_u64_le(o.crc());
  o.flush();
  return out;
}

Object* restore(const std::string& body, std::string* err = nullptr) {
  std::string e;
  Object* o = rdb_payload_to_object(with_footer(body), "k", true, &e);
  if (err) *err = e;
  return o;
}

Model expect_list(std::vector<std::string> v) {
  Model m;
  m.type = Type::kList;
  m.items = std::move(v);
  return m;
}

class RdbLegacy : public ::testing::Test {
 protected:
  void SetUp() override {
    if (keyspace().count() == 0) keyspace().init(16);
    keyspace().flush_all();
    log_options().level = LogLevel::kWarning;
  }
  void TearDown() override { keyspace().flush_all(); }
};

TEST_F(RdbLegacy, Type1ListAndType10ZiplistList) {
  Object* o = restore("\x01" + len(3) + str("a") + str("12") + str("c"));
  ASSERT_NE(o, nullptr);
  EXPECT_TRUE(model_of(*o) == expect_list({"a", "12", "c"}));
  EXPECT_EQ(o->encoding(), Encoding::kListpack);
  Object::destroy(o);
  o = restore("\x0a" + str(ziplist({"a", "#1", "#-100", "hello"})));
  ASSERT_NE(o, nullptr);
  EXPECT_TRUE(model_of(*o) == expect_list({"a", "1", "-100", "hello"}));
  EXPECT_EQ(o->encoding(), Encoding::kListpack);
  Object::destroy(o);
}

TEST_F(RdbLegacy, Type14QuicklistOfZiplists) {
  Object* o = restore("\x0e" + len(3) + str(ziplist({"a", "b"})) + str(ziplist({})) + str(ziplist({"#7"})));
  ASSERT_NE(o, nullptr);
  EXPECT_TRUE(model_of(*o) == expect_list({"a", "b", "7"}));
  EXPECT_EQ(o->encoding(), Encoding::kQuicklist);  // two nodes stay two nodes (the empty one dropped)
  Object::destroy(o);
  o = restore("\x0e" + len(1) + str(ziplist({"x", "y"})));
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->encoding(), Encoding::kListpack);  // one node within the limit: a small list
  Object::destroy(o);
  std::string err;
  EXPECT_EQ(restore("\x0e" + len(1) + str(ziplist({})), &err), nullptr);  // empty list
  EXPECT_EQ(err, "ERR Bad data format");
  EXPECT_EQ(restore("\x0e" + len(1) + str("not a ziplist")), nullptr);
}

TEST_F(RdbLegacy, Type3ZsetWithTextScores) {
  Object* o = restore("\x03" + len(4) + str("a") + "\x03" "1.5" + str("hi") + "\xFE" + str("lo") + "\xFF" +
                      str("z") + "\x01" "0");
  ASSERT_NE(o, nullptr);
  Model m = model_of(*o);
  ASSERT_EQ(m.zset.size(), 4u);
  EXPECT_EQ(m.zset[0], std::make_pair(std::string("lo"), -std::numeric_limits<double>::infinity()));
  EXPECT_EQ(m.zset[1], std::make_pair(std::string("z"), 0.0));
  EXPECT_EQ(m.zset[2], std::make_pair(std::string("a"), 1.5));
  EXPECT_EQ(m.zset[3].second, std::numeric_limits<double>::infinity());
  EXPECT_EQ(o->encoding(), Encoding::kListpack);
  Object::destroy(o);
  EXPECT_EQ(restore("\x03" + len(1) + str("a") + "\xFD"), nullptr);                       // NaN
  EXPECT_EQ(restore("\x03" + len(2) + str("a") + "\x01" "1" + str("a") + "\x01" "2"), nullptr);  // dup
  EXPECT_EQ(restore("\x03" + len(1) + str("a") + "\x03" "abc"), nullptr);                // not a number
}

TEST_F(RdbLegacy, ZipmapAndZiplistHashes) {
  Object* o = restore("\x09" + str(zipmap({{"f1", "v1"}, {"f2", "123"}})));
  ASSERT_NE(o, nullptr);
  Model m = model_of(*o);
  EXPECT_EQ(m.hash, (std::vector<std::pair<std::string, std::string>>{{"f1", "v1"}, {"f2", "123"}}));
  EXPECT_EQ(o->encoding(), Encoding::kListpack);
  Object::destroy(o);
  // A zipmap value over hash-max-listpack-value: a hashtable.
  o = restore("\x09" + str(zipmap({{"f", std::string(100, 'v')}})));
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->encoding(), Encoding::kHashtable);
  Object::destroy(o);
  EXPECT_EQ(restore("\x09" + str(zipmap({{"f", "a"}, {"f", "b"}}))), nullptr);  // repeated field
  EXPECT_EQ(restore("\x09" + str("\x01\x05" "ab")), nullptr);                  // truncated
  o = restore("\x0d" + str(ziplist({"f", "#5", "g", "x"})));
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(model_of(*o).hash, (std::vector<std::pair<std::string, std::string>>{{"f", "5"}, {"g", "x"}}));
  EXPECT_EQ(o->encoding(), Encoding::kListpack);
  Object::destroy(o);
  EXPECT_EQ(restore("\x0d" + str(ziplist({"f", "1", "g"}))), nullptr);       // odd count
  EXPECT_EQ(restore("\x0d" + str(ziplist({"f", "1", "f", "2"}))), nullptr);  // repeated field
}

TEST_F(RdbLegacy, ZiplistZset) {
  Object* o = restore("\x0c" + str(ziplist({"a", "#1", "b", "2.5"})));
  ASSERT_NE(o, nullptr);
  Model m = model_of(*o);
  ASSERT_EQ(m.zset.size(), 2u);
  EXPECT_EQ(m.zset[1], std::make_pair(std::string("b"), 2.5));
  EXPECT_EQ(o->encoding(), Encoding::kListpack);
  Object::destroy(o);
  EXPECT_EQ(restore("\x0c" + str(ziplist({"a", "#1", "a", "#2"}))), nullptr);  // repeated member
  EXPECT_EQ(restore("\x0c" + str(ziplist({"a", "nan"}))), nullptr);
  EXPECT_EQ(restore("\x0c" + str(ziplist({"a", "x1"}))), nullptr);
}

TEST_F(RdbLegacy, DuplicatesInPlainTypes) {
  EXPECT_EQ(restore("\x02" + len(2) + str("a") + str("a")), nullptr);
  EXPECT_EQ(restore("\x02" + len(2) + str("1") + str("1")), nullptr);  // intset path
  EXPECT_EQ(restore("\x04" + len(2) + str("f") + str("1") + str("f") + str("2")), nullptr);
  std::string two_same = "\x05" + len(2) + str("m") + std::string(8, '\0') + str("m") + std::string(8, '\0');
  EXPECT_EQ(restore(two_same), nullptr);
}

std::string temp_file(const std::string& data) {
  char path[] = "/tmp/keel-rdblegacy-XXXXXX";
  const int fd = mkstemp(path);
  close(fd);
  std::ofstream(path, std::ios::binary) << data;
  return path;
}

TEST_F(RdbLegacy, OldFileWithoutChecksumAndExpireInSeconds) {
  const int64_t now_s = time(nullptr);
  std::string f = "REDIS0003";
  f += "\xFE" + len(1);                                                  // SELECTDB 1
  f += "\xFD" + u32le(static_cast<uint32_t>(now_s + 100000)) + std::string("\x00", 1) + str("later") + str("v");
  f += "\xFD" + u32le(static_cast<uint32_t>(now_s - 100)) + std::string("\x00", 1) + str("gone") + str("v");
  f += std::string("\x00", 1) + str("plain") + str("v");
  f += "\xFF";  // EOF, no checksum before version 5
  const std::string path = temp_file(f);
  const RdbLoadResult r = rdb_load_file(path, false);
  ASSERT_EQ(r.status, RdbLoadResult::kOk) << r.reason << " at " << r.offset;
  EXPECT_EQ(r.keys_loaded, 2u);
  EXPECT_EQ(r.keys_expired, 1u);
  const Object* o = keyspace().db(1).peek(KeyRef::of("later"));
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->expire_ms(), (now_s + 100000) * 1000);
  EXPECT_EQ(keyspace().db(1).peek(KeyRef::of("gone")), nullptr);
  EXPECT_NE(keyspace().db(1).peek(KeyRef::of("plain")), nullptr);
  unlink(path.c_str());
}

TEST_F(RdbLegacy, OpcodesAroundKeys) {
  std::string f = "REDIS0012";
  f += "\xFA" + str("redis-ver") + str("9.9.9");
  f += "\xFA" + str("unknown-aux") + str("ignored");
  f += "\xFE" + len(0) + "\xFB" + len(1000000000) + len(5);  // a wild RESIZEDB hint is bounded
  f += "\xF4" + len(1) + len(2) + len(3);                    // SLOT_INFO
  f += "\xF8" + len(500) + std::string("\x00", 1) + str("idle") + str("v");  // IDLE 500 s
  f += "\xF9\x07" + std::string("\x00", 1) + str("freq") + str("v");        // FREQ
  f += "\xFF";
  std::string image;
  {
    RdbOut o(&image);
    o.put(f.data(), f.size());
    o.put_u64_le(o.crc());
    o.flush();
  }
  const std::string path = temp_file(image);
  g_clock.lru_clock = static_cast<uint32_t>(time(nullptr));
  const RdbLoadResult r = rdb_load_file(path, false);
  ASSERT_EQ(r.status, RdbLoadResult::kOk) << r.reason;
  const Object* o = keyspace().db(0).peek(KeyRef::of("idle"));
  ASSERT_NE(o, nullptr);
  const uint32_t idle = static_cast<uint32_t>(time(nullptr)) - o->lru();
  EXPECT_GE(idle, 499u);
  EXPECT_LE(idle, 502u);
  EXPECT_NE(keyspace().db(0).peek(KeyRef::of("freq")), nullptr);
  unlink(path.c_str());
}

TEST_F(RdbLegacy, Refusals) {
  auto check = [](const std::string& body) {
    std::string f = "REDIS0011" + body;
    return rdb_check_memory(reinterpret_cast<const uint8_t*>(f.data()), f.size()).reason;
  };
  EXPECT_EQ(check("\xF7" + len(1)), "The RDB file contains AUX module data Keel can't load (Keel has no modules)");
  EXPECT_EQ(check("\xF6" + str("x")), "Pre-release function format not supported.");
  EXPECT_EQ(check("\x07" + str("modkey") + len(5)), "values of RDB type 7 (module) are not supported: Keel has no modules");
  // Type 25 (a hash with field TTLs) is read now: a truncated one is an EOF like any value.
  EXPECT_EQ(check("\x19" + str("h")), "Unexpected EOF reading RDB file");
  EXPECT_EQ(check("\x08" + str("k")), "Unknown RDB encoding type 8");
  EXPECT_EQ(check("\x1a" + str("k")), "Unknown RDB encoding type 26");
  // The checker accepts any db number; the server's load refuses one beyond `databases`.
  std::string f = "REDIS0011\xFE" + len(16) + "\xFF" + std::string(8, '\0');
  const std::string path = temp_file(f);
  const RdbLoadResult r = rdb_load_file(path, false);
  EXPECT_EQ(r.reason,
            "FATAL: Data file was created with a Redis server configured to handle more than 16 "
            "databases. Exiting");
  unlink(path.c_str());
}

}  // namespace
}  // namespace keel
