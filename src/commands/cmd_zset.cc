// Sorted-set commands: ZADD ZINCRBY ZREM ZCARD ZSCORE ZMSCORE ZRANK ZREVRANK ZCOUNT ZLEXCOUNT
// ZRANGE ZRANGESTORE ZREVRANGE ZRANGEBYSCORE ZREVRANGEBYSCORE ZRANGEBYLEX ZREVRANGEBYLEX
// ZREMRANGEBYRANK/SCORE/LEX ZPOPMIN ZPOPMAX ZMPOP BZPOPMIN BZPOPMAX BZMPOP ZRANDMEMBER ZUNION
// ZINTER ZDIFF ZUNIONSTORE ZINTERSTORE ZDIFFSTORE ZINTERCARD ZSCAN. Encodings live in
// types/zset_type.cc; handlers validate everything first, look each key up once, mutate through
// ZsetType and Db, emit their events and reply once.
// The blocking pops park the session through commands/blocking.h and are run again when a
// key they wait for becomes a zset.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "base/glob.h"
#include "base/numbers.h"
#include "commands/blocking.h"
#include "commands/command.h"
#include "commands/command_table.h"
#include "commands/scan_cursor.h"
#include "commands/zset_args.h"
#include "types/set_type.h"
#include "types/zset_type.h"

namespace keel {
namespace {

constexpr std::string_view kErrNaN = "ERR resulting score is not a number (NaN)";
constexpr std::string_view kErrMinMaxFloat = "ERR min or max is not a float";
constexpr std::string_view kErrMinMaxLex = "ERR min or max not valid string range item";

// Writes (member[, score]) items: RESP2 flat, RESP3 [member, score] pairs when nested.
struct PairWriter {
  ReplyWriter& w;
  bool scores = false;
  bool nested = false;
  size_t count = 0;

  PairWriter(ReplyWriter& writer, bool with_scores, bool nest)
      : w(writer), scores(with_scores), nested(with_scores && nest) {}
  static void emit(void* ctx, std::string_view m, double s) {
    auto* p = static_cast<PairWriter*>(ctx);
    if (p->nested) p->w.array(2);
    p->w.bulk(m);
    if (p->scores) p->w.dbl(s);
    p->count++;
  }
  // Elements of the outer array for n items.
  size_t elems(size_t n) const { return scores && !nested ? 2 * n : n; }
};

// Collects emitted items into an accumulator (ZRANGESTORE).
void emit_to_acc(void* ctx, std::string_view m, double s) {
  bool created;
  static_cast<ZsetAccumulator*>(ctx)->upsert(m, s, &created);
}

// Redis's index normalisation for rank ranges; false when the range is empty.
bool normalize_ranks(int64_t start, int64_t end, size_t len, size_t* s, size_t* e) {
  const int64_t n = static_cast<int64_t>(len);
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0) start = 0;
  if (start > end || start >= n) return false;
  if (end >= n) end = n - 1;
  *s = static_cast<size_t>(start);
  *e = static_cast<size_t>(end);
  return true;
}

// Stores a computed result at `dst` (or deletes dst when the result is empty), emits `event`
// (or "del") and replies the result's size.
void store_result(CommandContext& cx, size_t dst_idx, ZsetAccumulator& acc,
                  std::string_view event) {
  const KeyRef dst = cx.key(dst_idx);
  Db::Slot slot = cx.db().find_for_write(dst);
  const size_t n = acc.size();
  if (n == 0) {
    if (slot) {
      cx.db().remove(slot);
      cx.notify(kNotifyGeneric, "del", dst.name);
    }
    return cx.reply().integer(0);
  }
  Object* o = acc.build(dst.name);
  if (slot) {
    cx.db().overwrite(slot, o);
  } else {
    cx.db().insert(slot, o);
  }
  cx.notify(kNotifyZset, event, dst.name);
  cx.reply().integer(static_cast<int64_t>(n));
}

// ---- ZADD / ZINCRBY ---------------------------------------------------------------------------

// Shared by ZADD and ZINCRBY. `first` is the index of the first score; flags as ZsetType.
void zadd_generic(CommandContext& cx, size_t first, int flags, bool ch) {
  const size_t pairs = (cx.argc() - first) / 2;
  const bool incr = flags & ZsetType::kIncr;
  // Parse every score before touching the key (no allocation for up to 16 pairs).
  double scores_stack[16];
  std::vector<double> scores_heap;
  double* scores = scores_stack;
  if (pairs > 16) {
    scores_heap.resize(pairs);
    scores = scores_heap.data();
  }
  size_t max_len = 0;
  for (size_t i = 0; i < pairs; ++i) {
    if (!parse_double(cx.arg(first + 2 * i), &scores[i])) {
      return cx.reply().error(kErrNotFloat);
    }
    max_len = std::max(max_len, cx.arg(first + 2 * i + 1).size());
  }
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (slot && !cx.check_type(slot.obj(), Type::kZset)) return;
  size_t added = 0, updated = 0, processed = 0;
  double last_score = 0;
  auto apply = [&](Object& o) {
    for (size_t i = 0; i < pairs; ++i) {
      double ns = 0;
      const auto r = ZsetType::add(o, scores[i], cx.arg(first + 2 * i + 1), flags, &ns);
      switch (r) {
        case ZsetType::AddResult::kNaN: return false;
        case ZsetType::AddResult::kNop: break;
        case ZsetType::AddResult::kAdded: ++added, ++processed, last_score = ns; break;
        case ZsetType::AddResult::kUpdated: ++updated, ++processed, last_score = ns; break;
        case ZsetType::AddResult::kSame: ++processed, last_score = ns; break;
      }
    }
    return true;
  };
  bool ok = true;
  if (!slot) {
    if (flags & ZsetType::kXx) {
      if (incr) return cx.reply().null();
      return cx.reply().integer(0);
    }
    Object* o = ZsetType::create(cx.arg(1), pairs, max_len);
    ok = apply(*o);  // a new member never yields NaN
    cx.db().insert(slot, o);
  } else {
    const int64_t old_len = static_cast<int64_t>(ZsetType::size(*slot));
    ZsetType::maybe_convert(*slot, pairs);  // by count only: XX may skip a long member
    ok = apply(*slot);
    if (added || updated) cx.db().length_changed(slot, old_len);
  }
  if (added || updated) cx.notify(kNotifyZset, incr ? "zincr" : "zadd", cx.arg(1));
  cx.set_dirty(static_cast<int64_t>(added + updated));  // Redis counts members added or changed
  if (!ok) return cx.reply().error(kErrNaN);
  if (incr) {
    if (processed) return cx.reply().dbl(last_score);
    return cx.reply().null();
  }
  cx.reply().integer(static_cast<int64_t>(ch ? added + updated : added));
}

}  // namespace

