// Corrupted input never crashes the loader: a seeded loop flips, overwrites, inserts, deletes
// and truncates bytes of the fixture dumps and of DUMP payloads (their CRC recomputed half of
// the time, so the value parser sees the damage), and loads the result. Anything accepted must
// also be usable: every element read back, the value converted to its big encoding, copied,
// dumped again and re-read to the same contents. Bounded by time (KEEL_RDB_FUZZ_SECONDS, 3 s by
// default) so it runs in `make test` and under ASan; KEEL_RDB_FUZZ_SEED picks another seed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "base/log.h"
#include "commands/command_table.h"
#include "json_mini.h"
#include "keyspace/keyspace.h"
#include "model.h"
#include "persistence/crc64.h"
#include "persistence/persistence.h"
#include "persistence/rdb_load.h"
#include "persistence/rdb_save.h"
#include "types/stream_type.h"

namespace keel {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string unhex(const std::string& h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}

void mutate(std::string& s, std::mt19937_64& rng) {
  static const uint8_t kInteresting[] = {0x00, 0x01, 0x3F, 0x40, 0x7F, 0x80, 0x81, 0xC0, 0xC1,
                                         0xC2, 0xC3, 0xC4, 0xFE, 0xFF, 0x0E, 0x12, 0x14, 0x10};
  const int ops = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < ops && !s.empty(); i++) {
    const size_t pos = rng() % s.size();
    switch (rng() % 6) {
      case 0: s[pos] = static_cast<char>(s[pos] ^ (1 << (rng() % 8))); break;
      case 1: s[pos] = static_cast<char>(kInteresting[rng() % sizeof(kInteresting)]); break;
      case 2: s[pos] = static_cast<char>(rng()); break;
      case 3: s.insert(pos, 1, static_cast<char>(rng())); break;
      case 4: s.erase(pos, 1 + rng() % 4); break;
      case 5: s.resize(pos); break;
    }
  }
}

// Recomputes a payload's CRC (the last 8 bytes) so the damage reaches the parser.
void fix_payload_crc(std::string& p) {
  if (p.size() < 10) return;
  const uint64_t c = crc64(0, p.data(), p.size() - 8);
  for (int i = 0; i < 8; i++) p[p.size() - 8 + static_cast<size_t>(i)] = static_cast<char>(c >> (8 * i));
}

// Uses an accepted object every way the server could.
void exercise(Object* o) {
  const Model m = model_of(*o);
  Object* copy = Object::clone_with_key(o, "copy", true);
  ASSERT_TRUE(model_of(*copy) == m);
  Object::destroy(copy);
  const std::string again = rdb_dump_payload(*o, 11, true);
  std::string err;
  // Not deep: a zset listpack out of order is accepted without sanitize-dump-payload (as Redis
  // accepts it), and goes out again as it is.
  Object* back = rdb_payload_to_object(again, "again", false, &err);
  ASSERT_NE(back, nullptr) << err << " type " << type_name(o->type()) << " enc "
                           << encoding_name(o->encoding()) << " first byte " << int(uint8_t(again[0]));
  ASSERT_TRUE(model_of(*back) == m);
  Object::destroy(back);
  switch (o->type()) {
    case Type::kList:
      ListType::push(*o, ListType::End::kHead, "x");
      ListType::push(*o, ListType::End::kTail, std::string(9000, 'y'));
      break;
    case Type::kSet:
      SetType::add(*o, "new-member");
      SetType::maybe_convert(*o, 1 << 20);
      break;
    case Type::kZset: {
      double ns;
      ZsetType::add(*o, 1.5, "new-member", 0, &ns);
      ZsetType::maybe_convert(*o, 1 << 20);
      ASSERT_TRUE(ZsetType::check(*o));
      break;
    }
    case Type::kHash:
      HashType::set(*o, "new-field", "v", encoding_limits());
      HashType::convert_to_hashtable(*o, 0);
      break;
    case Type::kStream: {
      // Walk it both ways, then change it every way the commands do.
      Stream& st = StreamType::get(*o);
      std::string why;
      ASSERT_TRUE(st.check(&why)) << why;
      for (bool rev : {false, true}) {
        StreamIterator it(st, StreamID{}, StreamID::max(), rev);
        StreamID id;
        int64_t nf;
        while (it.next(&id, &nf)) it.for_each_field([](const LpEntry&, const LpEntry&) {});
      }
      StreamID next = st.last_id;
      if (next.incr()) {
        const std::string_view fv[] = {"f", "v"};
        st.append(next, fv, StreamType::limits());
      }
      StreamID first;
      if (st.first_entry_id(&first)) st.remove(first);
      StreamTrimArgs t;
      t.strategy = StreamTrimStrategy::kMaxLen;
      t.maxlen = 1;
      st.trim(t);
      ASSERT_TRUE(st.check(&why)) << why;
      break;
    }
    default: break;
  }
  (void)model_of(*o);
}

