// The RDB loader: whole files (start-up, DEBUG RELOAD, keel-check-rdb) and DUMP payloads
// (RESTORE, FUNCTION RESTORE). Every value gets Keel's own encoding by the current thresholds;
// blobs (listpacks, intsets, ziplists, zipmaps) are validated entry by entry before use, so a
// corrupt input is refused, never kept to crash the server later (see README.md, "Loading").
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "types/object.h"

namespace keel {

struct RdbLoadResult {
  enum Status { kOk, kMissing, kOpenError, kError } status = kOk;
  uint64_t offset = 0;     // where the error was found
  std::string reason;      // why (the first error)
  std::string key;         // the key being read when it happened, if any
  int type = -1;           // its value type, if any
  uint64_t keys_loaded = 0;
  uint64_t keys_expired = 0;
  uint64_t empty_keys_skipped = 0;
  uint64_t end_offset = 0;  // kOk: where the RDB ended (an AOF's command tail may follow)
};

// Loads `filename` into the keyspace (into whatever it holds: the caller flushes first when it
// wants an empty start). With `merge` a key already present is replaced by the loaded copy
// (DEBUG RELOAD MERGE); otherwise a duplicate is an error. Keys already expired are dropped.
// Logs Redis's lines (producer version, age, keys loaded / expired).
// `aof_preamble`: the RDB part of an AOF (a base file, or an old single file): keys already
// expired are kept, as Redis keeps them there (the commands after it may still touch them).
RdbLoadResult rdb_load_file(const std::string& filename, bool merge, bool aof_preamble = false);

// DUMP payload footer check: at least 10 bytes, a version Keel reads, a matching CRC64.
bool rdb_verify_payload(std::string_view payload, int* version);
// RESTORE: the value of a verified payload as an object under `key` (no TTL). nullptr with
// *err set (Redis's "ERR Bad data format", followed by the reason for types Keel does not
// have). `deep` adds the checks of sanitize-dump-payload yes.
Object* rdb_payload_to_object(std::string_view payload, std::string_view key, bool deep,
                              std::string* err);
// FUNCTION RESTORE: the library sources of a verified payload, or false with *err set
// (without the "ERR " prefix).
bool rdb_payload_functions(std::string_view payload, std::vector<std::string>* codes,
                           std::string* err);

// The checker's full read (every value built and validated, then freed) of an RDB image in
// memory, without output: what keel-check-rdb does, for tests and fuzzing.
RdbLoadResult rdb_check_memory(const uint8_t* p, size_t n);
// The same full check of a file (a replica's received snapshot, before it replaces the data).
RdbLoadResult rdb_check_file(const std::string& filename);

// keel-check-rdb FILE: prints a report in redis-check-rdb's format; returns the exit code.
int rdb_check_main(int argc, char** argv);

}  // namespace keel
