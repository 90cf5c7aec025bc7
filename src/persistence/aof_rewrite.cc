// The dataset as commands (aof-use-rdb-preamble no): what a rewrite child writes as a plain
// `.base.aof`, in Redis 7.0's form (rewriteAppendOnlyFileRio): FUNCTION LOAD per library, then
// per non-empty db a SELECT and per key SET / RPUSH / SADD / ZADD / HMSET (at most 64 items per
// command) followed by PEXPIREAT when the key has a TTL. A hash field with a TTL adds
// `HPEXPIREAT key ms FIELDS 1 field` (Redis 7.4). A stream is one XADD per entry (an empty one:
// `XADD key MAXLEN 0 last-id x y`), XSETID with ENTRIESADDED and MAXDELETEDID, then per group
// XGROUP CREATE ... ENTRIESREAD, an XCLAIM ... JUSTID FORCE per pending entry and XGROUP
// CREATECONSUMER for consumers with none (Redis 7.0's rewriteStreamObject).
#include <ctime>

#include "base/log.h"
#include "base/numbers.h"
#include "ds/stream.h"
#include "keyspace/keyspace.h"
#include "persistence/aof.h"
#include "persistence/persistence.h"
#include "persistence/rdb_io.h"
#include "persistence/rdb_save.h"
#include "types/hash_type.h"
#include "types/list_type.h"
#include "types/object.h"
#include "types/set_type.h"
#include "types/zset_type.h"

namespace keel {
namespace {

constexpr size_t kItemsPerCmd = 64;  // Redis's AOF_REWRITE_ITEMS_PER_CMD

class Writer {
 public:
  explicit Writer(RdbOut& out) : out_(out) {}
  void head(size_t n) { prefix('*', n); }
  void bulk(std::string_view s) {
    prefix('$', s.size());
    out_.put(s.data(), s.size());
    out_.put("\r\n", 2);
  }
  void bulk_int(int64_t v) {
    char buf[32];
    bulk(std::string_view(buf, format_int64(v, buf)));
  }
  void bulk_double(double v) {
    char buf[kLongDoubleBufSize];
    bulk(std::string_view(buf, format_double_g17(v, buf)));
  }
  void cmd(std::initializer_list<std::string_view> args) {
    head(args.size());
    for (std::string_view a : args) bulk(a);
  }

  // Items of one collection in commands of at most kItemsPerCmd items: `name key item...`;
  // `width` arguments per item (2 for ZADD and HMSET).
  void begin_items(std::string_view name, std::string_view key, size_t total, size_t width) {
    name_ = name;
    key_ = key;
    left_ = total;
    width_ = width;
    in_cmd_ = 0;
  }
  // Before an item's arguments.
  void item() {
    if (in_cmd_ == 0) {
      const size_t n = std::min(left_, kItemsPerCmd);
      head(2 + n * width_);
      bulk(name_);
      bulk(key_);
    }
    if (++in_cmd_ == kItemsPerCmd) in_cmd_ = 0;
    left_--;
  }

