// Server commands: DEBUG, INFO, DBSIZE, FLUSHDB, FLUSHALL, SWAPDB, TIME, LASTSAVE, SHUTDOWN,
// MONITOR, SLOWLOG and COMMAND (introspection of the command table). Connection-scoped
// commands (CLIENT, HELLO, AUTH ...) live in cmd_connection.cc; CONFIG in cmd_config.cc.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "base/assert.h"
#include "base/crash.h"
#include "base/glob.h"
#include "base/log.h"
#include "base/numbers.h"
#include "base/time.h"
#include "base/util_random.h"
#include "ds/listpack.h"
#include "ds/quicklist.h"
#include "commands/command.h"
#include "commands/acl.h"
#include "commands/command_table.h"
#include "commands/debug_state.h"
#include "commands/dispatch.h"
#include "commands/key_specs.h"
#include "commands/tracking.h"
#include "commands/propagate.h"
#include "commands/server_api.h"
#include "commands/slowlog.h"
#include "keyspace/keyspace.h"
#include "persistence/aof.h"
#include "persistence/persistence.h"
#include "persistence/rdb_save.h"
#include "types/list_type.h"

namespace keel {

// Writes a HELP reply: "<NAME> <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", the
// lines, then the closing "HELP" / "    Prints this help." pair Redis appends to every help.
// Defined in cmd_persistence.cc.
void debug_reload(CommandContext& cx, std::span<const std::string_view> options);
void debug_loadaof(CommandContext& cx);  // cmd_persistence.cc
void flushall_snapshot();

void reply_help(CommandContext& cx, const char* upper_name, std::initializer_list<const char*> lines) {
  cx.reply().array(lines.size() + 3);
  char head[128];
  snprintf(head, sizeof(head), "%s <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", upper_name);
  cx.reply().simple(head);
  for (const char* l : lines) cx.reply().simple(l);
  cx.reply().simple("HELP");
  cx.reply().simple("    Prints this help.");
}

namespace {

// ---- DEBUG ------------------------------------------------------------------------------------

void debug_unknown(CommandContext& cx) {
  cx.reply().error_fmt(
      "ERR unknown subcommand or wrong number of arguments for '%.128s'. Try DEBUG HELP.",
      std::string(cx.arg(1)).c_str());
}

// 0|1 arguments are read as Redis's atoi: anything non-numeric is 0.
bool flag_arg(std::string_view s) {
  int64_t v;
  return parse_int64(s, &v) && v != 0;
}

// Redis parses DEBUG POPULATE counts with getPositiveLongFromObjectOrReply: any non-number or
// negative value gets the same "must be positive" error.
bool positive_arg(CommandContext& cx, size_t i, int64_t* out) {
  if (!parse_int64(cx.arg(i), out) || *out < 0) {
    cx.reply().error(kErrPositive);
    return false;
  }
  return true;
}

// DEBUG POPULATE count [prefix] [size]: creates prefix:N = "value:N" (zero-padded or cut to
// size when size > 0) for N in [0, count), leaving existing keys alone.
void debug_populate(CommandContext& cx) {
  int64_t count, size = 0;
  if (!positive_arg(cx, 2, &count)) return;
  if (cx.argc() == 5 && !positive_arg(cx, 4, &size)) return;
  const std::string_view prefix = cx.argc() >= 4 ? cx.arg(3) : std::string_view("key");
  std::string key(prefix), val;
  key += ':';
  const size_t base = key.size();
  Db& db = cx.db();
  for (int64_t i = 0; i < count; i++) {
    char num[kInt64BufSize];
    const size_t n = format_int64(i, num);
    key.resize(base);
    key.append(num, n);
    Db::Slot slot = db.find_for_write(KeyRef::of(key));
    if (slot) continue;
    val.assign("value:");
    val.append(num, n);
    if (size > 0) val.resize(static_cast<size_t>(size), '\0');
    db.set_string(slot, val);
  }
  cx.set_dirty(0);  // Redis neither counts nor propagates DEBUG POPULATE
  cx.reply().ok();
}

// DEBUG OBJECT's serializedlength: the bytes the value takes in an RDB file (Redis's
// rdbSavedObjectLen), measured by serializing it as DUMP does, without DUMP's type byte,
// version and checksum.
size_t serialized_length(const Object* o) {
  const PersistenceOptions& po = persistence_options();
  const std::string payload = rdb_dump_payload(*o, po.rdb_version, po.rdbcompression);
  return payload.size() > 11 ? payload.size() - 11 : 0;
}

// DEBUG OBJECT key: Redis's one-line layout; quicklists add ql_* fields. refcount is what
// Redis would have (2147483647 for its shared integers 0..9999), as OBJECT REFCOUNT answers.
void debug_object(CommandContext& cx) {
  const Object* o = cx.db().peek(cx.key(2));
  if (!o) return cx.reply().error(kErrNoSuchKey);
  const uint32_t idle = g_clock.lru_clock >= o->lru() ? g_clock.lru_clock - o->lru() : 0;
  const bool shared = o->type() == Type::kString && o->is_int() && o->int_value() >= 0 &&
                      o->int_value() < 10000;
  char extra[160] = "";
  ListType::QuicklistInfo q;
  if (o->type() == Type::kList && ListType::quicklist_info(*o, &q)) {
    snprintf(extra, sizeof(extra),
             " ql_nodes:%zu ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d "
             "ql_uncompressed_size:%zu",
             q.nodes, q.nodes ? double(q.count) / double(q.nodes) : 0.0, q.fill,
             q.compressed ? 1 : 0, q.raw_bytes);
  }
  char buf[384];
  snprintf(buf, sizeof(buf),
           "Value at:%p refcount:%d encoding:%s serializedlength:%zu lru:%u lru_seconds_idle:%u%s",
           static_cast<const void*>(o), shared ? INT_MAX : 1, encoding_name(o->encoding()),
           serialized_length(o), o->lru() & 0xFFFFFF, idle, extra);
  cx.reply().simple(buf);
}

// DEBUG LISTPACK key: prints the listpack's entries on stdout (as Redis does) and says so.
void debug_listpack(CommandContext& cx) {
  const Object* o = cx.db().peek(cx.key(2));
  if (!o) return cx.reply().error(kErrNoSuchKey);
  if (o->encoding() != Encoding::kListpack) return cx.reply().error("ERR Not a listpack encoded object.");
  const ListpackView lp(o->ptr());
  printf("{listpack %zu bytes, %zu entries}\n", lp->bytes(), lp->size());
  size_t i = 0;
  for (LpPos p = lp->first(); p != kLpNone; p = lp->next(p), i++) {
    const LpEntry e = lp->get(p);
    if (e.is_int) {
      printf("  [%zu] int %lld (%zu bytes)\n", i, static_cast<long long>(e.ival), lp->entry_bytes(p));
    } else {
      printf("  [%zu] str %.*s (%zu bytes)\n", i, static_cast<int>(std::min<size_t>(e.sval.size(), 40)),
             e.sval.data(), lp->entry_bytes(p));
    }
  }
  printf("{end}\n");
  fflush(stdout);
  cx.reply().simple("Listpack structure printed on stdout");
}

// Redis's memtoull: digits and an optional unit (b, k, kb, m, mb, g, gb; case-insensitive).
bool parse_memory_value(std::string_view s, uint64_t* out) {
  size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') digits++;
  if (digits == 0) return false;
  const std::string_view unit = s.substr(digits);
  uint64_t mul = 1;
  if (unit.empty() || equals_nocase(unit, "b")) {
    mul = 1;
  } else if (equals_nocase(unit, "k")) {
    mul = 1000;
  } else if (equals_nocase(unit, "kb")) {
    mul = 1024;
  } else if (equals_nocase(unit, "m")) {
    mul = 1000 * 1000;
  } else if (equals_nocase(unit, "mb")) {
    mul = 1024 * 1024;
  } else if (equals_nocase(unit, "g")) {
    mul = 1000ull * 1000 * 1000;
  } else if (equals_nocase(unit, "gb")) {
    mul = 1024ull * 1024 * 1024;
  } else {
    return false;
  }
  uint64_t v = 0;
  for (size_t i = 0; i < digits; i++) {
    const uint64_t d = static_cast<uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  if (v > UINT64_MAX / mul) return false;
  *out = v * mul;
  return true;
}

// DEBUG QUICKLIST-PACKED-THRESHOLD size: elements of at least `size` bytes get a plain quicklist
// node of their own (0 restores the default, 1 GB, under which the node limit decides).
void debug_quicklist_packed_threshold(CommandContext& cx) {
  uint64_t sz;
  if (!parse_memory_value(cx.arg(2), &sz) || sz > (1ull << 32) - (1ull << 20)) {
    return cx.reply().error("ERR argument must be a memory value bigger than 1 and smaller than 4gb");
  }
  quicklist_set_packed_threshold(sz == 0 ? kQuicklistDefaultPackedThreshold : sz);
  cx.reply().ok();
}

// DEBUG STRINGMATCH-LEN: random patterns and strings through the glob matcher (a crash or hang
// here is the failure; a matcher that returns is a pass).
void debug_stringmatch_fuzz(CommandContext& cx) {
  char pat[32], str[32];
  for (int i = 0; i < 100000; i++) {
    const size_t plen = random_u64() % sizeof(pat), slen = random_u64() % sizeof(str);
    for (size_t j = 0; j < plen; j++) pat[j] = static_cast<char>(random_u64() % 128);
    for (size_t j = 0; j < slen; j++) str[j] = static_cast<char>(random_u64() % 128);
    (void)glob_match({pat, plen}, {str, slen}, (random_u64() & 1) != 0);
  }
  cx.reply().simple("Apparently Redis did not crash: test passed");
}

// DEBUG REPLYBUFFER PEAK-RESET-TIME <NEVER|RESET|ms> / RESIZING <0|1>.
void debug_replybuffer(CommandContext& cx) {
  DebugOptions& o = debug_options();
  if (cx.is_arg(2, "peak-reset-time")) {
    if (cx.is_arg(3, "never")) {
      o.reply_buffer_peak_reset_ms = -1;
    } else if (cx.is_arg(3, "reset")) {
      o.reply_buffer_peak_reset_ms = DebugOptions::kDefaultPeakResetMs;
    } else {
      int64_t ms;
      if (!cx.int_arg(3, &ms)) return;
      o.reply_buffer_peak_reset_ms = ms;
    }
    return cx.reply().ok();
  }
  if (cx.is_arg(2, "resizing")) {
    o.reply_buffer_resizing = flag_arg(cx.arg(3));
    return cx.reply().ok();
  }
  debug_unknown(cx);
}

// DEBUG ERROR text: an error reply with exactly that text (no "ERR" added; CR/LF become spaces).
void debug_error(CommandContext& cx) {
  std::string text(cx.arg(2));
  for (char& ch : text) {
    if (ch == '\r' || ch == '\n') ch = ' ';
  }
  cx.reply().error(text);
}

// DEBUG DIGEST-VALUE key ...: one digest per key (40 zeros for a missing key). The keys are
// looked at as they are in memory, logically expired or not, as in Redis.
void debug_digest_value(CommandContext& cx) {
  cx.reply().array(cx.argc() - 2);
  for (size_t i = 2; i < cx.argc(); i++) cx.reply().simple(digest_value_hex(cx.db().peek(cx.key(i))));
}

void debug_keysizes_check(CommandContext& cx) {
  std::string all;
  for (int i = 0; i < keyspace().count(); i++) {
    std::string diff;
    if (!keyspace().db(i).keysizes_consistent(&diff)) {
      all += "db" + std::to_string(i) + " " + diff + " ";
    }
  }
  if (all.empty()) return cx.reply().ok();
  cx.reply().error("ERR KEYSIZES histogram mismatch: " + all);
}

// DEBUG PROTOCOL <type>: one sample reply of each RESP type, for client and framework tests.
void debug_protocol(CommandContext& cx) {
  ReplyWriter& w = cx.reply();
  const bool resp3 = w.resp() == 3;
  const std::string_view t = cx.arg(2);
  if (equals_nocase(t, "string")) return w.bulk("Hello World");
  if (equals_nocase(t, "integer")) return w.integer(12345);
  if (equals_nocase(t, "double")) return w.dbl(3.141);
  if (equals_nocase(t, "bignum")) {
    constexpr std::string_view kBig = "1234567999999999999999999999999999999";
    if (!resp3) return w.bulk(kBig);
    w.raw("(");
    w.raw(kBig);
    return w.raw("\r\n");
  }
  if (equals_nocase(t, "null")) return w.null();
  if (equals_nocase(t, "array") || equals_nocase(t, "set")) {
    if (equals_nocase(t, "set")) {
      w.set(3);
    } else {
      w.array(3);
    }
    for (int j = 0; j < 3; j++) w.integer(j);
    return;
  }
  if (equals_nocase(t, "map")) {
    w.map(3);
    for (int j = 0; j < 3; j++) {
      w.integer(j);
      w.boolean(j == 1);
    }
    return;
  }
  if (equals_nocase(t, "attrib")) {
    if (resp3) {
      w.raw("|1\r\n");
      w.bulk("key-popularity");
      w.array(2);
      w.bulk("key:123");
      w.integer(90);
    }
    return w.bulk("Some real reply following the attribute");
  }
  if (equals_nocase(t, "push")) {
    if (!resp3) return w.error("ERR RESP2 is not supported by this command");
    w.push(2);
    w.bulk("server-cpu-usage");
    w.integer(42);
    return w.bulk("Some real reply following the push reply");
  }
  if (equals_nocase(t, "verbatim")) return w.verbatim("This is a verbatim\nstring");
  if (equals_nocase(t, "true")) return w.boolean(true);
  if (equals_nocase(t, "false")) return w.boolean(false);
  w.error(
      "ERR Wrong protocol type name. Please use one of the following: "
      "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false");
}

// DEBUG SEGFAULT: a write to a read-only page (a compiler cannot see it is invalid, unlike a
// write through a null pointer, and it faults in any build).
[[noreturn]] void debug_segfault() {
  void* page = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  volatile char* p = static_cast<volatile char*>(page);
  *p = 'x';
  __builtin_trap();  // not reached
}

// DEBUG ASSERT: Redis's serverAssertWithInfo(1 == 2) as a failing KEEL_ASSERT. The argument
// count keeps the compiler from folding the check away.
void debug_assert(CommandContext& cx) {
  const size_t one = cx.argc() > 0 ? 1 : 0;
  KEEL_ASSERT(one == 2);
}

// DEBUG PROPAGATED [ON|OFF] (Keel only): ON starts recording what the server propagates (the
// stream a replica would receive: SELECT, MULTI/EXEC, rewritten commands); without argument,
// the commands recorded since ON or the previous call, as an array of arrays (then forgotten);
// OFF stops recording.
void debug_propagated(CommandContext& cx) {
  if (cx.argc() == 3) {
    if (cx.is_arg(2, "on")) {
      recorder_on();
    } else if (cx.is_arg(2, "off")) {
      recorder_off();
    } else {
      return cx.reply().error(kErrSyntax);
    }
    return cx.reply().ok();
  }
  const std::vector<std::vector<std::string>> log = recorder_take();
  cx.reply().array(log.size());
  for (const std::vector<std::string>& cmd : log) {
    cx.reply().array(cmd.size());
    for (const std::string& a : cmd) cx.reply().bulk(a);
  }
}

// DEBUG subcommand [args...]: testing hooks. Refused unless enable-debug-command allows it.
void cmd_debug(CommandContext& cx) {
  if (!cx.server().debug_command_allowed(cx.session())) {
    return cx.reply().error(kErrDebugNotAllowed);
  }
  const size_t argc = cx.argc();
  if (cx.is_arg(1, "help") && argc == 2) {
    return reply_help(
        cx, "DEBUG",
        {"AOF-FSYNC-DELAY <ms>",
         "    (Keel only) Make every background AOF fsync sleep <ms> first, as a stalled disk.",
         "ASSERT", "    Crash by assertion failed.",
         "CHANGE-REPL-ID", "    Change the replication IDs of the instance.",
         "    Dangerous: should be used only for testing the replication subsystem.",
         "DIGEST", "    Output a hex signature representing the current DB content.",
         "DIGEST-VALUE <key> [<key> ...]",
         "    Output a hex signature of the values of all the specified keys.",
         "ERROR <string>",
         "    Return a Redis protocol error with <string> as message. Useful for clients",
         "    unit tests to simulate Redis errors.",
         "LOADAOF", "    Flush the AOF buffers on disk and reload the AOF in memory.",
         "LOG <message>", "    Write <message> to the server log.",
         "KEYSIZES-CHECK", "    Recount the INFO KEYSIZES histograms and compare them with the kept ones.",
         "KEYSIZES-HIST-ASSERT <0|1>",
         "    When 1, check the KEYSIZES histograms after every command and abort on a mismatch.",
         "OBJECT <key>", "    Show low level info about `key` and associated value.",
         "PANIC", "    Crash the server simulating a panic.",
         "PROPAGATED [ON|OFF]",
         "    (Keel only) ON records what the server propagates (the commands a replica would",
         "    receive); without argument, returns and forgets what was recorded; OFF stops.",
         "POPULATE <count> [<prefix>] [<size>]",
         "    Create <count> string keys named key:<num>. If <prefix> is specified then",
         "    it is used instead of the 'key' prefix. Existing keys are left untouched.",
         "PROTOCOL <type>",
         "    Reply with a test value of the specified type. <type> can be: string,",
         "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
         "    true, false.",
         "RELOAD [option ...]",
         "    Save the RDB on disk and reload it back to memory. Valid <option> values:",
         "    * MERGE: conflicting keys will be loaded from RDB.",
         "    * NOFLUSH: the existing database will not be removed before load, but",
         "      conflicting keys will generate an exception and kill the server.",
         "    * NOSAVE: the database will be loaded from an existing RDB file.",
         "SEGFAULT", "    Crash the server with sigsegv.",
         "SEGFAULT-IN-REPORT",
         "    Crash the server with sigsegv, and again while it writes the crash report.",
         "SET-ACTIVE-EXPIRE <0|1>",
         "    Setting it to 0 disables expiring keys in background when they are not",
         "    accessed. Setting it to 1 reenables back the default.",
         "QUICKLIST-PACKED-THRESHOLD <size>",
         "    Sets the threshold for elements to be inserted as plain vs packed nodes",
         "    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
         "SET-DISABLE-DENY-SCRIPTS <0|1>",
         "    Setting it to 1 lets scripts call commands that are flagged noscript.",
         "SLEEP <seconds>", "    Stop the server for <seconds>. Decimals allowed.",
         "STRINGMATCH-LEN", "    Run a fuzz tester against the stringmatchlen() function.",
         "LISTPACK <key>", "    Show low level info about the listpack encoding of <key>.",
         "REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
         "    Sets the time (in milliseconds) to wait between client reply buffer peak resets.",
         "    In case NEVER is provided the last observed peak will never be reset",
         "    In case RESET is provided the peak reset time will be restored to the default value",
         "REPLYBUFFER RESIZING <0|1>", "    Enable or disable the reply buffer resize cron job"});
  }
  // Crash tests of the bug report (base/crash.h). Like Redis, extra arguments are ignored.
  if (cx.is_arg(1, "segfault")) debug_segfault();
  if (cx.is_arg(1, "segfault-in-report")) {
    crash_fault_in_report(true);
    debug_segfault();
  }
  if (cx.is_arg(1, "panic")) {
    KEEL_PANIC("DEBUG PANIC called at Unix time %lld", static_cast<long long>(time(nullptr)));
  }
  if (cx.is_arg(1, "assert")) debug_assert(cx);
  if (cx.is_arg(1, "keysizes-check") && argc == 2) return debug_keysizes_check(cx);
  if (cx.is_arg(1, "keysizes-hist-assert") && argc == 3) {
    command_options().keysizes_hist_assert = flag_arg(cx.arg(2));
    return cx.reply().ok();
  }
  if (cx.is_arg(1, "set-active-expire") && argc == 3) {
    g_clock.active_expire_enabled = flag_arg(cx.arg(2));
    return cx.reply().ok();
  }
  if (cx.is_arg(1, "sleep") && argc == 3) {
    // Redis reads the delay with strtod and no validation: garbage sleeps 0 seconds.
    double secs = strtod(std::string(cx.arg(2)).c_str(), nullptr);
    if (secs > 0 && std::isfinite(secs)) {
      const int64_t us = static_cast<int64_t>(secs * 1e6);
      timespec ts{static_cast<time_t>(us / 1000000), static_cast<long>((us % 1000000) * 1000)};
      while (nanosleep(&ts, &ts) != 0) {
      }
    }
    return cx.reply().ok();
  }
  if (cx.is_arg(1, "propagated") && argc <= 3) return debug_propagated(cx);
  if (cx.is_arg(1, "aof-fsync-delay") && argc == 3) {
    int64_t ms;
    if (!parse_int64(cx.arg(2), &ms) || ms < 0 || ms > 60000) return cx.reply().error(kErrSyntax);
    aof_set_fsync_delay_ms(static_cast<int>(ms));
    return cx.reply().ok();
  }
  if (cx.is_arg(1, "protocol") && argc == 3) return debug_protocol(cx);
  // DEBUG runs during the start-up load (it has the loading flag, as in Redis), but what
  // writes the dataset or the files would save a half-loaded dataset over the file being read
  // or add keys the load then meets again: those wait until the load is done.
  if (g_loading_dataset &&
      (cx.is_arg(1, "populate") || cx.is_arg(1, "reload") || cx.is_arg(1, "loadaof"))) {
    return cx.reply().error(kErrLoading);
  }
  if (cx.is_arg(1, "populate") && argc >= 3 && argc <= 5) return debug_populate(cx);
  if (cx.is_arg(1, "object") && argc == 3) return debug_object(cx);
  if (cx.is_arg(1, "log") && argc == 3) {
    LOG_WARNING("DEBUG LOG: %s", std::string(cx.arg(2)).c_str());
    return cx.reply().ok();
  }
  if (cx.is_arg(1, "digest") && argc == 2) return cx.reply().simple(digest_dataset_hex());
  if (cx.is_arg(1, "digest-value")) return debug_digest_value(cx);
  if (cx.is_arg(1, "listpack") && argc == 3) return debug_listpack(cx);
  if (cx.is_arg(1, "quicklist-packed-threshold") && argc == 3) {
    return debug_quicklist_packed_threshold(cx);
  }
  // STRINGMATCH-LEN (Redis 7.2+); 7.0 called it STRINGMATCH-TEST.
  if ((cx.is_arg(1, "stringmatch-len") || cx.is_arg(1, "stringmatch-test")) && argc == 2) {
    return debug_stringmatch_fuzz(cx);
  }
  if (cx.is_arg(1, "replybuffer") && argc == 4) return debug_replybuffer(cx);
  if (cx.is_arg(1, "set-disable-deny-scripts") && argc == 3) {
    debug_options().disable_deny_scripts = flag_arg(cx.arg(2));
    return cx.reply().ok();
  }
  if (cx.is_arg(1, "change-repl-id") && argc == 2) {
    LOG_WARNING("Changing replication IDs after receiving DEBUG change-repl-id");
    change_master_replid();
    return cx.reply().ok();
  }
  if (cx.is_arg(1, "error") && argc == 3) return debug_error(cx);
  if (cx.is_arg(1, "loadaof") && argc == 2) return debug_loadaof(cx);
  if (cx.is_arg(1, "reload")) {
    for (size_t i = 2; i < argc; i++) {
      if (!cx.is_arg(i, "merge") && !cx.is_arg(i, "noflush") && !cx.is_arg(i, "nosave")) {
        return cx.reply().error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
      }
    }
    return debug_reload(cx, cx.args().subspan(2));
  }
  debug_unknown(cx);
}

// ---- INFO, keyspace-wide commands -------------------------------------------------------------

// INFO [section [section ...]] -> bulk text (verbatim string in RESP3).
void cmd_info(CommandContext& cx) {
  cx.reply().verbatim(cx.server().info(cx.args().subspan(1)));
}

void cmd_dbsize(CommandContext& cx) { cx.reply().integer(static_cast<int64_t>(cx.db().size())); }

// FLUSHDB/FLUSHALL take at most one of ASYNC / SYNC (none: lazyfree-lazy-user-flush decides).
// An ASYNC flush hands the dbs' tables to the lazyfree thread (keyspace/lazyfree.h), which
// counts their keys in lazyfreed_objects. Both are propagated even when nothing was removed.
bool flush_mode(CommandContext& cx, bool* async) {
  *async = command_options().lazyfree_lazy_user_flush;
  if (cx.argc() == 1) return true;
  if (cx.argc() == 2 && cx.is_arg(1, "sync")) {
    *async = false;
    return true;
  }
  if (cx.argc() == 2 && cx.is_arg(1, "async")) {
    *async = true;
    return true;
  }
  cx.reply().error(kErrSyntax);
  return false;
}

void cmd_flushdb(CommandContext& cx) {
  bool async;
  if (!flush_mode(cx, &async)) return;
  cx.db().flush(async);
  tracking_flushed();  // every tracking client drops everything (the table is not per db)
  cx.force_propagation();
  cx.reply().ok();
}

void cmd_flushall(CommandContext& cx) {
  bool async;
  if (!flush_mode(cx, &async)) return;
  keyspace().flush_all(async);
  tracking_flushed();
  cx.force_propagation();
  flushall_snapshot();
  cx.reply().ok();
}

// SWAPDB index1 index2
void cmd_swapdb(CommandContext& cx) {
  int64_t a, b;
  if (!parse_int64(cx.arg(1), &a)) return cx.reply().error("ERR invalid first DB index");
  if (!parse_int64(cx.arg(2), &b)) return cx.reply().error("ERR invalid second DB index");
  const int64_t n = keyspace().count();
  if (a < 0 || a >= n || b < 0 || b >= n) return cx.reply().error(kErrDbIndex);
  if (a != b) keyspace().swap(static_cast<int>(a), static_cast<int>(b));
  cx.set_dirty(1);  // Redis counts (and so propagates) every successful SWAPDB, even of a db with itself
  cx.reply().ok();
}

// TIME -> [unix seconds, microseconds] as bulk strings.
void cmd_time(CommandContext& cx) {
  const int64_t us = ustime();
  cx.reply().array(2);
  cx.reply().bulk_int(us / 1000000);
  cx.reply().bulk_int(us % 1000000);
}

void cmd_lastsave(CommandContext& cx) { cx.reply().integer(cx.server().lastsave()); }

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]. On success the server exits without replying.
void cmd_shutdown(CommandContext& cx) {
  bool nosave = false, save = false, now = false, force = false, abort = false;
  for (size_t i = 1; i < cx.argc(); i++) {
    if (cx.is_arg(i, "nosave")) {
      nosave = true;
    } else if (cx.is_arg(i, "save")) {
      save = true;
    } else if (cx.is_arg(i, "now")) {
      now = true;
    } else if (cx.is_arg(i, "force")) {
      force = true;
    } else if (cx.is_arg(i, "abort")) {
      abort = true;
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  if ((save && nosave) || (abort && cx.argc() > 2)) return cx.reply().error(kErrSyntax);
  std::string err = cx.server().shutdown(nosave, save, now, force, abort);
  if (!err.empty()) return cx.reply().error(err);
  // Redis exits inside the command: nothing this client pipelined after it may run (its reply
  // could leave in the final flush while the write reached neither the AOF nor the last save).
  if (!abort) cx.session().flags |= Session::kCloseAfterReply;
}

// MONITOR: +OK, then every command the server runs, one line each.
void cmd_monitor(CommandContext& cx) {
  if (cx.session().flags & Session::kMonitor) return;  // already monitoring: Redis is silent
  cx.server().add_monitor(cx.session());
  cx.reply().ok();
}

// ---- SLOWLOG ----------------------------------------------------------------------------------

// SLOWLOG GET [count]: newest first; count -1 = all, default 10.
void cmd_slowlog_get(CommandContext& cx) {
  int64_t count = 10;
  if (cx.argc() > 3) return cx.reply_arity_error();
  if (cx.argc() == 3 && (!parse_int64(cx.arg(2), &count) || count < -1)) {
    return cx.reply().error("ERR count should be greater than or equal to -1");
  }
  const auto& entries = slowlog().entries();
  size_t n = entries.size();
  if (count >= 0 && static_cast<uint64_t>(count) < n) n = static_cast<size_t>(count);
  ReplyWriter& w = cx.reply();
  w.array(n);
  for (size_t i = 0; i < n; i++) {
    const SlowlogEntry& e = entries[i];
    w.array(6);
    w.integer(static_cast<int64_t>(e.id));
    w.integer(e.time_sec);
    w.integer(e.duration_us);
    w.array(e.args.size());
    for (const std::string& a : e.args) w.bulk(a);
    w.bulk(e.addr);
    w.bulk(e.name);
  }
}

void cmd_slowlog_len(CommandContext& cx) { cx.reply().integer(static_cast<int64_t>(slowlog().entries().size())); }

void cmd_slowlog_reset(CommandContext& cx) {
  slowlog().reset();
  cx.reply().ok();
}

void cmd_slowlog_help(CommandContext& cx) {
  reply_help(cx, "SLOWLOG",
             {"GET [<count>]",
              "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
              "    Entries are made of:",
              "    id, timestamp, time in microseconds, arguments array, client IP and port,",
              "    client name", "LEN", "    Return the length of the slowlog.", "RESET",
              "    Reset the slowlog."});
}

// ---- COMMAND ----------------------------------------------------------------------------------

struct FlagName {
  uint32_t bit;
  const char* name;
};
// In Redis's order; may_replicate, sentinel and protected are flags Redis does not show.
constexpr FlagName kFlagNames[] = {
    {kWrite, "write"},        {kReadOnly, "readonly"},     {kDenyOom, "denyoom"},
    {kAdmin, "admin"},        {kPubSubCmd, "pubsub"},      {kNoScript, "noscript"},
    {kBlocking, "blocking"},  {kLoading, "loading"},       {kStale, "stale"},
    {kSkipMonitor, "skip_monitor"}, {kSkipSlowlog, "skip_slowlog"}, {kAsking, "asking"}, {kFast, "fast"},
    {kNoAuth, "no_auth"},     {kNoMandatoryKeys, "no_mandatory_keys"},
    {kNoAsyncLoading, "no_async_loading"}, {kNoMulti, "no_multi"},
    {kMovableKeys, "movablekeys"}, {kAllowBusy, "allow_busy"},
};

std::vector<const char*> flag_names(const CommandSpec& c) {
  std::vector<const char*> out;
  for (const FlagName& f : kFlagNames) {
    if (c.flags & f.bit) out.push_back(f.name);
  }
  return out;
}

}  // namespace

// ACL categories in Redis's listing order; the implicit ones come from the command flags.
// Also the source of the ACL rules' categories (commands/acl.h).
std::vector<const char*> acl_categories(const CommandSpec& c) {
  const uint32_t f = c.flags, a = c.acl;
  std::vector<const char*> out;
  auto add = [&](bool on, const char* name) {
    if (on) out.push_back(name);
  };
  add(a & kAclKeyspace, "@keyspace");
  add(f & kReadOnly, "@read");
  add(f & kWrite, "@write");
  add(a & kAclSet, "@set");
  add(a & kAclSortedSet, "@sortedset");
  add(a & kAclList, "@list");
  add(a & kAclHash, "@hash");
  add(a & kAclString, "@string");
  add(a & kAclBitmap, "@bitmap");
  add(a & kAclHyperLogLog, "@hyperloglog");
  add(a & kAclGeo, "@geo");
  add(a & kAclStream, "@stream");
  add(f & kPubSubCmd, "@pubsub");
  add((f & kAdmin) || (a & kAclAdmin), "@admin");
  add(f & kFast, "@fast");
  add(!(f & kFast), "@slow");
  add(f & kBlocking, "@blocking");
  add((f & kAdmin) || (a & kAclDangerous), "@dangerous");
  add(a & kAclConnection, "@connection");
  add(a & kAclTransaction, "@transaction");
  add(a & kAclScripting, "@scripting");
  return out;
}

namespace {

bool has_acl_category(const CommandSpec& c, std::string_view cat) {
  for (const char* n : acl_categories(c)) {
    if (equals_nocase(cat, n + 1)) return true;
  }
  return false;
}

void reply_tips(ReplyWriter& w, const char* tips) {
  std::vector<std::string_view> words;
  for (std::string_view rest = tips ? tips : ""; !rest.empty();) {
    const size_t sp = rest.find(' ');
    words.push_back(rest.substr(0, sp));
    rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
  }
  w.set(words.size());
  for (std::string_view t : words) w.bulk(t);
}

void reply_command_info(ReplyWriter& w, const CommandSpec& c) {
  w.array(10);
  w.bulk(c.full_name);
  w.integer(c.arity);
  std::vector<const char*> flags = flag_names(c);
  w.set(flags.size());
  for (const char* f : flags) w.simple(f);
  w.integer(c.first_key);
  w.integer(c.last_key);
  w.integer(c.step);
  std::vector<const char*> cats = acl_categories(c);
  w.set(cats.size());
  for (const char* a : cats) w.simple(a);
  reply_tips(w, c.tips);
  reply_key_specs(w, c);
  // Redis answers an empty set, not an empty array, when there are no subcommands (RESP3 `~0`).
  if (c.subcommands.empty()) {
    w.set(0);
  } else {
    w.array(c.subcommands.size());
    for (const CommandSpec& sub : c.subcommands) reply_command_info(w, sub);
  }
}

void reply_command_docs(ReplyWriter& w, const CommandSpec& c) {
  const bool subs = !c.subcommands.empty();
  w.map(4 + (subs ? 1 : 0));
  w.bulk("summary");
  w.bulk(c.summary);
  w.bulk("since");
  w.bulk(c.since);
  w.bulk("group");
  w.bulk(c.group);
  w.bulk("complexity");
  w.bulk(c.complexity);
  if (subs) {
    w.bulk("subcommands");
    w.map(c.subcommands.size());
    for (const CommandSpec& sub : c.subcommands) {
      w.bulk(sub.full_name);
      reply_command_docs(w, sub);
    }
  }
}

// "name" or "container|sub" -> its row.
const CommandSpec* command_by_full_name(std::string_view name) {
  const size_t bar = name.find('|');
  if (bar == std::string_view::npos) return lookup_command(name);
  const CommandSpec* parent = lookup_command(name.substr(0, bar));
  if (!parent || parent->subcommands.empty()) return nullptr;
  return lookup_subcommand(*parent, name.substr(bar + 1));
}

// COMMAND: every command's info.
void cmd_command(CommandContext& cx) {
  if (cx.argc() != 1) return cx.reply_arity_error();
  const auto& all = all_commands();
  cx.reply().array(all.size());
  for (const CommandSpec* c : all) reply_command_info(cx.reply(), *c);
}

void cmd_command_count(CommandContext& cx) { cx.reply().integer(static_cast<int64_t>(all_commands().size())); }

// COMMAND INFO [name ...]: null for unknown names; no names = all commands.
void cmd_command_info(CommandContext& cx) {
  if (cx.argc() == 2) {
    const auto& all = all_commands();
    cx.reply().array(all.size());
    for (const CommandSpec* c : all) reply_command_info(cx.reply(), *c);
    return;
  }
  cx.reply().array(cx.argc() - 2);
  for (size_t i = 2; i < cx.argc(); i++) {
    const CommandSpec* c = command_by_full_name(cx.arg(i));
    if (c) {
      reply_command_info(cx.reply(), *c);
    } else {
      cx.reply().null_array();
    }
  }
}

// COMMAND DOCS [name ...]: map name -> docs; unknown names are left out.
void cmd_command_docs(CommandContext& cx) {
  ReplyWriter& w = cx.reply();
  if (cx.argc() == 2) {
    const auto& all = all_commands();
    w.map(all.size());
    for (const CommandSpec* c : all) {
      w.bulk(c->full_name);
      reply_command_docs(w, *c);
    }
    return;
  }
  std::vector<const CommandSpec*> found;
  for (size_t i = 2; i < cx.argc(); i++) {
    if (const CommandSpec* c = command_by_full_name(cx.arg(i))) found.push_back(c);
  }
  w.map(found.size());
  for (const CommandSpec* c : found) {
    w.bulk(c->full_name);
    reply_command_docs(w, *c);
  }
}

// COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]
void cmd_command_list(CommandContext& cx) {
  int mode = 0;  // 0 all, 1 module, 2 aclcat, 3 pattern
  std::string_view value;
  if (cx.argc() == 5 && cx.is_arg(2, "filterby")) {
    value = cx.arg(4);
    if (cx.is_arg(3, "module")) {
      mode = 1;
    } else if (cx.is_arg(3, "aclcat")) {
      mode = 2;
    } else if (cx.is_arg(3, "pattern")) {
      mode = 3;
    } else {
      return cx.reply().error(kErrSyntax);
    }
  } else if (cx.argc() != 2) {
    return cx.reply().error(kErrSyntax);
  }
  ReplyWriter& w = cx.reply();
  const size_t token = w.begin_deferred();
  size_t n = 0;
  auto consider = [&](const CommandSpec& c) {
    bool keep = true;
    if (mode == 1) keep = false;  // no modules
    if (mode == 2) keep = has_acl_category(c, value);
    if (mode == 3) keep = glob_match(value, c.full_name, true);
    if (keep) {
      w.bulk(c.full_name);
      n++;
    }
  };
  for (const CommandSpec* c : all_commands()) {
    consider(*c);
    for (const CommandSpec& sub : c->subcommands) consider(sub);
  }
  w.end_deferred_array(token, n);
}

// COMMAND GETKEYS command [arg ...] / COMMAND GETKEYSANDFLAGS command [arg ...]: the keys the
// row's key specs (or its getkeys proc) find, in Redis's order of checks: unknown command, no
// key arguments (before the arity), arity, then the keys.
void command_getkeys(CommandContext& cx, bool with_flags) {
  std::span<const std::string_view> args = cx.args().subspan(2);
  const CommandSpec* c = resolve_command(args);
  if (!c || (!c->parent && !c->subcommands.empty() && args.size() >= 2)) {
    return cx.reply().error("ERR Invalid command specified");
  }
  if (!command_has_keys(*c)) return cx.reply().error("ERR The command has no key arguments");
  const int argc = static_cast<int>(args.size());
  if ((c->arity > 0 && argc != c->arity) || argc < -c->arity) {
    return cx.reply().error("ERR Invalid number of arguments specified for command");
  }
  std::vector<KeyArg> keys;
  if (command_keys(*c, args, &keys) == 0) {
    // No key found: fine for commands whose keys are optional (EVAL ... 0), else an error.
    if (c->flags & kNoMandatoryKeys) return cx.reply().array(0);
    return cx.reply().error("ERR Invalid arguments specified for command");
  }
  ReplyWriter& w = cx.reply();
  w.array(keys.size());
  for (const KeyArg& k : keys) {
    if (!with_flags) {
      w.bulk(args[size_t(k.pos)]);
      continue;
    }
    w.array(2);
    w.bulk(args[size_t(k.pos)]);
    reply_key_spec_flags(w, k.flags);
  }
}
void cmd_command_getkeys(CommandContext& cx) { command_getkeys(cx, false); }
void cmd_command_getkeysandflags(CommandContext& cx) { command_getkeys(cx, true); }

void cmd_command_help(CommandContext& cx) {
  reply_help(cx, "COMMAND",
             {"(no subcommand)", "    Return details about all Redis commands.", "COUNT",
              "    Return the total number of commands in this Redis server.", "LIST",
              "    Return a list of all commands in this Redis server.",
              "INFO [<command-name> ...]",
              "    Return details about multiple Redis commands.",
              "    If no command names are given, documentation details for all",
              "    commands are returned.",
              "DOCS [<command-name> ...]",
              "    Return documentation details about multiple Redis commands.",
              "    If no command names are given, documentation details for all",
              "    commands are returned.",
              "GETKEYS <full-command>", "    Return the keys from a full Redis command.",
              "GETKEYSANDFLAGS <full-command>",
              "    Return the keys and the access flags from a full Redis command."});
}

constexpr uint32_t kIntro = kLoading | kStale;
constexpr uint32_t kSlowAdmin = kAdmin | kLoading | kStale;

CommandSpec kCommandSubcommands[] = {
    {.name = "count", .handler = cmd_command_count, .arity = 2, .flags = kIntro, .acl = kAclConnection, .group = "server",
     .summary = "Returns a count of commands.", .since = "2.8.13", .complexity = "O(1)"},
    {.name = "info", .handler = cmd_command_info, .arity = -2, .flags = kIntro, .acl = kAclConnection, .group = "server",
     .summary = "Returns information about one, multiple or all commands.", .since = "2.8.13", .complexity = "O(N) where N is the number of commands to look up",
     .tips = "nondeterministic_output_order"},
    {.name = "docs", .handler = cmd_command_docs, .arity = -2, .flags = kIntro, .acl = kAclConnection, .group = "server",
     .summary = "Returns documentary information about one, multiple or all commands.", .since = "7.0.0", .complexity = "O(N) where N is the number of commands to look up",
     .tips = "nondeterministic_output_order"},
    {.name = "list", .handler = cmd_command_list, .arity = -2, .flags = kIntro, .acl = kAclConnection, .group = "server",
     .summary = "Returns a list of command names.", .since = "7.0.0", .complexity = "O(N) where N is the total number of Redis commands",
     .tips = "nondeterministic_output_order"},
    {.name = "getkeys", .handler = cmd_command_getkeys, .arity = -4, .flags = kIntro, .acl = kAclConnection, .group = "server",
     .summary = "Extracts the key names from an arbitrary command.", .since = "2.8.13", .complexity = "O(N) where N is the number of arguments to the command"},
    {.name = "getkeysandflags", .handler = cmd_command_getkeysandflags, .arity = -4, .flags = kIntro, .acl = kAclConnection, .group = "server",
     .summary = "Extracts the key names and access flags for an arbitrary command.", .since = "7.0.0", .complexity = "O(N) where N is the number of arguments to the command"},
    {.name = "help", .handler = cmd_command_help, .arity = 2, .flags = kIntro, .acl = kAclConnection, .group = "server",
     .summary = "Returns helpful text about the different subcommands.", .since = "5.0.0", .complexity = "O(1)"},
};

CommandSpec kSlowlogSubcommands[] = {
    {.name = "get", .handler = cmd_slowlog_get, .arity = -2, .flags = kSlowAdmin, .group = "server",
     .summary = "Returns the slow log's entries.", .since = "2.2.12", .complexity = "O(N) where N is the number of entries returned",
     .tips = "request_policy:all_nodes nondeterministic_output"},
    {.name = "len", .handler = cmd_slowlog_len, .arity = 2, .flags = kSlowAdmin, .group = "server",
     .summary = "Returns the number of entries in the slow log.", .since = "2.2.12", .complexity = "O(1)",
     .tips = "request_policy:all_nodes response_policy:agg_sum nondeterministic_output"},
    {.name = "reset", .handler = cmd_slowlog_reset, .arity = 2, .flags = kSlowAdmin, .group = "server",
     .summary = "Clears all entries from the slow log.", .since = "2.2.12", .complexity = "O(N) where N is the number of entries in the slowlog",
     .tips = "request_policy:all_nodes response_policy:all_succeeded"},
    {.name = "help", .handler = cmd_slowlog_help, .arity = 2, .flags = kIntro, .group = "server",
     .summary = "Show helpful text about the different subcommands", .since = "6.2.0", .complexity = "O(1)"},
};

CommandSpec kServerCommands[] = {
    {.name = "debug", .handler = cmd_debug, .arity = -2, .flags = kAdmin | kNoScript | kLoading | kStale | kProtected, .acl = kAclDangerous, .group = "server",
     .summary = "A container for debugging commands.", .since = "1.0.0", .complexity = "Depends on subcommand."},
    {.name = "info", .handler = cmd_info, .arity = -1, .flags = kLoading | kStale, .acl = kAclDangerous, .group = "server",
     .summary = "Returns information and statistics about the server.", .since = "1.0.0", .complexity = "O(1)",
     .tips = "nondeterministic_output request_policy:all_shards response_policy:special"},
    {.name = "dbsize", .handler = cmd_dbsize, .arity = 1, .flags = kReadOnly | kFast, .acl = kAclKeyspace, .group = "server",
     .summary = "Returns the number of keys in the database.", .since = "1.0.0", .complexity = "O(1)",
     .tips = "request_policy:all_shards response_policy:agg_sum"},
    {.name = "flushdb", .handler = cmd_flushdb, .arity = -1, .flags = kWrite, .acl = kAclKeyspace | kAclDangerous, .group = "server",
     .summary = "Removes all keys from the current database.", .since = "1.0.0", .complexity = "O(N) where N is the number of keys in the selected database",
     .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "flushall", .handler = cmd_flushall, .arity = -1, .flags = kWrite, .acl = kAclKeyspace | kAclDangerous, .group = "server",
     .summary = "Removes all keys from all databases.", .since = "1.0.0", .complexity = "O(N) where N is the total number of keys in all databases",
     .tips = "request_policy:all_shards response_policy:all_succeeded"},
    {.name = "swapdb", .handler = cmd_swapdb, .arity = 3, .flags = kWrite | kFast, .acl = kAclKeyspace | kAclDangerous, .group = "server",
     .summary = "Swaps two Redis databases.", .since = "4.0.0", .complexity = "O(N) where N is the count of clients watching or blocking on keys from both databases."},
    {.name = "time", .handler = cmd_time, .arity = 1, .flags = kLoading | kStale | kFast, .group = "server",
     .summary = "Returns the server time.", .since = "2.6.0", .complexity = "O(1)",
     .tips = "nondeterministic_output"},
    {.name = "lastsave", .handler = cmd_lastsave, .arity = 1, .flags = kLoading | kStale | kFast, .acl = kAclDangerous | kAclAdmin, .group = "server",
     .summary = "Returns the Unix timestamp of the last successful save to disk.", .since = "1.0.0", .complexity = "O(1)",
     .tips = "nondeterministic_output"},
    {.name = "shutdown", .handler = cmd_shutdown, .arity = -1, .flags = kAdmin | kNoScript | kLoading | kStale | kNoMulti | kAllowBusy, .group = "server",
     .summary = "Synchronously saves the database(s) to disk and shuts down the Redis server.", .since = "1.0.0", .complexity = "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)"},
    {.name = "monitor", .handler = cmd_monitor, .arity = 1, .flags = kAdmin | kNoScript | kLoading | kStale, .group = "server",
     .summary = "Listens for all requests received by the server in real-time.", .since = "1.0.0", .complexity = ""},
    {.name = "slowlog", .handler = nullptr, .arity = -2, .group = "server",
     .summary = "A container for slow log commands.", .since = "2.2.12", .complexity = "Depends on subcommand.",
     .subcommands = kSlowlogSubcommands},
    {.name = "command", .handler = cmd_command, .arity = -1, .flags = kLoading | kStale, .acl = kAclConnection, .group = "server",
     .summary = "Returns detailed information about all commands.", .since = "2.8.13", .complexity = "O(N) where N is the total number of Redis commands",
     .subcommands = kCommandSubcommands,
     .tips = "nondeterministic_output_order"},
};

}  // namespace

std::span<CommandSpec> server_commands() { return kServerCommands; }

}  // namespace keel
