// Persistence commands: SAVE, BGSAVE, DUMP, RESTORE, FUNCTION DUMP and FUNCTION RESTORE (their rows
// sit in the FUNCTION container of cmd_scripting.cc), and the hooks through which persistence/
// reaches the function libraries of scripting/ (a sibling layer it may not include).
#include <algorithm>
#include <memory>
#include <unordered_map>
#include <string>
#include <vector>

#include "commands/command.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "commands/server_api.h"
#include "commands/tracking.h"
#include "keyspace/evict.h"
#include "keyspace/keyspace.h"
#include "base/log.h"
#include "base/numbers.h"
#include "base/sync_conn.h"
#include "base/util_random.h"
#include "commands/migrate.h"
#include "persistence/persistence.h"
#include "persistence/aof.h"
#include "persistence/rdb_bgsave.h"
#include "persistence/rdb_load.h"
#include "persistence/rdb_save.h"
#include "scripting/lua_engine.h"

namespace keel {

LuaEngine& functions_for_persistence();  // cmd_scripting.cc: the FUNCTION libraries

namespace {

constexpr std::string_view kErrPayload = "ERR DUMP payload version or checksum are wrong";
constexpr std::string_view kErrBusyKey = "BUSYKEY Target key name already exists.";
constexpr std::string_view kErrBgsaveInProgress = "ERR Background save already in progress";

// SAVE: a synchronous snapshot to dir/dbfilename; a bare "ERR" when it fails (the log says why).
void cmd_save(CommandContext& cx) {
  if (rdb_child_active()) return cx.reply().error(kErrBgsaveInProgress);
  persistence_state().saves++;  // rdb_saves counts the command, failed or not (Redis)
  if (rdb_save_file(persistence_options().dbfilename)) return cx.reply().ok();
  cx.reply().error("ERR");
}

// BGSAVE [SCHEDULE]: a forked child writes the snapshot while this process keeps serving.
// Inside a transaction, or with SCHEDULE while an AOF rewrite child runs, the save is only
// scheduled (the cron starts it), as Redis does.
void cmd_bgsave(CommandContext& cx) {
  if (cx.argc() > 2 || (cx.argc() == 2 && !cx.is_arg(1, "schedule"))) {
    return cx.reply().error(kErrSyntax);
  }
  if (rdb_child_active()) return cx.reply().error(kErrBgsaveInProgress);
  if (any_child_active() && exec_depth() <= 1 && cx.argc() != 2) {
    return cx.reply().error("ERR Another child process is active (AOF?): can't BGSAVE right now. Use "
                            "BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.");
  }
  // Run by EXEC (BGSAVE is noscript, so nothing else nests it), or SCHEDULE behind the AOF child.
  if (exec_depth() > 1 || any_child_active()) {
    persistence_state().bgsave_scheduled = true;
    return cx.reply().simple("Background saving scheduled");
  }
  if (rdb_bgsave(persistence_options().dbfilename)) {
    return cx.reply().simple("Background saving started");
  }
  cx.reply().error("ERR");
}

// BGREWRITEAOF: a forked child writes a new AOF base while the parent appends to a new
// incremental file (persistence/aof.h). Scheduled when another child runs or inside MULTI.
void cmd_bgrewriteaof(CommandContext& cx) {
  if (aof_rewrite_active()) {
    return cx.reply().error("ERR Background append only file rewriting already in progress");
  }
  if (any_child_active() || exec_depth() > 1) {
    aof_state().rewrite_scheduled = true;
    return cx.reply().simple("Background append only file rewriting scheduled");
  }
  std::string err;
  if (aof_rewrite_background(&err)) return cx.reply().simple("Background append only file rewriting started");
  cx.reply().error(err);
}

// DUMP key -> the value in RDB form + version + CRC64, or nil.
void cmd_dump(CommandContext& cx) {
  const Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().null();
  const PersistenceOptions& po = persistence_options();
  cx.reply().bulk(rdb_dump_payload(*o, po.rdb_version, po.rdbcompression));
}

bool lfu_policy(CommandContext&) { return lfu_policy_active(); }

// RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]. Checks in
// Redis's order: options, BUSYKEY, ttl, payload footer, payload body.
void cmd_restore(CommandContext& cx) {
  bool replace = false, absttl = false;
  int64_t idle = -1, freq = -1;
  for (size_t i = 4; i < cx.argc(); i++) {
    const bool more = i + 1 < cx.argc();
    if (cx.is_arg(i, "replace")) {
      replace = true;
    } else if (cx.is_arg(i, "absttl")) {
      absttl = true;
    } else if (cx.is_arg(i, "idletime") && more && freq == -1) {
      if (!cx.int_arg(++i, &idle)) return;
      if (idle < 0) return cx.reply().error("ERR Invalid IDLETIME value, must be >= 0");
    } else if (cx.is_arg(i, "freq") && more && idle == -1) {
      if (!cx.int_arg(++i, &freq)) return;
      if (freq < 0 || freq > 255) {
        return cx.reply().error("ERR Invalid FREQ value, must be >= 0 and <= 255");
      }
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  Db& db = cx.db();
  const KeyRef key = cx.key(1);
  Db::Slot slot = db.find_for_write(key);
  if (!replace && slot) return cx.reply().error(kErrBusyKey);
  int64_t ttl;
  if (!cx.int_arg(2, &ttl)) return;
  if (ttl < 0) return cx.reply().error("ERR Invalid TTL value, must be >= 0");
  const std::string_view payload = cx.arg(3);
  if (!rdb_verify_payload(payload, nullptr)) return cx.reply().error(kErrPayload);
  const int sanitize = persistence_options().sanitize_dump_payload;
  const bool deep = sanitize != static_cast<int>(SanitizePayload::kNo);  // yes, or clients
  if (deep) persistence_state().dump_payload_sanitizations++;
  std::string err;
  Object* obj = rdb_payload_to_object(payload, key.name, deep, &err);
  if (!obj) return cx.reply().error(err);

  const bool deleted = replace && slot;
  if (deleted) db.remove(slot);
  if (ttl != 0 && !absttl) ttl += cx.now_ms();
  if (ttl != 0 && ttl <= cx.now_ms()) {
    // Already expired: nothing is created; a replaced key is simply gone.
    Object::destroy(obj);
    if (deleted) cx.notify(kNotifyGeneric, "del", key.name);
    return cx.reply().ok();
  }
  db.insert(slot, obj);  // emits "new"
  if (ttl != 0) db.set_expire(slot, ttl);
  if (idle >= 0 && !lfu_policy(cx)) {
    const uint32_t now = g_clock.lru_clock;
    slot.obj()->set_lru(now - static_cast<uint32_t>(std::min<int64_t>(idle, now)));
  }
  if (freq >= 0 && lfu_policy(cx)) {
    // Redis's objectSetLRUOrLFU: the counter as given, stamped with the current minute.
    slot.obj()->set_lru((static_cast<uint32_t>(g_clock.now_ms / 60000) & 65535) << 8 | static_cast<uint32_t>(freq));
  }
  cx.notify(kNotifyGeneric, "restore", key.name);
  cx.reply().ok();
}

// ---- MIGRATE ------------------------------------------------------------------------------------

// MIGRATE's connections, one per target ("host:port"), kept for 10 s after their last use and
// at most 64 (a random one makes room), as Redis's migrate cached sockets; each remembers the db
// it last SELECTed.
struct MigrateConn {
  SyncConn conn;
  int64_t last_dbid = -1;
  int64_t last_use_ms = 0;
};
constexpr size_t kMigrateCacheMax = 64;
constexpr int64_t kMigrateCacheTtlMs = 10000;
std::unordered_map<std::string, std::unique_ptr<MigrateConn>>& migrate_cache() {
  static std::unordered_map<std::string, std::unique_ptr<MigrateConn>> m;
  return m;
}

// The cached connection to host:port, or a new one (nullptr and the reply sent when it fails).
MigrateConn* migrate_conn(CommandContext& cx, const std::string& name, int64_t timeout) {
  auto& cache = migrate_cache();
  if (auto it = cache.find(name); it != cache.end()) {
    it->second->last_use_ms = cx.now_ms();
    return it->second.get();
  }
  if (cache.size() >= kMigrateCacheMax) {
    auto victim = cache.begin();
    std::advance(victim, static_cast<std::ptrdiff_t>(random_u64() % cache.size()));
    cache.erase(victim);
  }
  auto mc = std::make_unique<MigrateConn>();
  int64_t port = 0;  // Redis reads it with atoi: not a number is port 0, which fails to connect
  if (!parse_int64(cx.arg(2), &port)) port = 0;
  if (!mc->conn.connect(std::string(cx.arg(1)), port, timeout)) {
    // A refused connection shows in Redis at its first write (its connect does not wait).
    cx.reply().error(mc->conn.timed_out() ? "IOERR error or timeout connecting to the client"
                                          : "IOERR error or timeout writing to target instance");
    return nullptr;
  }
  mc->last_use_ms = cx.now_ms();
  return cache.emplace(name, std::move(mc)).first->second.get();
}

void append_restores(CommandContext& cx, Buffer& req, std::span<const size_t> keys, bool replace) {
  const PersistenceOptions& po = persistence_options();
  for (size_t i : keys) {
    const Object* o = cx.db().find(cx.key(i), Db::kNoTouch);
    int64_t ttl = 0;
    if (o->has_expire()) ttl = std::max<int64_t>(o->expire_ms() - cx.now_ms(), 1);
    const IntArg ttl_arg(ttl);
    const std::string payload = rdb_dump_payload(*o, po.rdb_version, po.rdbcompression);
    if (replace) {
      resp_append_command(req, {"RESTORE", cx.arg(i), ttl_arg, payload, "REPLACE"});
    } else {
      resp_append_command(req, {"RESTORE", cx.arg(i), ttl_arg, payload});
    }
  }
}

// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password]
// [AUTH2 username password] [KEYS key ...]: as Redis, synchronously (the loop waits up to
// `timeout` ms per step): each existing key goes to the target as RESTORE key ttl <DUMP payload>
// [REPLACE], after AUTH and (when the cached connection is in another db) SELECT; what the
// target acknowledged is deleted here unless COPY and propagated as DEL. Checks in Redis's
// order: options, timeout and db, then the keys (none here: +NOKEY before any connection). A
// cached connection that fails before any key was taken is retried once on a new one (not
// after a timeout).
void cmd_migrate(CommandContext& cx) {
  bool copy = false, replace = false, auth = false;
  std::string_view user, pass;
  size_t first_key = 3, num_keys = 1;
  for (size_t j = 6; j < cx.argc(); j++) {
    const size_t more = cx.argc() - 1 - j;
    if (cx.is_arg(j, "copy")) {
      copy = true;
    } else if (cx.is_arg(j, "replace")) {
      replace = true;
    } else if (cx.is_arg(j, "auth")) {
      if (more < 1) return cx.reply().error(kErrSyntax);
      auth = true;
      user = {};
      pass = cx.arg(++j);
    } else if (cx.is_arg(j, "auth2")) {
      if (more < 2) return cx.reply().error(kErrSyntax);
      auth = true;
      user = cx.arg(++j);
      pass = cx.arg(++j);
    } else if (cx.is_arg(j, "keys")) {
      if (!cx.arg(3).empty()) {
        return cx.reply().error("ERR When using MIGRATE KEYS option, the key argument must be set to the empty string");
      }
      first_key = j + 1;
      num_keys = cx.argc() - j - 1;
      break;
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  int64_t timeout, dbid;
  if (!cx.int_arg(5, &timeout) || !cx.int_arg(4, &dbid)) return;
  if (timeout <= 0) timeout = 1000;
  std::vector<size_t> sent;  // argument positions of the keys that exist, in order
  for (size_t i = first_key; i < first_key + num_keys; i++) {
    if (cx.db().find(cx.key(i)) != nullptr) sent.push_back(i);
  }
  if (sent.empty()) return cx.reply().simple("NOKEY");

  const std::string name = std::string(cx.arg(1)) + ":" + std::string(cx.arg(2));
  std::vector<std::string_view> dels{"DEL"};
  for (int attempt = 0;; attempt++) {
    MigrateConn* mc = migrate_conn(cx, name, timeout);
    if (mc == nullptr) return;
    Buffer req;
    if (auth) {
      if (user.empty()) {
        resp_append_command(req, {"AUTH", pass});
      } else {
        resp_append_command(req, {"AUTH", user, pass});
      }
    }
    const bool select = mc->last_dbid != dbid;
    if (select) resp_append_command(req, {"SELECT", cx.arg(4)});
    append_restores(cx, req, sent, replace);
    // Replies: AUTH's, SELECT's, then one per RESTORE. The first error is the one reported; a
    // failed AUTH or SELECT fails every key.
    bool write_error = !mc->conn.write_all(std::string_view(req.data(), req.size()), timeout), read_error = false;
    std::string line, target_error;
    for (int k = 0; k < int(auth) + int(select) && !write_error && !read_error; k++) {
      if (!mc->conn.read_line(&line, timeout)) {
        read_error = true;
      } else if (!line.empty() && line[0] == '-') {
        if (target_error.empty()) target_error = line.substr(1);
      } else if (select && k == int(auth)) {
        mc->last_dbid = dbid;
      }
    }
    const bool setup_failed = !target_error.empty();
    for (size_t k = 0; k < sent.size() && !write_error && !read_error; k++) {
      if (!mc->conn.read_line(&line, timeout)) {
        read_error = true;
      } else if (setup_failed) {
        continue;
      } else if (!line.empty() && line[0] == '-') {
        if (target_error.empty()) target_error = line.substr(1);
      } else if (!copy) {
        Db::Slot slot = cx.db().find_for_write(cx.key(sent[k]));
        if (!slot) continue;
        cx.db().remove(slot);
        cx.notify(kNotifyGeneric, "del", cx.arg(sent[k]));
        dels.push_back(cx.arg(sent[k]));
      }
    }
    if (!target_error.empty()) mc->last_dbid = -1;  // the target's db is no longer known
    if (write_error || read_error) {
      const bool timed_out = mc->conn.timed_out();
      migrate_cache().erase(name);
      if (attempt == 0 && !timed_out && dels.size() == 1 && target_error.empty()) continue;
    }
    if (dels.size() > 1) cx.propagate_as(std::span<const std::string_view>(dels));
    if (!target_error.empty()) return cx.reply().error("ERR Target instance replied with error: " + target_error);
    if (write_error) return cx.reply().error("IOERR error or timeout writing to target instance");
    if (read_error) return cx.reply().error("IOERR error or timeout reading to target instance");
    return cx.reply().ok();
  }
}

int migrate_getkeys(std::span<const std::string_view> args, std::vector<KeyArg>* keys) {
  constexpr uint16_t kFlags = kKsRW | kKsAccess | kKsDelete;
  if (args.size() > 6 && args[3].empty()) {
    for (size_t j = 6; j < args.size(); j++) {
      if (!equals_nocase(args[j], "keys")) continue;
      for (size_t k = j + 1; k < args.size(); k++) keys->push_back({static_cast<int>(k), kFlags});
      break;
    }
  } else if (args.size() > 3) {
    keys->push_back({3, kFlags});
  }
  return static_cast<int>(keys->size());
}

// ---- Function libraries ----------------------------------------------------------------------

void for_each_library(void* ctx, void (*f)(void* ctx, std::string_view code)) {
  std::vector<const LuaEngine::Library*> libs;
  for (const auto& [name, lib] : functions_for_persistence().libraries()) libs.push_back(&lib);
  std::sort(libs.begin(), libs.end(), [](auto* a, auto* b) { return a->name < b->name; });
  for (const LuaEngine::Library* lib : libs) f(ctx, lib->code);
}

// Errors from the engine carry "ERR "; the loader adds its own context.
std::string strip_err(std::string e) { return e.rfind("ERR ", 0) == 0 ? e.substr(4) : e; }

bool load_library(std::string_view code, bool replace, std::string* err) {
  std::string name;
  if (functions_for_persistence().load_library(code, replace, &name, err)) return true;
  *err = strip_err(*err);
  return false;
}

void flush_libraries() { functions_for_persistence().reset(); }

}  // namespace

size_t migrate_cached_sockets() { return migrate_cache().size(); }

void migrate_close_idle(int64_t now_ms) {
  auto& cache = migrate_cache();
  for (auto it = cache.begin(); it != cache.end();) {
    it = now_ms - it->second->last_use_ms > kMigrateCacheTtlMs ? cache.erase(it) : std::next(it);
  }
}

// FUNCTION DUMP -> the libraries as FUNCTION2 records + version + CRC64.
void cmd_function_dump(CommandContext& cx) {
  cx.reply().bulk(rdb_function_dump_payload(persistence_options().rdb_version));
}

// FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]. The payload's libraries are first compiled in
// a scratch engine, so a bad payload or a collision changes nothing.
void cmd_function_restore(CommandContext& cx) {
  if (cx.argc() > 4) {
    return cx.reply().error(
        "ERR unknown subcommand or wrong number of arguments for 'restore'. Try FUNCTION HELP.");
  }
  enum { kAppend, kReplace, kFlush } policy = kAppend;
  if (cx.argc() == 4) {
    if (cx.is_arg(3, "append")) {
      policy = kAppend;
    } else if (cx.is_arg(3, "replace")) {
      policy = kReplace;
    } else if (cx.is_arg(3, "flush")) {
      policy = kFlush;
    } else {
      return cx.reply().error(
          "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
    }
  }
  const std::string_view payload = cx.arg(2);
  if (!rdb_verify_payload(payload, nullptr)) return cx.reply().error(kErrPayload);
  std::vector<std::string> codes;
  std::string err;
  if (!rdb_payload_functions(payload, &codes, &err)) return cx.reply().error("ERR " + err);
  LuaEngine scratch(LuaEngine::Kind::kFunction);
  for (const std::string& code : codes) {
    std::string name;
    if (!scratch.load_library(code, false, &name, &err)) return cx.reply().error(err);
  }
  LuaEngine& cur = functions_for_persistence();
  if (policy != kFlush) {
    // Redis's libraryJoin: a library that exists is an error unless REPLACE; then a function
    // name held by a library that stays is an error in both modes.
    for (const auto& [name, lib] : scratch.libraries()) {
      if (policy == kAppend && cur.libraries().count(name)) {
        return cx.reply().error("ERR Library " + name + " already exists");
      }
    }
    for (const auto& [name, lib] : scratch.libraries()) {
      for (const std::string& fn : lib.functions) {
        const LuaEngine::Function* f = cur.find_function(fn);
        if (f && !(policy == kReplace && scratch.libraries().count(f->library))) {
          return cx.reply().error("ERR Function " + fn + " already exists");
        }
      }
    }
  } else {
    cur.reset();
  }
  for (const std::string& code : codes) {
    std::string name;
    if (!cur.load_library(code, policy == kReplace, &name, &err)) return cx.reply().error(err);
  }
  keyspace_stats().dirty++;
  cx.reply().ok();
}

// DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: save, empty the dbs and the function libraries, load
// the file back (a real load: expired keys dropped, encodings chosen again). With MERGE a key
// already present is replaced by the file's copy; without it a duplicate fails the load.
void debug_reload(CommandContext& cx, std::span<const std::string_view> options) {
  bool merge = false, flush = true, save = true;
  for (std::string_view o : options) {
    if (equals_nocase(o, "merge")) {
      merge = true;
    } else if (equals_nocase(o, "noflush")) {
      flush = false;
    } else if (equals_nocase(o, "nosave")) {
      save = false;
    } else {
      return cx.reply().error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
    }
  }
  const std::string& file = persistence_options().dbfilename;
  if (save && !rdb_save_file(file)) return cx.reply().error("ERR");
  if (flush) {
    keyspace().flush_all();
    tracking_flushed();  // as Redis's emptyData: tracking clients drop everything
    flush_libraries();
  }
  const RdbLoadResult r = rdb_load_file(file, merge);
  if (r.status != RdbLoadResult::kOk) {
    if (r.status == RdbLoadResult::kError) {
      LOG_WARNING("Internal error in RDB reading offset %llu of file %s -> %s",
                  static_cast<unsigned long long>(r.offset), file.c_str(), r.reason.c_str());
    } else {
      LOG_WARNING("Can't open %s: %s", file.c_str(), r.reason.c_str());
    }
    return cx.reply().error("ERR Error trying to load the RDB dump, check server logs.");
  }
  LOG_WARNING("DB reloaded by DEBUG RELOAD");
  cx.reply().ok();
}

// DEBUG LOADAOF: write the AOF buffer, empty the dbs and the function libraries, load the AOF
// back as at start-up (Redis's debugCommand). The replayed commands must not reach the AOF (or
// any other consumer of the change stream) again: the AOF's sink is detached meanwhile. As in
// Redis, a file that does not load ends the process.
void debug_loadaof(CommandContext& cx) {
  // Never propagated itself (the dataset it leaves is the files' one), and never run by the load
  // it starts (a file holding DEBUG LOADAOF would recurse without end).
  cx.prevent_propagation();
  static bool running = false;
  if (running) return cx.reply().error("ERR DEBUG LOADAOF is already running");
  running = true;
  AofState& a = aof_state();
  if (a.status == AofStatus::kOn) aof_flush(true);
  if (g_aof_hooks.detach) g_aof_hooks.detach();
  keyspace().flush_all();
  tracking_flushed();
  flush_libraries();
  bool loaded = false;
  if (!aof_load_manifest_from_disk() || !aof_load_on_startup(&loaded)) {
    LOG_WARNING("Fatal error loading the AOF by DEBUG LOADAOF. Exiting.");
    _exit(1);
  }
  // Redis 7.0 exits too when there is no AOF at all to load (appendonly off, no files).
  if (!a.manifest.base && a.manifest.incrs.empty()) {
    LOG_WARNING("DEBUG LOADAOF: there is no AOF to load. Exiting.");
    _exit(1);
  }
  if ((a.status == AofStatus::kOn || (a.status == AofStatus::kWaitRewrite && aof_rewrite_active())) &&
      g_aof_hooks.attach) {
    g_aof_hooks.attach();
  }
  keyspace_stats().dirty = 0;
  running = false;
  LOG_WARNING("Append Only File loaded by DEBUG LOADAOF");
  cx.reply().ok();
}

// FLUSHALL ends a running BGSAVE (its snapshot is stale) and, with save points configured,
// writes the (now empty) snapshot, as Redis does.
void flushall_snapshot() {
  rdb_kill_child(false);
  const PersistenceOptions& po = persistence_options();
  if (!po.save_points.empty()) rdb_save_file(po.dbfilename);
}

void install_persistence_hooks() {
  g_function_hooks.for_each_library = for_each_library;
  g_function_hooks.load_library = load_library;
  g_function_hooks.flush = flush_libraries;
}

namespace {

CommandSpec kPersistenceCommands[] = {
    {.name = "save", .handler = cmd_save, .arity = 1, .flags = kAdmin | kNoScript | kNoMulti | kNoAsyncLoading, .acl = kAclDangerous, .group = "server",
     .summary = "Synchronously saves the database(s) to disk.", .since = "1.0.0", .complexity = "O(N) where N is the total number of keys in all databases"},
    {.name = "bgsave", .handler = cmd_bgsave, .arity = -1, .flags = kAdmin | kNoScript | kNoAsyncLoading, .acl = kAclDangerous, .group = "server",
     .summary = "Asynchronously saves the database(s) to disk.", .since = "1.0.0", .complexity = "O(1)"},
    {.name = "bgrewriteaof", .handler = cmd_bgrewriteaof, .arity = 1, .flags = kAdmin | kNoScript | kNoAsyncLoading, .acl = kAclDangerous, .group = "server",
     .summary = "Asynchronously rewrites the append-only file to disk.", .since = "1.0.0", .complexity = "O(1)"},
    {.name = "dump", .handler = cmd_dump, .arity = 2, .flags = kReadOnly, .acl = kAclKeyspace, .group = "generic",
     .summary = "Returns a serialized representation of the value stored at a key.", .since = "2.6.0", .complexity = "O(1) to access the key and additional O(N*M) to serialize it, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1).",
     .keys = {ks(kKsRO | kKsAccess)},
     .tips = "nondeterministic_output"},
    {.name = "migrate", .handler = cmd_migrate, .arity = -6, .flags = kWrite, .acl = kAclKeyspace | kAclDangerous, .group = "generic",
     .summary = "Atomically transfers a key from one Redis instance to another.", .since = "2.6.0",
     .complexity = "This command actually executes a DUMP+DEL in the source instance, and a RESTORE in the target instance. See the pages of these commands for time complexity. Also an O(N) data transfer between the two instances is performed.",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete, 3),
              ks(kKsRW | kKsAccess | kKsDelete | kKsIncomplete, bs_keyword("KEYS", -2), fk_range(-1, 1, 0))},
     .getkeys = migrate_getkeys,
     .tips = "nondeterministic_output"},
    {.name = "restore", .handler = cmd_restore, .arity = -4, .flags = kWrite | kDenyOom, .acl = kAclKeyspace | kAclDangerous, .group = "generic",
     .summary = "Creates a key from the serialized representation of a value.", .since = "2.6.0", .complexity = "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).",
     .keys = {ks(kKsOW | kKsUpdate)}},
    // RESTORE-ASKING: RESTORE as a cluster node sends it during a slot migration; outside a
    // cluster it is RESTORE.
    {.name = "restore-asking", .handler = cmd_restore, .arity = -4, .flags = kWrite | kDenyOom | kAsking, .acl = kAclKeyspace | kAclDangerous, .group = "server",
     .summary = "An internal command for migrating keys in a cluster", .since = "3.0.0", .complexity = "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).",
     .keys = {ks(kKsOW | kKsUpdate)}},
};

}  // namespace

std::span<CommandSpec> persistence_commands() { return kPersistenceCommands; }

}  // namespace keel
