// Stream commands: XADD XLEN XRANGE XREVRANGE XDEL XTRIM XSETID XREAD XINFO. The encoding
// (listpack nodes under a radix tree) lives in ds/stream.{h,cc}; types/stream_type.h hands out
// the Stream of a key. Replies, errors and argument order are Redis 7's (checked against
// Debian's redis-server 7.0.15; where 7.4 differs the comment says so).
#include <algorithm>
#include <string>
#include <vector>

#include "base/numbers.h"
#include "commands/blocking.h"
#include "commands/command.h"
#include "commands/command_table.h"
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
    StreamID first;
    if (!s.first_entry_id(&first)) first = StreamID::max();
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

// ---- XREAD ------------------------------------------------------------------------------------

// XREAD [COUNT n] [BLOCK ms] STREAMS key [key ...] id [id ...]
// `$` is the stream's last ID now; `+` (Redis 7.4) its last entry. A blocked XREAD is run again
// when a key gets entries, with `$` and `+` replaced by the IDs they meant when it blocked.
void cmd_xread(CommandContext& cx) {
  int64_t count = 0;
  int64_t timeout = -1;
  size_t streams_arg = 0;
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
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  if (streams_arg == 0) return cx.reply().error(kErrSyntax);
  const size_t nargs = cx.argc() - streams_arg;
  if (nargs % 2 != 0) {
    return cx.reply().error(
        "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.");
  }
  const size_t nkeys = nargs / 2;
  std::vector<StreamID> ids(nkeys);
  std::vector<bool> last_entry(nkeys, false);  // "+": the last entry itself
  for (size_t k = 0; k < nkeys; k++) {
    const size_t ia = streams_arg + nkeys + k;
    const std::string_view a = cx.arg(ia);
    bool ok;
    Stream* s = lookup_read(cx, streams_arg + k, &ok);
    if (!ok) return;
    if (a == "$") {
      ids[k] = s ? s->last_id : StreamID{};
    } else if (a == "+") {
      if (s && s->length) {
        last_entry[k] = true;
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
  for (size_t k = 0; k < nkeys; k++) {
    bool ok;
    Stream* s = lookup_read(cx, streams_arg + k, &ok);
    if (!s) continue;
    StreamID start = ids[k];
    if (!last_entry[k]) {
      if (s->length == 0 || s->last_id <= start) continue;
      if (!start.incr()) continue;
    }
    StreamID last;
    if (!s->last_entry_id(&last) || last < start) continue;
    if (served++ == 0) token = cx.reply().begin_deferred();
    if (!resp3) cx.reply().array(2);
    cx.reply().bulk(cx.arg(streams_arg + k));
    reply_range(cx, *s, start, StreamID::max(), last_entry[k] ? 1 : static_cast<size_t>(count), false);
  }
  if (served) {
    if (resp3) {
      cx.reply().end_deferred_map(token, served);
    } else {
      cx.reply().end_deferred_array(token, served);
    }
    return;
  }
  if (timeout < 0 || !blocking_may_block(cx)) return cx.reply().null_array();
  // Block, remembering what `$` and `+` meant now.
  std::vector<std::string> argv(cx.args().begin(), cx.args().end());
  for (size_t k = 0; k < nkeys; k++) {
    const size_t ia = streams_arg + nkeys + k;
    if (argv[ia] == "$" || argv[ia] == "+") argv[ia] = std::string(IdText(ids[k]).view());
  }
  std::vector<size_t> keys;
  for (size_t k = 0; k < nkeys; k++) keys.push_back(streams_arg + k);
  std::vector<std::string_view> views(argv.begin(), argv.end());
  block_on_keys(cx, keys, Type::kStream, timeout ? cx.now_ms() + timeout : 0, views);
}

// ---- XINFO STREAM -----------------------------------------------------------------------------

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
  StreamID first_rec = s.first_id;
  if (!full) {
    w.map(10);
    w.bulk("length");
    w.integer(static_cast<int64_t>(s.length));
    w.bulk("radix-tree-keys");
    w.integer(static_cast<int64_t>(s.rax.size()));
    w.bulk("radix-tree-nodes");
    w.integer(static_cast<int64_t>(s.rax.node_count()));
    w.bulk("last-generated-id");
    reply_id(cx, s.last_id);
    w.bulk("max-deleted-entry-id");
    reply_id(cx, s.max_deleted_id);
    w.bulk("entries-added");
    w.integer(static_cast<int64_t>(s.entries_added));
    w.bulk("recorded-first-entry-id");
    reply_id(cx, first_rec);
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
  w.bulk("length");
  w.integer(static_cast<int64_t>(s.length));
  w.bulk("radix-tree-keys");
  w.integer(static_cast<int64_t>(s.rax.size()));
  w.bulk("radix-tree-nodes");
  w.integer(static_cast<int64_t>(s.rax.node_count()));
  w.bulk("last-generated-id");
  reply_id(cx, s.last_id);
  w.bulk("max-deleted-entry-id");
  reply_id(cx, s.max_deleted_id);
  w.bulk("entries-added");
  w.integer(static_cast<int64_t>(s.entries_added));
  w.bulk("recorded-first-entry-id");
  reply_id(cx, first_rec);
  w.bulk("entries");
  reply_range(cx, s, StreamID{}, StreamID::max(), static_cast<size_t>(count), false);
  w.bulk("groups");
  w.array(0);
}

constexpr uint32_t kRW = kWrite | kDenyOom;

CommandSpec kXinfoSubcommands[] = {
    {.name = "stream", .handler = cmd_xinfo_stream, .arity = -3, .flags = kReadOnly, .acl = kAclStream, .group = "stream",
     .summary = "Returns information about a stream.", .since = "5.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRO | kKsAccess, 2)}},
};

CommandSpec kStreamCommands[] = {
    {.name = "xadd", .handler = cmd_xadd, .arity = -5, .flags = kRW | kFast, .acl = kAclStream, .group = "stream",
     .summary = "Appends a new message to a stream. Creates the key if it doesn't exist.", .since = "5.0.0",
     .complexity = "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.",
     .keys = {ks(kKsRW | kKsUpdate, 1, fk_range(), "UPDATE instead of INSERT because of the optional trimming feature")}},
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
     .keys = {ks(kKsRW | kKsDelete)}},
    {.name = "xsetid", .handler = cmd_xsetid, .arity = -3, .flags = kRW | kFast, .acl = kAclStream, .group = "stream",
     .summary = "An internal command for replicating stream values.", .since = "5.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsUpdate)}},
    {.name = "xread", .handler = cmd_xread, .arity = -4, .flags = kReadOnly | kBlocking, .acl = kAclStream, .group = "stream",
     .summary = "Returns messages from multiple streams with IDs greater than the ones requested. Blocks until a message is available otherwise.",
     .since = "5.0.0", .complexity = "",
     .keys = {ks(kKsRO | kKsAccess, bs_keyword("STREAMS", 1), fk_range(-1, 1, 2))}},
    {.name = "xinfo", .arity = -2, .group = "stream", .summary = "A container for stream introspection commands.",
     .since = "5.0.0", .complexity = "Depends on subcommand.", .subcommands = kXinfoSubcommands},
};

}  // namespace

std::span<CommandSpec> stream_commands() { return kStreamCommands; }

}  // namespace keel