size_t parse_zadd_flags(std::span<const std::string_view> args, int* flags, bool* ch) {
  size_t i = 2;
  for (; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (equals_nocase(a, "nx")) {
      *flags |= ZsetType::kNx;
    } else if (equals_nocase(a, "xx")) {
      *flags |= ZsetType::kXx;
    } else if (equals_nocase(a, "gt")) {
      *flags |= ZsetType::kGt;
    } else if (equals_nocase(a, "lt")) {
      *flags |= ZsetType::kLt;
    } else if (equals_nocase(a, "ch")) {
      *ch = true;
    } else if (equals_nocase(a, "incr")) {
      *flags |= ZsetType::kIncr;
    } else {
      break;
    }
  }
  return i;
}

namespace {

// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]. ZINCRBY is the same
// command with INCR preset (zaddGenericCommand): it reads the same flag words, so
// "ZINCRBY key NX 1" is a syntax error (one argument left), not a bad increment.
void zadd_command(CommandContext& cx, int flags) {
  bool ch = false;
  const size_t i = parse_zadd_flags(cx.args(), &flags, &ch);
  const size_t elements = cx.argc() - i;
  if (elements == 0 || elements % 2 != 0) return cx.reply().error(kErrSyntax);
  const bool nx = flags & ZsetType::kNx, xx = flags & ZsetType::kXx, gt = flags & ZsetType::kGt,
             lt = flags & ZsetType::kLt;
  if (nx && xx) return cx.reply().error("ERR XX and NX options at the same time are not compatible");
  if ((gt && nx) || (lt && nx) || (gt && lt)) {
    return cx.reply().error("ERR GT, LT, and/or NX options at the same time are not compatible");
  }
  if ((flags & ZsetType::kIncr) && elements > 2) {
    return cx.reply().error("ERR INCR option supports a single increment-element pair");
  }
  zadd_generic(cx, i, flags, ch);
}

void cmd_zadd(CommandContext& cx) { zadd_command(cx, 0); }

// ZINCRBY key increment member -> the new score.
void cmd_zincrby(CommandContext& cx) { zadd_command(cx, ZsetType::kIncr); }

// ---- removal ----------------------------------------------------------------------------------

// ZREM key member [member ...] -> members removed.
void cmd_zrem(CommandContext& cx) {
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) return cx.reply().integer(0);
  if (!cx.check_type(slot.obj(), Type::kZset)) return;
  const int64_t old_len = static_cast<int64_t>(ZsetType::size(*slot));
  size_t deleted = 0;
  for (size_t i = 2; i < cx.argc(); ++i) deleted += ZsetType::remove(*slot, cx.arg(i));
  if (deleted > 0) {
    ZsetType::after_removals(*slot);
    const bool removed = cx.db().length_changed(slot, old_len);
    cx.set_dirty(static_cast<int64_t>(deleted));
    cx.notify(kNotifyZset, "zrem", cx.arg(1));
    if (removed) cx.notify(kNotifyGeneric, "del", cx.arg(1));
  }
  cx.reply().integer(static_cast<int64_t>(deleted));
}

enum class RangeKind { kRank, kScore, kLex };

// ZREMRANGEBYRANK / ZREMRANGEBYSCORE / ZREMRANGEBYLEX key min max
void zremrange_generic(CommandContext& cx, RangeKind kind, std::string_view event) {
  int64_t start = 0, end = 0;
  ZsetRange range;
  ZsetLexRange lex;
  switch (kind) {
    case RangeKind::kRank:
      if (!cx.int_arg(2, &start) || !cx.int_arg(3, &end)) return;
      break;
    case RangeKind::kScore:
      if (!parse_zset_range(cx.arg(2), cx.arg(3), &range)) return cx.reply().error(kErrMinMaxFloat);
      break;
    case RangeKind::kLex:
      if (!parse_zset_lex_range(cx.arg(2), cx.arg(3), &lex)) return cx.reply().error(kErrMinMaxLex);
      break;
  }
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) return cx.reply().integer(0);
  if (!cx.check_type(slot.obj(), Type::kZset)) return;
  const size_t len = ZsetType::size(*slot);
  size_t deleted = 0;
  switch (kind) {
    case RangeKind::kRank: {
      size_t s, e;
      if (normalize_ranks(start, end, len, &s, &e)) {
        deleted = ZsetType::remove_range_by_rank(*slot, s, e);
      }
      break;
    }
    case RangeKind::kScore: deleted = ZsetType::remove_range_by_score(*slot, range); break;
    case RangeKind::kLex: deleted = ZsetType::remove_range_by_lex(*slot, lex); break;
  }
  if (deleted > 0) {
    ZsetType::after_removals(*slot);  // one shrink check for the whole range
    const bool removed = cx.db().length_changed(slot, static_cast<int64_t>(len));
    cx.set_dirty(static_cast<int64_t>(deleted));
    cx.notify(kNotifyZset, event, cx.arg(1));
    if (removed) cx.notify(kNotifyGeneric, "del", cx.arg(1));
  }
  cx.reply().integer(static_cast<int64_t>(deleted));
}

void cmd_zremrangebyrank(CommandContext& cx) {
  zremrange_generic(cx, RangeKind::kRank, "zremrangebyrank");
}
void cmd_zremrangebyscore(CommandContext& cx) {
  zremrange_generic(cx, RangeKind::kScore, "zremrangebyscore");
}
void cmd_zremrangebylex(CommandContext& cx) {
  zremrange_generic(cx, RangeKind::kLex, "zremrangebylex");
}

// ---- simple reads -----------------------------------------------------------------------------

// ZCARD key
void cmd_zcard(CommandContext& cx) { cx.reply_collection_length(Type::kZset); }

// ZSCORE key member -> score or null.
void cmd_zscore(CommandContext& cx) {
  const Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().null();
  if (!cx.check_type(o, Type::kZset)) return;
  double s;
  if (!ZsetType::score(*o, cx.arg(2), &s)) return cx.reply().null();
  cx.reply().dbl(s);
}

// ZMSCORE key member [member ...] -> array of score or null.
void cmd_zmscore(CommandContext& cx) {
  const Object* o = cx.db().find(cx.key(1));
  if (o && !cx.check_type(o, Type::kZset)) return;
  cx.reply().array(cx.argc() - 2);
  for (size_t i = 2; i < cx.argc(); ++i) {
    double s;
    if (o && ZsetType::score(*o, cx.arg(i), &s)) {
      cx.reply().dbl(s);
    } else {
      cx.reply().null();
    }
  }
}

