// The real files in tests/assets/rdb/ (written by Redis 6.2.9, 7.0.15, 7.2.6, 7.4.1 and a Valkey
// 8.1 development build; see the README there): each dump.rdb loads into the keyspace and every
// key matches contents.jsonl (type, value, expire time) with the encoding Redis 7.4 gives it
// (Keel's thresholds are 7.4's); each key's DUMP payload from that server restores to the same
// value; the function library comes back; each dump-streams.rdb loads with its listed streams.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "base/log.h"
#include "commands/command_table.h"
#include "json_mini.h"
#include "keyspace/keyspace.h"
#include "model.h"
#include "persistence/persistence.h"
#include "persistence/rdb_load.h"
#include "persistence/rdb_save.h"
#include "ds/stream.h"

namespace keel {
namespace {

const char* const kServers[] = {"redis-6.2.9", "redis-7.0.15", "redis-7.2.6", "redis-7.4.1",
                                "valkey-8.1-dev"};

std::string asset(const std::string& server, const std::string& file) {
  return "tests/assets/rdb/" + server + "/" + file;
}

std::vector<json::Value> read_jsonl(const std::string& path) {
  std::ifstream f(path);
  std::vector<json::Value> out;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    json::Value v;
    EXPECT_TRUE(json::parse(line, &v)) << path << ": " << line.substr(0, 80);
    out.push_back(std::move(v));
  }
  return out;
}

Model model_of_json(const json::Value& d) {
  Model m;
  const std::string& t = d["type"].text;
  const json::Value& v = d["value"];
  if (t == "string") {
    m.type = Type::kString;
    m.str = v.text;
  } else if (t == "list" || t == "set") {
    m.type = t == "list" ? Type::kList : Type::kSet;
    for (const auto& x : v.items) m.items.push_back(x.text);
    if (t == "set") std::sort(m.items.begin(), m.items.end());
  } else if (t == "zset") {
    m.type = Type::kZset;
    for (const auto& p : v.items) m.zset.emplace_back(p.items[0].text, std::strtod(p.items[1].text.c_str(), nullptr));
  } else if (t == "hash") {
    m.type = Type::kHash;
    for (const auto& [f, x] : v.fields) m.hash.emplace_back(f, x.text);
    std::sort(m.hash.begin(), m.hash.end());
  }
  return m;
}

std::string unhex(const std::string& h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}

std::vector<std::string> library_codes() {
  std::vector<std::string> codes;
  g_function_hooks.for_each_library(&codes, [](void* ctx, std::string_view code) {
    static_cast<std::vector<std::string>*>(ctx)->emplace_back(code);
  });
  return codes;
}

class RdbFixtures : public ::testing::Test {
 protected:
  void SetUp() override {
    if (keyspace().count() == 0) keyspace().init(16);
    keyspace().flush_all();
    install_persistence_hooks();
    g_function_hooks.flush();
    log_options().level = LogLevel::kWarning;
  }
  void TearDown() override {
    keyspace().flush_all();
    g_function_hooks.flush();
  }
};

// Encodings Redis 7.4.1 reported for the same data set: what Keel must choose too.
std::map<std::string, std::string> reference_encodings() {
  std::map<std::string, std::string> enc;
  for (const json::Value& d : read_jsonl(asset("redis-7.4.1", "contents.jsonl"))) {
    if (d.has("key")) enc[d["key"].text] = d["encoding"].text;
  }
  return enc;
}

TEST_F(RdbFixtures, EveryDumpLoadsAndMatchesItsContents) {
  const auto ref_enc = reference_encodings();
  ASSERT_FALSE(ref_enc.empty());
  for (const char* server : kServers) {
    SCOPED_TRACE(server);
    keyspace().flush_all();
    g_function_hooks.flush();
    const RdbLoadResult r = rdb_load_file(asset(server, "dump.rdb"), false);
    ASSERT_EQ(r.status, RdbLoadResult::kOk) << r.reason << " at offset " << r.offset;
    const std::vector<json::Value> lines = read_jsonl(asset(server, "contents.jsonl"));
    size_t keys = 0;
    for (const json::Value& d : lines) {
      if (!d.has("key")) continue;
      keys++;
      const std::string& key = d["key"].text;
      SCOPED_TRACE(key);
      const Object* o = keyspace().db(static_cast<int>(d["db"].as_int())).peek(KeyRef::of(key));
      ASSERT_NE(o, nullptr);
      EXPECT_TRUE(model_of(*o) == model_of_json(d));
      EXPECT_EQ(o->has_expire() ? o->expire_ms() : -1, d["pexpireat"].as_int());
      EXPECT_EQ(encoding_name(o->encoding()), ref_enc.at(key));
      // The same key's DUMP payload from that server.
      const std::string payload = unhex(d["dump_hex"].text);
      int version = 0;
      ASSERT_TRUE(rdb_verify_payload(payload, &version));
      std::string err;
      Object* back = rdb_payload_to_object(payload, key, true, &err);
      ASSERT_NE(back, nullptr) << err;
      EXPECT_TRUE(model_of(*back) == model_of_json(d));
      EXPECT_EQ(encoding_name(back->encoding()), ref_enc.at(key));
      Object::destroy(back);
    }
    EXPECT_EQ(r.keys_loaded, keys);
    size_t total = 0;
    for (int i = 0; i < keyspace().count(); i++) {
      total += keyspace().db(i).size();
      std::string diff;
      EXPECT_TRUE(keyspace().db(i).keysizes_consistent(&diff)) << diff;
    }
    EXPECT_EQ(total, keys);
    const json::Value& last = lines.back();
    if (last.has("functions")) {
      const std::vector<std::string> codes = library_codes();
      ASSERT_EQ(codes.size(), last["functions"].items.size());
      EXPECT_NE(codes[0].find("name=" + last["functions"].items[0].text), std::string::npos);
      // FUNCTION DUMP of that server: the same library.
      std::vector<std::string> from_payload;
      const std::string fp = unhex(last["function_dump_hex"].text);
      ASSERT_TRUE(rdb_verify_payload(fp, nullptr));
      std::string err;
      ASSERT_TRUE(rdb_payload_functions(fp, &from_payload, &err)) << err;
      EXPECT_EQ(from_payload, codes);
    } else {
      EXPECT_TRUE(library_codes().empty());  // 6.2 has no functions
    }
  }
}

// A stream as the fixture's JSON describes it: entries [id, {field: value}], last_id, and
// per group its last delivered ID and pending entries [id, consumer, deliveries].
std::string stream_text(const Stream& s) {
  std::string out;
  char b[48];
  StreamIterator it(const_cast<Stream&>(s), StreamID{}, StreamID::max(), false);
  StreamID id;
  int64_t nf;
  while (it.next(&id, &nf)) {
    out.append(b, id.format(b)).append(":");
    it.for_each_field([&](const LpEntry& f, const LpEntry& v) {
      char x[kLpIntBufSize];
      out.append(f.str(x)).append("=");
      out.append(v.str(x)).append(",");
    });
    out += ";";
  }
  out.append(" last=").append(b, s.last_id.format(b));
  if (s.cgroups) {
    for (const auto& [name, g] : *s.cgroups) {
      out.append(" group=").append(name).append("@").append(b, g->last_id.format(b)).append("[");
      for (const auto& [pid, nack] : g->pel) {
        out.append(b, pid.format(b)).append("/").append(nack->consumer->name).append("/");
        out += std::to_string(nack->delivery_count) + ",";
      }
      out += "]";
    }
  }
  return out;
}

std::string stream_text_of_json(const json::Value& d) {
  std::string out;
  for (const auto& e : d["value"].items) {
    out.append(e.items[0].text).append(":");
    for (const auto& [f, v] : e.items[1].fields) out.append(f).append("=").append(v.text).append(",");
    out += ";";
  }
  out.append(" last=").append(d["last_id"].text);
  std::vector<const json::Value*> groups;
  for (const auto& g : d["groups"].items) groups.push_back(&g);
  std::sort(groups.begin(), groups.end(), [](auto* a, auto* b) { return (*a)["name"].text < (*b)["name"].text; });
  for (const json::Value* g : groups) {
    out.append(" group=").append((*g)["name"].text).append("@").append((*g)["last_delivered"].text).append("[");
    for (const auto& p : (*g)["pending"].items) {
      out.append(p.items[0].text).append("/").append(p.items[1].text).append("/").append(p.items[2].text).append(",");
    }
    out += "]";
  }
  return out;
}

// dump-streams.rdb of every server loads with the listed contents (entries, last ID, groups and
// their pending entries), each key's DUMP payload restores to the same stream, and what Keel
// writes back (rdb-version 10, 11, 12) reads back the same.
TEST_F(RdbFixtures, StreamDumpsLoadWithTheirContents) {
  for (const char* server : kServers) {
    SCOPED_TRACE(server);
    keyspace().flush_all();
    const RdbLoadResult r = rdb_load_file(asset(server, "dump-streams.rdb"), false);
    ASSERT_EQ(r.status, RdbLoadResult::kOk) << r.reason << " key " << r.key;
    size_t keys = 0;
    for (const json::Value& d : read_jsonl(asset(server, "contents-streams.jsonl"))) {
      if (!d.has("key")) continue;
      keys++;
      SCOPED_TRACE(d["key"].text);
      const Object* o = keyspace().db(static_cast<int>(d["db"].as_int())).peek(KeyRef::of(d["key"].text));
      ASSERT_NE(o, nullptr);
      ASSERT_EQ(o->type(), Type::kStream);
      EXPECT_EQ(o->encoding(), Encoding::kStream);
      const Stream& s = *static_cast<const Stream*>(o->ptr());
      std::string why;
      EXPECT_TRUE(s.check(&why)) << why;
      const std::string want = stream_text_of_json(d);
      EXPECT_EQ(stream_text(s), want);
      // That server's DUMP payload restores to the same stream.
      const std::string payload = unhex(d["dump_hex"].text);
      ASSERT_TRUE(rdb_verify_payload(payload, nullptr));
      std::string err;
      for (bool deep : {false, true}) {
        Object* back = rdb_payload_to_object(payload, "s", deep, &err);
        ASSERT_NE(back, nullptr) << err;
        EXPECT_EQ(stream_text(*static_cast<const Stream*>(back->ptr())), want);
        Object::destroy(back);
      }
      // Keel's own payloads in each version it writes.
      for (int version : {10, 11, 12}) {
        Object* again = rdb_payload_to_object(rdb_dump_payload(*o, version, true), "s", true, &err);
        ASSERT_NE(again, nullptr) << err;
        const Stream& a = *static_cast<const Stream*>(again->ptr());
        EXPECT_EQ(stream_text(a), want);
        EXPECT_EQ(a.entries_added, s.entries_added);
        EXPECT_EQ(a.max_deleted_id, s.max_deleted_id);
        EXPECT_EQ(a.first_id, s.first_id);
        Object::destroy(again);
      }
    }
    EXPECT_EQ(keys, 3u);
  }
}

}  // namespace
}  // namespace keel
