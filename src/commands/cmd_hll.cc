// HyperLogLog commands: PFADD PFCOUNT PFMERGE PFDEBUG PFSELFTEST, over string values in Redis's
// HLL byte format (types/hll_type.h, ds/hyperloglog.h). Every edit reports the key's length
// change to Db once; PFCOUNT writing the cached cardinality is a change too (Redis counts it in
// the dirty counter and propagates the PFCOUNT).
#include <cstring>
#include <memory>
#include <random>
#include <string>

#include "commands/command.h"
#include "commands/command_table.h"
#include "ds/hyperloglog.h"
#include "types/hll_type.h"

namespace keel {
namespace {

constexpr std::string_view kErrNotHll = "WRONGTYPE Key is not a valid HyperLogLog string value.";
constexpr std::string_view kErrInvalidHll = "INVALIDOBJ Corrupted HLL object detected";

// Type and header check of an existing value: replies the error and returns false.
bool check_hll(CommandContext& cx, const Object* o) {
  if (!cx.check_type(o, Type::kString)) return false;
  if (!HllType::is_hll(*o)) {
    cx.reply().error(kErrNotHll);
    return false;
  }
  return true;
}

// PFADD key [element ...] -> 1 when a register changed (or the key was created), else 0.
void cmd_pfadd(CommandContext& cx) {
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) {
    // Built whole before it is inserted: one keysizes update, and the creation counts as a
    // change (so even PFADD key with no elements invalidates the cache, as Redis).
    Object* o = HllType::create(cx.arg(1));
    int updated = 1;
    for (size_t j = 2; j < cx.argc(); j++) updated += HllType::add(*o, cx.arg(j));  // never -1
    HllType::invalidate_cache(*o);
    cx.db().insert(slot, o);
    cx.notify(kNotifyString, "pfadd", cx.arg(1));
    cx.set_dirty(updated);
    return cx.reply().integer(1);
  }
  if (!check_hll(cx, slot.obj())) return;
  const int64_t old_len = object_length(slot.obj());
  int updated = 0;
  for (size_t j = 2; j < cx.argc(); j++) {
    const int r = HllType::add(*slot, cx.arg(j));
    if (r < 0) {
      // Registers changed before the damage was found stay changed, but as in Redis the
      // command counts no change (so it is not propagated) and notifies nothing.
      if (updated) {
        cx.db().length_changed(slot, old_len);
        cx.set_dirty(0);
      }
      return cx.reply().error(kErrInvalidHll);
    }
    updated += r;
  }
  if (updated) {
    cx.db().length_changed(slot, old_len);
    cx.notify(kNotifyString, "pfadd", cx.arg(1));
    cx.set_dirty(updated);
  }
  cx.reply().integer(updated ? 1 : 0);
}

// PFCOUNT key [key ...]: one key answers from (and fills) its cached cardinality; several keys
// are merged into one register set first (nothing is written).
void cmd_pfcount(CommandContext& cx) {
  if (cx.argc() > 2) {
    // On the stack, as Redis: 16 KB, no heap allocation per call.
    uint8_t max[hll::kRegisters] = {};
    for (size_t j = 1; j < cx.argc(); j++) {
      Object* o = cx.db().find(cx.key(j));
      if (!o) continue;
      if (!check_hll(cx, o)) return;
      if (!HllType::merge_into(*o, max)) return cx.reply().error(kErrInvalidHll);
    }
    int histo[64];
    hll::raw_histogram(max, histo);
    return cx.reply().integer(static_cast<int64_t>(hll::estimate(histo)));
  }
  Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().integer(0);
  if (!check_hll(cx, o)) return;
  uint64_t card;
  if (HllType::cached(*o, &card)) return cx.reply().integer(static_cast<int64_t>(card));
  // The estimate is written back into the header: a change of the key (dirty, WATCH).
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  const int64_t old_len = object_length(slot.obj());
  bool written;
  if (!HllType::count(*slot, &card, &written)) return cx.reply().error(kErrInvalidHll);
  if (written) cx.db().length_changed(slot, old_len);
  cx.reply().integer(static_cast<int64_t>(card));
}

// PFMERGE destkey [sourcekey ...]: the destination is a source too.
void cmd_pfmerge(CommandContext& cx) {
  uint8_t max[hll::kRegisters] = {};  // 16 KB on the stack, as PFCOUNT's
  bool dense = false;
  for (size_t j = 1; j < cx.argc(); j++) {
    Object* o = cx.db().find(cx.key(j));
    if (!o) continue;
    if (!check_hll(cx, o)) return;
    if (HllType::is_dense(*o)) dense = true;
    if (!HllType::merge_into(*o, max)) return cx.reply().error(kErrInvalidHll);
  }
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (!slot) {
    Object* o = HllType::create(cx.arg(1));
    if (!HllType::store_max(*o, max, dense)) {  // cannot fail on a fresh value
      Object::destroy(o);
      return cx.reply().error(kErrInvalidHll);
    }
    cx.db().insert(slot, o);
  } else {
    const int64_t old_len = object_length(slot.obj());
    if (!HllType::store_max(*slot, max, dense)) return cx.reply().error(kErrInvalidHll);
    cx.db().length_changed(slot, old_len);
  }
  cx.notify(kNotifyString, "pfadd", cx.arg(1));
  cx.set_dirty(1);
  cx.reply().ok();
}

// PFDEBUG <GETREG|DECODE|ENCODING|TODENSE> key
void cmd_pfdebug(CommandContext& cx) {
  const std::string_view sub = cx.arg(1);
  Db::Slot slot = cx.db().find_for_write(cx.key(2));
  if (!slot) return cx.reply().error("ERR The specified key does not exist");
  if (!check_hll(cx, slot.obj())) return;
  const int64_t old_len = object_length(slot.obj());
  if (equals_nocase(sub, "getreg")) {
    const int r = HllType::to_dense(*slot);
    if (r < 0) return cx.reply().error(kErrInvalidHll);
    if (r > 0) cx.db().length_changed(slot, old_len);
    auto regs = std::make_unique<uint8_t[]>(hll::kRegisters);
    HllType::registers(*slot, regs.get());
    cx.reply().array(hll::kRegisters);
    for (uint32_t i = 0; i < hll::kRegisters; i++) cx.reply().integer(regs[i]);
  } else if (equals_nocase(sub, "decode")) {
    if (HllType::is_dense(*slot)) return cx.reply().error("ERR HLL encoding is not sparse");
    cx.reply().bulk(HllType::decode(*slot));
  } else if (equals_nocase(sub, "encoding")) {
    cx.reply().simple(HllType::is_dense(*slot) ? "dense" : "sparse");
  } else if (equals_nocase(sub, "todense")) {
    const int r = HllType::to_dense(*slot);
    if (r < 0) return cx.reply().error(kErrInvalidHll);
    if (r > 0) cx.db().length_changed(slot, old_len);
    cx.reply().integer(r);
  } else {
    std::string msg = "ERR Unknown PFDEBUG subcommand '";
    msg.append(sub.substr(0, sub.find('\0')));
    msg += '\'';
    cx.reply().error(msg);
  }
}

// PFSELFTEST: checks the register packing over every register and that the sparse and dense
// forms of the same additions hold the same registers and give the same, reasonable count.
bool hll_selftest(std::string* why) {
  auto dense = std::make_unique<uint8_t[]>(hll::kDenseSize);
  auto expect = std::make_unique<uint8_t[]>(hll::kRegisters);
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 100; round++) {
    memset(dense.get(), 0, hll::kDenseSize);
    uint8_t* regs = dense.get() + hll::kHeaderSize;
    for (uint32_t i = 0; i < hll::kRegisters; i++) {
      expect[i] = static_cast<uint8_t>(rng() & hll::kRegisterMax);
      hll::dense_set(regs, i, expect[i]);
    }
    for (uint32_t i = 0; i < hll::kRegisters; i++) {
      if (hll::dense_get(regs, i) != expect[i]) {
        *why = "TESTFAILED Register error at " + std::to_string(i);
        return false;
      }
    }
  }
  // Sparse (with a large enough limit to stay sparse for a while) against dense.
  std::string sparse(hll::kEmptySparseSize + 64 * 1024, '\0');
  hll::write_empty(reinterpret_cast<uint8_t*>(sparse.data()));
  size_t slen = hll::kEmptySparseSize;
  bool promoted = false;
  memset(dense.get(), 0, hll::kDenseSize);
  memcpy(dense.get(), "HYLL", 4);
  for (uint64_t n = 1; n <= 20000; n++) {
    const std::string e = "ele:" + std::to_string(rng());
    uint32_t idx;
    const uint8_t c = hll::pattern(e, &idx);
    uint8_t* regs = dense.get() + hll::kHeaderSize;
    if (hll::dense_get(regs, idx) < c) hll::dense_set(regs, idx, c);
    if (!promoted) {
      auto* sp = reinterpret_cast<uint8_t*>(sparse.data());
      const hll::SetResult r = hll::sparse_set(sp, &slen, idx, c, 60000);
      if (r == hll::SetResult::kInvalid) {
        *why = "TESTFAILED sparse representation damaged";
        return false;
      }
      if (r == hll::SetResult::kPromote) promoted = true;
    }
    if (!promoted && (n % 1000) == 0) {
      uint64_t a, b;
      if (!hll::count(reinterpret_cast<const uint8_t*>(sparse.data()), slen, &a) ||
          !hll::count(dense.get(), hll::kDenseSize, &b) || a != b) {
        *why = "TESTFAILED sparse and dense counts differ at " + std::to_string(n);
        return false;
      }
    }
    if ((n % 1000) == 0) {
      uint64_t b;
      hll::count(dense.get(), hll::kDenseSize, &b);
      const double err = (static_cast<double>(b) - static_cast<double>(n)) / static_cast<double>(n);
      // 1.04/sqrt(m) is 0.81%; five standard errors is far outside what a correct HLL shows.
      if (err > 0.0405 || err < -0.0405) {
        *why = "TESTFAILED Too big error. card:" + std::to_string(n) + " count:" + std::to_string(b);
        return false;
      }
    }
  }
  return true;
}