// ZRANK / ZREVRANK key member [WITHSCORE]
void zrank_generic(CommandContext& cx, bool rev) {
  bool withscore = false;
  if (cx.argc() > 4) return cx.reply_arity_error();
  if (cx.argc() == 4) {
    if (!cx.is_arg(3, "withscore")) return cx.reply().error(kErrSyntax);
    withscore = true;
  }
  const Object* o = cx.db().find(cx.key(1));
  if (o && !cx.check_type(o, Type::kZset)) return;
  size_t rank;
  double score;
  if (!o || !ZsetType::rank(*o, cx.arg(2), rev, &rank, &score)) {
    return withscore ? cx.reply().null_array() : cx.reply().null();
  }
  if (withscore) cx.reply().array(2);
  cx.reply().integer(static_cast<int64_t>(rank));
  if (withscore) cx.reply().dbl(score);
}
void cmd_zrank(CommandContext& cx) { zrank_generic(cx, false); }
void cmd_zrevrank(CommandContext& cx) { zrank_generic(cx, true); }

// ZCOUNT key min max
void cmd_zcount(CommandContext& cx) {
  ZsetRange range;
  if (!parse_zset_range(cx.arg(2), cx.arg(3), &range)) return cx.reply().error(kErrMinMaxFloat);
  const Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().integer(0);
  if (!cx.check_type(o, Type::kZset)) return;
  cx.reply().integer(static_cast<int64_t>(ZsetType::count_in_range(*o, range)));
}

// ZLEXCOUNT key min max
void cmd_zlexcount(CommandContext& cx) {
  ZsetLexRange range;
  if (!parse_zset_lex_range(cx.arg(2), cx.arg(3), &range)) return cx.reply().error(kErrMinMaxLex);
  const Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().integer(0);
  if (!cx.check_type(o, Type::kZset)) return;
  cx.reply().integer(static_cast<int64_t>(ZsetType::count_in_lex_range(*o, range)));
}

// ---- ZRANGE and its older forms ---------------------------------------------------------------

enum class Dir { kAuto, kForward, kReverse };

