// Fuzz target: the RDB loader (persistence/rdb_load.cc) on untrusted bytes, as a whole file
// (start-up, DEBUG RELOAD, keel-check-rdb) and as a DUMP payload (RESTORE).
//
// Input: byte 0 picks the mode, the rest is the data:
//   0: a whole file as it is: the checker's read (rdb_check_memory) and the server's load into
//      the keyspace (rdb_load_file on a memfd, byte 1 bit 0: MERGE);
//   1: the same, but the data is the records only: "REDIS00" + two version digits (byte 1),
//      the records, EOF and a correct CRC64 are put around it (so the damage reaches the value
//      parser instead of stopping at the signature or the checksum);
//   2: a DUMP payload as it is (the footer check decides first);
//   3: a DUMP payload whose footer is put on: version (byte 1 % 13) and a correct CRC64.
// Checked:
//   - nothing crashes, leaks or reads out of bounds (ASan, exact-size copies);
//   - a payload: RESTORE's errors are "ERR Bad data format..."; what sanitize-dump-payload yes
//     accepts, no accepts too; an accepted value dumps again to a payload that loads back to a
//     value that dumps to the same bytes (at rdb-version 11 and 10), and its clone has the same
//     contents (tests/cpp/persistence/model.h);
//   - a file: when the keyspace load succeeds, every db's KEYSIZES histogram is consistent and
//     the snapshot written from it passes the checker; an error leaves a reason.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "../cpp/persistence/model.h"
#include "base/log.h"
#include "fuzz_util.h"
#include "keyspace/keyspace.h"
#include "persistence/crc64.h"
#include "persistence/persistence.h"
#include "persistence/rdb_io.h"
#include "persistence/rdb_load.h"
#include "persistence/rdb_save.h"

using keel::fuzz::Input;

namespace {

// Function libraries: the scripting layer is not linked, so a stand-in keeps the sources (a
// FUNCTION2 record then loads as it would, and a snapshot writes them back).
std::vector<std::string> g_libs;

bool stub_load_library(std::string_view code, bool, std::string* err) {
  if (code.substr(0, 5) != "#!lua") {
    *err = "Missing library metadata";
    return false;
  }
  g_libs.emplace_back(code);
  return true;
}
void stub_for_each(void* ctx, void (*f)(void*, std::string_view)) {
  for (const auto& l : g_libs) f(ctx, l);
}
void stub_flush() { g_libs.clear(); }

void setup() {
  static bool done = false;
  if (done) return;
  done = true;
  keel::log_options().level = keel::LogLevel::kNothing;
  keel::keyspace().init(16);
  keel::g_function_hooks.load_library = stub_load_library;
  keel::g_function_hooks.for_each_library = stub_for_each;
  keel::g_function_hooks.flush = stub_flush;
}

void put_le(std::string& s, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) s.push_back(static_cast<char>(v >> (8 * i)));
}

std::string dump_of(const keel::Object& o, int version) { return keel::rdb_dump_payload(o, version, true); }

void check_payload(const std::string& p) {
  if (!keel::rdb_verify_payload(p, nullptr)) return;
  std::string err_shallow, err_deep;
  keel::Object* shallow = keel::rdb_payload_to_object(p, "k", false, &err_shallow);
  keel::Object* deep = keel::rdb_payload_to_object(p, "k", true, &err_deep);
  if (shallow == nullptr) FUZZ_CHECK(err_shallow.rfind("ERR Bad data format", 0) == 0);
  if (deep == nullptr) FUZZ_CHECK(err_deep.rfind("ERR Bad data format", 0) == 0);
  FUZZ_CHECK(deep == nullptr || shallow != nullptr);
  for (keel::Object* o : {shallow, deep}) {
    if (o == nullptr) continue;
    for (int version : {11, 10}) {
      const std::string again = dump_of(*o, version);
      std::string err;
      keel::Object* back = keel::rdb_payload_to_object(again, "k", false, &err);
      if (back == nullptr) {
        std::fprintf(stderr, "re-dump refused (%s): %s\n", err.c_str(), keel::fuzz::show(again).c_str());
      }
      FUZZ_CHECK(back != nullptr);
      FUZZ_CHECK(back->type() == o->type());
      FUZZ_CHECK(dump_of(*back, version) == again);
      keel::Object::destroy(back);
    }
    keel::Object* copy = keel::Object::clone_with_key(o, "copy", true);
    // Same contents (not the same bytes: a clone builds its list nodes by its own rules).
    FUZZ_CHECK(keel::model_of(*copy) == keel::model_of(*o));
    keel::Object::destroy(copy);
  }
  if (shallow && deep) FUZZ_CHECK(keel::model_of(*shallow) == keel::model_of(*deep));
  if (shallow) keel::Object::destroy(shallow);
  if (deep) keel::Object::destroy(deep);
}