 private:
  void prefix(char c, size_t n) {
    char buf[32];
    buf[0] = c;
    size_t len = 1 + format_int64(static_cast<int64_t>(n), buf + 1);
    buf[len++] = '\r';
    buf[len++] = '\n';
    out_.put(buf, len);
  }
  RdbOut& out_;
  std::string_view name_, key_;
  size_t left_ = 0, width_ = 1, in_cmd_ = 0;
};

struct IdText {
  explicit IdText(StreamID id) : len(id.format(buf)) {}
  std::string_view view() const { return {buf, len}; }
  char buf[48];
  size_t len;
};

void write_stream(Writer& w, std::string_view key, const Stream& cs) {
  // The iterator takes a mutable stream; it only reads here.
  Stream& s = const_cast<Stream&>(cs);
  if (s.length > 0) {
    StreamIterator it(s, StreamID{}, StreamID::max(), false);
    StreamID id;
    int64_t nf = 0;
    while (it.next(&id, &nf)) {
      w.head(3 + 2 * static_cast<size_t>(nf));
      w.bulk("XADD");
      w.bulk(key);
      w.bulk(IdText(id).view());
      it.for_each_field([&](const LpEntry& f, const LpEntry& v) {
        char fb[32], vb[32];
        w.bulk(f.str(fb));
        w.bulk(v.str(vb));
      });
    }
  } else {
    w.cmd({"XADD", key, "MAXLEN", "0", IdText(s.last_id).view(), "x", "y"});
  }
  char added[32];
  w.cmd({"XSETID", key, IdText(s.last_id).view(), "ENTRIESADDED",
         std::string_view(added, format_int64(static_cast<int64_t>(s.entries_added), added)),
         "MAXDELETEDID", IdText(s.max_deleted_id).view()});
  if (s.cgroups == nullptr) return;
  for (const auto& [gname, g] : *s.cgroups) {
    char read[32];
    w.cmd({"XGROUP", "CREATE", key, gname, IdText(g->last_id).view(), "ENTRIESREAD",
           std::string_view(read, format_int64(g->entries_read, read))});
    for (const auto& [nid, nack] : g->pel) {
      char time[32], count[32];
      w.cmd({"XCLAIM", key, gname, nack->consumer->name, "0", IdText(nid).view(), "TIME",
             std::string_view(time, format_int64(nack->delivery_time, time)), "RETRYCOUNT",
             std::string_view(count, format_int64(static_cast<int64_t>(nack->delivery_count), count)),
             "JUSTID", "FORCE"});
    }
    for (const auto& [cname, c] : g->consumers) {
      if (c->pel.empty()) w.cmd({"XGROUP", "CREATECONSUMER", key, gname, cname});
    }
  }
}

bool write_key(Writer& w, const Object& o) {
  const std::string_view key = o.key();
  switch (o.type()) {
    case Type::kString: {
      char scratch[32];
      w.cmd({"SET", key, o.string_view(scratch)});
      break;
    }
    case Type::kList: {
      const size_t n = ListType::size(o);
      w.begin_items("RPUSH", key, n, 1);
      ListType::range(o, 0, n, [](void* ctx, const LpEntry& e) {
        Writer& wr = *static_cast<Writer*>(ctx);
        wr.item();
        char buf[32];
        wr.bulk(e.str(buf));
      }, &w);
      break;
    }
    case Type::kSet: {
      w.begin_items("SADD", key, SetType::size(o), 1);
      SetType::for_each(o, [&](const SetElem& e) {
        w.item();
        if (e.is_int) {
          w.bulk_int(e.ival);
        } else {
          w.bulk(e.str);
        }
        return true;
      });
      break;
    }
    case Type::kZset: {
      w.begin_items("ZADD", key, ZsetType::size(o), 2);
      ZsetType::for_each(o, [&](std::string_view member, double score) {
        w.item();
        w.bulk_double(score);
        w.bulk(member);
      });
      break;
    }
    case Type::kHash: {
      w.begin_items("HMSET", key, HashType::size(o), 2);
      HashType::for_each(o, [&](std::string_view field, std::string_view value) {
        w.item();
        w.bulk(field);
        w.bulk(value);
      });
      if (HashType::has_field_ttls(o)) {
        HashType::for_each_with_ttl(o, [&](std::string_view field, std::string_view, int64_t ttl) {
          if (ttl == 0) return;
          char buf[32];
          w.cmd({"HPEXPIREAT", key, std::string_view(buf, format_int64(ttl, buf)), "FIELDS", "1", field});
        });
      }
      break;
    }
    case Type::kStream:
      write_stream(w, key, *static_cast<const Stream*>(o.ptr()));
      break;
    default:
      LOG_WARNING("Unknown object type %d in AOF rewrite", static_cast<int>(o.type()));
      return false;
  }
  if (o.has_expire()) {
    char buf[32];
    w.cmd({"PEXPIREAT", key, std::string_view(buf, format_int64(o.expire_ms(), buf))});
  }
  return true;
}

}  // namespace

bool aof_write_commands(RdbOut& out) {
  out.set_checksum(false);
  Writer w(out);
  if (aof_options().timestamp_enabled) {
    char ts[32];
    const int n = snprintf(ts, sizeof(ts), "#TS:%lld\r\n", static_cast<long long>(time(nullptr)));
    out.put(ts, static_cast<size_t>(n));
  }
  if (g_function_hooks.for_each_library != nullptr) {
    g_function_hooks.for_each_library(&w, [](void* ctx, std::string_view code) {
      static_cast<Writer*>(ctx)->cmd({"FUNCTION", "LOAD", code});
    });
  }
  void (*const progress)(uint64_t) = g_rdb_save_progress;
  const int delay = persistence_options().key_save_delay;
  uint64_t keys = 0;
  bool ok = true;
  Keyspace& ks = keyspace();
  for (int i = 0; i < ks.count() && ok; i++) {
    const Db& db = ks.db(i);
    if (db.size() == 0) continue;
    char buf[16];
    w.cmd({"SELECT", std::string_view(buf, format_int64(i, buf))});
    db.for_each([&](const Object* o) {
      if (!ok) return;
      if (!write_key(w, *o)) ok = false;
      keys++;
      if (delay != 0) rdb_debug_delay(delay);
      if (progress != nullptr && (keys & 1023) == 0) progress(keys);
    });
  }
  return ok;
}

}  // namespace keel
