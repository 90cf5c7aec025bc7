// The RDB writer (see rdb_save.h). Which type code each Keel encoding is written as, and why,
// is described in persistence/README.md ("Writing").
#include "persistence/rdb_save.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "base/assert.h"
#include "base/log.h"
#include "base/memory.h"
#include "base/time.h"
#include "ds/intset.h"
#include "ds/listpack.h"
#include "ds/quicklist.h"
#include "keyspace/evict.h"
#include "keyspace/keyspace.h"
#include "persistence/persistence.h"
#include "persistence/rdb_format.h"
#include "persistence/rdb_stream.h"
#include "types/hash_type.h"
#include "types/set_type.h"
#include "types/zset_type.h"

namespace keel {
namespace {

// The type byte, then (in a snapshot) the key, then the value follows.
void put_type(RdbOut& out, uint8_t type, const std::string_view* key, bool compress) {
  out.put_byte(type);
  if (key != nullptr) out.put_string(*key, compress);
}

void put_listpack_blob(RdbOut& out, const void* blob, bool compress) {
  ListpackView lp(blob);
  out.put_blob(lp->data(), lp->bytes(), compress);
}

void write_list(RdbOut& out, const Object& o, const std::string_view* key, bool compress) {
  put_type(out, kRdbListQuicklist2, key, compress);
  if (o.encoding() == Encoding::kListpack) {
    out.put_len(1);
    out.put_len(kQuicklistNodePacked);
    put_listpack_blob(out, o.ptr(), compress);
    return;
  }
  const auto* q = static_cast<const Quicklist*>(o.ptr());
  out.put_len(q->node_count());
  q->for_each_node([&](const Quicklist::NodeView& n) {
    out.put_len(n.plain ? kQuicklistNodePlain : kQuicklistNodePacked);
    if (n.compressed) {
      out.put_lzf(n.data, n.stored_bytes, n.bytes);  // already LZF: written as it is
    } else if (n.plain) {
      out.put_string({reinterpret_cast<const char*>(n.data), n.bytes}, compress);
    } else {
      out.put_blob(n.data, n.bytes, compress);
    }
  });
}

void put_set_elem(RdbOut& out, const SetElem& e, bool compress) {
  if (e.is_int) {
    out.put_int_string(e.ival);
  } else {
    out.put_string(e.str, compress);
  }
}

void write_set(RdbOut& out, const Object& o, const std::string_view* key, int version,
               bool compress) {
  const Encoding enc = o.encoding();
  if (enc == Encoding::kIntset) {
    const auto* is = static_cast<const Intset*>(o.ptr());
    put_type(out, kRdbSetIntset, key, compress);
    out.put_blob(intset_data(is), intset_bytes(is), compress);
    return;
  }
  if (enc == Encoding::kListpack && version >= 11) {
    put_type(out, kRdbSetListpack, key, compress);
    put_listpack_blob(out, o.ptr(), compress);
    return;
  }
  // Hashtable sets, and listpack sets for Redis 7.0 (version 10 has no listpack sets).
  put_type(out, kRdbSet, key, compress);
  out.put_len(SetType::size(o));
  SetType::for_each(o, [&](const SetElem& e) {
    put_set_elem(out, e, compress);
    return true;
  });
}

struct ZsetWriteCtx {
  RdbOut* out;
  bool compress;
};

void write_zset(RdbOut& out, const Object& o, const std::string_view* key, bool compress) {
  if (o.encoding() == Encoding::kListpack) {
    put_type(out, kRdbZsetListpack, key, compress);
    put_listpack_blob(out, o.ptr(), compress);
    return;
  }
  put_type(out, kRdbZset2, key, compress);
  const size_t n = ZsetType::size(o);
  out.put_len(n);
  if (n == 0) return;
  // Highest score first, as Redis writes it: loading then inserts at the head of the list.
  ZsetWriteCtx ctx{&out, compress};
  ZsetType::range_by_rank(
      o, 0, n - 1, /*rev=*/true,
      [](void* c, std::string_view member, double score) {
        auto* x = static_cast<ZsetWriteCtx*>(c);
        x->out->put_string(member, x->compress);
        uint64_t bits;
        std::memcpy(&bits, &score, 8);
        x->out->put_u64_le(bits);
      },
      &ctx);
}

// A hash with TTL support (Redis 7.4). Version 12: a listpackex is type 25 (the earliest TTL, 0
// when none, then the listpack as it is), a hashtable with a field TTL type 24 (the earliest
// TTL, then per field ttl - earliest + 1 or 0, field, value), without one type 4. Versions 10
// and 11 have no field TTLs: the hash is written as a plain one (type 4) of the fields whose
// TTL has not passed, without their TTLs (persistence/README.md).
void write_hash_ttl(RdbOut& out, const Object& o, const std::string_view* key, int version,
                    bool compress) {
  const int64_t min = HashType::min_field_ttl(o);
  if (version >= 12 && o.encoding() == Encoding::kListpackEx) {
    put_type(out, kRdbHashListpackEx, key, compress);
    out.put_u64_le(static_cast<uint64_t>(min));
    put_listpack_blob(out, o.ptr(), compress);
    return;
  }
  if (version >= 12 && min != 0) {
    put_type(out, kRdbHashMetadata, key, compress);
    out.put_u64_le(static_cast<uint64_t>(min));
    out.put_len(HashType::size(o));
    HashType::for_each_with_ttl(o, [&](std::string_view f, std::string_view v, int64_t ttl) {
      out.put_len(ttl == 0 ? 0 : static_cast<uint64_t>(ttl - min + 1));
      out.put_string(f, compress);
      out.put_string(v, compress);
    });
    return;
  }
  const int64_t now = mstime();
  size_t live = 0;
  HashType::for_each_with_ttl(o, [&](std::string_view, std::string_view, int64_t ttl) {
    live += ttl == 0 || ttl >= now;
  });
  put_type(out, kRdbHash, key, compress);
  out.put_len(live);
  HashType::for_each_with_ttl(o, [&](std::string_view f, std::string_view v, int64_t ttl) {
    if (ttl != 0 && ttl < now) return;
    out.put_string(f, compress);
    out.put_string(v, compress);
  });
}

void write_hash(RdbOut& out, const Object& o, const std::string_view* key, int version,
                bool compress) {
  if (o.encoding() == Encoding::kListpack) {
    put_type(out, kRdbHashListpack, key, compress);
    put_listpack_blob(out, o.ptr(), compress);
    return;
  }
  if (HashType::has_field_ttls(o)) [[unlikely]] return write_hash_ttl(out, o, key, version, compress);
  put_type(out, kRdbHash, key, compress);
  out.put_len(HashType::size(o));
  HashType::for_each(o, [&](std::string_view f, std::string_view v) {
    out.put_string(f, compress);
    out.put_string(v, compress);
  });
}

void put_aux(RdbOut& out, std::string_view key, std::string_view value) {
  out.put_byte(kRdbOpAux);
  out.put_string(key, false);
  out.put_string(value, false);
}

void put_aux_int(RdbOut& out, std::string_view key, int64_t value) {
  out.put_byte(kRdbOpAux);
  out.put_string(key, false);
  out.put_int_string(value);
}

void write_functions(RdbOut& out) {
  if (g_function_hooks.for_each_library == nullptr) return;
  g_function_hooks.for_each_library(&out, [](void* ctx, std::string_view code) {
    auto* o = static_cast<RdbOut*>(ctx);
    o->put_byte(kRdbOpFunction2);
    o->put_string(code, false);
  });
}

void put_footer(RdbOut& out, int version) {
  const auto v = static_cast<uint16_t>(version);
  const uint8_t b[2] = {static_cast<uint8_t>(v & 0xff), static_cast<uint8_t>(v >> 8)};
  out.put(b, 2);
  out.put_u64_le(out.crc());
}

void write_object(RdbOut& out, const Object& o, const std::string_view* key, int version,
                  bool compress) {
  switch (o.type()) {
    case Type::kString:
      put_type(out, kRdbString, key, compress);
      if (o.is_int()) {
        out.put_int_string(o.int_value());
      } else {
        char scratch[kInt64BufSize];
        out.put_string(o.string_view(scratch), compress);
      }
      return;
    case Type::kList: write_list(out, o, key, compress); return;
    case Type::kSet: write_set(out, o, key, version, compress); return;
    case Type::kZset: write_zset(out, o, key, compress); return;
    case Type::kHash: write_hash(out, o, key, version, compress); return;
    case Type::kStream: {
      const int type = rdb_stream_type_for(version);
      put_type(out, static_cast<uint8_t>(type), key, compress);
      rdb_write_stream(out, *static_cast<const Stream*>(o.ptr()), type, compress);
      return;
    }
  }
  KEEL_PANIC("RDB writer: unknown object type %d", static_cast<int>(o.type()));
}

}  // namespace

void rdb_write_value(RdbOut& out, const Object& o, int version, bool compress) {
  write_object(out, o, nullptr, version, compress);
}

void rdb_write_key(RdbOut& out, const Object& o, int version, bool compress) {
  if (o.has_expire()) {
    out.put_byte(kRdbOpExpireTimeMs);
    out.put_u64_le(static_cast<uint64_t>(o.expire_ms()));
  }
  // As Redis's rdbSaveKeyValuePair: under an LRU policy the idle time in seconds, under an LFU
  // policy the (decayed) counter, so that a restart or DEBUG RELOAD keeps the eviction order.
  const int policy = eviction_options().policy;
  if (policy == kPolicyAllkeysLru || policy == kPolicyVolatileLru) {
    const uint32_t now = g_clock.lru_clock;
    out.put_byte(kRdbOpIdle);
    out.put_len(now >= o.lru() ? now - o.lru() : 0);
  } else if (policy == kPolicyAllkeysLfu || policy == kPolicyVolatileLfu) {
    out.put_byte(kRdbOpFreq);
    out.put_byte(static_cast<uint8_t>(lfu_decayed_counter(&o)));
  }
  const std::string_view key = o.key();
  write_object(out, o, &key, version, compress);
}

void (*g_rdb_save_progress)(uint64_t keys) = nullptr;

void rdb_write_snapshot(RdbOut& out, int version, bool compress, bool checksum) {
  out.set_checksum(checksum);
  // Hash-field TTLs exist only from version 12: a dataset holding some is written as 12 (as
  // Redis 7.4 writes it) rather than lose them; a server that reads only 10 / 11 then refuses
  // the file by its version instead of loading expiring fields as permanent ones.
  if (version < 12) {
    for (int i = 0; i < keyspace().count(); i++) {
      if (keyspace().db(i).hfe_count() > 0) version = 12;
    }
  }
  char magic[16];
  snprintf(magic, sizeof(magic), "REDIS%04d", version);
  out.put(magic, 9);
  const PersistenceOptions& po = persistence_options();
  put_aux(out, "redis-ver", po.redis_ver);
  put_aux_int(out, "redis-bits", 64);
  put_aux_int(out, "ctime", static_cast<int64_t>(time(nullptr)));
  put_aux_int(out, "used-mem", static_cast<int64_t>(used_memory()));
  put_aux_int(out, "aof-base", 0);
  write_functions(out);
  Keyspace& ks = keyspace();
  // The per-key extras (a child's progress report, the test delay) cost one test per key when
  // off.
  void (*const progress)(uint64_t) = g_rdb_save_progress;
  const int delay = po.key_save_delay;
  const bool per_key = progress != nullptr || delay != 0;
  uint64_t keys = 0;
  for (int i = 0; i < ks.count(); i++) {
    const Db& db = ks.db(i);
    if (db.size() == 0) continue;
    out.put_byte(kRdbOpSelectDb);
    out.put_len(static_cast<uint64_t>(i));
    out.put_byte(kRdbOpResizeDb);
    out.put_len(db.size());
    out.put_len(db.expires_count());
    // A table hands its objects over in hash order, scattered in memory, and writing one
    // waits first for its lines, then for its value's (a listpack, a heap string): two cache
    // misses per key, most of the time of saving many small keys. So keys are written
    // kAhead late: an object's lines are prefetched when the table hands it over, its value's
    // first line half a window later, when the object itself has arrived.
    constexpr size_t kAhead = 16;
    const Object* window[kAhead];
    size_t seen = 0;
    auto write_one = [&](const Object* o) {
      rdb_write_key(out, *o, version, compress);
      if (KEEL_UNLIKELY(per_key)) {
        if (delay != 0) rdb_debug_delay(delay);  // rdb-key-save-delay
        if (progress != nullptr && (keys & 1023) == 0) progress(keys + 1);
        keys++;
      }
    };
    db.for_each([&](const Object* o) {
      __builtin_prefetch(o);
      __builtin_prefetch(reinterpret_cast<const char*>(o) + Object::kPrefetchSpan - 1);
      if (seen >= kAhead / 2) {
        const Object* mid = window[(seen - kAhead / 2) % kAhead];
        if (mid->type() != Type::kString) {
          __builtin_prefetch(mid->ptr());
        } else if (mid->has_heap_string()) {
          __builtin_prefetch(mid->raw());
        }
      }
      if (seen >= kAhead) write_one(window[seen % kAhead]);
      window[seen % kAhead] = o;
      seen++;
    });
    for (size_t i = seen > kAhead ? seen - kAhead : 0; i < seen; i++) write_one(window[i % kAhead]);
  }
  out.put_byte(kRdbOpEof);
  out.put_u64_le(checksum ? out.crc() : 0);
}

std::string rdb_dump_payload(const Object& o, int version, bool compress) {
  // As for files: a hash with field TTLs needs version 12.
  if (version < 12 && o.type() == Type::kHash && HashType::min_field_ttl(o) != 0) version = 12;
  std::string s;
  {
    RdbOut out(&s);
    write_object(out, o, nullptr, version, compress);
    put_footer(out, version);
    out.flush();
  }
  return s;
}

std::string rdb_function_dump_payload(int version) {
  std::string s;
  {
    RdbOut out(&s);
    write_functions(out);
    put_footer(out, version);
    out.flush();
  }
  return s;
}

bool rdb_save_file(const std::string& filename) {
  const PersistenceOptions& po = persistence_options();
  PersistenceState& st = persistence_state();
  const int64_t start = monotonic_us();
  char tmp[64];
  snprintf(tmp, sizeof(tmp), "temp-%d.rdb", static_cast<int>(getpid()));
  char cwd[4096];
  const char* cwdp = getcwd(cwd, sizeof(cwd)) ? cwd : "unknown";
  const int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    LOG_WARNING("Failed opening the temp RDB file %s (in server root dir %s) for saving: %s",
                tmp, cwdp, strerror(errno));
    return false;
  }
  int err = 0;
  {
    RdbOut out(fd, po.incremental_fsync ? size_t{4} << 20 : 0);
    rdb_write_snapshot(out, po.rdb_version, po.rdbcompression, po.rdbchecksum);
    if (!out.flush()) err = out.error();
  }
  if (err == 0 && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    LOG_WARNING("Write error saving DB on disk: %s", strerror(err));
    unlink(tmp);
    return false;
  }
  if (rename(tmp, filename.c_str()) == -1) {
    LOG_WARNING(
        "Error moving temp DB file %s on the final destination %s (in server root dir %s): %s",
        tmp, filename.c_str(), cwdp, strerror(errno));
    unlink(tmp);
    return false;
  }
  // The rename is durable only once the directory entry is on disk.
  const int dfd = open(".", O_RDONLY | O_CLOEXEC);
  if (dfd >= 0) {
    if (fsync(dfd) != 0) {
      LOG_WARNING("Failed to fsync directory while saving DB: %s", strerror(errno));
    }
    close(dfd);
  }
  LOG_NOTICE("DB saved on disk");
  keyspace_stats().dirty = 0;
  st.lastsave = time(nullptr);
  g_rdb_bgsave_failed = false;
  st.last_save_duration_us = monotonic_us() - start;
  return true;
}

}  // namespace keel
