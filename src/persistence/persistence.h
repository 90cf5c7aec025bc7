// Persistence options and state shared by the RDB writer and loader, the commands (SAVE,
// DUMP/RESTORE, DEBUG RELOAD, LASTSAVE) and the server (load at start-up, save at shutdown).
// server/config_table.cc writes the options; nothing here knows about the configuration file.
// Function libraries live in scripting/, a sibling layer: commands/ installs FunctionHooks so
// the writer can list them and the loader can load them.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "persistence/rdb_format.h"

namespace keel {

struct SavePoint {
  int64_t seconds;
  int64_t changes;
};

enum class SanitizePayload : int { kNo = 0, kYes = 1, kClients = 2 };

struct PersistenceOptions {
  // save: Redis's defaults until a config file line or CONFIG SET says otherwise.
  std::vector<SavePoint> save_points = {{3600, 1}, {300, 100}, {60, 10000}};
  std::string dbfilename = "dump.rdb";
  bool rdbcompression = true;
  bool rdbchecksum = true;         // immutable, as in Redis
  bool incremental_fsync = true;   // rdb-save-incremental-fsync: fdatasync every 4 MB
  int sanitize_dump_payload = 0;   // SanitizePayload
  int rdb_version = kRdbDefaultVersion;  // rdb-version: 10, 11 or 12
  std::string redis_ver = "7.4.0";       // the redis-ver AUX field (set at start-up)
};
PersistenceOptions& persistence_options();

struct PersistenceState {
  int64_t lastsave = 0;              // unix seconds of the last successful save (boot time)
  bool last_save_ok = true;
  int64_t last_save_duration_us = 0;
  uint64_t keys_loaded = 0;          // by the last load
  uint64_t keys_expired = 0;         // dropped by the last load
};
PersistenceState& persistence_state();

struct FunctionHooks {
  // Calls f(ctx, code) for every library, in name order.
  void (*for_each_library)(void* ctx, void (*f)(void* ctx, std::string_view code)) = nullptr;
  // Loads one library (replace: an existing one of the same name is replaced); false with
  // *err set on failure.
  bool (*load_library)(std::string_view code, bool replace, std::string* err) = nullptr;
  void (*flush)() = nullptr;  // drops every library (DEBUG RELOAD)
};
extern FunctionHooks g_function_hooks;

}  // namespace keel
