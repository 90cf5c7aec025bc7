// List commands: LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LLEN LINDEX LSET LRANGE LTRIM LREM LINSERT
// LPOS LMOVE RPOPLPUSH LMPOP and the blocking BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP. Encodings and
// conversions live in types/list_type.cc, the blocked-client registry in commands/blocking.cc;
// handlers validate, look each key up once, mutate through ListType, report the length change
// to Db once per key and reply once. A blocking handler that blocks writes no reply: it is run
// again with the same arguments when one of its keys is ready (blocking.h). Inside EXEC or a
// script it never blocks (Redis 7.2+ allows the blocking forms in scripts). The blocking and
// multi-key forms propagate as the plain pop or move they performed; the dirty counter counts
// elements pushed or popped, as Redis does.
#include <cstdint>
#include <string>
#include <vector>

#include "base/numbers.h"
#include "commands/blocking.h"
#include "commands/command.h"
#include "commands/command_table.h"
#include "types/list_type.h"

namespace keel {
namespace {

using End = ListType::End;

// ListEmit writing each element as a bulk string.
void emit_bulk(void* ctx, const LpEntry& e) {
  ReplyWriter* w = static_cast<ReplyWriter*>(ctx);
  if (e.is_int) {
    w->bulk_int(e.ival);
  } else {
    w->bulk(e.sval);
  }
}

const char* pop_event(End e) { return e == End::kHead ? "lpop" : "rpop"; }
const char* push_event(End e) { return e == End::kHead ? "lpush" : "rpush"; }

// LEFT / RIGHT (LMOVE, LMPOP). False on anything else.
bool parse_end(CommandContext& cx, size_t i, End* out) {
  if (cx.is_arg(i, "left")) {
    *out = End::kHead;
  } else if (cx.is_arg(i, "right")) {
    *out = End::kTail;
  } else {
    return false;
  }
  return true;
}

// Shared by the four push commands. `existing_only`: LPUSHX/RPUSHX.
void push_generic(CommandContext& cx, End end, bool existing_only) {
  const std::span<const std::string_view> values = cx.args().subspan(2);
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) {
    if (existing_only) return cx.reply().integer(0);
    Object* o = ListType::create(cx.arg(1));
    ListType::push(*o, end, values);
    const size_t len = ListType::size(*o);
    cx.db().insert(slot, o);  // "new", keysizes none -> (list, len), wakes blocked clients
    cx.set_dirty(static_cast<int64_t>(values.size()));  // Redis counts every element pushed
    cx.notify(kNotifyList, push_event(end), cx.arg(1));
    return cx.reply().integer(static_cast<int64_t>(len));
  }
  if (!cx.check_type(slot.obj(), Type::kList)) return;
  const int64_t old_len = static_cast<int64_t>(ListType::size(*slot));
  ListType::push(*slot, end, values);
  const size_t len = ListType::size(*slot);
  cx.db().length_changed(slot, old_len);
  cx.set_dirty(static_cast<int64_t>(values.size()));
  cx.notify(kNotifyList, push_event(end), cx.arg(1));
  cx.reply().integer(static_cast<int64_t>(len));
}

void cmd_lpush(CommandContext& cx) { push_generic(cx, End::kHead, false); }
void cmd_rpush(CommandContext& cx) { push_generic(cx, End::kTail, false); }
void cmd_lpushx(CommandContext& cx) { push_generic(cx, End::kHead, true); }
void cmd_rpushx(CommandContext& cx) { push_generic(cx, End::kTail, true); }

// Pops up to `count` elements of the list at `slot` (key argument `key_arg`), writing them
// through emit, then emits the pop event (+del) and reports to Db.
void pop_and_report(CommandContext& cx, Db::Slot& slot, size_t key_arg, End end, size_t count) {
  const int64_t old_len = static_cast<int64_t>(ListType::size(*slot));
  ListType::pop(*slot, end, count, emit_bulk, &cx.reply());
  const bool removed = cx.db().length_changed(slot, old_len);
  cx.set_dirty(static_cast<int64_t>(count));  // Redis counts every element popped
  cx.notify(kNotifyList, pop_event(end), cx.arg(key_arg));
  if (removed) cx.notify(kNotifyGeneric, "del", cx.arg(key_arg));
}

// LPOP/RPOP key [count]: a bulk (nil when absent) without count; with count an array (null
// array when the key is absent, empty array for count 0).
void pop_generic(CommandContext& cx, End end) {
  if (cx.argc() > 3) return cx.reply_arity_error();  // arity -2, but at most one count
  const bool has_count = cx.argc() == 3;
  int64_t count = 1;
  if (has_count && (!parse_int64(cx.arg(2), &count) || count < 0)) {
    return cx.reply().error(kErrPositive);
  }
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) return has_count ? cx.reply().null_array() : cx.reply().null();
  if (!cx.check_type(slot.obj(), Type::kList)) return;
  if (!has_count) return pop_and_report(cx, slot, 1, end, 1);
  if (count == 0) return cx.reply().array(0);
  const size_t len = ListType::size(*slot);
  const size_t n = static_cast<uint64_t>(count) < len ? static_cast<size_t>(count) : len;
  cx.reply().array(n);
  pop_and_report(cx, slot, 1, end, n);
}