void cmd_pfselftest(CommandContext& cx) {
  std::string why;
  if (!hll_selftest(&why)) return cx.reply().error(why);
  cx.reply().ok();
}

CommandSpec kHllCommands[] = {
    {.name = "pfadd", .handler = cmd_pfadd, .arity = -2, .flags = kWrite | kDenyOom | kFast, .acl = kAclHyperLogLog, .group = "hyperloglog",
     .summary = "Adds the specified elements to the specified HyperLogLog.", .since = "2.8.9", .complexity = "O(1) to add every element.",
     .keys = {ks(kKsRW | kKsInsert)}},
    {.name = "pfcount", .handler = cmd_pfcount, .arity = -2, .flags = kReadOnly | kMayReplicate, .acl = kAclHyperLogLog, .group = "hyperloglog",
     .summary = "Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).", .since = "2.8.9",
     .complexity = "O(1) with a very small average constant time when called with a single key. O(N) with N being the number of keys, and much bigger constant times, when called with multiple keys.",
     .keys = {ks(kKsRW | kKsAccess, 1, fk_range(-1, 1, 0), "RW because it may change the internal representation of the key, and propagate to replicas")}},
    {.name = "pfmerge", .handler = cmd_pfmerge, .arity = -2, .flags = kWrite | kDenyOom, .acl = kAclHyperLogLog, .group = "hyperloglog",
     .summary = "Merge N different HyperLogLogs into a single one.", .since = "2.8.9", .complexity = "O(N) to merge N HyperLogLogs, but with high constant times.",
     .keys = {ks(kKsRW | kKsAccess | kKsInsert), ks(kKsRO | kKsAccess, 2, fk_range(-1, 1, 0))}},
    {.name = "pfdebug", .handler = cmd_pfdebug, .arity = 3, .flags = kWrite | kDenyOom | kAdmin, .acl = kAclHyperLogLog, .group = "hyperloglog",
     .summary = "Internal commands for debugging HyperLogLog values", .since = "2.8.9", .complexity = "N/A",
     .keys = {ks(kKsRW | kKsAccess, 2)}},
    {.name = "pfselftest", .handler = cmd_pfselftest, .arity = 1, .flags = kAdmin, .acl = kAclHyperLogLog, .group = "hyperloglog",
     .summary = "An internal command for testing HyperLogLog values", .since = "2.8.9", .complexity = "N/A"},
};

}  // namespace

std::span<CommandSpec> hll_commands() { return kHllCommands; }

}  // namespace keel
