// Stream commands: XADD XLEN XRANGE XREVRANGE XDEL XTRIM XSETID XREAD, consumer groups (XGROUP
// XREADGROUP XACK XPENDING XCLAIM XAUTOCLAIM) and XINFO. The encoding
// (listpack nodes under a radix tree) lives in ds/stream.{h,cc}; types/stream_type.h hands out
// the Stream of a key. Replies, errors and argument order are Redis 7's (checked against
// Debian's redis-server 7.0.15; where 7.4 differs the comment says so).
#include <algorithm>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "base/numbers.h"
#include "commands/blocking.h"
#include "commands/command.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "types/stream_type.h"

namespace keel {
namespace {

constexpr std::string_view kErrInvalidId = "ERR Invalid stream ID specified as stream command argument";

// A formatted ID, for replies and rewrites.
struct IdText {
  char buf[48];
  size_t len;
  explicit IdText(StreamID id) : len(id.format(buf)) {}
  std::string_view view() const { return {buf, len}; }
};

void reply_id(CommandContext& cx, StreamID id) { cx.reply().bulk(IdText(id).view()); }

// Redis's streamParseID family: "-" and "+" are the smallest / largest IDs where allowed, a
// missing sequence is `missing_seq`. Replies the error on failure.
bool parse_id(CommandContext& cx, std::string_view s, uint64_t missing_seq, bool strict, StreamID* out,
              bool* seq_given = nullptr) {
  if (s.size() == 1 && s[0] == '-' && !strict) {
    *out = StreamID{};
    return true;
  }
  if (s.size() == 1 && s[0] == '+' && !strict) {
    *out = StreamID::max();
    return true;
  }
  if (!stream_parse_id(s, missing_seq, out, seq_given)) {
    cx.reply().error(kErrInvalidId);
    return false;
  }
  if (strict && out->ms == 0 && out->seq == 0 && (!seq_given || *seq_given)) {
    cx.reply().error("ERR The ID specified in XADD must be greater than 0-0");
    return false;
  }
  return true;
}

// An IDs that XADD/XSETID/XDEL take: no "-" / "+".
bool parse_plain_id(CommandContext& cx, std::string_view s, StreamID* out, bool* seq_given = nullptr) {
  if (!stream_parse_id(s, 0, out, seq_given)) {
    cx.reply().error(kErrInvalidId);
    return false;
  }
  return true;
}

// A range bound: "(" makes it exclusive (XRANGE, XPENDING, XAUTOCLAIM ...).
bool parse_interval_id(CommandContext& cx, std::string_view s, uint64_t missing_seq, StreamID* out, bool* excl) {
  *excl = false;
  if (s.size() > 1 && s[0] == '(') {
    *excl = true;
    return parse_plain_id(cx, s.substr(1), out) || (out->seq = missing_seq, false);
  }
  return parse_id(cx, s, missing_seq, false, out);
}

// The Stream at a key for reading: nullptr when missing; *ok false after a WRONGTYPE reply.
Stream* lookup_read(CommandContext& cx, size_t i, bool* ok) {
  *ok = true;
  Object* o = cx.db().find(cx.key(i));
  if (!o) return nullptr;
  if (!cx.check_type(o, Type::kStream)) {
    *ok = false;
    return nullptr;
  }
  return &StreamType::get(*o);
}

// Wakes the sessions blocked on the key (XREAD) after entries were added to an existing stream
// (a created key is signalled by Db::insert).
void signal_ready(CommandContext& cx, std::string_view key) {
  if (g_keyspace_hooks.key_created) g_keyspace_hooks.key_created(cx.db().id(), key);
}

// [id, [field, value, ...]] for the iterator's current entry.
void reply_entry(CommandContext& cx, const StreamIterator& it, StreamID id, int64_t nf) {
  cx.reply().array(2);
  reply_id(cx, id);
  cx.reply().array(static_cast<size_t>(nf) * 2);
  it.for_each_field([&](const LpEntry& f, const LpEntry& v) {
    char b[kLpIntBufSize];
    cx.reply().bulk(f.str(b));
    cx.reply().bulk(v.str(b));
  });
}

// Replies the entries of [start, end] (reverse when rev), at most count (0 = all); returns how
// many. last_out receives the last ID replied.
size_t reply_range(CommandContext& cx, Stream& s, StreamID start, StreamID end, size_t count, bool rev,
                   StreamID* last_out = nullptr) {
  const size_t token = cx.reply().begin_deferred();
  StreamIterator it(s, start, end, rev);
  StreamID id;
  int64_t nf;
  size_t n = 0;
  while ((count == 0 || n < count) && it.next(&id, &nf)) {
    reply_entry(cx, it, id, nf);
    if (last_out) *last_out = id;
    n++;
  }
  cx.reply().end_deferred_array(token, n);
  return n;
}

// ---- XADD / XTRIM argument parsing (Redis's streamParseAddOrTrimArgsOrReply) ----

struct AddTrimArgs {
  StreamTrimArgs trim;
  size_t threshold_idx = 0;  // argument holding MAXLEN's count / MINID's ID
  bool nomkstream = false;
  bool id_given = false;
  bool seq_given = true;
  StreamID id;
};

// Returns the index of the ID (XADD) or of the end of the arguments (XTRIM), or 0 after
// replying an error.
size_t parse_add_trim(CommandContext& cx, bool xadd, AddTrimArgs* a) {
  size_t i = 2;
  bool limit_given = false;
  for (; i < cx.argc(); i++) {
    const size_t more = cx.argc() - 1 - i;
    const std::string_view opt = cx.arg(i);
    if (xadd && opt == "*") break;
    const bool maxlen = cx.is_arg(i, "maxlen"), minid = cx.is_arg(i, "minid");
    if ((maxlen || minid) && more) {
      if (a->trim.strategy != StreamTrimStrategy::kNone) {
        cx.reply().error("ERR syntax error, MAXLEN and MINID options at the same time are not compatible");
        return 0;
      }
      a->trim.approx = false;
      if (more >= 2 && cx.arg(i + 1) == "~") {
        a->trim.approx = true;
        i++;
      } else if (more >= 2 && cx.arg(i + 1) == "=") {
        i++;
      }
      if (maxlen) {
        int64_t n;
        if (!cx.int_arg(i + 1, &n)) return 0;
        if (n < 0) {
          cx.reply().error("ERR The MAXLEN argument must be >= 0.");
          return 0;
        }
        a->trim.maxlen = static_cast<uint64_t>(n);
        a->trim.strategy = StreamTrimStrategy::kMaxLen;
      } else {
        if (!parse_plain_id(cx, cx.arg(i + 1), &a->trim.minid)) return 0;
        a->trim.strategy = StreamTrimStrategy::kMinId;
      }
      i++;
      a->threshold_idx = i;
    } else if (cx.is_arg(i, "limit") && more) {
      int64_t n;
      if (!cx.int_arg(i + 1, &n)) return 0;
      if (n < 0) {
        cx.reply().error("ERR The LIMIT argument must be >= 0.");
        return 0;
      }
      a->trim.limit = n;
      limit_given = true;
      i++;
    } else if (xadd && cx.is_arg(i, "nomkstream")) {
      a->nomkstream = true;
    } else if (xadd) {
      if (!parse_plain_id(cx, opt, &a->id, &a->seq_given)) return 0;
      a->id_given = true;
      break;
    } else {
      cx.reply().error(kErrSyntax);
      return 0;
    }
  }
  if (a->trim.limit && a->trim.strategy == StreamTrimStrategy::kNone) {
    cx.reply().error("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
    return 0;
  }
  if (!xadd && a->trim.strategy == StreamTrimStrategy::kNone) {
    cx.reply().error("ERR syntax error, XTRIM must be called with a trimming strategy");
    return 0;
  }
  if (limit_given) {
    if (!a->trim.approx) {
      cx.reply().error("ERR syntax error, LIMIT cannot be used without the special ~ option");
      return 0;
    }
  } else if (a->trim.approx) {
    // No LIMIT with ~: at most 100 nodes' worth of entries per call (Redis's default).
    int64_t lim = 100 * encoding_limits().stream_node_max_entries;
    if (lim <= 0 || lim > 1000000) lim = 10000;
    a->trim.limit = lim;
  } else {
    a->trim.limit = 0;
  }
  return i;
}

// After an approximate trim, the replicas and the AOF get the exact form: "=" and the
// resulting length / first ID (Redis's streamRewriteApproxSpecifier / TrimArgument).
void rewrite_trim(std::vector<std::string>& argv, const AddTrimArgs& a, const Stream& s) {
  argv[a.threshold_idx - 1].assign(1, '=');
  if (a.trim.strategy == StreamTrimStrategy::kMaxLen) {
    argv[a.threshold_idx] = std::to_string(s.length);
  } else {
    StreamID first;  // deleted entries of the first node count (Redis's streamGetEdgeID)
    if (!s.first_raw_id(&first)) first = StreamID::max();
    argv[a.threshold_idx] = std::string(IdText(first).view());
  }
}

void propagate_strings(CommandContext& cx, const std::vector<std::string>& argv) {
  std::vector<std::string_view> v(argv.begin(), argv.end());
  cx.propagate_as(v);
}

// XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value ...
void cmd_xadd(CommandContext& cx) {
  AddTrimArgs a;
  const size_t idpos = parse_add_trim(cx, true, &a);
  if (idpos == 0) return;
  const size_t field_pos = idpos + 1;
  if (cx.argc() < field_pos + 2 || (cx.argc() - field_pos) % 2 == 1) return cx.reply_arity_error();
  if (a.id_given && a.seq_given && a.id == StreamID{}) {
    return cx.reply().error("ERR The ID specified in XADD must be greater than 0-0");
  }
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (slot && !cx.check_type(slot.obj(), Type::kStream)) return;
  if (!slot && a.nomkstream) return cx.reply().null();
  Object* fresh = slot ? nullptr : StreamType::create(cx.arg(1));
  Stream& s = StreamType::get(fresh ? *fresh : *slot.obj());
  auto fail = [&](std::string_view err) {
    Object::destroy(fresh);  // never inserted: nothing to undo in the keyspace
    cx.reply().error(err);
  };
  if (s.last_id == StreamID::max()) {
    return fail("ERR The stream has exhausted the last possible ID, unable to add more items");
  }
  StreamID id;
  if (!a.id_given) {
    const uint64_t now = static_cast<uint64_t>(cx.now_ms());
    if (now > s.last_id.ms) {
      id = StreamID{now, 0};
    } else {
      id = s.last_id;
      id.incr();
    }
  } else if (!a.seq_given) {
    if (a.id.ms == s.last_id.ms) {
      // Redis 7.0-7.4 answer this (the sequence is exhausted) with the size error.
      if (s.last_id.seq == UINT64_MAX) return fail("ERR Elements are too large to be stored");
      id = StreamID{a.id.ms, s.last_id.seq + 1};
    } else if (a.id.ms > s.last_id.ms) {
      id = StreamID{a.id.ms, 0};
    } else {
      return fail("ERR The ID specified in XADD is equal or smaller than the target stream top item");
    }
  } else {
    if (a.id <= s.last_id) {
      return fail("ERR The ID specified in XADD is equal or smaller than the target stream top item");
    }
    id = a.id;
  }
  size_t total = 0;
  for (size_t i = field_pos; i < cx.argc(); i++) total += cx.arg(i).size();
  if (total > kStreamListpackMaxSize) return fail("ERR Elements are too large to be stored");

  const int64_t old_len = fresh ? 0 : static_cast<int64_t>(s.length);
  s.append(id, cx.args().subspan(field_pos), StreamType::limits());
  const int64_t trimmed = s.trim(a.trim);
  if (fresh) {
    cx.db().insert(slot, fresh);  // keysizes none -> (stream, n); "new"; wakes XREAD
  } else {
    cx.db().length_changed(slot, old_len);
    signal_ready(cx, cx.arg(1));
  }
  cx.set_dirty(1);
  reply_id(cx, id);
  cx.notify(kNotifyStream, "xadd", cx.arg(1));
  if (trimmed) cx.notify(kNotifyStream, "xtrim", cx.arg(1));
  if (propagating() && (a.trim.approx || !a.id_given || !a.seq_given)) {
    std::vector<std::string> argv(cx.args().begin(), cx.args().end());
    if (a.trim.approx) rewrite_trim(argv, a, s);
    if (!a.id_given || !a.seq_given) argv[idpos] = std::string(IdText(id).view());
    propagate_strings(cx, argv);
  }
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count] -> entries removed.
void cmd_xtrim(CommandContext& cx) {
  AddTrimArgs a;
  if (parse_add_trim(cx, false, &a) == 0) return;
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) return cx.reply().integer(0);
  if (!cx.check_type(slot.obj(), Type::kStream)) return;
  Stream& s = StreamType::get(*slot.obj());
  const int64_t old_len = static_cast<int64_t>(s.length);
  const int64_t deleted = s.trim(a.trim);
  if (deleted) {
    cx.db().length_changed(slot, old_len);
    cx.set_dirty(deleted);
    cx.notify(kNotifyStream, "xtrim", cx.arg(1));
    if (a.trim.approx && propagating()) {
      std::vector<std::string> argv(cx.args().begin(), cx.args().end());
      rewrite_trim(argv, a, s);
      propagate_strings(cx, argv);
    }
  }
  cx.reply().integer(deleted);
}

// XLEN key
void cmd_xlen(CommandContext& cx) { cx.reply_collection_length(Type::kStream); }

// XRANGE key start end [COUNT n] / XREVRANGE key end start [COUNT n]
void range_generic(CommandContext& cx, bool rev) {
  StreamID start, end;
  bool sx, ex;
  if (!parse_interval_id(cx, cx.arg(rev ? 3 : 2), 0, &start, &sx)) return;
  if (sx && !start.incr()) return cx.reply().error("ERR invalid start ID for the interval");
  if (!parse_interval_id(cx, cx.arg(rev ? 2 : 3), UINT64_MAX, &end, &ex)) return;
  if (ex && !end.decr()) return cx.reply().error("ERR invalid end ID for the interval");
  int64_t count = -1;
  for (size_t j = 4; j < cx.argc(); j++) {
    if (cx.is_arg(j, "count") && j + 1 < cx.argc()) {
      if (!cx.int_arg(j + 1, &count)) return;
      if (count < 0) count = 0;
      j++;
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  bool ok;
  Stream* s = lookup_read(cx, 1, &ok);
  if (!ok) return;
  if (!s) return cx.reply().array(0);
  if (count == 0) return cx.reply().null_array();
  if (start > end) return cx.reply().array(0);
  reply_range(cx, *s, start, end, count < 0 ? 0 : static_cast<size_t>(count), rev);
}
void cmd_xrange(CommandContext& cx) { range_generic(cx, false); }
void cmd_xrevrange(CommandContext& cx) { range_generic(cx, true); }

// XDEL key id [id ...] -> entries deleted.
void cmd_xdel(CommandContext& cx) {
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) return cx.reply().integer(0);
  if (!cx.check_type(slot.obj(), Type::kStream)) return;
  std::vector<StreamID> ids(cx.argc() - 2);
  for (size_t j = 2; j < cx.argc(); j++) {
    if (!parse_plain_id(cx, cx.arg(j), &ids[j - 2])) return;
  }
  Stream& s = StreamType::get(*slot.obj());
  const int64_t old_len = static_cast<int64_t>(s.length);
  int64_t deleted = 0;
  bool first_entry = false;
  for (const StreamID& id : ids) {
    if (!s.remove(id)) continue;
    if (id == s.first_id) first_entry = true;
    if (id > s.max_deleted_id) s.max_deleted_id = id;
    deleted++;
  }
  if (deleted) {
    if (s.length == 0) {
      s.first_id = StreamID{};
    } else if (first_entry) {
      s.first_entry_id(&s.first_id);
    }
    cx.db().length_changed(slot, old_len);
    cx.set_dirty(deleted);
    cx.notify(kNotifyStream, "xdel", cx.arg(1));
  }
  cx.reply().integer(deleted);
}

// XSETID key last-id [ENTRIESADDED n] [MAXDELETEDID id]
void cmd_xsetid(CommandContext& cx) {
  StreamID id, max_xdel;
  if (!parse_plain_id(cx, cx.arg(2), &id)) return;
  int64_t entries_added = -1;
  for (size_t i = 3; i < cx.argc(); i++) {
    const bool more = i + 1 < cx.argc();
    if (cx.is_arg(i, "entriesadded") && more) {
      if (!cx.int_arg(i + 1, &entries_added)) return;
      if (entries_added < 0) return cx.reply().error("ERR entries_added must be positive");
      i++;
    } else if (cx.is_arg(i, "maxdeletedid") && more) {
      if (!parse_plain_id(cx, cx.arg(i + 1), &max_xdel)) return;
      if (id < max_xdel) {
        return cx.reply().error("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
      }
      i++;
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) return cx.reply().error(kErrNoSuchKey);
  if (!cx.check_type(slot.obj(), Type::kStream)) return;
  Stream& s = StreamType::get(*slot.obj());
  if (s.length > 0) {
    StreamID maxid;
    s.last_entry_id(&maxid);
    if (id < maxid) {
      return cx.reply().error("ERR The ID specified in XSETID is smaller than the target stream top item");
    }
    if (entries_added != -1 && s.length > static_cast<uint64_t>(entries_added)) {
      return cx.reply().error("ERR The entries_added specified in XSETID is smaller than the target stream length");
    }
  }
  const int64_t len = static_cast<int64_t>(s.length);
  s.last_id = id;
  if (entries_added != -1) s.entries_added = static_cast<uint64_t>(entries_added);
  if (max_xdel != StreamID{}) s.max_deleted_id = max_xdel;
  cx.db().length_changed(slot, len);  // WATCH, dirty (the length is unchanged)
  cx.notify(kNotifyStream, "xsetid", cx.arg(1));
  cx.reply().ok();
}

// ---- consumer groups: shared pieces --------------------------------------------------------

void reply_nogroup(CommandContext& cx, std::string_view key, std::string_view group, const char* tail) {
  cx.reply().error_fmt("NOGROUP No such key '%.*s' or consumer group '%.*s'%s", static_cast<int>(key.size()),
                       key.data(), static_cast<int>(group.size()), group.data(), tail);
}

// The consumer `name` of g, created (dirty, "xgroup-createconsumer") when missing; its seen
// time is now.
StreamConsumer* lookup_or_create_consumer(CommandContext& cx, StreamCG& g, std::string_view key,
                                          std::string_view name, int64_t* dirty) {
  StreamConsumer* c = stream_find_consumer(g, name);
  if (!c) {
    c = stream_create_consumer(g, name, cx.now_ms());
    (*dirty)++;
    cx.notify(kNotifyStream, "xgroup-createconsumer", key);
  }
  c->seen_time = cx.now_ms();
  return c;
}

// What a replica needs to repeat a delivery or a claim (Redis's streamPropagateXCLAIM):
// XCLAIM key group consumer 0 id TIME ms RETRYCOUNT n FORCE JUSTID LASTID group-last-id
void propagate_xclaim(CommandContext& cx, std::string_view key, std::string_view group, const StreamCG& g,
                      StreamID id, const StreamNack& nack) {
  if (!propagating()) return;
  const IdText idt(id), last(g.last_id);
  const std::string time = std::to_string(nack.delivery_time), count = std::to_string(nack.delivery_count);
  cx.also_propagate({"XCLAIM", key, group, nack.consumer->name, "0", idt.view(), "TIME", time, "RETRYCOUNT",
                     count, "FORCE", "JUSTID", "LASTID", last.view()});
}

// XGROUP SETID key group last-id ENTRIESREAD n (Redis's streamPropagateGroupID).
void propagate_group_id(CommandContext& cx, std::string_view key, std::string_view group, const StreamCG& g) {
  if (!propagating()) return;
  const IdText last(g.last_id);
  const std::string er = std::to_string(g.entries_read);
  cx.also_propagate({"XGROUP", "SETID", key, group, last.view(), "ENTRIESREAD", er});
}

// Delivers new entries (> the group's last ID) to `consumer`: moves the group's last ID and
// entries-read, records NACKs unless noack, propagates them. Returns the entries replied.
size_t deliver_new(CommandContext& cx, Stream& s, StreamCG& g, StreamConsumer& consumer, std::string_view key,
                   std::string_view group, size_t count, bool noack) {
  StreamID start = g.last_id;
  const size_t token = cx.reply().begin_deferred();
  size_t n = 0;
  bool moved = false;
  if (start.incr()) {
    StreamIterator it(s, start, StreamID::max(), false);
    StreamID id;
    int64_t nf;
    while ((count == 0 || n < count) && it.next(&id, &nf)) {
      if (id > g.last_id) {
        if (g.entries_read != kStreamEntriesReadUnknown && !s.range_has_tombstones(id, StreamID::max())) {
          g.entries_read++;
        } else if (s.entries_added) {
          g.entries_read = s.estimate_entries_read(id);
        }
        g.last_id = id;
        moved = true;
      }
      reply_entry(cx, it, id, nf);
      n++;
      if (noack) continue;
      StreamNack* nack;
      auto gi = g.pel.find(id);
      if (gi == g.pel.end()) {
        nack = new StreamNack;
        g.pel.emplace(id, nack);
      } else {
        // Already pending (the group's ID was set back): it moves to this consumer.
        nack = gi->second;
        if (nack->consumer) nack->consumer->pel.erase(id);
      }
      nack->consumer = &consumer;
      nack->delivery_time = cx.now_ms();
      nack->delivery_count = 1;
      consumer.pel[id] = nack;
      consumer.active_time = cx.now_ms();
      propagate_xclaim(cx, key, group, g, id, *nack);
    }
  }
  cx.reply().end_deferred_array(token, n);
  if (moved) propagate_group_id(cx, key, group, g);
  return n;
}

// The consumer's own pending entries with ID >= start (XREADGROUP with an ID): each counts as
// delivered again; an entry deleted from the stream is [id, nil].
void deliver_history(CommandContext& cx, Stream& s, StreamConsumer& consumer, StreamID start, size_t count) {
  const size_t token = cx.reply().begin_deferred();
  size_t n = 0;
  for (auto it = consumer.pel.lower_bound(start); it != consumer.pel.end() && (count == 0 || n < count); ++it) {
    StreamIterator si(s, it->first, it->first, false);
    StreamID id;
    int64_t nf;
    if (si.next(&id, &nf)) {
      reply_entry(cx, si, id, nf);
      it->second->delivery_time = cx.now_ms();
      it->second->delivery_count++;
    } else {
      cx.reply().array(2);
      reply_id(cx, it->first);
      cx.reply().null_array();
    }
    n++;
  }
  cx.reply().end_deferred_array(token, n);
}

// ---- XREAD / XREADGROUP ------------------------------------------------------------------------

// XREAD [COUNT n] [BLOCK ms] STREAMS key [key ...] id [id ...]
// XREADGROUP GROUP group consumer [COUNT n] [BLOCK ms] [NOACK] STREAMS key [key ...] id|> ...
// `$` is the stream's last ID now; `+` (Redis 7.4) its last entry. A blocked XREAD is run again
// when a key gets entries, with `$` and `+` replaced by the IDs they meant when it blocked; a
// blocked XREADGROUP (only `>` blocks) runs again as it was. XREADGROUP is propagated as the
// XCLAIMs and XGROUP SETID that reproduce its effect, never itself.
void xread_generic(CommandContext& cx, bool xreadgroup) {
  if (xreadgroup) cx.prevent_propagation();
  int64_t count = 0;
  int64_t timeout = -1;
  size_t streams_arg = 0;
  std::string_view groupname, consumername;
  bool have_group = false, noack = false;
  for (size_t i = 1; i < cx.argc(); i++) {
    const size_t more = cx.argc() - i - 1;
    if (cx.is_arg(i, "block") && more) {
      int64_t ms;
      if (!parse_int64(cx.arg(i + 1), &ms)) return cx.reply().error("ERR timeout is not an integer or out of range");
      if (ms < 0) return cx.reply().error("ERR timeout is negative");
      timeout = ms;
      i++;
    } else if (cx.is_arg(i, "count") && more) {
      if (!cx.int_arg(i + 1, &count)) return;
      if (count < 0) count = 0;
      i++;
    } else if (cx.is_arg(i, "streams") && more) {
      streams_arg = i + 1;
      break;
    } else if (cx.is_arg(i, "group") && more >= 2) {
      if (!xreadgroup) {
        return cx.reply().error("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
      }
      groupname = cx.arg(i + 1);
      consumername = cx.arg(i + 2);
      have_group = true;
      i += 2;
    } else if (cx.is_arg(i, "noack")) {
      if (!xreadgroup) {
        return cx.reply().error("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
      }
      noack = true;
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  if (streams_arg == 0) return cx.reply().error(kErrSyntax);
  const size_t nargs = cx.argc() - streams_arg;
  if (nargs % 2 != 0) {
    // Redis 7.0-7.4 name XREAD and `$` here for XREADGROUP too.
    return cx.reply().error(
        "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.");
  }
  if (xreadgroup && !have_group) return cx.reply().error("ERR Missing GROUP option for XREADGROUP");
  const size_t nkeys = nargs / 2;
  std::vector<StreamID> ids(nkeys);
  std::vector<uint8_t> kind(nkeys, 0);  // 0: an ID, 1: "+" last entry (XREAD), 2: ">" (XREADGROUP)
  std::vector<StreamCG*> groups(nkeys, nullptr);
  for (size_t k = 0; k < nkeys; k++) {
    const size_t ia = streams_arg + nkeys + k;
    const std::string_view a = cx.arg(ia);
    const std::string_view key = cx.arg(streams_arg + k);
    bool ok;
    Stream* s = lookup_read(cx, streams_arg + k, &ok);
    if (!ok) return;
    if (xreadgroup) {
      groups[k] = s ? s->find_group(groupname) : nullptr;
      if (!groups[k]) return reply_nogroup(cx, key, groupname, " in XREADGROUP with GROUP option");
    }
    if (a == "$") {
      if (xreadgroup) {
        return cx.reply().error(
            "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this "
            "consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just "
            "return an empty result set.");
      }
      ids[k] = s ? s->last_id : StreamID{};
    } else if (a == ">") {
      if (!xreadgroup) {
        return cx.reply().error(
            "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.");
      }
      kind[k] = 2;
    } else if (a == "+" && !xreadgroup) {
      if (s && s->length) {
        kind[k] = 1;
        s->last_entry_id(&ids[k]);
      } else {
        ids[k] = s ? s->last_id : StreamID{};
      }
    } else if (!parse_plain_id(cx, a, &ids[k])) {
      return;
    }
  }
  // RESP2: [[key, entries] ...]; RESP3: {key: entries}.
  const bool resp3 = cx.session().resp >= 3;
  size_t served = 0;
  size_t token = 0;
  int64_t dirty = 0;
  for (size_t k = 0; k < nkeys; k++) {
    const std::string_view key = cx.arg(streams_arg + k);
    Db::Slot slot;
    Stream* s;
    if (xreadgroup) {
      slot = cx.db().find_for_write(cx.key(streams_arg + k));
      s = slot ? &StreamType::get(*slot.obj()) : nullptr;
    } else {
      bool ok;
      s = lookup_read(cx, streams_arg + k, &ok);
    }
    if (!s) continue;
    bool serve = false, history = false;
    StreamConsumer* consumer = nullptr;
    StreamID start = ids[k];
    StreamID last;
    const bool has_last = s->length && s->last_entry_id(&last);
    if (xreadgroup) {
      if (kind[k] != 2) {
        serve = history = true;
      } else if (has_last && last > groups[k]->last_id) {
        serve = true;
      }
      const int64_t before = dirty;
      consumer = lookup_or_create_consumer(cx, *groups[k], key, consumername, &dirty);
      if (dirty != before) {
        // With NOACK no XCLAIM creates it on the replica (Redis 7.0-7.4).
        if (noack) cx.also_propagate({"XGROUP", "CREATECONSUMER", key, groupname, consumername});
        if (!serve) cx.db().length_changed(slot, static_cast<int64_t>(s->length));  // else below
      }
    } else if (kind[k] == 1) {
      serve = true;
    } else if (has_last && last > start) {
      serve = true;
      start.incr();
    }
    if (!serve) continue;
    if (served++ == 0) token = cx.reply().begin_deferred();
    if (!resp3) cx.reply().array(2);
    cx.reply().bulk(key);
    if (!xreadgroup) {
      reply_range(cx, *s, start, StreamID::max(), kind[k] == 1 ? 1 : static_cast<size_t>(count), false);
      continue;
    }
    if (history) {
      StreamID from = ids[k];
      if (from.incr()) {
        deliver_history(cx, *s, *consumer, from, static_cast<size_t>(count));
      } else {
        cx.reply().array(0);
      }
    } else {
      deliver_new(cx, *s, *groups[k], *consumer, key, groupname, static_cast<size_t>(count), noack);
    }
    // The key's one Db call (WATCH, tracking; the length is unchanged), for the consumer it may
    // have created too. The dirty count is set below.
    cx.db().length_changed(slot, static_cast<int64_t>(s->length));
    dirty++;
  }
  if (xreadgroup && dirty) cx.set_dirty(dirty);
  if (served) {
    if (resp3) {
      cx.reply().end_deferred_map(token, served);
    } else {
      cx.reply().end_deferred_array(token, served);
    }
    return;
  }
  if (timeout < 0 || !blocking_may_block(cx)) return cx.reply().null_array();
  std::vector<size_t> keys;
  for (size_t k = 0; k < nkeys; k++) keys.push_back(streams_arg + k);
  const int64_t deadline = timeout ? cx.now_ms() + timeout : 0;
  if (xreadgroup) {
    return block_on_keys(cx, keys, Type::kStream, deadline, {}, "UNBLOCKED the stream key no longer exists");
  }
  // Block, remembering what `$` and `+` meant now.
  std::vector<std::string> argv(cx.args().begin(), cx.args().end());
  for (size_t k = 0; k < nkeys; k++) {
    const size_t ia = streams_arg + nkeys + k;
    if (argv[ia] == "$" || argv[ia] == "+") argv[ia] = std::string(IdText(ids[k]).view());
  }
  std::vector<std::string_view> views(argv.begin(), argv.end());
  block_on_keys(cx, keys, Type::kStream, deadline, views);
}
void cmd_xread(CommandContext& cx) { xread_generic(cx, false); }
void cmd_xreadgroup(CommandContext& cx) { xread_generic(cx, true); }

// ---- XGROUP -----------------------------------------------------------------------------------

void reply_subcommand_syntax(CommandContext& cx, const char* container) {
  cx.reply().error_fmt("ERR unknown subcommand or wrong number of arguments for '%.*s'. Try %s HELP.",
                       static_cast<int>(cx.arg(1).size()), cx.arg(1).data(), container);
}

constexpr std::string_view kErrXgroupNoKey =
    "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the "
    "MKSTREAM option to create an empty stream automatically.";

// The stream and group of XGROUP key group ...: replies and returns false when the key is missing
// (the CREATE ... MKSTREAM case is the caller's), of another type, or the group is missing
// (need_group).
bool xgroup_target(CommandContext& cx, Db::Slot& slot, StreamCG** g, bool need_group, bool mkstream = false) {
  slot = cx.db().find_for_write(cx.key(2));
  if (slot && !cx.check_type(slot.obj(), Type::kStream)) return false;
  if (!slot && !mkstream) {
    cx.reply().error(kErrXgroupNoKey);
    return false;
  }
  *g = slot ? StreamType::get(*slot.obj()).find_group(cx.arg(3)) : nullptr;
  if (need_group && !*g) {
    cx.reply().error_fmt("NOGROUP No such consumer group '%.*s' for key name '%.*s'",
                         static_cast<int>(cx.arg(3).size()), cx.arg(3).data(), static_cast<int>(cx.arg(2).size()),
                         cx.arg(2).data());
    return false;
  }
  return true;
}

bool entries_read_arg(CommandContext& cx, size_t i, int64_t* out) {
  if (!cx.int_arg(i, out)) return false;
  if (*out < 0 && *out != kStreamEntriesReadUnknown) {
    cx.reply().error("ERR value for ENTRIESREAD must be positive or -1");
    return false;
  }
  return true;
}

// XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD n]
void cmd_xgroup_create(CommandContext& cx) {
  bool mkstream = false;
  int64_t entries_read = kStreamEntriesReadUnknown;
  for (size_t i = 5; i < cx.argc();) {
    if (cx.is_arg(i, "mkstream")) {
      mkstream = true;
      i++;
    } else if (cx.is_arg(i, "entriesread") && i + 1 < cx.argc()) {
      if (!entries_read_arg(cx, i + 1, &entries_read)) return;
      i += 2;
    } else {
      return reply_subcommand_syntax(cx, "XGROUP");
    }
  }
  if (cx.argc() > 8) return reply_subcommand_syntax(cx, "XGROUP");
  Db::Slot slot;
  StreamCG* g;
  if (!xgroup_target(cx, slot, &g, false, mkstream)) return;
  StreamID id;
  if (cx.arg(4) == "$") {
    id = slot ? StreamType::get(*slot.obj()).last_id : StreamID{};
  } else if (!parse_plain_id(cx, cx.arg(4), &id)) {
    return;
  }
  if (g) return cx.reply().error("BUSYGROUP Consumer Group name already exists");
  Object* fresh = slot ? nullptr : StreamType::create(cx.arg(2));
  Stream& s = StreamType::get(fresh ? *fresh : *slot.obj());
  s.create_group(cx.arg(3), id, entries_read);
  if (fresh) {
    cx.db().insert(slot, fresh);
  } else {
    cx.db().length_changed(slot, static_cast<int64_t>(s.length));
  }
  cx.set_dirty(1);
  cx.reply().ok();
  cx.notify(kNotifyStream, "xgroup-create", cx.arg(2));
}

// XGROUP SETID key group id|$ [ENTRIESREAD n]
void cmd_xgroup_setid(CommandContext& cx) {
  if (cx.argc() != 5 && cx.argc() != 7) return reply_subcommand_syntax(cx, "XGROUP");
  Db::Slot slot;
  StreamCG* g;
  if (!xgroup_target(cx, slot, &g, true)) return;
  Stream& s = StreamType::get(*slot.obj());
  StreamID id;
  if (cx.arg(4) == "$") {
    id = s.last_id;
  } else if (!parse_id(cx, cx.arg(4), 0, false, &id)) {
    return;
  }
  int64_t entries_read = kStreamEntriesReadUnknown;
  if (cx.argc() == 7) {
    if (!cx.is_arg(5, "entriesread")) return reply_subcommand_syntax(cx, "XGROUP");
    if (!entries_read_arg(cx, 6, &entries_read)) return;
  }
  g->last_id = id;
  g->entries_read = entries_read;
  cx.db().length_changed(slot, static_cast<int64_t>(s.length));
  cx.set_dirty(1);
  cx.reply().ok();
  cx.notify(kNotifyStream, "xgroup-setid", cx.arg(2));
}

// XGROUP DESTROY key group -> 1 / 0. Clients blocked in XREADGROUP on the group are woken (they
// get the NOGROUP error).
void cmd_xgroup_destroy(CommandContext& cx) {
  Db::Slot slot;
  StreamCG* g;
  if (!xgroup_target(cx, slot, &g, false)) return;
  if (!g) return cx.reply().integer(0);
  Stream& s = StreamType::get(*slot.obj());
  s.destroy_group(cx.arg(3));
  cx.db().length_changed(slot, static_cast<int64_t>(s.length));
  cx.set_dirty(1);
  cx.reply().integer(1);
  cx.notify(kNotifyStream, "xgroup-destroy", cx.arg(2));
  signal_ready(cx, cx.arg(2));
}

// XGROUP CREATECONSUMER key group consumer -> 1 / 0
void cmd_xgroup_createconsumer(CommandContext& cx) {
  Db::Slot slot;
  StreamCG* g;
  if (!xgroup_target(cx, slot, &g, true)) return;
  if (!stream_create_consumer(*g, cx.arg(4), cx.now_ms())) return cx.reply().integer(0);
  cx.db().length_changed(slot, static_cast<int64_t>(StreamType::get(*slot.obj()).length));
  cx.set_dirty(1);
  cx.reply().integer(1);
  cx.notify(kNotifyStream, "xgroup-createconsumer", cx.arg(2));
}

// XGROUP DELCONSUMER key group consumer -> the pending entries it had
void cmd_xgroup_delconsumer(CommandContext& cx) {
  Db::Slot slot;
  StreamCG* g;
  if (!xgroup_target(cx, slot, &g, true)) return;
  if (!stream_find_consumer(*g, cx.arg(4))) return cx.reply().integer(0);
  const size_t pending = stream_delete_consumer(*g, cx.arg(4));
  cx.db().length_changed(slot, static_cast<int64_t>(StreamType::get(*slot.obj()).length));
  cx.set_dirty(1);
  cx.reply().integer(static_cast<int64_t>(pending));
  cx.notify(kNotifyStream, "xgroup-delconsumer", cx.arg(2));
}

void cmd_xgroup_help(CommandContext& cx) {
  reply_help(cx, "XGROUP",
             {"CREATE <key> <groupname> <id|$> [option]",
              "    Create a new consumer group. Options are:",
              "    * MKSTREAM",
              "      Create the empty stream if it does not exist.",
              "    * ENTRIESREAD entries_read",
              "      Set the group's entries_read counter (internal use).",
              "CREATECONSUMER <key> <groupname> <consumer>",
              "    Create a new consumer in the specified group.",
              "DELCONSUMER <key> <groupname> <consumer>",
              "    Remove the specified consumer.",
              "DESTROY <key> <groupname>",
              "    Remove the specified group.",
              "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
              "    Set the current group ID and entries_read counter."});
}

// ---- XACK / XPENDING / XCLAIM / XAUTOCLAIM -----------------------------------------------------

// XACK key group id [id ...] -> entries acknowledged.
void cmd_xack(CommandContext& cx) {
  // A few IDs (the common case) need no heap.
  const size_t nids = cx.argc() - 3;
  StreamID few[8];
  std::vector<StreamID> many;
  if (nids > std::size(few)) many.resize(nids);
  const std::span<StreamID> ids(nids > std::size(few) ? many.data() : few, nids);
  for (size_t j = 3; j < cx.argc(); j++) {
    if (!parse_plain_id(cx, cx.arg(j), &ids[j - 3])) return;
  }
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (slot && !cx.check_type(slot.obj(), Type::kStream)) return;
  StreamCG* g = slot ? StreamType::get(*slot.obj()).find_group(cx.arg(2)) : nullptr;
  if (!g) return cx.reply().integer(0);
  int64_t acked = 0;
  for (const StreamID& id : ids) {
    auto it = g->pel.find(id);
    if (it == g->pel.end()) continue;
    StreamNack* nack = it->second;
    if (nack->consumer) nack->consumer->pel.erase(id);
    g->pel.erase(it);
    delete nack;
    acked++;
  }
  if (acked) {
    cx.db().length_changed(slot, static_cast<int64_t>(StreamType::get(*slot.obj()).length));
    cx.set_dirty(acked);
  }
  cx.reply().integer(acked);
}

// XPENDING key group [[IDLE min-idle] start end count [consumer]]
void cmd_xpending(CommandContext& cx) {
  const bool summary = cx.argc() == 3;
  if (cx.argc() > 3 && cx.argc() < 6) return cx.reply().error(kErrSyntax);
  int64_t min_idle = 0, count = 0;
  StreamID start, end;
  std::string_view consumer_name;
  bool has_consumer = false;
  if (!summary) {
    size_t si = 3;
    if (cx.is_arg(3, "idle")) {
      if (!cx.int_arg(4, &min_idle)) return;
      if (cx.argc() < 8) return cx.reply().error(kErrSyntax);
      si += 2;
    }
    if (!cx.int_arg(si + 2, &count)) return;
    if (count < 0) count = 0;
    bool sx, ex;
    if (!parse_interval_id(cx, cx.arg(si), 0, &start, &sx)) return;
    if (sx && !start.incr()) return cx.reply().error("ERR invalid start ID for the interval");
    if (!parse_interval_id(cx, cx.arg(si + 1), UINT64_MAX, &end, &ex)) return;
    if (ex && !end.decr()) return cx.reply().error("ERR invalid end ID for the interval");
    if (si + 3 < cx.argc()) {
      consumer_name = cx.arg(si + 3);
      has_consumer = true;
    }
  }
  bool ok;
  Stream* s = lookup_read(cx, 1, &ok);
  if (!ok) return;
  StreamCG* g = s ? s->find_group(cx.arg(2)) : nullptr;
  if (!g) return reply_nogroup(cx, cx.arg(1), cx.arg(2), "");
  ReplyWriter& w = cx.reply();
  if (summary) {
    w.array(4);
    w.integer(static_cast<int64_t>(g->pel.size()));
    if (g->pel.empty()) {
      w.null();
      w.null();
      w.null_array();
      return;
    }
    reply_id(cx, g->pel.begin()->first);
    reply_id(cx, g->pel.rbegin()->first);
    const size_t token = w.begin_deferred();
    size_t n = 0;
    for (const auto& [name, c] : g->consumers) {
      if (c->pel.empty()) continue;
      w.array(2);
      w.bulk(name);
      w.bulk_int(static_cast<int64_t>(c->pel.size()));
      n++;
    }
    w.end_deferred_array(token, n);
    return;
  }
  const StreamPel* pel = &g->pel;
  if (has_consumer) {
    StreamConsumer* c = stream_find_consumer(*g, consumer_name);
    if (!c) return w.array(0);
    pel = &c->pel;
  }
  const int64_t now = cx.now_ms();
  const size_t token = w.begin_deferred();
  size_t n = 0;
  for (auto it = pel->lower_bound(start); count && it != pel->end() && it->first <= end; ++it) {
    const StreamNack& nack = *it->second;
    if (min_idle && now - nack.delivery_time < min_idle) continue;
    count--;
    n++;
    w.array(4);
    reply_id(cx, it->first);
    w.bulk(nack.consumer->name);
    w.integer(std::max<int64_t>(0, now - nack.delivery_time));
    w.integer(static_cast<int64_t>(nack.delivery_count));
  }
  w.end_deferred_array(token, n);
}

// Drops a pending entry whose stream entry is gone (XCLAIM, XAUTOCLAIM).
void drop_nack(StreamCG& g, StreamPel::iterator it) {
  StreamNack* nack = it->second;
  if (nack->consumer) nack->consumer->pel.erase(it->first);
  g.pel.erase(it);
  delete nack;
}

bool entry_exists(Stream& s, StreamID id) {
  StreamIterator it(s, id, id, false);
  StreamID got;
  int64_t nf;
  return it.next(&got, &nf);
}

// Gives the NACK to `to` (from whoever had it).
void move_nack(StreamNack& nack, StreamID id, StreamConsumer& to) {
  if (nack.consumer == &to) return;
  if (nack.consumer) nack.consumer->pel.erase(id);
  nack.consumer = &to;
  to.pel[id] = &nack;
}

void reply_one_entry(CommandContext& cx, Stream& s, StreamID id) {
  StreamIterator it(s, id, id, false);
  StreamID got;
  int64_t nf;
  if (it.next(&got, &nf)) reply_entry(cx, it, got, nf);
}

// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME ms] [RETRYCOUNT n] [FORCE]
//        [JUSTID] [LASTID id]
void cmd_xclaim(CommandContext& cx) {
  cx.prevent_propagation();  // propagated as one XCLAIM per entry claimed (Redis's form)
  int64_t min_idle;
  if (!parse_int64(cx.arg(4), &min_idle)) return cx.reply().error("ERR Invalid min-idle-time argument for XCLAIM");
  if (min_idle < 0) min_idle = 0;
  std::vector<StreamID> ids;
  size_t j = 5;
  for (; j < cx.argc(); j++) {
    StreamID id;
    if (!stream_parse_id(cx.arg(j), 0, &id, nullptr)) break;
    ids.push_back(id);
  }
  const size_t last_id_arg = j - 1;
  const int64_t now = cx.now_ms();
  int64_t delivery_time = -1, retry = -1;
  bool force = false, justid = false, have_lastid = false;
  StreamID lastid;
  for (; j < cx.argc(); j++) {
    const bool more = j + 1 < cx.argc();
    if (cx.is_arg(j, "force")) {
      force = true;
    } else if (cx.is_arg(j, "justid")) {
      justid = true;
    } else if (cx.is_arg(j, "idle") && more) {
      int64_t ms;
      if (!parse_int64(cx.arg(++j), &ms)) return cx.reply().error("ERR Invalid IDLE option argument for XCLAIM");
      delivery_time = now - ms;
    } else if (cx.is_arg(j, "time") && more) {
      int64_t ms;
      if (!parse_int64(cx.arg(++j), &ms)) return cx.reply().error("ERR Invalid TIME option argument for XCLAIM");
      delivery_time = ms;
    } else if (cx.is_arg(j, "retrycount") && more) {
      if (!parse_int64(cx.arg(++j), &retry)) {
        return cx.reply().error("ERR Invalid RETRYCOUNT option argument for XCLAIM");
      }
    } else if (cx.is_arg(j, "lastid") && more) {
      if (!parse_plain_id(cx, cx.arg(++j), &lastid)) return;
      have_lastid = true;
    } else {
      return cx.reply().error_fmt("ERR Unrecognized XCLAIM option '%.*s'", static_cast<int>(cx.arg(j).size()),
                                  cx.arg(j).data());
    }
  }
  (void)last_id_arg;
  if (delivery_time != -1 && (delivery_time < 0 || delivery_time > now)) delivery_time = now;
  if (delivery_time == -1) delivery_time = now;
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (slot && !cx.check_type(slot.obj(), Type::kStream)) return;
  Stream* s = slot ? &StreamType::get(*slot.obj()) : nullptr;
  StreamCG* g = s ? s->find_group(cx.arg(2)) : nullptr;
  if (!g) return reply_nogroup(cx, cx.arg(1), cx.arg(2), "");
  int64_t dirty = 0;
  bool propagate_last = false;
  if (have_lastid && lastid > g->last_id) {
    g->last_id = lastid;
    propagate_last = true;  // counted when propagated as XGROUP SETID (no XCLAIM carried it)
  }
  StreamConsumer* consumer = nullptr;
  const size_t token = cx.reply().begin_deferred();
  size_t n = 0;
  for (const StreamID& id : ids) {
    auto it = g->pel.find(id);
    const bool exists = entry_exists(*s, id);
    if (it == g->pel.end()) {
      if (!force || !exists) continue;
      it = g->pel.emplace(id, new StreamNack).first;
      it->second->consumer = nullptr;
      it->second->delivery_count = 0;
    } else if (!exists) {
      // The entry was deleted from the stream: the pending entry goes too, whatever its idle
      // time, and the replicas get the XCLAIM that drops it there (Redis 7.0+).
      if (it->second->consumer) propagate_xclaim(cx, cx.arg(1), cx.arg(2), *g, id, *it->second);
      propagate_last = false;
      drop_nack(*g, it);
      dirty++;
      continue;
    }
    StreamNack& nack = *it->second;
    if (nack.consumer && min_idle && now - nack.delivery_time < min_idle) continue;
    if (!consumer) consumer = lookup_or_create_consumer(cx, *g, cx.arg(1), cx.arg(3), &dirty);
    move_nack(nack, id, *consumer);
    nack.delivery_time = delivery_time;
    if (retry >= 0) {
      nack.delivery_count = static_cast<uint64_t>(retry);
    } else if (!justid) {
      nack.delivery_count++;
    }
    if (justid) {
      reply_id(cx, id);
    } else {
      reply_one_entry(cx, *s, id);
    }
    n++;
    consumer->active_time = now;
    propagate_xclaim(cx, cx.arg(1), cx.arg(2), *g, id, nack);
    propagate_last = false;
    dirty++;
  }
  cx.reply().end_deferred_array(token, n);
  if (propagate_last) {
    propagate_group_id(cx, cx.arg(1), cx.arg(2), *g);
    dirty++;
  }
  if (dirty) {
    cx.db().length_changed(slot, static_cast<int64_t>(s->length));
    cx.set_dirty(dirty);
  }
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT n] [JUSTID]
// -> [next start, [claimed entries or IDs], [IDs deleted from the stream]]
void cmd_xautoclaim(CommandContext& cx) {
  cx.prevent_propagation();
  int64_t min_idle;
  if (!parse_int64(cx.arg(4), &min_idle)) {
    return cx.reply().error("ERR Invalid min-idle-time argument for XAUTOCLAIM");
  }
  if (min_idle < 0) min_idle = 0;
  StreamID start;
  bool sx;
  if (!parse_interval_id(cx, cx.arg(5), 0, &start, &sx)) return;
  if (sx && !start.incr()) return cx.reply().error("ERR invalid start ID for the interval");
  int64_t count = 100;
  bool justid = false;
  for (size_t j = 6; j < cx.argc(); j++) {
    if (cx.is_arg(j, "count") && j + 1 < cx.argc()) {
      // One message for every bad COUNT, a non-number included (Redis's getRangeLong...).
      if (!parse_int64(cx.arg(j + 1), &count) || count < 1 || count > INT64_MAX / 10) {
        return cx.reply().error("ERR COUNT must be > 0");
      }
      j++;
    } else if (cx.is_arg(j, "justid")) {
      justid = true;
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (slot && !cx.check_type(slot.obj(), Type::kStream)) return;
  Stream* s = slot ? &StreamType::get(*slot.obj()) : nullptr;
  StreamCG* g = s ? s->find_group(cx.arg(2)) : nullptr;
  if (!g) return reply_nogroup(cx, cx.arg(1), cx.arg(2), "");
  const int64_t now = cx.now_ms();
  int64_t attempts = count * 10;
  int64_t dirty = 0;
  StreamConsumer* consumer = nullptr;
  std::vector<StreamID> deleted;
  ReplyWriter& w = cx.reply();
  // The cursor comes first but is known last: the entries go to a side buffer first.
  Buffer side;
  ReplyWriter bw(&side, cx.session().resp);
  size_t n = 0;
  auto it = g->pel.lower_bound(start);
  while (attempts-- > 0 && count > 0 && it != g->pel.end()) {
    const StreamID id = it->first;
    if (!entry_exists(*s, id)) {
      deleted.push_back(id);
      if (it->second->consumer) propagate_xclaim(cx, cx.arg(1), cx.arg(2), *g, id, *it->second);
      auto dead = it++;
      drop_nack(*g, dead);
      dirty++;
      continue;
    }
    StreamNack& nack = *it->second;
    ++it;
    if (min_idle && now - nack.delivery_time < min_idle) continue;
    if (!consumer) consumer = lookup_or_create_consumer(cx, *g, cx.arg(1), cx.arg(3), &dirty);
    move_nack(nack, id, *consumer);
    nack.delivery_time = now;
    if (!justid) nack.delivery_count++;
    consumer->active_time = now;
    n++;
    count--;
    propagate_xclaim(cx, cx.arg(1), cx.arg(2), *g, id, nack);
    dirty++;
    if (justid) {
      bw.bulk(IdText(id).view());
    } else {
      StreamIterator si(*s, id, id, false);
      StreamID got;
      int64_t nf;
      if (si.next(&got, &nf)) {
        bw.array(2);
        bw.bulk(IdText(got).view());
        bw.array(static_cast<size_t>(nf) * 2);
        si.for_each_field([&](const LpEntry& f, const LpEntry& v) {
          char b[kLpIntBufSize];
          bw.bulk(f.str(b));
          bw.bulk(v.str(b));
        });
      }
    }
  }
  const StreamID next = it == g->pel.end() ? StreamID{} : it->first;
  w.array(3);
  reply_id(cx, next);
  w.array(n);
  if (side.size()) w.raw(std::string_view(side.data(), side.size()));  // (an empty Buffer has no data)
  w.array(deleted.size());
  for (const StreamID& id : deleted) reply_id(cx, id);
  if (dirty) {
    cx.db().length_changed(slot, static_cast<int64_t>(s->length));
    cx.set_dirty(dirty);
  }
}

// entries-read (null when unknown) and lag (null when unknown), as XINFO prints them.
void reply_entries_read_and_lag(CommandContext& cx, const Stream& s, const StreamCG& g) {
  ReplyWriter& w = cx.reply();
  w.bulk("entries-read");
  if (g.entries_read != kStreamEntriesReadUnknown) {
    w.integer(g.entries_read);
  } else {
    w.null();
  }
  w.bulk("lag");
  int64_t lag;
  if (s.group_lag(g, &lag)) {
    w.integer(lag);
  } else {
    w.null();
  }
}

// ---- XINFO STREAM -----------------------------------------------------------------------------

// The fields XINFO STREAM answers in both forms, in Redis's order (length ...
// recorded-first-entry-id).
void reply_stream_summary(CommandContext& cx, const Stream& s) {
  ReplyWriter& w = cx.reply();
  w.bulk("length");
  w.integer(static_cast<int64_t>(s.length));
  w.bulk("radix-tree-keys");
  w.integer(static_cast<int64_t>(s.rax.size()));
  w.bulk("radix-tree-nodes");
  w.integer(static_cast<int64_t>(s.rax.redis_node_count()));
  w.bulk("last-generated-id");
  reply_id(cx, s.last_id);
  w.bulk("max-deleted-entry-id");
  reply_id(cx, s.max_deleted_id);
  w.bulk("entries-added");
  w.integer(static_cast<int64_t>(s.entries_added));
  w.bulk("recorded-first-entry-id");
  reply_id(cx, s.first_id);
}

void cmd_xinfo_stream(CommandContext& cx) {
  bool full = false;
  int64_t count = 10;
  if (cx.argc() > 3) {
    const bool count_form = cx.argc() == 6 && cx.is_arg(4, "count");
    if (!cx.is_arg(3, "full") || (cx.argc() != 4 && !count_form)) {
      return cx.reply().error_fmt("ERR unknown subcommand or wrong number of arguments for '%.*s'. Try XINFO HELP.",
                                  static_cast<int>(cx.arg(1).size()), cx.arg(1).data());
    }
    full = true;
    if (count_form) {
      if (!cx.int_arg(5, &count)) return;
      if (count < 0) count = 10;  // 0: every entry
    }
  }
  Object* o = cx.db().find(cx.key(2));
  if (!o) return cx.reply().error(kErrNoSuchKey);
  if (!cx.check_type(o, Type::kStream)) return;
  Stream& s = StreamType::get(*o);
  ReplyWriter& w = cx.reply();
  if (!full) {
    w.map(10);
    reply_stream_summary(cx, s);
    w.bulk("groups");
    w.integer(static_cast<int64_t>(s.group_count()));
    for (bool last : {false, true}) {
      w.bulk(last ? "last-entry" : "first-entry");
      StreamIterator it(s, StreamID{}, StreamID::max(), last);
      StreamID id;
      int64_t nf;
      if (it.next(&id, &nf)) {
        reply_entry(cx, it, id, nf);
      } else {
        w.null();
      }
    }
    return;
  }
  w.map(9);
  reply_stream_summary(cx, s);
  w.bulk("entries");
  reply_range(cx, s, StreamID{}, StreamID::max(), static_cast<size_t>(count), false);
  w.bulk("groups");
  w.array(s.group_count());
  if (!s.cgroups) return;
  const int64_t now = cx.now_ms();
  for (const auto& [name, g] : *s.cgroups) {
    w.map(7);
    w.bulk("name");
    w.bulk(name);
    w.bulk("last-delivered-id");
    reply_id(cx, g->last_id);
    reply_entries_read_and_lag(cx, s, *g);
    w.bulk("pel-count");
    w.integer(static_cast<int64_t>(g->pel.size()));
    w.bulk("pending");
    size_t n = 0;
    const size_t token = w.begin_deferred();
    for (const auto& [id, nack] : g->pel) {
      if (count && n >= static_cast<size_t>(count)) break;
      w.array(4);
      reply_id(cx, id);
      w.bulk(nack->consumer->name);
      w.integer(nack->delivery_time);
      w.integer(static_cast<int64_t>(nack->delivery_count));
      n++;
    }
    w.end_deferred_array(token, n);
    w.bulk("consumers");
    w.array(g->consumers.size());
    for (const auto& [cname, c] : g->consumers) {
      // Redis 7.2+ (7.0 has no active-time).
      w.map(5);
      w.bulk("name");
      w.bulk(cname);
      w.bulk("seen-time");
      w.integer(c->seen_time);
      w.bulk("active-time");
      w.integer(c->active_time);
      w.bulk("pel-count");
      w.integer(static_cast<int64_t>(c->pel.size()));
      w.bulk("pending");
      size_t m = 0;
      const size_t t2 = w.begin_deferred();
      for (const auto& [id, nack] : c->pel) {
        if (count && m >= static_cast<size_t>(count)) break;
        w.array(3);
        reply_id(cx, id);
        w.integer(nack->delivery_time);
        w.integer(static_cast<int64_t>(nack->delivery_count));
        m++;
      }
      w.end_deferred_array(t2, m);
    }
  }
  (void)now;
}

// XINFO GROUPS key
void cmd_xinfo_groups(CommandContext& cx) {
  Object* o = cx.db().find(cx.key(2));
  if (!o) return cx.reply().error(kErrNoSuchKey);
  if (!cx.check_type(o, Type::kStream)) return;
  const Stream& s = StreamType::get(*o);
  ReplyWriter& w = cx.reply();
  w.array(s.group_count());
  if (!s.cgroups) return;
  for (const auto& [name, g] : *s.cgroups) {
    w.map(6);
    w.bulk("name");
    w.bulk(name);
    w.bulk("consumers");
    w.integer(static_cast<int64_t>(g->consumers.size()));
    w.bulk("pending");
    w.integer(static_cast<int64_t>(g->pel.size()));
    w.bulk("last-delivered-id");
    reply_id(cx, g->last_id);
    reply_entries_read_and_lag(cx, s, *g);
  }
}

// XINFO CONSUMERS key group
void cmd_xinfo_consumers(CommandContext& cx) {
  Object* o = cx.db().find(cx.key(2));
  if (!o) return cx.reply().error(kErrNoSuchKey);
  if (!cx.check_type(o, Type::kStream)) return;
  const Stream& s = StreamType::get(*o);
  StreamCG* g = s.find_group(cx.arg(3));
  if (!g) {
    return cx.reply().error_fmt("NOGROUP No such consumer group '%.*s' for key name '%.*s'",
                                static_cast<int>(cx.arg(3).size()), cx.arg(3).data(),
                                static_cast<int>(cx.arg(2).size()), cx.arg(2).data());
  }
  ReplyWriter& w = cx.reply();
  const int64_t now = cx.now_ms();
  w.array(g->consumers.size());
  for (const auto& [name, c] : g->consumers) {
    // `inactive` is Redis 7.2+.
    w.map(4);
    w.bulk("name");
    w.bulk(name);
    w.bulk("pending");
    w.integer(static_cast<int64_t>(c->pel.size()));
    w.bulk("idle");
    w.integer(std::max<int64_t>(0, now - c->seen_time));
    w.bulk("inactive");
    w.integer(c->active_time == -1 ? -1 : std::max<int64_t>(0, now - c->active_time));
  }
}

void cmd_xinfo_help(CommandContext& cx) {
  reply_help(cx, "XINFO",
             {"CONSUMERS <key> <groupname>",
              "    Show consumers of <groupname>.",
              "GROUPS <key>",
              "    Show the stream consumer groups.",
              "STREAM <key> [FULL [COUNT <count>]",
              "    Show information about the stream."});
}

constexpr uint32_t kRW = kWrite | kDenyOom;

CommandSpec kXinfoSubcommands[] = {
    {.name = "stream", .handler = cmd_xinfo_stream, .arity = -3, .flags = kReadOnly, .acl = kAclStream, .group = "stream",
     .summary = "Returns information about a stream.", .since = "5.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRO | kKsAccess, 2)}},
    {.name = "groups", .handler = cmd_xinfo_groups, .arity = 3, .flags = kReadOnly, .acl = kAclStream, .group = "stream",
     .summary = "Returns a list of the consumer groups of a stream.", .since = "5.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRO | kKsAccess, 2)}},
    {.name = "consumers", .handler = cmd_xinfo_consumers, .arity = 4, .flags = kReadOnly, .acl = kAclStream, .group = "stream",
     .summary = "Returns a list of the consumers in a consumer group.", .since = "5.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRO | kKsAccess, 2)},
     .tips = "nondeterministic_output"},
    {.name = "help", .handler = cmd_xinfo_help, .arity = 2, .flags = kLoading | kStale, .acl = kAclStream, .group = "stream",
     .summary = "Returns helpful text about the different subcommands.", .since = "5.0.0", .complexity = "O(1)"},
};

CommandSpec kXgroupSubcommands[] = {
    {.name = "create", .handler = cmd_xgroup_create, .arity = -5, .flags = kWrite | kDenyOom, .acl = kAclStream, .group = "stream",
     .summary = "Creates a consumer group.", .since = "5.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsInsert, 2)}},
    {.name = "setid", .handler = cmd_xgroup_setid, .arity = -5, .flags = kWrite, .acl = kAclStream, .group = "stream",
     .summary = "Sets the last-delivered ID of a consumer group.", .since = "5.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsUpdate, 2)}},
    {.name = "destroy", .handler = cmd_xgroup_destroy, .arity = 4, .flags = kWrite, .acl = kAclStream, .group = "stream",
     .summary = "Destroys a consumer group.", .since = "5.0.0",
     .complexity = "O(N) where N is the number of entries in the group's pending entries list (PEL).",
     .keys = {ks(kKsRW | kKsDelete, 2)}},
    {.name = "createconsumer", .handler = cmd_xgroup_createconsumer, .arity = 5, .flags = kWrite | kDenyOom, .acl = kAclStream,
     .group = "stream", .summary = "Creates a consumer in a consumer group.", .since = "6.2.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsInsert, 2)}},
    {.name = "delconsumer", .handler = cmd_xgroup_delconsumer, .arity = 5, .flags = kWrite, .acl = kAclStream, .group = "stream",
     .summary = "Deletes a consumer from a consumer group.", .since = "5.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsDelete, 2)}},
    {.name = "help", .handler = cmd_xgroup_help, .arity = 2, .flags = kLoading | kStale, .acl = kAclStream, .group = "stream",
     .summary = "Returns helpful text about the different subcommands.", .since = "5.0.0", .complexity = "O(1)"},
};

CommandSpec kStreamCommands[] = {
    {.name = "xadd", .handler = cmd_xadd, .arity = -5, .flags = kRW | kFast, .acl = kAclStream, .group = "stream",
     .summary = "Appends a new message to a stream. Creates the key if it doesn't exist.", .since = "5.0.0",
     .complexity = "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.",
     .keys = {ks(kKsRW | kKsUpdate, 1, fk_range(), "UPDATE instead of INSERT because of the optional trimming feature")},
     .tips = "nondeterministic_output"},
    {.name = "xlen", .handler = cmd_xlen, .arity = 2, .flags = kReadOnly | kFast, .acl = kAclStream, .group = "stream",
     .summary = "Return the number of messages in a stream.", .since = "5.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRO)}},
    {.name = "xrange", .handler = cmd_xrange, .arity = -4, .flags = kReadOnly, .acl = kAclStream, .group = "stream",
     .summary = "Returns the messages from a stream within a range of IDs.", .since = "5.0.0",
     .complexity = "O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "xrevrange", .handler = cmd_xrevrange, .arity = -4, .flags = kReadOnly, .acl = kAclStream, .group = "stream",
     .summary = "Returns the messages from a stream within a range of IDs in reverse order.", .since = "5.0.0",
     .complexity = "O(N) with N being the number of elements returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "xdel", .handler = cmd_xdel, .arity = -3, .flags = kWrite | kFast, .acl = kAclStream, .group = "stream",
     .summary = "Returns the number of messages after removing them from a stream.", .since = "5.0.0",
     .complexity = "O(1) for each single item to delete in the stream, regardless of the stream size.",
     .keys = {ks(kKsRW | kKsDelete)}},
    {.name = "xtrim", .handler = cmd_xtrim, .arity = -4, .flags = kWrite, .acl = kAclStream, .group = "stream",
     .summary = "Deletes messages from the beginning of a stream.", .since = "5.0.0",
     .complexity = "O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized in macro nodes containing multiple entries that can be released with a single deallocation.",
     .keys = {ks(kKsRW | kKsDelete)},
     .tips = "nondeterministic_output"},
    {.name = "xsetid", .handler = cmd_xsetid, .arity = -3, .flags = kRW | kFast, .acl = kAclStream, .group = "stream",
     .summary = "An internal command for replicating stream values.", .since = "5.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsUpdate)}},
    {.name = "xread", .handler = cmd_xread, .arity = -4, .flags = kReadOnly | kBlocking, .acl = kAclStream, .group = "stream",
     .summary = "Returns messages from multiple streams with IDs greater than the ones requested. Blocks until a message is available otherwise.",
     .since = "5.0.0", .complexity = "",
     .keys = {ks(kKsRO | kKsAccess, bs_keyword("STREAMS", 1), fk_range(-1, 1, 2))}},
    {.name = "xreadgroup", .handler = cmd_xreadgroup, .arity = -7, .flags = kWrite | kBlocking, .acl = kAclStream, .group = "stream",
     .summary = "Returns new or historical messages from a stream for a consumer in a group. Blocks until a message is available otherwise.",
     .since = "5.0.0", .complexity = "For each stream mentioned: O(M) with M being the number of elements returned. If M is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the O(N) time in order to serve the N clients blocked on the stream getting new data.",
     .keys = {ks(kKsRO | kKsAccess, bs_keyword("STREAMS", 4), fk_range(-1, 1, 2))}},
    {.name = "xack", .handler = cmd_xack, .arity = -4, .flags = kWrite | kFast, .acl = kAclStream, .group = "stream",
     .summary = "Returns the number of messages that were successfully acknowledged by the consumer group member of a stream.",
     .since = "5.0.0", .complexity = "O(1) for each message ID processed.",
     .keys = {ks(kKsRW | kKsUpdate)}},
    {.name = "xpending", .handler = cmd_xpending, .arity = -3, .flags = kReadOnly, .acl = kAclStream, .group = "stream",
     .summary = "Returns the information and entries from a stream consumer group's pending entries list.", .since = "5.0.0",
     .complexity = "O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every consumer.",
     .keys = {ks(kKsRO | kKsAccess)},
     .tips = "nondeterministic_output"},
    {.name = "xclaim", .handler = cmd_xclaim, .arity = -6, .flags = kWrite | kFast, .acl = kAclStream, .group = "stream",
     .summary = "Changes, or acquires, ownership of a message in a consumer group, as if the message was delivered a consumer group member.",
     .since = "5.0.0", .complexity = "O(log N) with N being the number of messages in the PEL of the consumer group.",
     .keys = {ks(kKsRW | kKsUpdate)},
     .tips = "nondeterministic_output"},
    {.name = "xautoclaim", .handler = cmd_xautoclaim, .arity = -6, .flags = kWrite | kFast, .acl = kAclStream, .group = "stream",
     .summary = "Changes, or acquires, ownership of messages in a consumer group, as if the messages were delivered to as consumer group member.",
     .since = "6.2.0", .complexity = "O(1) if COUNT is small.",
     .keys = {ks(kKsRW | kKsDelete)},
     .tips = "nondeterministic_output"},
    {.name = "xgroup", .arity = -2, .group = "stream", .summary = "A container for consumer groups commands.",
     .since = "5.0.0", .complexity = "Depends on subcommand.", .subcommands = kXgroupSubcommands},
    {.name = "xinfo", .arity = -2, .group = "stream", .summary = "A container for stream introspection commands.",
     .since = "5.0.0", .complexity = "Depends on subcommand.", .subcommands = kXinfoSubcommands},
};

}  // namespace

std::span<CommandSpec> stream_commands() { return kStreamCommands; }

}  // namespace keel