void cmd_lpop(CommandContext& cx) { pop_generic(cx, End::kHead); }
void cmd_rpop(CommandContext& cx) { pop_generic(cx, End::kTail); }

void cmd_llen(CommandContext& cx) { cx.reply_collection_length(Type::kList); }

// LINDEX key index -> the element, or nil when out of range.
// The key is looked up before the index is parsed (lindexCommand): a missing key answers nil
// and a wrong type WRONGTYPE whatever the index.
void cmd_lindex(CommandContext& cx) {
  const Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().null();
  if (!cx.check_type(o, Type::kList)) return;
  int64_t index;
  if (!cx.int_arg(2, &index)) return;
  if (!ListType::index(*o, index, emit_bulk, &cx.reply())) cx.reply().null();
}

// LSET key index element. The key is looked up before the index is parsed, as in Redis.
void cmd_lset(CommandContext& cx) {
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) return cx.reply().error(kErrNoSuchKey);
  if (!cx.check_type(slot.obj(), Type::kList)) return;
  int64_t index;
  if (!cx.int_arg(2, &index)) return;
  const int64_t old_len = static_cast<int64_t>(ListType::size(*slot));
  if (!ListType::set(*slot, index, cx.arg(3))) return cx.reply().error(kErrOutOfRange);
  cx.db().length_changed(slot, old_len);  // same length: WATCH and dirty only
  cx.notify(kNotifyList, "lset", cx.arg(1));
  cx.reply().ok();
}

void cmd_lrange(CommandContext& cx) {
  int64_t start, stop;
  if (!cx.int_arg(2, &start) || !cx.int_arg(3, &stop)) return;
  const Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().array(0);
  if (!cx.check_type(o, Type::kList)) return;
  int64_t from = 0;
  const size_t n = ListType::range_count(*o, start, stop, &from);
  cx.reply().array(n);
  ListType::range(*o, from, n, emit_bulk, &cx.reply());
}

void cmd_ltrim(CommandContext& cx) {
  int64_t start, stop;
  if (!cx.int_arg(2, &start) || !cx.int_arg(3, &stop)) return;
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) return cx.reply().ok();
  if (!cx.check_type(slot.obj(), Type::kList)) return;
  const int64_t old_len = static_cast<int64_t>(ListType::size(*slot));
  ListType::trim(*slot, start, stop);
  const int64_t trimmed = old_len - static_cast<int64_t>(ListType::size(*slot));
  const bool removed = cx.db().length_changed(slot, old_len);
  cx.set_dirty(trimmed);  // Redis counts the elements removed: none, no propagation
  cx.notify(kNotifyList, "ltrim", cx.arg(1));
  if (removed) cx.notify(kNotifyGeneric, "del", cx.arg(1));
  cx.reply().ok();
}