// The common body of ZRANGE, ZRANGESTORE, ZREVRANGE, Z[REV]RANGEBYSCORE, Z[REV]RANGEBYLEX, in
// Redis's order of checks: options, option conflicts, the range, then the key.
// `src` is the key's index (min and max follow it); `dst` is ZRANGESTORE's destination or 0.
void zrange_generic(CommandContext& cx, size_t src, size_t dst, RangeKind kind, bool kind_fixed,
                    Dir dir) {
  bool withscores = false;
  int64_t offset = 0, limit = -1;
  for (size_t j = src + 3; j < cx.argc(); ++j) {
    const size_t left = cx.argc() - j - 1;
    if (dst == 0 && cx.is_arg(j, "withscores")) {
      withscores = true;
    } else if (cx.is_arg(j, "limit") && left >= 2) {
      if (!cx.int_arg(j + 1, &offset) || !cx.int_arg(j + 2, &limit)) return;
      j += 2;
    } else if (dir == Dir::kAuto && cx.is_arg(j, "rev")) {
      dir = Dir::kReverse;
    } else if (!kind_fixed && cx.is_arg(j, "bylex")) {
      kind = RangeKind::kLex;
      kind_fixed = true;
    } else if (!kind_fixed && cx.is_arg(j, "byscore")) {
      kind = RangeKind::kScore;
      kind_fixed = true;
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  // Redis tests the parsed count, not the presence of LIMIT: "LIMIT 5 -1" (count -1 means all)
  // is accepted with a rank range and ignored.
  if (limit != -1 && kind == RangeKind::kRank) {
    return cx.reply().error(
        "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
  }
  if (withscores && kind == RangeKind::kLex) {
    return cx.reply().error(
        "ERR syntax error, WITHSCORES not supported in combination with BYLEX");
  }
  const bool rev = dir == Dir::kReverse;
  size_t min_idx = src + 1, max_idx = src + 2;
  if (rev && kind != RangeKind::kRank) std::swap(min_idx, max_idx);
  int64_t start = 0, end = 0;
  ZsetRange range;
  ZsetLexRange lex;
  switch (kind) {
    case RangeKind::kRank:
      if (!cx.int_arg(min_idx, &start) || !cx.int_arg(max_idx, &end)) return;
      break;
    case RangeKind::kScore:
      if (!parse_zset_range(cx.arg(min_idx), cx.arg(max_idx), &range)) {
        return cx.reply().error(kErrMinMaxFloat);
      }
      break;
    case RangeKind::kLex:
      if (!parse_zset_lex_range(cx.arg(min_idx), cx.arg(max_idx), &lex)) {
        return cx.reply().error(kErrMinMaxLex);
      }
      break;
  }
  const Object* o = cx.db().find(cx.key(src));
  if (o && !cx.check_type(o, Type::kZset)) return;

  if (dst != 0) {  // ZRANGESTORE: collect, then store
    ZsetAccumulator acc;
    if (o) {
      switch (kind) {
        case RangeKind::kRank: {
          size_t s, e;
          if (normalize_ranks(start, end, ZsetType::size(*o), &s, &e)) {
            ZsetType::range_by_rank(*o, s, e, rev, emit_to_acc, &acc);
          }
          break;
        }
        case RangeKind::kScore:
          if (offset >= 0) {
            ZsetType::range_by_score(*o, range, rev, static_cast<size_t>(offset), limit,
                                     emit_to_acc, &acc);
          }
          break;
        case RangeKind::kLex:
          if (offset >= 0) {
            ZsetType::range_by_lex(*o, lex, rev, static_cast<size_t>(offset), limit, emit_to_acc,
                                   &acc);
          }
          break;
      }
    }
    return store_result(cx, dst, acc, "zrangestore");
  }

  PairWriter out(cx.reply(), withscores, cx.reply().resp() == 3);
  if (!o) return cx.reply().array(0);
  if (kind == RangeKind::kRank) {
    size_t s, e;
    if (!normalize_ranks(start, end, ZsetType::size(*o), &s, &e)) return cx.reply().array(0);
    cx.reply().array(out.elems(e - s + 1));
    return ZsetType::range_by_rank(*o, s, e, rev, PairWriter::emit, &out);
  }
  if (offset < 0) return cx.reply().array(0);
  const size_t token = cx.reply().begin_deferred();
  if (kind == RangeKind::kScore) {
    ZsetType::range_by_score(*o, range, rev, static_cast<size_t>(offset), limit, PairWriter::emit,
                             &out);
  } else {
    ZsetType::range_by_lex(*o, lex, rev, static_cast<size_t>(offset), limit, PairWriter::emit,
                           &out);
  }
  cx.reply().end_deferred_array(token, out.elems(out.count));
}

void cmd_zrange(CommandContext& cx) {
  zrange_generic(cx, 1, 0, RangeKind::kRank, false, Dir::kAuto);
}
void cmd_zrangestore(CommandContext& cx) {
  zrange_generic(cx, 2, 1, RangeKind::kRank, false, Dir::kAuto);
}
void cmd_zrevrange(CommandContext& cx) {
  zrange_generic(cx, 1, 0, RangeKind::kRank, true, Dir::kReverse);
}
void cmd_zrangebyscore(CommandContext& cx) {
  zrange_generic(cx, 1, 0, RangeKind::kScore, true, Dir::kForward);
}
void cmd_zrevrangebyscore(CommandContext& cx) {
  zrange_generic(cx, 1, 0, RangeKind::kScore, true, Dir::kReverse);
}
void cmd_zrangebylex(CommandContext& cx) {
  zrange_generic(cx, 1, 0, RangeKind::kLex, true, Dir::kForward);
}
void cmd_zrevrangebylex(CommandContext& cx) {
  zrange_generic(cx, 1, 0, RangeKind::kLex, true, Dir::kReverse);
}

// ---- pops -------------------------------------------------------------------------------------

// Pops up to `count` from the zset at slot (which has members) and writes the items; emits the
// event (and "del" when emptied). The caller wrote any enclosing headers. `key` is the argument
// view (it outlives the object).
void pop_from(CommandContext& cx, Db::Slot& slot, std::string_view key, bool max, size_t count,
              PairWriter& out) {
  const int64_t old_len = static_cast<int64_t>(ZsetType::size(*slot));
  ZsetType::pop(*slot, max, count, PairWriter::emit, &out);
  ZsetType::after_removals(*slot);
  const bool removed = cx.db().length_changed(slot, old_len);
  cx.set_dirty(static_cast<int64_t>(count));  // Redis counts every member popped
  cx.notify(kNotifyZset, max ? "zpopmax" : "zpopmin", key);
  if (removed) cx.notify(kNotifyGeneric, "del", key);
}

// ZPOPMIN / ZPOPMAX key [count]
void zpop_generic(CommandContext& cx, bool max) {
  if (cx.argc() > 3) return cx.reply().error(kErrSyntax);
  int64_t count = 1;
  const bool has_count = cx.argc() == 3;
  if (has_count) {
    if (!parse_int64(cx.arg(2), &count) || count < 0) return cx.reply().error(kErrPositive);
  }
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) return cx.reply().array(0);
  if (!cx.check_type(slot.obj(), Type::kZset)) return;
  if (count == 0) return cx.reply().array(0);
  const size_t n = std::min(static_cast<size_t>(count), ZsetType::size(*slot));
  PairWriter out(cx.reply(), true, has_count && cx.reply().resp() == 3);
  cx.reply().array(out.elems(n));
  pop_from(cx, slot, cx.arg(1), max, n, out);
}
void cmd_zpopmin(CommandContext& cx) { zpop_generic(cx, false); }
void cmd_zpopmax(CommandContext& cx) { zpop_generic(cx, true); }

// Parses "numkeys key... MIN|MAX [COUNT n]" from `idx`; false after replying an error.
bool parse_mpop(CommandContext& cx, size_t idx, size_t* numkeys, bool* max, int64_t* count) {
  int64_t nk;
  if (!parse_int64(cx.arg(idx), &nk) || nk <= 0) {
    cx.reply().error("ERR numkeys should be greater than 0");
    return false;
  }
  if (static_cast<uint64_t>(nk) >= cx.argc() - idx - 1) {
    cx.reply().error(kErrSyntax);
    return false;
  }
  const size_t where = idx + 1 + static_cast<size_t>(nk);
  if (cx.is_arg(where, "min")) {
    *max = false;
  } else if (cx.is_arg(where, "max")) {
    *max = true;
  } else {
    cx.reply().error(kErrSyntax);
    return false;
  }
  *count = 1;
  bool seen_count = false;
  for (size_t j = where + 1; j < cx.argc(); ++j) {
    if (!seen_count && cx.is_arg(j, "count") && j + 1 < cx.argc()) {
      if (!parse_int64(cx.arg(j + 1), count) || *count <= 0) {
        cx.reply().error("ERR count should be greater than 0");
        return false;
      }
      seen_count = true;
      ++j;
    } else {
      cx.reply().error(kErrSyntax);
      return false;
    }
  }
  *numkeys = static_cast<size_t>(nk);
  return true;
}

// Pops from the first non-empty key among [first, first + numkeys): true when it replied
// (items or an error); false when every key was empty or missing (nothing written). Propagated
// as the plain pop it did: ZPOPMIN key (BZPOPMIN/BZPOPMAX), ZPOPMIN key count (ZMPOP, BZMPOP,
// with the number popped), as Redis 7.
bool mpop_first_nonempty(CommandContext& cx, size_t first, size_t numkeys, bool max,
                         int64_t count, bool flat_single) {
  for (size_t i = first; i < first + numkeys; ++i) {
    Db::Slot slot = cx.db().find_for_write(cx.key(i));
    if (!slot) continue;
    if (!cx.check_type(slot.obj(), Type::kZset)) return true;
    const size_t n = std::min(static_cast<size_t>(count), ZsetType::size(*slot));
    if (flat_single) {  // BZPOPMIN/BZPOPMAX: [key, member, score]
      cx.reply().array(3);
      cx.reply().bulk(cx.arg(i));
      PairWriter out(cx.reply(), true, false);
      pop_from(cx, slot, cx.arg(i), max, 1, out);
      cx.propagate_as({max ? "ZPOPMAX" : "ZPOPMIN", cx.arg(i)});
      return true;
    }
    cx.reply().array(2);
    cx.reply().bulk(cx.arg(i));
    PairWriter out(cx.reply(), true, true);
    cx.reply().array(n);
    pop_from(cx, slot, cx.arg(i), max, n, out);
    if (propagating()) cx.propagate_as({max ? "ZPOPMAX" : "ZPOPMIN", cx.arg(i), IntArg(static_cast<int64_t>(n))});
    return true;
  }
  return false;
}

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]
void cmd_zmpop(CommandContext& cx) {
  size_t numkeys;
  bool max;
  int64_t count;
  if (!parse_mpop(cx, 1, &numkeys, &max, &count)) return;
  if (!mpop_first_nonempty(cx, 2, numkeys, max, count, false)) cx.reply().null_array();
}

// Parks the session on the keys at [first, first + numkeys) (nothing is written): it is run
// again when one of them becomes a zset, or gets the null-array timeout reply. Inside MULTI or
// a script it replies the timeout answer at once.
void block_or_timeout(CommandContext& cx, size_t first, size_t numkeys, int64_t deadline) {
  if (!blocking_may_block(cx)) return cx.reply().null_array();
  std::vector<size_t> keys(numkeys);  // blocking path only: an allocation is fine here
  for (size_t i = 0; i < numkeys; ++i) keys[i] = first + i;
  block_on_keys(cx, keys, Type::kZset, deadline);
}

// BZPOPMIN / BZPOPMAX key [key ...] timeout -> [key, member, score], or null on timeout.
void bzpop_generic(CommandContext& cx, bool max) {
  int64_t deadline;
  if (!blocking_timeout_arg(cx, cx.argc() - 1, &deadline)) return;
  const size_t numkeys = cx.argc() - 2;
  if (mpop_first_nonempty(cx, 1, numkeys, max, 1, true)) return;
  block_or_timeout(cx, 1, numkeys, deadline);
}
void cmd_bzpopmin(CommandContext& cx) { bzpop_generic(cx, false); }
void cmd_bzpopmax(CommandContext& cx) { bzpop_generic(cx, true); }

// BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count] (Redis parses the timeout last).
void cmd_bzmpop(CommandContext& cx) {
  size_t numkeys;
  bool max;
  int64_t count;
  if (!parse_mpop(cx, 2, &numkeys, &max, &count)) return;
  int64_t deadline;
  if (!blocking_timeout_arg(cx, 1, &deadline)) return;
  if (mpop_first_nonempty(cx, 3, numkeys, max, count, false)) return;
  block_or_timeout(cx, 3, numkeys, deadline);
}

// ---- ZRANDMEMBER / ZSCAN ----------------------------------------------------------------------

// ZRANDMEMBER key [count [WITHSCORES]]
void cmd_zrandmember(CommandContext& cx) {
  if (cx.argc() == 2) {
    const Object* o = cx.db().find(cx.key(1));
    if (!o) return cx.reply().null();
    if (!cx.check_type(o, Type::kZset)) return;
    PairWriter out(cx.reply(), false, false);
    return ZsetType::random_members(*o, 1, true, PairWriter::emit, &out);
  }
  int64_t count;
  bool withscores;
  if (!cx.random_count_args("withscores", &count, &withscores)) return;
  const Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().array(0);
  if (!cx.check_type(o, Type::kZset)) return;
  const bool unique = count >= 0;
  uint64_t n = unique ? static_cast<uint64_t>(count) : static_cast<uint64_t>(-count);
  if (unique) n = std::min<uint64_t>(n, ZsetType::size(*o));
  PairWriter out(cx.reply(), withscores, cx.reply().resp() == 3);
  cx.reply().array(out.elems(n));
  ZsetType::random_members(*o, n, unique, PairWriter::emit, &out);
}

// ZSCAN key cursor [MATCH pattern] [COUNT count] -> [next cursor, [member, score, ...]].
// A listpack zset is returned whole with cursor 0; a skiplist walks its table's buckets.
void cmd_zscan(CommandContext& cx) {
  uint64_t cursor = 0;
  if (!parse_scan_cursor(cx.arg(2), &cursor)) return cx.reply().error(kErrCursor);
  const Object* o = cx.db().find(cx.key(1));
  if (!o) {
    cx.reply().array(2);
    cx.reply().bulk("0");
    return cx.reply().array(0);
  }
  if (!cx.check_type(o, Type::kZset)) return;
  int64_t count = 10;
  std::string_view pattern;
  bool use_pattern = false;
  for (size_t i = 3; i < cx.argc();) {
    const bool has_value = i + 1 < cx.argc();
    if (cx.is_arg(i, "count") && has_value) {
      if (!cx.int_arg(i + 1, &count)) return;
      if (count < 1) return cx.reply().error(kErrSyntax);
      i += 2;
    } else if (cx.is_arg(i, "match") && has_value) {
      pattern = cx.arg(i + 1);
      use_pattern = !glob_matches_all(pattern);
      i += 2;
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  // The cursor comes first in the reply but is known only after the walk: collect the items.
  struct Scan {
    std::string_view pattern;
    bool use_pattern;
    std::string arena;
    std::vector<std::pair<size_t, size_t>> members;
    std::vector<double> scores;
  } st{pattern, use_pattern, {}, {}, {}};
  const uint64_t next = ZsetType::scan(
      *o, cursor, count,
      [](void* c, std::string_view m, double s) {
        auto* p = static_cast<Scan*>(c);
        if (p->use_pattern && !glob_match(p->pattern, m)) return;
        p->members.emplace_back(p->arena.size(), m.size());
        p->arena.append(m);
        p->scores.push_back(s);
      },
      &st);
  cx.reply().array(2);
  char num[kInt64BufSize];
  cx.reply().bulk({num, format_uint64(next, num)});
  cx.reply().array(2 * st.members.size());
  for (size_t i = 0; i < st.members.size(); ++i) {
    cx.reply().bulk({st.arena.data() + st.members[i].first, st.members[i].second});
    cx.reply().bulk_double(st.scores[i]);
  }
}

// ---- ZUNION / ZINTER / ZDIFF ------------------------------------------------------------------

enum class SetOp { kUnion, kInter, kDiff };
enum class Agg { kSum, kMin, kMax };

// One input of a set operation: a zset, a set (every member scores 1) or a missing key.
struct Input {
  const Object* obj = nullptr;
  double weight = 1.0;
  size_t size() const {
    if (!obj) return 0;
    return obj->type() == Type::kZset ? ZsetType::size(*obj) : SetType::size(*obj);
  }
  bool score(std::string_view m, double* s) const {
    if (!obj) return false;
    if (obj->type() == Type::kZset) return ZsetType::score(*obj, m, s);
    if (!SetType::contains(*obj, m)) return false;
    *s = 1.0;
    return true;
  }
  template <class F>
  void for_each(F&& f) const {
    if (!obj) return;
    if (obj->type() == Type::kZset) return ZsetType::for_each(*obj, f);
    char buf[kInt64BufSize];
    SetType::for_each(*obj, [&](const SetElem& e) {
      f(e.text(buf), 1.0);
      return true;
    });
  }
};

void aggregate(double* target, double v, Agg agg) {
  switch (agg) {
    case Agg::kSum:
      *target += v;
      if (std::isnan(*target)) *target = 0.0;  // inf + -inf
      break;
    case Agg::kMin: *target = std::min(*target, v); break;
    case Agg::kMax: *target = std::max(*target, v); break;
  }
}

double weighted(double score, double weight) {
  const double v = score * weight;
  return std::isnan(v) ? 0.0 : v;  // inf * 0
}

// The shared body: numkeys is at `numkeys_idx`; `dst` is the destination index or 0. Redis's
// order: numkeys, every input's type, then the options.
void zsetop_generic(CommandContext& cx, size_t numkeys_idx, size_t dst, SetOp op,
                    bool card_only) {
  int64_t nk;
  if (!cx.int_arg(numkeys_idx, &nk)) return;
  if (nk < 1) {
    return cx.reply().error_fmt("ERR at least 1 input key is needed for '%s' command",
                                cx.command().name);
  }
  if (static_cast<uint64_t>(nk) > cx.argc() - numkeys_idx - 1) return cx.reply().error(kErrSyntax);
  const size_t numkeys = static_cast<size_t>(nk);
  std::vector<Input> inputs(numkeys);
  for (size_t i = 0; i < numkeys; ++i) {
    const Object* o = cx.db().find(cx.key(numkeys_idx + 1 + i));
    if (o && o->type() != Type::kZset && o->type() != Type::kSet) {
      return cx.reply().error(kErrWrongType);
    }
    inputs[i].obj = o;
  }
  Agg agg = Agg::kSum;
  bool withscores = false;
  int64_t limit = 0;
  for (size_t j = numkeys_idx + 1 + numkeys; j < cx.argc();) {
    const size_t remaining = cx.argc() - j;
    if (op != SetOp::kDiff && !card_only && remaining >= numkeys + 1 && cx.is_arg(j, "weights")) {
      ++j;
      for (size_t i = 0; i < numkeys; ++i, ++j) {
        if (!parse_double(cx.arg(j), &inputs[i].weight)) {
          return cx.reply().error("ERR weight value is not a float");
        }
      }
    } else if (op != SetOp::kDiff && !card_only && remaining >= 2 && cx.is_arg(j, "aggregate")) {
      if (cx.is_arg(j + 1, "sum")) {
        agg = Agg::kSum;
      } else if (cx.is_arg(j + 1, "min")) {
        agg = Agg::kMin;
      } else if (cx.is_arg(j + 1, "max")) {
        agg = Agg::kMax;
      } else {
        return cx.reply().error(kErrSyntax);
      }
      j += 2;
    } else if (dst == 0 && !card_only && cx.is_arg(j, "withscores")) {
      withscores = true;
      ++j;
    } else if (card_only && remaining >= 2 && cx.is_arg(j, "limit")) {
      if (!parse_int64(cx.arg(j + 1), &limit) || limit < 0) {
        return cx.reply().error("ERR LIMIT can't be negative");
      }
      j += 2;
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }

  ZsetAccumulator acc;
  if (op == SetOp::kInter) {
    // Walk the smallest input and look each member up in the others.
    std::vector<size_t> order(numkeys);
    for (size_t i = 0; i < numkeys; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return inputs[a].size() < inputs[b].size(); });
    const Input& first = inputs[order[0]];
    size_t card = 0;
    bool stop = false;
    first.for_each([&](std::string_view m, double s) {
      if (stop) return;
      double score = weighted(s, first.weight);
      for (size_t k = 1; k < numkeys; ++k) {
        const Input& in = inputs[order[k]];
        double other;
        if (!in.score(m, &other)) return;
        aggregate(&score, weighted(other, in.weight), agg);
      }
      if (card_only) {
        ++card;
        if (limit > 0 && card >= static_cast<size_t>(limit)) stop = true;
        return;
      }
      bool created;
      acc.upsert(m, score, &created);
    });
    if (card_only) return cx.reply().integer(static_cast<int64_t>(card));
  } else if (op == SetOp::kUnion) {
    // Smallest input first, as Redis does: with SUM the order decides inf + -inf cases.
    std::vector<size_t> order(numkeys);
    for (size_t i = 0; i < numkeys; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return inputs[a].size() < inputs[b].size(); });
    acc.reserve(inputs[order.back()].size());
    for (size_t oi : order) {
      const Input& in = inputs[oi];
      in.for_each([&](std::string_view m, double s) {
        const double v = weighted(s, in.weight);
        bool created;
        ZsetAccumulator::Entry* e = acc.upsert(m, v, &created);
        if (!created) aggregate(&e->score, v, agg);
      });
    }
  } else {
    const Input& first = inputs[0];
    first.for_each([&](std::string_view m, double s) {
      for (size_t k = 1; k < numkeys; ++k) {
        double other;
        if (inputs[k].score(m, &other)) return;
      }
      bool created;
      acc.upsert(m, s, &created);
    });
  }

  if (dst != 0) {
    const char* event = op == SetOp::kUnion   ? "zunionstore"
                        : op == SetOp::kInter ? "zinterstore"
                                              : "zdiffstore";
    return store_result(cx, dst, acc, event);
  }
  PairWriter out(cx.reply(), withscores, cx.reply().resp() == 3);
  cx.reply().array(out.elems(acc.size()));
  acc.emit_sorted(false, PairWriter::emit, &out);
}

void cmd_zunion(CommandContext& cx) { zsetop_generic(cx, 1, 0, SetOp::kUnion, false); }
void cmd_zinter(CommandContext& cx) { zsetop_generic(cx, 1, 0, SetOp::kInter, false); }
void cmd_zdiff(CommandContext& cx) { zsetop_generic(cx, 1, 0, SetOp::kDiff, false); }
void cmd_zunionstore(CommandContext& cx) { zsetop_generic(cx, 2, 1, SetOp::kUnion, false); }
void cmd_zinterstore(CommandContext& cx) { zsetop_generic(cx, 2, 1, SetOp::kInter, false); }
void cmd_zdiffstore(CommandContext& cx) { zsetop_generic(cx, 2, 1, SetOp::kDiff, false); }
void cmd_zintercard(CommandContext& cx) { zsetop_generic(cx, 1, 0, SetOp::kInter, true); }

constexpr uint32_t kRW = kWrite | kDenyOom;
constexpr uint32_t kRO = kReadOnly;
constexpr uint32_t kZ = kAclSortedSet;

CommandSpec kZsetCommands[] = {
    // name, handler, arity, flags, first, last, step, acl, group, summary, since, complexity
    {.name = "zadd", .handler = cmd_zadd, .arity = -4, .flags = kRW | kFast, .acl = kZ, .group = "sorted_set",
     .summary = "Adds members to a sorted set or updates their scores; creates the key when needed.", .since = "1.2.0", .complexity = "O(log(N)) per added or updated member, N being the set's size.",
     .keys = {ks(kKsRW | kKsUpdate)}, .members = {3, -1, 2, kWalkZadd}},
    {.name = "zincrby", .handler = cmd_zincrby, .arity = 4, .flags = kRW | kFast, .acl = kZ, .group = "sorted_set",
     .summary = "Adds an increment to a member's score (from 0 when the member is new).", .since = "1.2.0", .complexity = "O(log(N)) with N the set's size.",
     .keys = {ks(kKsRW | kKsAccess | kKsUpdate)}, .members = {3, 3, 1, kWalkIncrement}},
    {.name = "zrem", .handler = cmd_zrem, .arity = -3, .flags = kWrite | kFast, .acl = kZ, .group = "sorted_set",
     .summary = "Removes members; deletes the key when it becomes empty.", .since = "1.2.0", .complexity = "O(M*log(N)) for M removed members out of N.",
     .keys = {ks(kKsRW | kKsDelete)}, .members = {2, -1, 1, kWalkCurrent}},
    {.name = "zcard", .handler = cmd_zcard, .arity = 2, .flags = kRO | kFast, .acl = kZ, .group = "sorted_set",
     .summary = "Returns how many members a sorted set holds.", .since = "1.2.0", .complexity = "O(1)",
     .keys = {ks(kKsRO)}},
    {.name = "zscore", .handler = cmd_zscore, .arity = 3, .flags = kRO | kFast, .acl = kZ, .group = "sorted_set",
     .summary = "Returns the score of a member.", .since = "1.2.0", .complexity = "O(1)",
     .keys = {ks(kKsRO | kKsAccess)}, .members = {2, 2}},
    {.name = "zmscore", .handler = cmd_zmscore, .arity = -3, .flags = kRO | kFast, .acl = kZ, .group = "sorted_set",
     .summary = "Returns the scores of several members.", .since = "6.2.0", .complexity = "O(N) for N requested members.",
     .keys = {ks(kKsRO | kKsAccess)}, .members = {2, -1}},
    {.name = "zrank", .handler = cmd_zrank, .arity = -3, .flags = kRO | kFast, .acl = kZ, .group = "sorted_set",
     .summary = "Returns a member's position counted from the lowest score.", .since = "2.0.0", .complexity = "O(log(N))",
     .keys = {ks(kKsRO | kKsAccess)}, .members = {2, 2, 1, kWalkCurrent}},
    {.name = "zrevrank", .handler = cmd_zrevrank, .arity = -3, .flags = kRO | kFast, .acl = kZ, .group = "sorted_set",
     .summary = "Returns a member's position counted from the highest score.", .since = "2.0.0", .complexity = "O(log(N))",
     .keys = {ks(kKsRO | kKsAccess)}, .members = {2, 2, 1, kWalkCurrent}},
    {.name = "zcount", .handler = cmd_zcount, .arity = 4, .flags = kRO | kFast, .acl = kZ, .group = "sorted_set",
     .summary = "Counts the members whose score lies in a range.", .since = "2.0.0", .complexity = "O(log(N))",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "zlexcount", .handler = cmd_zlexcount, .arity = 4, .flags = kRO | kFast, .acl = kZ, .group = "sorted_set",
     .summary = "Counts the members in a lexicographical range.", .since = "2.8.9", .complexity = "O(log(N))",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "zrange", .handler = cmd_zrange, .arity = -4, .flags = kRO, .acl = kZ, .group = "sorted_set",
     .summary = "Returns members in a range of ranks, scores or names.", .since = "1.2.0", .complexity = "O(log(N)+M) for M returned members.",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "zrangestore", .handler = cmd_zrangestore, .arity = -5, .flags = kRW, .acl = kZ, .group = "sorted_set",
     .summary = "Stores a range of a sorted set under another key.", .since = "6.2.0", .complexity = "O(log(N)+M) for M stored members.",
     .keys = {ks(kKsOW | kKsUpdate), ks(kKsRO | kKsAccess, 2)}},
    {.name = "zrevrange", .handler = cmd_zrevrange, .arity = -4, .flags = kRO, .acl = kZ, .group = "sorted_set",
     .summary = "Returns members in a range of ranks, highest score first.", .since = "1.2.0", .complexity = "O(log(N)+M) for M returned members.",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "zrangebyscore", .handler = cmd_zrangebyscore, .arity = -4, .flags = kRO, .acl = kZ, .group = "sorted_set",
     .summary = "Returns members whose score lies in a range.", .since = "1.0.5", .complexity = "O(log(N)+M) for M returned members.",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "zrevrangebyscore", .handler = cmd_zrevrangebyscore, .arity = -4, .flags = kRO, .acl = kZ, .group = "sorted_set",
     .summary = "Returns members whose score lies in a range, highest first.", .since = "2.2.0", .complexity = "O(log(N)+M) for M returned members.",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "zrangebylex", .handler = cmd_zrangebylex, .arity = -4, .flags = kRO, .acl = kZ, .group = "sorted_set",
     .summary = "Returns members in a lexicographical range.", .since = "2.8.9", .complexity = "O(log(N)+M) for M returned members.",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "zrevrangebylex", .handler = cmd_zrevrangebylex, .arity = -4, .flags = kRO, .acl = kZ, .group = "sorted_set",
     .summary = "Returns members in a lexicographical range, in reverse order.", .since = "2.8.9", .complexity = "O(log(N)+M) for M returned members.",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "zremrangebyrank", .handler = cmd_zremrangebyrank, .arity = 4, .flags = kWrite, .acl = kZ, .group = "sorted_set",
     .summary = "Removes the members in a range of ranks.", .since = "2.0.0", .complexity = "O(log(N)+M) for M removed members.",
     .keys = {ks(kKsRW | kKsDelete)}},
    {.name = "zremrangebyscore", .handler = cmd_zremrangebyscore, .arity = 4, .flags = kWrite, .acl = kZ, .group = "sorted_set",
     .summary = "Removes the members whose score lies in a range.", .since = "1.2.0", .complexity = "O(log(N)+M) for M removed members.",
     .keys = {ks(kKsRW | kKsDelete)}},
    {.name = "zremrangebylex", .handler = cmd_zremrangebylex, .arity = 4, .flags = kWrite, .acl = kZ, .group = "sorted_set",
     .summary = "Removes the members in a lexicographical range.", .since = "2.8.9", .complexity = "O(log(N)+M) for M removed members.",
     .keys = {ks(kKsRW | kKsDelete)}},
    {.name = "zpopmin", .handler = cmd_zpopmin, .arity = -2, .flags = kWrite | kFast, .acl = kZ, .group = "sorted_set",
     .summary = "Removes and returns the members with the lowest scores.", .since = "5.0.0", .complexity = "O(log(N)*M) for M popped members.",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete)}},
    {.name = "zpopmax", .handler = cmd_zpopmax, .arity = -2, .flags = kWrite | kFast, .acl = kZ, .group = "sorted_set",
     .summary = "Removes and returns the members with the highest scores.", .since = "5.0.0", .complexity = "O(log(N)*M) for M popped members.",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete)}},
    {.name = "zmpop", .handler = cmd_zmpop, .arity = -4, .flags = kWrite, .acl = kZ, .group = "sorted_set",
     .summary = "Pops members from the first non-empty sorted set among several keys.", .since = "7.0.0", .complexity = "O(K) + O(M*log(N)), K keys, M popped members.",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete, 1, fk_keynum(0, 1, 1))}},
    {.name = "bzpopmin", .handler = cmd_bzpopmin, .arity = -3, .flags = kWrite | kBlocking | kFast, .acl = kZ, .group = "sorted_set",
     .summary = "Pops the lowest-scored member of the first non-empty sorted set, waiting for one when all are empty.", .since = "5.0.0", .complexity = "O(log(N))",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete, 1, fk_range(-2, 1, 0))}},
    {.name = "bzpopmax", .handler = cmd_bzpopmax, .arity = -3, .flags = kWrite | kBlocking | kFast, .acl = kZ, .group = "sorted_set",
     .summary = "Pops the highest-scored member of the first non-empty sorted set, waiting for one when all are empty.", .since = "5.0.0", .complexity = "O(log(N))",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete, 1, fk_range(-2, 1, 0))}},
    {.name = "bzmpop", .handler = cmd_bzmpop, .arity = -5, .flags = kWrite | kBlocking, .acl = kZ, .group = "sorted_set",
     .summary = "ZMPOP that waits when every sorted set is empty.", .since = "7.0.0", .complexity = "O(K) + O(M*log(N)), K keys, M popped members.",
     .keys = {ks(kKsRW | kKsAccess | kKsDelete, 2, fk_keynum(0, 1, 1))}},
    {.name = "zrandmember", .handler = cmd_zrandmember, .arity = -2, .flags = kRO, .acl = kZ, .group = "sorted_set",
     .summary = "Returns random members of a sorted set.", .since = "6.2.0", .complexity = "O(N) for N returned members.",
     .keys = {ks(kKsRO | kKsAccess)},
     .tips = "nondeterministic_output"},
    {.name = "zunion", .handler = cmd_zunion, .arity = -3, .flags = kRO, .acl = kZ, .group = "sorted_set",
     .summary = "Returns the union of sorted sets.", .since = "6.2.0", .complexity = "O(N)+O(M*log(M)), N input members, M result members.",
     .keys = {ks(kKsRO | kKsAccess, 1, fk_keynum(0, 1, 1))}},
    {.name = "zinter", .handler = cmd_zinter, .arity = -3, .flags = kRO, .acl = kZ, .group = "sorted_set",
     .summary = "Returns the intersection of sorted sets.", .since = "6.2.0", .complexity = "O(N*K)+O(M*log(M)) in the worst case.",
     .keys = {ks(kKsRO | kKsAccess, 1, fk_keynum(0, 1, 1))}},
    {.name = "zdiff", .handler = cmd_zdiff, .arity = -3, .flags = kRO, .acl = kZ, .group = "sorted_set",
     .summary = "Returns the members of the first sorted set that no other one has.", .since = "6.2.0", .complexity = "O(L + (N-K)log(N)) in the worst case.",
     .keys = {ks(kKsRO | kKsAccess, 1, fk_keynum(0, 1, 1))}},
    {.name = "zunionstore", .handler = cmd_zunionstore, .arity = -4, .flags = kRW, .acl = kZ, .group = "sorted_set",
     .summary = "Stores the union of sorted sets under a key.", .since = "2.0.0", .complexity = "O(N)+O(M*log(M)), N input members, M result members.",
     .keys = {ks(kKsOW | kKsUpdate), ks(kKsRO | kKsAccess, 2, fk_keynum(0, 1, 1))}},
    {.name = "zinterstore", .handler = cmd_zinterstore, .arity = -4, .flags = kRW, .acl = kZ, .group = "sorted_set",
     .summary = "Stores the intersection of sorted sets under a key.", .since = "2.0.0", .complexity = "O(N*K)+O(M*log(M)) in the worst case.",
     .keys = {ks(kKsOW | kKsUpdate), ks(kKsRO | kKsAccess, 2, fk_keynum(0, 1, 1))}},
    {.name = "zdiffstore", .handler = cmd_zdiffstore, .arity = -4, .flags = kRW, .acl = kZ, .group = "sorted_set",
     .summary = "Stores the difference of sorted sets under a key.", .since = "6.2.0", .complexity = "O(L + (N-K)log(N)) in the worst case.",
     .keys = {ks(kKsOW | kKsUpdate), ks(kKsRO | kKsAccess, 2, fk_keynum(0, 1, 1))}},
    {.name = "zintercard", .handler = cmd_zintercard, .arity = -3, .flags = kRO, .acl = kZ, .group = "sorted_set",
     .summary = "Counts the members of the intersection of sorted sets.", .since = "7.0.0", .complexity = "O(N*K) in the worst case.",
     .keys = {ks(kKsRO | kKsAccess, 1, fk_keynum(0, 1, 1))}},
    {.name = "zscan", .handler = cmd_zscan, .arity = -3, .flags = kRO, .acl = kZ, .group = "sorted_set",
     .summary = "Iterates over the members and scores of a sorted set.", .since = "2.8.0", .complexity = "O(1) per call, O(N) for a full iteration.",
     .keys = {ks(kKsRO | kKsAccess)},
     .tips = "nondeterministic_output"},
};

}  // namespace

std::span<CommandSpec> zset_commands() { return kZsetCommands; }

}  // namespace keel
