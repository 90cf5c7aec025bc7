// Hashes with field TTLs in RDB (Redis 7.4's formats): DUMP payloads written and read back
// (listpackex as type 25, a hashtable with TTLs as type 24, without TTLs as type 4), payloads
// built by hand in each of the four layouts (22 and 23 from 7.4's release candidates, 24 and 25
// from GA) with fields already expired dropped, the version raised to 12 for a hash with TTLs
// when 10 / 11 is configured, and corrupt values refused.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <utility>

#include "base/time.h"
#include "persistence/rdb_format.h"
#include "persistence/rdb_io.h"
#include "persistence/rdb_load.h"
#include "persistence/rdb_save.h"
#include "types/hash_type.h"

namespace keel {
namespace {

using Fields = std::map<std::string, std::pair<std::string, int64_t>>;

Fields fields_of(const Object& o) {
  Fields f;
  HashType::for_each_with_ttl(o, [&](std::string_view k, std::string_view v, int64_t ttl) {
    f[std::string(k)] = {std::string(v), ttl};
  });
  return f;
}

// A payload from a value body: type byte, body, version, CRC64.
template <class Body>
std::string payload(int type, int version, Body&& body) {
  std::string s;
  RdbOut out(&s);
  out.put_byte(static_cast<uint8_t>(type));
  body(out);
  const uint8_t v[2] = {static_cast<uint8_t>(version), 0};
  out.put(v, 2);
  out.put_u64_le(out.crc());
  out.flush();
  return s;
}

Object* restore(const std::string& p, std::string* err) {
  int version;
  if (!rdb_verify_payload(p, &version)) {
    *err = "verify";
    return nullptr;
  }
  return rdb_payload_to_object(p, "k", /*deep=*/true, err);
}

Object* ttl_hash(bool hashtable, int64_t t1, int64_t t2) {
  Object* o = HashType::create("k");
  EncodingLimits lim = encoding_limits();
  HashType::set(*o, "a", "1", lim);
  HashType::set(*o, "b", "two", lim);
  HashType::set(*o, "c", "3", lim);
  if (hashtable) HashType::convert_to_hashtable(*o, 0);
  HashType::enable_field_ttls(*o);
  HashType::set_field_ttl(*o, "a", t1);
  HashType::set_field_ttl(*o, "b", t2);
  return o;
}

TEST(RdbHfe, RoundTripBothEncodings) {
  const int64_t t = mstime() + 100000;
  for (bool ht : {false, true}) {
    Object* o = ttl_hash(ht, t + 5, t);
    const std::string p = rdb_dump_payload(*o, 12, false);
    EXPECT_EQ(static_cast<uint8_t>(p[0]), ht ? kRdbHashMetadata : kRdbHashListpackEx);
    std::string err;
    Object* back = restore(p, &err);
    ASSERT_NE(back, nullptr) << err;
    EXPECT_TRUE(HashType::has_field_ttls(*back));
    EXPECT_EQ(fields_of(*back), fields_of(*o));
    EXPECT_EQ(HashType::min_field_ttl(*back), t);
    Object::destroy(back);
    // Configured 10 or 11: written as 12 all the same (the TTLs are kept).
    for (int v : {10, 11}) {
      const std::string q = rdb_dump_payload(*o, v, false);
      EXPECT_EQ(static_cast<uint8_t>(q[q.size() - 10]), 12);
    }
    Object::destroy(o);
  }
}

TEST(RdbHfe, TtlSupportWithoutTtls) {
  // A listpackex without TTLs is still type 25 at 12; a hashtable without TTLs is type 4; at 11
  // both are plain hashes.
  for (bool ht : {false, true}) {
    Object* o = ttl_hash(ht, 0, 0);
    const std::string p = rdb_dump_payload(*o, 12, false);
    EXPECT_EQ(static_cast<uint8_t>(p[0]), ht ? kRdbHash : kRdbHashListpackEx);
    const std::string q = rdb_dump_payload(*o, 11, false);
    EXPECT_EQ(static_cast<uint8_t>(q[0]), kRdbHash);
    std::string err;
    Object* back = restore(q, &err);
    ASSERT_NE(back, nullptr) << err;
    EXPECT_EQ(fields_of(*back), fields_of(*o));
    Object::destroy(back);
    Object::destroy(o);
  }
}

// Hand-built bodies. Field "x" has a TTL in the past and is dropped at load.
const int64_t kFuture = 4102444800000;  // 2100-01-01
const int64_t kPast = 1000;

TEST(RdbHfe, LoadsType24) {
  const std::string p = payload(kRdbHashMetadata, 12, [](RdbOut& out) {
    out.put_u64_le(kPast);
    out.put_len(3);
    out.put_len(0);  // no TTL
    out.put_string("a", false);
    out.put_string("1", false);
    out.put_len(kFuture - kPast + 1);
    out.put_string("b", false);
    out.put_string("2", false);
    out.put_len(1);  // = min: expired
    out.put_string("x", false);
    out.put_string("3", false);
  });
  std::string err;
  Object* o = restore(p, &err);
  ASSERT_NE(o, nullptr) << err;
  EXPECT_EQ(fields_of(*o), (Fields{{"a", {"1", 0}}, {"b", {"2", kFuture}}}));
  Object::destroy(o);
}

TEST(RdbHfe, LoadsType22) {
  const std::string p = payload(kRdbHashMetadataPreGa, 12, [](RdbOut& out) {
    out.put_len(2);
    out.put_len(kFuture);
    out.put_string("b", false);
    out.put_string("2", false);
    out.put_len(kPast);
    out.put_string("x", false);
    out.put_string("3", false);
  });
  std::string err;
  Object* o = restore(p, &err);
  ASSERT_NE(o, nullptr) << err;
  EXPECT_EQ(fields_of(*o), (Fields{{"b", {"2", kFuture}}}));
  Object::destroy(o);
}

Listpack triplets(std::initializer_list<std::tuple<const char*, const char*, int64_t>> t) {
  Listpack lp;
  for (const auto& [f, v, ttl] : t) {
    lp.append(f);
    lp.append(v);
    lp.append_int(ttl);
  }
  return lp;
}

TEST(RdbHfe, LoadsTypes25And23) {
  for (bool ga : {true, false}) {
    // Out of Redis's order on purpose: the loader puts it right.
    Listpack lp = triplets({{"a", "1", 0}, {"b", "2", kFuture}, {"x", "3", kPast}, {"c", "4", kFuture - 1}});
    const std::string p = payload(ga ? kRdbHashListpackEx : kRdbHashListpackExPreGa, 12, [&](RdbOut& out) {
      if (ga) out.put_u64_le(kPast);
      out.put_blob(lp.data(), lp.bytes(), false);
    });
    std::string err;
    Object* o = restore(p, &err);
    ASSERT_NE(o, nullptr) << err;
    EXPECT_EQ(o->encoding(), Encoding::kListpackEx);
    EXPECT_EQ(fields_of(*o), (Fields{{"a", {"1", 0}}, {"b", {"2", kFuture}}, {"c", {"4", kFuture - 1}}}));
    std::string order;
    HashType::for_each(*o, [&](std::string_view f, std::string_view) { order += f; });
    EXPECT_EQ(order, "cba");
    Object::destroy(o);
  }
}

TEST(RdbHfe, RefusesCorruptValues) {
  std::string err;
  // Not a multiple of three entries.
  Listpack lp;
  lp.append("a");
  lp.append("1");
  std::string p = payload(kRdbHashListpackEx, 12, [&](RdbOut& out) {
    out.put_u64_le(0);
    out.put_blob(lp.data(), lp.bytes(), false);
  });
  EXPECT_EQ(restore(p, &err), nullptr);
  // A TTL that is not an integer, a duplicate field, a TTL out of range.
  Listpack bad = triplets({{"a", "1", 0}});
  bad.erase_at(bad.seek(2), 1);
  bad.append("zz");
  p = payload(kRdbHashListpackEx, 12, [&](RdbOut& out) {
    out.put_u64_le(0);
    out.put_blob(bad.data(), bad.bytes(), false);
  });
  EXPECT_EQ(restore(p, &err), nullptr);
  Listpack dup = triplets({{"a", "1", 0}, {"a", "2", kFuture}});
  p = payload(kRdbHashListpackEx, 12, [&](RdbOut& out) {
    out.put_u64_le(0);
    out.put_blob(dup.data(), dup.bytes(), false);
  });
  EXPECT_EQ(restore(p, &err), nullptr);
  p = payload(kRdbHashMetadata, 12, [](RdbOut& out) {
    out.put_u64_le(kFuture);
    out.put_len(1);
    out.put_len(uint64_t{1} << 50);
    out.put_string("a", false);
    out.put_string("1", false);
  });
  EXPECT_EQ(restore(p, &err), nullptr);
  // Every field expired: nothing to restore.
  p = payload(kRdbHashMetadataPreGa, 12, [](RdbOut& out) {
    out.put_len(1);
    out.put_len(kPast);
    out.put_string("x", false);
    out.put_string("1", false);
  });
  EXPECT_EQ(restore(p, &err), nullptr);
}

}  // namespace
}  // namespace keel
