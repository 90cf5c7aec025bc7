// Key-space and expiry commands: DEL UNLINK EXISTS TYPE KEYS SCAN RANDOMKEY RENAME RENAMENX MOVE
// COPY TOUCH OBJECT, EXPIRE PEXPIRE EXPIREAT PEXPIREAT TTL PTTL EXPIRETIME PEXPIRETIME PERSIST.
// Every key change goes through Db (keysizes, WATCH, dirty); these handlers emit the generic
// events (del, expire, persist, rename_*, move_*, copy_to). The type-specific SCANs (HSCAN ...)
// live with their types.
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/glob.h"
#include "base/numbers.h"
#include "commands/command.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "commands/scan_cursor.h"
#include "commands/server_api.h"
#include "keyspace/evict.h"
#include "keyspace/keyspace.h"

namespace keel {
namespace {

// ---- DEL UNLINK EXISTS TYPE TOUCH ---------------------------------------------------------------

// DEL key [key ...] -> integer: keys actually removed (a repeated key counts once). UNLINK (and
// DEL with lazyfree-lazy-user-del) hands a big value to the lazyfree thread (keyspace/lazyfree.h).
void cmd_del(CommandContext& cx) {
  const bool lazy = cx.command().name[0] == 'u' || command_options().lazyfree_lazy_user_del;
  int64_t removed = 0;
  for (size_t i = 1; i < cx.argc(); i++) {
    Db::Slot slot = cx.db().find_for_write(cx.key(i));
    if (!slot) continue;
    cx.db().remove(slot, lazy);
    removed++;
    cx.notify(kNotifyGeneric, "del", cx.arg(i));
  }
  cx.reply().integer(removed);
}

// EXISTS key [key ...] -> integer: a key named twice is counted twice (Redis).
void cmd_exists(CommandContext& cx) {
  int64_t n = 0;
  for (size_t i = 1; i < cx.argc(); i++) n += cx.db().find(cx.key(i), Db::kNoTouch) != nullptr;
  cx.reply().integer(n);
}

// TOUCH key [key ...] -> integer: existing keys, whose access time is refreshed.
void cmd_touch(CommandContext& cx) {
  int64_t n = 0;
  for (size_t i = 1; i < cx.argc(); i++) n += cx.db().find(cx.key(i)) != nullptr;
  cx.reply().integer(n);
}

// TYPE key -> status "string", "list", ... or "none".
void cmd_type(CommandContext& cx) {
  Object* o = cx.db().find(cx.key(1), Db::kNoTouch);
  cx.reply().simple(o ? type_name(o->type()) : "none");
}

// ---- KEYS SCAN RANDOMKEY ------------------------------------------------------------------------

// KEYS pattern -> array of matching keys. Expired keys are skipped, not deleted (KEYS is a read
// walk over the table, which must not change under it).
void cmd_keys(CommandContext& cx) {
  const std::string_view pattern = cx.arg(1);
  const bool all = glob_matches_all(pattern);
  Db& db = cx.db();
  const size_t token = cx.reply().begin_deferred();
  size_t n = 0;
  db.for_each([&](Object* o) {
    if (db.expired(o)) return;
    const std::string_view k = o->key();
    if (!all && !glob_match(pattern, k)) return;
    cx.reply().bulk(k);
    n++;
  });
  cx.reply().end_deferred_array(token, n);
}


// The Type a SCAN TYPE name designates (case-insensitive); false for an unknown name, which
// Redis 7.x accepts and matches no key with.
bool type_by_name(std::string_view name, Type* out) {
  static constexpr Type kTypes[] = {Type::kString, Type::kList, Type::kSet,
                                    Type::kZset,   Type::kHash, Type::kStream};
  for (Type t : kTypes) {
    if (equals_nocase(name, type_name(t))) {
      *out = t;
      return true;
    }
  }
  return false;
}

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type] -> [next cursor, [keys]].
// The table's scan() reports every key present for the whole iteration at least once, across
// resizes. COUNT bounds the keys visited (before filtering), as in Redis 7.4; at most 10*COUNT
// empty buckets are stepped over. A visited key that has expired is deleted (lazy expiry) and
// not returned.
void cmd_scan(CommandContext& cx) {
  uint64_t cursor;
  if (!parse_scan_cursor(cx.arg(1), &cursor)) return cx.reply().error(kErrCursor);
  int64_t count = 10;
  std::string_view pattern;
  bool use_pattern = false, use_type = false, type_known = false;
  Type type = Type::kString;
  for (size_t i = 2; i < cx.argc(); i += 2) {
    const bool has_value = i + 1 < cx.argc();
    if (cx.is_arg(i, "count") && has_value) {
      if (!cx.int_arg(i + 1, &count)) return;
      if (count < 1) return cx.reply().error(kErrSyntax);
    } else if (cx.is_arg(i, "match") && has_value) {
      pattern = cx.arg(i + 1);
      use_pattern = !glob_matches_all(pattern);
    } else if (cx.is_arg(i, "type") && has_value) {
      use_type = true;
      type_known = type_by_name(cx.arg(i + 1), &type);
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }

  Db& db = cx.db();
  std::vector<Object*> found;
  int64_t sampled = 0;
  int64_t max_steps = count * 10;
  do {
    cursor = db.scan(cursor, [&](Object* o) {
      sampled++;
      if (use_type && (!type_known || o->type() != type)) return;
      if (use_pattern && !glob_match(pattern, o->key())) return;
      found.push_back(o);
    });
  } while (cursor != 0 && max_steps-- > 0 && sampled < count);

  // Reply first (the views point into live objects), then delete the stale keys met: deleting
  // frees only those objects.
  std::vector<std::string> stale;
  cx.reply().array(2);
  char num[24];
  cx.reply().bulk({num, format_uint64(cursor, num)});
  const size_t token = cx.reply().begin_deferred();
  size_t n = 0;
  for (Object* o : found) {
    if (db.expired(o)) {
      stale.emplace_back(o->key());
      continue;
    }
    cx.reply().bulk(o->key());
    n++;
  }
  cx.reply().end_deferred_array(token, n);
  // While CLIENT PAUSE holds expiry, stale keys are skipped but stay (as Redis).
  if (!g_clock.expire_paused) {
    for (const std::string& k : stale) (void)db.find_for_write(KeyRef::of(k));
  }
}

// RANDOMKEY -> a random key, or null when the db is empty. Expired keys met are deleted.
void cmd_randomkey(CommandContext& cx) {
  Object* o = cx.db().random_key();
  if (!o) return cx.reply().null();
  cx.reply().bulk(o->key());
}

// ---- RENAME RENAMENX MOVE COPY ------------------------------------------------------------------

// RENAME key newkey -> OK; RENAMENX key newkey -> 1, or 0 when newkey exists. A missing key is
// an error even when both names are the same; an existing key renamed to itself is a no-op
// (OK / 0) with no events. An overwritten newkey is deleted silently; the value keeps its TTL
// and idle time. Events: new (newkey, from Db), rename_from, rename_to.
void rename_generic(CommandContext& cx, bool nx) {
  Db& db = cx.db();
  Db::Slot from = db.find_for_write(cx.key(1));
  if (!from) return cx.reply().error(kErrNoSuchKey);
  if (cx.arg(1) == cx.arg(2)) return nx ? cx.reply().integer(0) : cx.reply().ok();
  Db::Slot to = db.find_for_write(cx.key(2));
  if (to) {
    if (nx) return cx.reply().integer(0);
    db.remove(to);
  }
  db.move_to(from, db, to);
  cx.set_dirty(1);  // one change for Redis
  cx.notify(kNotifyGeneric, "rename_from", cx.arg(1));
  cx.notify(kNotifyGeneric, "rename_to", cx.arg(2));
  if (nx) return cx.reply().integer(1);
  cx.reply().ok();
}
void cmd_rename(CommandContext& cx) { rename_generic(cx, false); }
void cmd_renamenx(CommandContext& cx) { rename_generic(cx, true); }

// MOVE key db -> 1 when moved, 0 when the key is missing or already exists in db.
// Events: new (in db, from Db), move_from (source db), move_to (target db).
void cmd_move(CommandContext& cx) {
  int dbid;
  if (!cx.db_index_arg(2, &dbid)) return;
  if (dbid == cx.db().id()) return cx.reply().error(kErrSameObject);
  Db& src = cx.db();
  Db::Slot from = src.find_for_write(cx.key(1));
  if (!from) return cx.reply().integer(0);
  Db& dst = keyspace().db(dbid);
  Db::Slot to = dst.find_for_write(cx.key(1));
  if (to) return cx.reply().integer(0);
  src.move_to(from, dst, to);
  cx.set_dirty(1);
  cx.notify(kNotifyGeneric, "move_from", cx.arg(1));
  notify(kNotifyGeneric, "move_to", cx.arg(1), dbid);
  cx.reply().integer(1);
}

// COPY source destination [DB destination-db] [REPLACE] -> 1 when copied, 0 when the source
// is missing or the destination exists without REPLACE. The copy is deep and keeps the TTL.
// Events: new (destination, from Db), copy_to (destination db); a replaced destination is
// deleted silently.
void cmd_copy(CommandContext& cx) {
  bool replace = false;
  int dbid = cx.db().id();
  for (size_t i = 3; i < cx.argc(); i++) {
    if (cx.is_arg(i, "replace")) {
      replace = true;
    } else if (cx.is_arg(i, "db") && i + 1 < cx.argc()) {
      if (!cx.db_index_arg(i + 1, &dbid)) return;
      i++;
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  Db& src = cx.db();
  Db& dst = keyspace().db(dbid);
  if (&src == &dst && cx.arg(1) == cx.arg(2)) return cx.reply().error(kErrSameObject);
  Object* o = src.find(cx.key(1));
  if (!o) return cx.reply().integer(0);
  Db::Slot to = dst.find_for_write(cx.key(2));
  if (to) {
    if (!replace) return cx.reply().integer(0);
    dst.remove(to);
  }
  // o stays valid: the only change since find() was in dst, at a different key (or db).
  dst.insert(to, Object::clone_with_key(o, cx.arg(2), /*deep=*/true));
  cx.set_dirty(1);
  notify(kNotifyGeneric, "copy_to", cx.arg(2), dbid);
  cx.reply().integer(1);
}

// ---- OBJECT -------------------------------------------------------------------------------------

constexpr std::string_view kErrNoLfu =
    "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that "
    "when switching between policies at runtime LRU and LFU data will take some time to adjust.";
constexpr std::string_view kErrLfu =
    "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
    "switching between policies at runtime LRU and LFU data will take some time to adjust.";

bool lfu_policy(CommandContext&) { return lfu_policy_active(); }

// OBJECT's key lookup: no LRU update and no keymiss event (Redis's objectCommandLookup).
Object* object_lookup(CommandContext& cx) {
  return cx.db().find(cx.key(2), Db::kNoTouch | Db::kNoNotify);
}

void cmd_object_encoding(CommandContext& cx) {
  Object* o = object_lookup(cx);
  if (!o) return cx.reply().null();
  cx.reply().bulk(encoding_name(o->encoding()));
}

// Redis shares the integers 0..9999 (refcount INT_MAX) when maxmemory is not set; Keel stores
// every value in its key's block, so it reports what Redis would.
void cmd_object_refcount(CommandContext& cx) {
  Object* o = object_lookup(cx);
  if (!o) return cx.reply().null();
  const bool shared = o->type() == Type::kString && o->is_int() && o->int_value() >= 0 &&
                      o->int_value() < 10000;
  cx.reply().integer(shared ? INT_MAX : 1);
}

void cmd_object_idletime(CommandContext& cx) {
  Object* o = object_lookup(cx);
  if (!o) return cx.reply().null();
  if (lfu_policy(cx)) return cx.reply().error(kErrLfu);
  const uint32_t now = g_clock.lru_clock;
  cx.reply().integer(now >= o->lru() ? now - o->lru() : 0);
}

void cmd_object_freq(CommandContext& cx) {
  Object* o = object_lookup(cx);
  if (!o) return cx.reply().null();
  if (!lfu_policy(cx)) return cx.reply().error(kErrNoLfu);
  cx.reply().integer(lfu_decayed_counter(o));
}

void cmd_object_help(CommandContext& cx) {
  reply_help(cx, "OBJECT",
             {"ENCODING <key>",
              "    Return the kind of internal representation used in order to store the value",
              "    associated with a <key>.",
              "FREQ <key>",
              "    Return the access frequency index of the <key>. The returned integer is",
              "    proportional to the logarithm of the recent access frequency of the key.",
              "IDLETIME <key>",
              "    Return the idle time of the <key>, that is the approximated number of",
              "    seconds elapsed since the last access to the key.",
              "REFCOUNT <key>",
              "    Return the number of references of the value associated with the specified",
              "    <key>."});
}

// ---- EXPIRE family ------------------------------------------------------------------------------

enum ExpireFlag : int { kExpNx = 1, kExpXx = 2, kExpGt = 4, kExpLt = 8 };

// EXPIRE/PEXPIRE/EXPIREAT/PEXPIREAT key time [NX | XX | GT | LT] -> 1 when the TTL was set (or
// the key deleted because the time is not in the future), 0 when the key is missing or a
// condition failed. A key without TTL counts as an infinite TTL for GT/LT. Options are checked
// before the time, the time before the key (Redis's order of errors).
void expire_generic(CommandContext& cx, int64_t base_ms, bool seconds) {
  int flags = 0;
  for (size_t i = 3; i < cx.argc(); i++) {
    if (cx.is_arg(i, "nx")) {
      flags |= kExpNx;
    } else if (cx.is_arg(i, "xx")) {
      flags |= kExpXx;
    } else if (cx.is_arg(i, "gt")) {
      flags |= kExpGt;
    } else if (cx.is_arg(i, "lt")) {
      flags |= kExpLt;
    } else {
      const std::string opt(cx.arg(i));
      return cx.reply().error_fmt("ERR Unsupported option %s", opt.c_str());
    }
  }
  if ((flags & kExpNx) && (flags & (kExpXx | kExpGt | kExpLt))) {
    return cx.reply().error("ERR NX and XX, GT or LT options at the same time are not compatible");
  }
  if ((flags & kExpGt) && (flags & kExpLt)) {
    return cx.reply().error("ERR GT and LT options at the same time are not compatible");
  }
  int64_t when;
  if (!cx.int_arg(2, &when)) return;
  auto invalid = [&] {
    cx.reply().error_fmt("ERR invalid expire time in '%s' command", cx.command().full_name);
  };
  if (seconds) {
    if (when > INT64_MAX / 1000 || when < INT64_MIN / 1000) return invalid();
    when *= 1000;
  }
  if (when > INT64_MAX - base_ms) return invalid();
  when += base_ms;

  Db& db = cx.db();
  Db::Slot slot = db.find_for_write(cx.key(1));
  if (!slot) return cx.reply().integer(0);
  if (flags) {
    const int64_t cur = slot->has_expire() ? slot->expire_ms() : -1;
    if ((flags & kExpNx) && cur != -1) return cx.reply().integer(0);
    if ((flags & kExpXx) && cur == -1) return cx.reply().integer(0);
    if ((flags & kExpGt) && (cur == -1 || when <= cur)) return cx.reply().integer(0);
    if ((flags & kExpLt) && cur != -1 && when >= cur) return cx.reply().integer(0);
  }
  if (when <= cx.now_ms() && !g_clock.loading) {
    db.remove(slot);
    cx.notify(kNotifyGeneric, "del", cx.arg(1));
    cx.propagate_as({command_options().lazyfree_lazy_expire ? "UNLINK" : "DEL", cx.arg(1)});
    return cx.reply().integer(1);
  }
  db.set_expire(slot, when);
  cx.notify(kNotifyGeneric, "expire", cx.arg(1));
  // Propagated with the absolute time (Redis 7): EXPIRE k 10 NX -> PEXPIREAT k <ms> NX.
  if (propagating() && cx.command().name != std::string_view("pexpireat")) {
    std::string_view argv[8];
    const IntArg at(when);
    argv[0] = "PEXPIREAT";
    argv[1] = cx.arg(1);
    argv[2] = at;
    size_t n = 3;
    for (size_t i = 3; i < cx.argc() && n < std::size(argv); i++) argv[n++] = cx.arg(i);
    cx.propagate_as(std::span<const std::string_view>(argv, n));
  }
  cx.reply().integer(1);
}
void cmd_expire(CommandContext& cx) { expire_generic(cx, cx.now_ms(), true); }
void cmd_pexpire(CommandContext& cx) { expire_generic(cx, cx.now_ms(), false); }
void cmd_expireat(CommandContext& cx) { expire_generic(cx, 0, true); }
void cmd_pexpireat(CommandContext& cx) { expire_generic(cx, 0, false); }

// TTL/PTTL/EXPIRETIME/PEXPIRETIME key -> -2 missing, -1 no TTL, else the remaining time or the
// absolute time. Seconds are rounded to nearest, computed unsigned as Redis's result shows for
// times near INT64_MAX.
void ttl_generic(CommandContext& cx, bool ms, bool absolute) {
  Object* o = cx.db().find(cx.key(1), Db::kNoTouch);
  if (!o) return cx.reply().integer(-2);
  if (!o->has_expire()) return cx.reply().integer(-1);
  int64_t t = absolute ? o->expire_ms() : o->expire_ms() - cx.now_ms();
  if (t < 0) t = 0;
  if (ms) return cx.reply().integer(t);
  cx.reply().integer(static_cast<int64_t>((static_cast<uint64_t>(t) + 500) / 1000));
}
void cmd_ttl(CommandContext& cx) { ttl_generic(cx, false, false); }
void cmd_pttl(CommandContext& cx) { ttl_generic(cx, true, false); }
void cmd_expiretime(CommandContext& cx) { ttl_generic(cx, false, true); }
void cmd_pexpiretime(CommandContext& cx) { ttl_generic(cx, true, true); }

// PERSIST key -> 1 when a TTL was removed, else 0. Emits "persist" only then.
void cmd_persist(CommandContext& cx) {
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot || !cx.db().persist(slot)) return cx.reply().integer(0);
  cx.notify(kNotifyGeneric, "persist", cx.arg(1));
  cx.reply().integer(1);
}

// ---- table --------------------------------------------------------------------------------------

CommandSpec kObjectSubcommands[] = {
    {.name = "encoding", .handler = cmd_object_encoding, .arity = 3, .flags = kReadOnly, .acl = kAclKeyspace, .group = "generic",
     .summary = "Returns the internal encoding of a Redis object.", .since = "2.2.3", .complexity = "O(1)",
     .keys = {ks(kKsRO, 2)},
     .tips = "nondeterministic_output"},
    {.name = "freq", .handler = cmd_object_freq, .arity = 3, .flags = kReadOnly, .acl = kAclKeyspace, .group = "generic",
     .summary = "Returns the logarithmic access frequency counter of a Redis object.", .since = "4.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRO, 2)},
     .tips = "nondeterministic_output"},
    {.name = "help", .handler = cmd_object_help, .arity = 2, .flags = kLoading | kStale, .acl = kAclKeyspace, .group = "generic",
     .summary = "Returns helpful text about the different subcommands.", .since = "6.2.0", .complexity = "O(1)"},
    {.name = "idletime", .handler = cmd_object_idletime, .arity = 3, .flags = kReadOnly, .acl = kAclKeyspace, .group = "generic",
     .summary = "Returns the time since the last access to a Redis object.", .since = "2.2.3", .complexity = "O(1)",
     .keys = {ks(kKsRO, 2)},
     .tips = "nondeterministic_output"},
    {.name = "refcount", .handler = cmd_object_refcount, .arity = 3, .flags = kReadOnly, .acl = kAclKeyspace, .group = "generic",
     .summary = "Returns the reference count of a value of a key.", .since = "2.2.3", .complexity = "O(1)",
     .keys = {ks(kKsRO, 2)},
     .tips = "nondeterministic_output"},
};

CommandSpec kKeysCommands[] = {
    {.name = "del", .handler = cmd_del, .arity = -2, .flags = kWrite, .acl = kAclKeyspace, .group = "generic",
     .summary = "Deletes one or more keys.", .since = "1.0.0", .complexity = "O(N) where N is the number of keys that will be removed.",
     .keys = {ks(kKsRM | kKsDelete, 1, fk_range(-1, 1, 0))},
     .tips = "request_policy:multi_shard response_policy:agg_sum"},
    {.name = "unlink", .handler = cmd_del, .arity = -2, .flags = kWrite | kFast, .acl = kAclKeyspace, .group = "generic",
     .summary = "Asynchronously deletes one or more keys.", .since = "4.0.0", .complexity = "O(1) for each key removed regardless of its size.",
     .keys = {ks(kKsRM | kKsDelete, 1, fk_range(-1, 1, 0))},
     .tips = "request_policy:multi_shard response_policy:agg_sum"},
    {.name = "exists", .handler = cmd_exists, .arity = -2, .flags = kReadOnly | kFast, .acl = kAclKeyspace, .group = "generic",
     .summary = "Determines whether one or more keys exist.", .since = "1.0.0", .complexity = "O(N) where N is the number of keys to check.",
     .keys = {ks(kKsRO, 1, fk_range(-1, 1, 0))},
     .tips = "request_policy:multi_shard response_policy:agg_sum"},
    {.name = "type", .handler = cmd_type, .arity = 2, .flags = kReadOnly | kFast, .acl = kAclKeyspace, .group = "generic",
     .summary = "Determines the type of value stored at a key.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRO)}},
    {.name = "touch", .handler = cmd_touch, .arity = -2, .flags = kReadOnly | kFast, .acl = kAclKeyspace, .group = "generic",
     .summary = "Returns the number of existing keys out of those specified after updating the time they were last accessed.", .since = "3.2.1", .complexity = "O(N) where N is the number of keys that will be touched.",
     .keys = {ks(kKsRO, 1, fk_range(-1, 1, 0))},
     .tips = "request_policy:multi_shard response_policy:agg_sum"},
    {.name = "keys", .handler = cmd_keys, .arity = 2, .flags = kReadOnly, .acl = kAclKeyspace | kAclDangerous, .group = "generic",
     .summary = "Returns all key names that match a pattern.", .since = "1.0.0", .complexity = "O(N) with N being the number of keys in the database",
     .tips = "request_policy:all_shards nondeterministic_output_order"},
    {.name = "scan", .handler = cmd_scan, .arity = -2, .flags = kReadOnly, .acl = kAclKeyspace, .group = "generic",
     .summary = "Iterates over the key names in the database.", .since = "2.8.0", .complexity = "O(1) for every call. O(N) for a complete iteration.",
     .tips = "nondeterministic_output request_policy:special"},
    {.name = "randomkey", .handler = cmd_randomkey, .arity = 1, .flags = kReadOnly, .acl = kAclKeyspace, .group = "generic",
     .summary = "Returns a random key name from the database.", .since = "1.0.0", .complexity = "O(1)",
     .tips = "request_policy:all_shards nondeterministic_output"},
    {.name = "rename", .handler = cmd_rename, .arity = 3, .flags = kWrite, .acl = kAclKeyspace, .group = "generic",
     .summary = "Renames a key and overwrites the destination.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete), ks(kKsOW | kKsUpdate, 2)}},
    {.name = "renamenx", .handler = cmd_renamenx, .arity = 3, .flags = kWrite | kFast, .acl = kAclKeyspace, .group = "generic",
     .summary = "Renames a key only when the target key name doesn't exist.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete), ks(kKsOW | kKsInsert, 2)}},
    {.name = "move", .handler = cmd_move, .arity = 3, .flags = kWrite | kFast, .acl = kAclKeyspace, .group = "generic",
     .summary = "Moves a key to another database.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate)}},
    {.name = "copy", .handler = cmd_copy, .arity = -3, .flags = kWrite | kDenyOom, .acl = kAclKeyspace, .group = "generic",
     .summary = "Copies the value of a key to a new key.", .since = "6.2.0", .complexity = "O(N) worst case for collections, where N is the number of nested items. O(1) for string values.",
     .keys = {ks(kKsRO | kKsAccess), ks(kKsOW | kKsUpdate, 2)}},
    {.name = "object", .handler = nullptr, .arity = -2, .group = "generic",
     .summary = "A container for object introspection commands.", .since = "2.2.3", .complexity = "Depends on subcommand.",
     .subcommands = kObjectSubcommands},
    {.name = "expire", .handler = cmd_expire, .arity = -3, .flags = kWrite | kFast, .acl = kAclKeyspace, .group = "generic",
     .summary = "Sets the expiration time of a key in seconds.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsUpdate)}},
    {.name = "pexpire", .handler = cmd_pexpire, .arity = -3, .flags = kWrite | kFast, .acl = kAclKeyspace, .group = "generic",
     .summary = "Sets the expiration time of a key in milliseconds.", .since = "2.6.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsUpdate)}},
    {.name = "expireat", .handler = cmd_expireat, .arity = -3, .flags = kWrite | kFast, .acl = kAclKeyspace, .group = "generic",
     .summary = "Sets the expiration time of a key to a Unix timestamp.", .since = "1.2.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsUpdate)}},
    {.name = "pexpireat", .handler = cmd_pexpireat, .arity = -3, .flags = kWrite | kFast, .acl = kAclKeyspace, .group = "generic",
     .summary = "Sets the expiration time of a key to a Unix milliseconds timestamp.", .since = "2.6.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsUpdate)}},
    {.name = "ttl", .handler = cmd_ttl, .arity = 2, .flags = kReadOnly | kFast, .acl = kAclKeyspace, .group = "generic",
     .summary = "Returns the expiration time in seconds of a key.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRO | kKsAccess)},
     .tips = "nondeterministic_output"},
    {.name = "pttl", .handler = cmd_pttl, .arity = 2, .flags = kReadOnly | kFast, .acl = kAclKeyspace, .group = "generic",
     .summary = "Returns the expiration time in milliseconds of a key.", .since = "2.6.0", .complexity = "O(1)",
     .keys = {ks(kKsRO | kKsAccess)},
     .tips = "nondeterministic_output"},
    {.name = "expiretime", .handler = cmd_expiretime, .arity = 2, .flags = kReadOnly | kFast, .acl = kAclKeyspace, .group = "generic",
     .summary = "Returns the expiration time of a key as a Unix timestamp.", .since = "7.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "pexpiretime", .handler = cmd_pexpiretime, .arity = 2, .flags = kReadOnly | kFast, .acl = kAclKeyspace, .group = "generic",
     .summary = "Returns the expiration time of a key as a Unix milliseconds timestamp.", .since = "7.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "persist", .handler = cmd_persist, .arity = 2, .flags = kWrite | kFast, .acl = kAclKeyspace, .group = "generic",
     .summary = "Removes the expiration time of a key.", .since = "2.2.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsUpdate)}},
};

}  // namespace

std::span<CommandSpec> keys_commands() { return kKeysCommands; }

bool parse_scan_cursor(std::string_view s, uint64_t* out) {
  s = s.substr(0, s.find('\0'));  // Redis passes the argument as a C string
  int64_t canonical;
  if (parse_int64(s, &canonical)) {  // string2ll accepted it: only the sign matters
    if (canonical < 0) return false;
    *out = static_cast<uint64_t>(canonical);
    return true;
  }
  // strtoull: isspace() bytes, an optional sign, decimal digits to the end, no overflow.
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) i++;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i == s.size()) return false;  // no digits (including "")
  uint64_t v = 0;
  for (; i < s.size(); i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    const uint64_t d = static_cast<uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) return false;  // ERANGE
    v = v * 10 + d;
  }
  *out = neg ? 0 - v : v;  // strtoull negates in the unsigned type
  return true;
}

}  // namespace keel