TEST(RdbFuzz, CorruptInputNeverCrashes) {
  if (keyspace().count() == 0) keyspace().init(16);
  install_persistence_hooks();
  log_options().level = LogLevel::kNothing;
  const char* secs_env = std::getenv("KEEL_RDB_FUZZ_SECONDS");
  const char* seed_env = std::getenv("KEEL_RDB_FUZZ_SEED");
  const double seconds = secs_env ? std::atof(secs_env) : 3.0;
  const uint64_t seed = seed_env ? std::strtoull(seed_env, nullptr, 10) : 20241201;
  std::mt19937_64 rng(seed);

  std::vector<std::string> files, payloads;
  for (const char* server : {"redis-6.2.9", "redis-7.0.15", "redis-7.2.6", "redis-7.4.1", "valkey-8.1-dev"}) {
    const std::string dir = std::string("tests/assets/rdb/") + server + "/";
    files.push_back(read_file(dir + "dump.rdb"));
    files.push_back(read_file(dir + "dump-streams.rdb"));
    for (const char* contents : {"contents.jsonl", "contents-streams.jsonl"}) {
      std::ifstream f(dir + contents);
      std::string line;
      while (std::getline(f, line)) {
        json::Value v;
        if (!json::parse(line, &v)) continue;
        if (v.has("dump_hex")) payloads.push_back(unhex(v["dump_hex"].text));
      }
    }
  }
  ASSERT_EQ(files.size(), 10u);
  ASSERT_GT(payloads.size(), 150u);
  char path[] = "/tmp/keel-rdbfuzz-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);

  const auto start = std::chrono::steady_clock::now();
  uint64_t runs = 0, accepted_payloads = 0, file_loads = 0;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    runs++;
    if (rng() % 3 == 0) {
      std::string img = files[rng() % files.size()];
      mutate(img, rng);
      SCOPED_TRACE("seed " + std::to_string(seed) + " run " + std::to_string(runs));
      (void)rdb_check_memory(reinterpret_cast<const uint8_t*>(img.data()), img.size());
      if (runs % 16 == 0) {
        // The server's path: into the keyspace, through Db (then emptied again).
        std::ofstream(path, std::ios::binary | std::ios::trunc) << img;
        (void)rdb_load_file(path, rng() % 2 == 0);
        for (int i = 0; i < keyspace().count(); i++) {
          std::string diff;
          ASSERT_TRUE(keyspace().db(i).keysizes_consistent(&diff)) << diff;
        }
        keyspace().flush_all();
        g_function_hooks.flush();
        file_loads++;
      }
      continue;
    }
    std::string p = payloads[rng() % payloads.size()];
    mutate(p, rng);
    if (rng() % 2) fix_payload_crc(p);
    if (!rdb_verify_payload(p, nullptr)) continue;
    std::string err;
    Object* o = rdb_payload_to_object(p, "k", rng() % 2 == 0, &err);
    if (!o) {
      EXPECT_EQ(err.rfind("ERR Bad data format", 0), 0u) << err;
      continue;
    }
    accepted_payloads++;
    SCOPED_TRACE("seed " + std::to_string(seed) + " run " + std::to_string(runs));
    exercise(o);
    Object::destroy(o);
  }
  unlink(path);
  RecordProperty("runs", static_cast<int>(runs));
  printf("[rdb fuzz] seed %llu: %llu runs (%llu file loads, %llu damaged payloads accepted and used)\n",
         static_cast<unsigned long long>(seed), static_cast<unsigned long long>(runs),
         static_cast<unsigned long long>(file_loads), static_cast<unsigned long long>(accepted_payloads));
  EXPECT_GT(runs, 100u);
}

}  // namespace
}  // namespace keel