void check_file(const std::string& img, bool merge) {
  // The checker: an exact-size heap copy, so a read one byte too far is an ASan report.
  std::vector<uint8_t> copy(img.begin(), img.end());
  const keel::RdbLoadResult c = keel::rdb_check_memory(copy.data(), copy.size());
  if (c.status != keel::RdbLoadResult::kOk) FUZZ_CHECK(!c.reason.empty());

  // The server's load, through a file descriptor as at start-up.
  static int fd = -1;
  static std::string path;
  if (fd < 0) {
    fd = memfd_create("rdb-fuzz", 0);
    FUZZ_CHECK(fd >= 0);
    path = "/proc/self/fd/" + std::to_string(fd);
  }
  FUZZ_CHECK(ftruncate(fd, 0) == 0);
  FUZZ_CHECK(pwrite(fd, img.data(), img.size(), 0) == static_cast<ssize_t>(img.size()));
  const keel::RdbLoadResult r = keel::rdb_load_file(path, merge);
  if (r.status == keel::RdbLoadResult::kOk) {
    for (int i = 0; i < keel::keyspace().count(); i++) {
      std::string diff;
      if (!keel::keyspace().db(i).keysizes_consistent(&diff)) std::fprintf(stderr, "%s\n", diff.c_str());
      FUZZ_CHECK(keel::keyspace().db(i).keysizes_consistent(&diff));
    }
    // What was loaded saves to a file the checker accepts.
    std::string snap;
    {
      keel::RdbOut out(&snap);
      keel::rdb_write_snapshot(out, 11, true, true);
      out.flush();
    }
    const keel::RdbLoadResult again =
        keel::rdb_check_memory(reinterpret_cast<const uint8_t*>(snap.data()), snap.size());
    if (again.status != keel::RdbLoadResult::kOk) std::fprintf(stderr, "resave refused: %s\n", again.reason.c_str());
    FUZZ_CHECK(again.status == keel::RdbLoadResult::kOk);
  } else {
    FUZZ_CHECK(r.status == keel::RdbLoadResult::kError && !r.reason.empty());
  }
  keel::keyspace().flush_all();
  stub_flush();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  setup();
  Input in(data, size);
  const uint8_t mode = in.u8() % 4;
  switch (mode) {
    case 0: {
      const bool merge = in.flag();
      check_file(std::string(in.rest()), merge);
      break;
    }
    case 1: {
      const uint8_t v = in.u8();
      const bool merge = v & 0x80;
      char head[16];
      std::snprintf(head, sizeof(head), "REDIS%04d", 1 + (v & 0x7F) % 12);
      std::string img(head);
      img += in.rest();
      img.push_back(static_cast<char>(0xFF));
      put_le(img, keel::crc64(0, img.data(), img.size()), 8);
      check_file(img, merge);
      break;
    }
    case 2: check_payload(std::string(in.rest())); break;
    case 3: {
      const int version = in.u8() % 13;
      std::string p(in.rest());
      put_le(p, static_cast<uint64_t>(version), 2);
      put_le(p, keel::crc64(0, p.data(), p.size()), 8);
      check_payload(p);
      break;
    }
  }
  return 0;
}