// LREM key count element -> removed count.
void cmd_lrem(CommandContext& cx) {
  int64_t count;
  if (!cx.int_arg(2, &count)) return;
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) return cx.reply().integer(0);
  if (!cx.check_type(slot.obj(), Type::kList)) return;
  const int64_t old_len = static_cast<int64_t>(ListType::size(*slot));
  const size_t removed = ListType::remove(*slot, cx.arg(3), count);
  if (removed > 0) {
    const bool deleted = cx.db().length_changed(slot, old_len);
    cx.set_dirty(static_cast<int64_t>(removed));
    cx.notify(kNotifyList, "lrem", cx.arg(1));
    if (deleted) cx.notify(kNotifyGeneric, "del", cx.arg(1));
  }
  cx.reply().integer(static_cast<int64_t>(removed));
}

// LINSERT key BEFORE|AFTER pivot element -> new length, -1 without the pivot, 0 without key.
void cmd_linsert(CommandContext& cx) {
  bool after;
  if (cx.is_arg(2, "after")) {
    after = true;
  } else if (cx.is_arg(2, "before")) {
    after = false;
  } else {
    return cx.reply().error(kErrSyntax);
  }
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) return cx.reply().integer(0);
  if (!cx.check_type(slot.obj(), Type::kList)) return;
  const int64_t old_len = static_cast<int64_t>(ListType::size(*slot));
  if (!ListType::insert(*slot, cx.arg(3), cx.arg(4), after)) return cx.reply().integer(-1);
  cx.db().length_changed(slot, old_len);
  cx.notify(kNotifyList, "linsert", cx.arg(1));
  cx.reply().integer(old_len + 1);
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
void cmd_lpos(CommandContext& cx) {
  int64_t rank = 1, count = -1, maxlen = 0;  // count -1: no COUNT option
  for (size_t j = 3; j < cx.argc(); j++) {
    const bool more = j + 1 < cx.argc();
    if (more && cx.is_arg(j, "rank")) {
      if (!cx.int_arg(++j, &rank)) return;
      if (rank == 0) {
        return cx.reply().error(
            "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
            "or use negative to start from the end of the list");
      }
      if (rank == INT64_MIN) {  // Redis 7.4 rejects it (its negation overflows)
        return cx.reply().error(
            "ERR value is out of range, value must between -9223372036854775807 and "
            "9223372036854775807");
      }
    } else if (more && cx.is_arg(j, "count")) {
      if (!parse_int64(cx.arg(++j), &count) || count < 0) {
        return cx.reply().error("ERR COUNT can't be negative");
      }
    } else if (more && cx.is_arg(j, "maxlen")) {
      if (!parse_int64(cx.arg(++j), &maxlen) || maxlen < 0) {
        return cx.reply().error("ERR MAXLEN can't be negative");
      }
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  const Object* o = cx.db().find(cx.key(1));
  if (!o) return count >= 0 ? cx.reply().array(0) : cx.reply().null();
  if (!cx.check_type(o, Type::kList)) return;
  struct Ctx {
    ReplyWriter* w;
    int64_t want;  // matches wanted (0 = all); 1 without COUNT
    int64_t got = 0;
    int64_t first = -1;
  } c{&cx.reply(), count < 0 ? 1 : count};
  if (count < 0) {
    ListType::positions(*o, cx.arg(2), rank, maxlen,
                        [](void* p, int64_t idx) {
                          static_cast<Ctx*>(p)->first = idx;
                          return false;
                        },
                        &c);
    return c.first < 0 ? cx.reply().null() : cx.reply().integer(c.first);
  }
  const size_t token = cx.reply().begin_deferred();
  ListType::positions(*o, cx.arg(2), rank, maxlen,
                      [](void* p, int64_t idx) {
                        Ctx* k = static_cast<Ctx*>(p);
                        k->w->integer(idx);
                        return ++k->got != k->want;
                      },
                      &c);
  cx.reply().end_deferred_array(token, static_cast<size_t>(c.got));
}

// ---- moving and multi-key pops, shared with the blocking forms ---------------------------------

// The moved element: a reused buffer, so LMOVE does not allocate in steady state.
std::string& move_scratch() {
  static std::string s;
  return s;
}

// Moves one element from the list at `src` (key argument 1) to key argument 2. The source must
// exist and be a list; checks the destination's type first. Events: new/push on the
// destination, then the pop (+del) on the source, as Redis 7 sends them.
void move_element(CommandContext& cx, Db::Slot& src, End from, End to) {
  Db::Slot dst = cx.db().find_for_write(cx.key(2));
  if (dst && !cx.check_type(dst.obj(), Type::kList)) return;
  std::string& value = move_scratch();
  const int64_t src_old = static_cast<int64_t>(ListType::size(*src));
  ListType::pop_one(*src, from, &value);
  if (src.obj() == dst.obj()) {  // same key: rotate in place, one report
    ListType::push(*src, to, value);
    cx.db().length_changed(src, src_old);
    cx.set_dirty(1);
    cx.notify(kNotifyList, push_event(to), cx.arg(2));
    cx.notify(kNotifyList, pop_event(from), cx.arg(1));
    return cx.reply().bulk(value);
  }
  if (!dst) {
    Object* o = ListType::create(cx.arg(2));
    ListType::push(*o, to, value);
    cx.db().insert(dst, o);
  } else {
    const int64_t dst_old = static_cast<int64_t>(ListType::size(*dst));
    ListType::push(*dst, to, value);
    cx.db().length_changed(dst, dst_old);
  }
  cx.notify(kNotifyList, push_event(to), cx.arg(2));
  const bool removed = cx.db().length_changed(src, src_old);
  cx.set_dirty(1);  // one change for Redis (the pop and the push)
  cx.notify(kNotifyList, pop_event(from), cx.arg(1));
  if (removed) cx.notify(kNotifyGeneric, "del", cx.arg(1));
  cx.reply().bulk(value);
}

// LMOVE / BLMOVE / RPOPLPUSH / BRPOPLPUSH body. deadline < 0: never block (LMOVE,
// RPOPLPUSH); the blocking forms propagate as those.
void move_generic(CommandContext& cx, End from, End to, int64_t deadline) {
  Db::Slot src = cx.db().find_for_write(cx.key(1));
  if (!src) {
    // LMOVE, and BLMOVE where it may not block (MULTI, scripts): a null bulk, as Redis.
    if (deadline < 0 || !blocking_may_block(cx)) return cx.reply().null();
    static constexpr size_t kKeys[] = {1};
    return block_on_keys(cx, kKeys, Type::kList, deadline);
  }
  if (!cx.check_type(src.obj(), Type::kList)) return;
  move_element(cx, src, from, to);
  if (deadline >= 0) {
    if (cx.argc() == 6) {
      cx.propagate_as({"LMOVE", cx.arg(1), cx.arg(2), cx.arg(3), cx.arg(4)});
    } else {
      cx.propagate_as({"RPOPLPUSH", cx.arg(1), cx.arg(2)});
    }
  }
}

void cmd_lmove(CommandContext& cx) {
  End from, to;
  if (!parse_end(cx, 3, &from) || !parse_end(cx, 4, &to)) return cx.reply().error(kErrSyntax);
  move_generic(cx, from, to, -1);
}

void cmd_rpoplpush(CommandContext& cx) { move_generic(cx, End::kTail, End::kHead, -1); }

void cmd_blmove(CommandContext& cx) {
  End from, to;
  if (!parse_end(cx, 3, &from) || !parse_end(cx, 4, &to)) return cx.reply().error(kErrSyntax);
  int64_t deadline;
  if (!blocking_timeout_arg(cx, 5, &deadline)) return;
  move_generic(cx, from, to, deadline);
}

void cmd_brpoplpush(CommandContext& cx) {
  int64_t deadline;
  if (!blocking_timeout_arg(cx, 3, &deadline)) return;
  move_generic(cx, End::kTail, End::kHead, deadline);
}

// BLPOP / BRPOP key [key ...] timeout -> [key, element], or a null array on timeout.
void bpop_generic(CommandContext& cx, End end) {
  int64_t deadline;
  if (!blocking_timeout_arg(cx, cx.argc() - 1, &deadline)) return;
  for (size_t i = 1; i + 1 < cx.argc(); i++) {
    Db::Slot slot = cx.db().find_for_write(cx.key(i));
    if (!slot) continue;
    if (!cx.check_type(slot.obj(), Type::kList)) return;
    cx.reply().array(2);
    cx.reply().bulk(cx.arg(i));
    pop_and_report(cx, slot, i, end, 1);
    return cx.propagate_as({end == End::kHead ? "LPOP" : "RPOP", cx.arg(i)});
  }
  if (!blocking_may_block(cx)) return cx.reply().null_array();
  std::vector<size_t> keys;  // blocking path: an allocation here is fine
  for (size_t i = 1; i + 1 < cx.argc(); i++) keys.push_back(i);
  block_on_keys(cx, keys, Type::kList, deadline);
}

void cmd_blpop(CommandContext& cx) { bpop_generic(cx, End::kHead); }
void cmd_brpop(CommandContext& cx) { bpop_generic(cx, End::kTail); }

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count] with numkeys at argument `nk`; BLMPOP
// has the timeout before it, which Redis parses last (after numkeys, the side and COUNT).
// -> [key, [elements]] or a null array.
void mpop_generic(CommandContext& cx, size_t nk, bool blocking) {
  int64_t numkeys;
  if (!parse_int64(cx.arg(nk), &numkeys) || numkeys <= 0) {
    return cx.reply().error("ERR numkeys should be greater than 0");
  }
  const size_t where = nk + 1;
  if (static_cast<uint64_t>(numkeys) >= cx.argc() - where) return cx.reply().error(kErrSyntax);
  const size_t where_idx = where + static_cast<size_t>(numkeys);
  End end;
  if (!parse_end(cx, where_idx, &end)) return cx.reply().error(kErrSyntax);
  int64_t count = -1;
  for (size_t j = where_idx + 1; j < cx.argc(); j++) {
    if (count < 0 && j + 1 < cx.argc() && cx.is_arg(j, "count")) {
      if (!parse_int64(cx.arg(++j), &count) || count <= 0) {
        return cx.reply().error("ERR count should be greater than 0");
      }
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  if (count < 0) count = 1;
  int64_t deadline = -1;
  if (blocking && !blocking_timeout_arg(cx, 1, &deadline)) return;
  for (size_t i = where; i < where_idx; i++) {
    Db::Slot slot = cx.db().find_for_write(cx.key(i));
    if (!slot) continue;
    if (!cx.check_type(slot.obj(), Type::kList)) return;
    const size_t len = ListType::size(*slot);
    const size_t n = static_cast<uint64_t>(count) < len ? static_cast<size_t>(count) : len;
    cx.reply().array(2);
    cx.reply().bulk(cx.arg(i));
    cx.reply().array(n);
    pop_and_report(cx, slot, i, end, n);
    // Propagated as LPOP / RPOP key count, with the number actually popped (Redis 7).
    if (propagating()) cx.propagate_as({end == End::kHead ? "LPOP" : "RPOP", cx.arg(i), IntArg(static_cast<int64_t>(n))});
    return;
  }
  if (deadline < 0 || !blocking_may_block(cx)) return cx.reply().null_array();
  std::vector<size_t> keys;
  for (size_t i = where; i < where_idx; i++) keys.push_back(i);
  block_on_keys(cx, keys, Type::kList, deadline);
}

void cmd_lmpop(CommandContext& cx) { mpop_generic(cx, 1, false); }
void cmd_blmpop(CommandContext& cx) { mpop_generic(cx, 2, true); }

constexpr uint32_t kRW = kWrite | kDenyOom;

CommandSpec kListCommands[] = {
    {.name = "lpush", .handler = cmd_lpush, .arity = -3, .flags = kRW | kFast, .acl = kAclList, .group = "list",
     .summary = "Prepends elements to a list, creating it if needed.", .since = "1.0.0", .complexity = "O(1) per element added.",
     .keys = {ks(kKsRW | kKsInsert)}},
    {.name = "rpush", .handler = cmd_rpush, .arity = -3, .flags = kRW | kFast, .acl = kAclList, .group = "list",
     .summary = "Appends elements to a list, creating it if needed.", .since = "1.0.0", .complexity = "O(1) per element added.",
     .keys = {ks(kKsRW | kKsInsert)}},
    {.name = "lpushx", .handler = cmd_lpushx, .arity = -3, .flags = kRW | kFast, .acl = kAclList, .group = "list",
     .summary = "Prepends elements to a list only when it exists.", .since = "2.2.0", .complexity = "O(1) per element added.",
     .keys = {ks(kKsRW | kKsInsert)}},
    {.name = "rpushx", .handler = cmd_rpushx, .arity = -3, .flags = kRW | kFast, .acl = kAclList, .group = "list",
     .summary = "Appends elements to a list only when it exists.", .since = "2.2.0", .complexity = "O(1) per element added.",
     .keys = {ks(kKsRW | kKsInsert)}},
    {.name = "lpop", .handler = cmd_lpop, .arity = -2, .flags = kWrite | kFast, .acl = kAclList, .group = "list",
     .summary = "Removes and returns elements from the head of a list; an emptied list is deleted.", .since = "1.0.0", .complexity = "O(N) for N elements returned.",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete)}},
    {.name = "rpop", .handler = cmd_rpop, .arity = -2, .flags = kWrite | kFast, .acl = kAclList, .group = "list",
     .summary = "Removes and returns elements from the tail of a list; an emptied list is deleted.", .since = "1.0.0", .complexity = "O(N) for N elements returned.",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete)}},
    {.name = "llen", .handler = cmd_llen, .arity = 2, .flags = kReadOnly | kFast, .acl = kAclList, .group = "list",
     .summary = "Returns the number of elements of a list.", .since = "1.0.0", .complexity = "O(1)",
     .keys = {ks(kKsRO)}},
    {.name = "lindex", .handler = cmd_lindex, .arity = 3, .flags = kReadOnly, .acl = kAclList, .group = "list",
     .summary = "Returns the element at an index of a list.", .since = "1.0.0", .complexity = "O(N) for N elements walked to reach the index.",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "lset", .handler = cmd_lset, .arity = 4, .flags = kRW, .acl = kAclList, .group = "list",
     .summary = "Replaces the element at an index of a list.", .since = "1.0.0", .complexity = "O(N) for N elements walked to reach the index.",
     .keys = {ks(kKsRW | kKsUpdate)}},
    {.name = "lrange", .handler = cmd_lrange, .arity = 4, .flags = kReadOnly, .acl = kAclList, .group = "list",
     .summary = "Returns a range of elements of a list.", .since = "1.0.0", .complexity = "O(S+N): S the start offset, N the elements returned.",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "ltrim", .handler = cmd_ltrim, .arity = 4, .flags = kWrite, .acl = kAclList, .group = "list",
     .summary = "Keeps only a range of elements of a list; an emptied list is deleted.", .since = "1.0.0", .complexity = "O(N) for N elements removed.",
     .keys = {ks(kKsRW | kKsDelete)}},
    {.name = "lrem", .handler = cmd_lrem, .arity = 4, .flags = kWrite, .acl = kAclList, .group = "list",
     .summary = "Removes elements equal to a value from a list.", .since = "1.0.0", .complexity = "O(N+M): N the list length, M the elements removed.",
     .keys = {ks(kKsRW | kKsDelete)}},
    {.name = "linsert", .handler = cmd_linsert, .arity = 5, .flags = kRW, .acl = kAclList, .group = "list",
     .summary = "Inserts an element before or after another one in a list.", .since = "2.2.0", .complexity = "O(N) for N elements walked to the pivot.",
     .keys = {ks(kKsRW | kKsInsert)}},
    {.name = "lpos", .handler = cmd_lpos, .arity = -3, .flags = kReadOnly, .acl = kAclList, .group = "list",
     .summary = "Returns the indexes of the elements equal to a value in a list.", .since = "6.0.6", .complexity = "O(N) for a list of N elements (bounded by MAXLEN).",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "lmove", .handler = cmd_lmove, .arity = 5, .flags = kRW, .acl = kAclList, .group = "list",
     .summary = "Pops an element from one end of a list and pushes it to an end of another.", .since = "6.2.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete), ks(kKsRW | kKsInsert, 2)}},
    {.name = "rpoplpush", .handler = cmd_rpoplpush, .arity = 3, .flags = kRW, .acl = kAclList, .group = "list",
     .summary = "Pops the last element of a list and pushes it at the head of another.", .since = "1.2.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete), ks(kKsRW | kKsInsert, 2)}},
    {.name = "lmpop", .handler = cmd_lmpop, .arity = -4, .flags = kWrite, .acl = kAclList, .group = "list",
     .summary = "Pops elements from the first non-empty list of several.", .since = "7.0.0", .complexity = "O(N+M): N the keys given, M the elements returned.",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete, 1, fk_keynum(0, 1, 1))}},
    {.name = "blpop", .handler = cmd_blpop, .arity = -3, .flags = kWrite | kBlocking, .acl = kAclList, .group = "list",
     .summary = "Pops the first element of the first non-empty list, waiting for one if none.", .since = "2.0.0", .complexity = "O(N) for N keys given.",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete, 1, fk_range(-2, 1, 0))}},
    {.name = "brpop", .handler = cmd_brpop, .arity = -3, .flags = kWrite | kBlocking, .acl = kAclList, .group = "list",
     .summary = "Pops the last element of the first non-empty list, waiting for one if none.", .since = "2.0.0", .complexity = "O(N) for N keys given.",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete, 1, fk_range(-2, 1, 0))}},
    {.name = "blmove", .handler = cmd_blmove, .arity = 6, .flags = kRW | kBlocking, .acl = kAclList, .group = "list",
     .summary = "LMOVE that waits for the source list to exist.", .since = "6.2.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete), ks(kKsRW | kKsInsert, 2)}},
    {.name = "brpoplpush", .handler = cmd_brpoplpush, .arity = 4, .flags = kRW | kBlocking, .acl = kAclList, .group = "list",
     .summary = "RPOPLPUSH that waits for the source list to exist.", .since = "2.2.0", .complexity = "O(1)",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete), ks(kKsRW | kKsInsert, 2)}},
    {.name = "blmpop", .handler = cmd_blmpop, .arity = -5, .flags = kWrite | kBlocking, .acl = kAclList, .group = "list",
     .summary = "LMPOP that waits for one of the lists to exist.", .since = "7.0.0", .complexity = "O(N+M): N the keys given, M the elements returned.",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete, 2, fk_keynum(0, 1, 1))}},
};

}  // namespace

std::span<CommandSpec> list_commands() { return kListCommands; }

}  // namespace keel
