// Tests for the key specs of command rows (commands/key_specs.h): an old-style positional row
// still gets a key spec, the legacy first/last/step and movablekeys are derived as Redis does,
// and the key search handles the spec kinds no Keel command uses yet (keyword begin_search
// forwards and backwards, a range with a limit, incomplete specs).
#include "commands/key_specs.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "commands/command_table.h"

namespace keel {
namespace {

std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(' ', i);
    if (j == std::string_view::npos) j = s.size();
    out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

// The keys command_keys finds, joined by spaces ("" for none).
std::string keys_of(const CommandSpec& c, std::string_view line) {
  const std::vector<std::string_view> args = split(line);
  std::vector<KeyArg> keys;
  command_keys(c, args, &keys);
  std::string out;
  for (const KeyArg& k : keys) {
    if (!out.empty()) out += ' ';
    out += args[size_t(k.pos)];
  }
  return out;
}

TEST(KeySpecsTest, PositionalRowGetsARangeSpec) {
  // The pre-key-spec row format: first_key, last_key, step positionally.
  CommandSpec rows[] = {
      {"oldw", nullptr, -3, kWrite, 1, -1, 2, 0, "generic", "s", "1.0.0", "O(1)"},
      {"oldr", nullptr, 3, kReadOnly, 2, 2, 1, 0, "generic", "s", "1.0.0", "O(1)"},
      {"none", nullptr, 1, kReadOnly, 0, 0, 0, 0, "generic", "s", "1.0.0", "O(1)"},
  };
  for (CommandSpec& c : rows) init_key_specs(c);
  ASSERT_EQ(rows[0].n_key_specs, 1);
  EXPECT_EQ(rows[0].keys[0].flags, kKsRW | kKsUpdate);
  EXPECT_EQ(rows[0].keys[0].pos, 1);
  EXPECT_EQ(rows[0].keys[0].lastkey, -1);
  EXPECT_EQ(rows[0].keys[0].keystep, 2);
  EXPECT_EQ(rows[0].first_key, 1);
  EXPECT_EQ(rows[0].last_key, -1);
  EXPECT_EQ(rows[0].step, 2);
  EXPECT_EQ(rows[0].prefetch.keys.first, 1);
  EXPECT_EQ(rows[0].prefetch.keys.step, 2);
  EXPECT_EQ(keys_of(rows[0], "oldw a 1 b 2"), "a b");
  ASSERT_EQ(rows[1].n_key_specs, 1);
  EXPECT_EQ(rows[1].keys[0].flags, kKsRO | kKsAccess);
  EXPECT_EQ(rows[1].keys[0].lastkey, 0);
  EXPECT_EQ(rows[1].last_key, 2);
  EXPECT_EQ(keys_of(rows[1], "oldr x k"), "k");
  EXPECT_EQ(rows[2].n_key_specs, 0);
  EXPECT_EQ(rows[2].prefetch.keys.first, 0);
  EXPECT_FALSE(command_has_keys(rows[2]));
}

TEST(KeySpecsTest, LegacyRangeAndMovableKeys) {
  CommandSpec rows[] = {
      // Consecutive step-1 ranges merge (BITOP): 2..-1.
      {.name = "a", .keys = {ks(kKsOW | kKsUpdate, 2), ks(kKsRO | kKsAccess, 3, fk_range(-1, 1, 0))}},
      // A keynum spec makes the keys movable; the destination stays the legacy range.
      {.name = "b", .keys = {ks(kKsOW | kKsUpdate), ks(kKsRO | kKsAccess, 2, fk_keynum(0, 1, 1))}},
      // Not consecutive: only the first counts, movable.
      {.name = "c", .keys = {ks(kKsRO, 1), ks(kKsRO, 3)}},
      // One range with a step is kept as is.
      {.name = "d", .keys = {ks(kKsOW, 1, fk_range(-1, 2, 0))}},
      // An incomplete spec is used but makes the keys movable.
      {.name = "e", .keys = {ks(kKsRO | kKsIncomplete)}},
  };
  for (CommandSpec& c : rows) init_key_specs(c);
  EXPECT_EQ(rows[0].first_key, 2);
  EXPECT_EQ(rows[0].last_key, -1);
  EXPECT_EQ(rows[0].step, 1);
  EXPECT_FALSE(rows[0].flags & kMovableKeys);
  EXPECT_EQ(rows[1].first_key, 1);
  EXPECT_EQ(rows[1].last_key, 1);
  EXPECT_TRUE(rows[1].flags & kMovableKeys);
  EXPECT_EQ(rows[2].first_key, 1);
  EXPECT_EQ(rows[2].last_key, 1);
  EXPECT_TRUE(rows[2].flags & kMovableKeys);
  EXPECT_EQ(rows[3].last_key, -1);
  EXPECT_EQ(rows[3].step, 2);
  EXPECT_FALSE(rows[3].flags & kMovableKeys);
  EXPECT_TRUE(rows[4].flags & kMovableKeys);
}

TEST(KeySpecsTest, KeywordAndLimitSearch) {
  CommandSpec rows[] = {
      // XREAD-like: the keys after STREAMS, half of what follows.
      {.name = "xr", .arity = -4, .keys = {ks(kKsRO | kKsAccess, bs_keyword("STREAMS", 1), fk_range(-1, 1, 2))}},
      // MIGRATE-like: searched backwards from the end for KEYS, then to the end.
      {.name = "mg", .arity = -6, .keys = {ks(kKsRW, bs_keyword("KEYS", -2), fk_range(-1, 1, 0))}},
      // SORT-like STORE: forwards from argument 1, one key.
      {.name = "st", .arity = -2, .keys = {ks(kKsRO | kKsAccess), ks(kKsOW | kKsUpdate, bs_keyword("STORE", 1))}},
  };
  for (CommandSpec& c : rows) init_key_specs(c);
  EXPECT_EQ(keys_of(rows[0], "xr COUNT 2 streams a b 0 0"), "a b");
  EXPECT_EQ(keys_of(rows[0], "xr streams a 0"), "a");
  EXPECT_EQ(keys_of(rows[0], "xr count 2 block 1"), "");  // keyword absent: no keys
  EXPECT_EQ(keys_of(rows[1], "mg h p \"\" 0 5 KEYS a b"), "a b");
  EXPECT_EQ(keys_of(rows[1], "mg h p k 0 5"), "");
  EXPECT_EQ(keys_of(rows[2], "st k limit 0 1 store d"), "k d");
  EXPECT_EQ(keys_of(rows[2], "st k"), "k");
  // The search stops before the last argument: a keyword there has no key after it.
  EXPECT_EQ(keys_of(rows[2], "st k store"), "k");
  EXPECT_TRUE(rows[0].flags & kMovableKeys);
}

// The batch prefetch's positions come from the rows: the key range from the key specs, the
// members from `.members` (the table that used to live in batch_prefetch.cc).
TEST(KeySpecsTest, PrefetchPositionsFromTheRows) {
  init_command_table();
  auto pf = [](const char* name) { return lookup_command(name)->prefetch; };
  auto keys = [&](const char* name) {
    const KeyRange k = pf(name).keys;
    return std::to_string(k.first) + " " + std::to_string(k.last) + " " + std::to_string(k.step);
  };
  auto members = [&](const char* name) {
    const MemberArgs m = pf(name).members;
    return std::to_string(m.first) + " " + std::to_string(m.last) + " " + std::to_string(m.step) +
           " " + std::to_string(m.walk);
  };
  EXPECT_EQ(keys("get"), "1 1 1");
  EXPECT_EQ(keys("mset"), "1 -1 2");
  EXPECT_EQ(keys("blpop"), "1 -2 1");
  EXPECT_EQ(keys("lmove"), "1 2 1");
  EXPECT_EQ(keys("bitop"), "2 -1 1");
  EXPECT_EQ(keys("zunionstore"), "1 1 1");  // the destination; the counted keys are movable
  EXPECT_EQ(keys("lmpop"), "0 0 1");        // no range: nothing prefetched
  EXPECT_EQ(keys("eval"), "0 0 1");
  EXPECT_EQ(keys("spublish"), "0 0 1");     // a channel, not a key
  EXPECT_EQ(keys("ping"), "0 0 1");
  EXPECT_EQ(members("get"), "0 0 1 0");
  EXPECT_EQ(members("sadd"), "2 -1 1 0");
  EXPECT_EQ(members("sismember"), "2 2 1 0");
  EXPECT_EQ(members("hset"), "2 -1 2 0");
  EXPECT_EQ(members("hmget"), "2 -1 1 0");
  EXPECT_EQ(members("zscore"), "2 2 1 0");
  EXPECT_EQ(members("zrem"), "2 -1 1 " + std::to_string(kWalkCurrent));
  EXPECT_EQ(members("zincrby"), "3 3 1 " + std::to_string(kWalkIncrement));
  EXPECT_EQ(members("zadd"), "3 -1 2 " + std::to_string(kWalkZadd));
  int with_members = 0;
  for (const CommandSpec* c : all_commands()) with_members += c->prefetch.members.first != 0;
  EXPECT_EQ(with_members, 21);  // SADD SREM SISMEMBER SMISMEMBER, 10 hash, 7 zset commands
}

TEST(KeySpecsTest, EveryTableRowIsConsistent) {
  init_command_table();
  auto check = [](const CommandSpec& c) {
    for (int i = 0; i < c.n_key_specs; i++) {
      const KeySpec& s = c.keys[i];
      EXPECT_NE(s.begin, BeginSearch::kNone) << c.full_name;
      EXPECT_NE(s.find, FindKeys::kNone) << c.full_name;
      // Exactly one of RW / RO / OW / RM, unless the spec is not a key.
      const int access = !!(s.flags & kKsRW) + !!(s.flags & kKsRO) + !!(s.flags & kKsOW) + !!(s.flags & kKsRM);
      if (!(s.flags & kKsNotKey)) {
        EXPECT_EQ(access, 1) << c.full_name;
      }
      if (s.flags & kKsVariableFlags) {
        EXPECT_NE(c.getkeys, nullptr) << c.full_name;
      }
    }
    // Member positions only where the prefetch has a key to look them up in.
    if (c.members.first) {
      EXPECT_GT(c.prefetch.keys.first, 0) << c.full_name;
    }
  };
  for (const CommandSpec* c : all_commands()) {
    check(*c);
    for (const CommandSpec& sub : c->subcommands) check(sub);
  }
}

}  // namespace
}  // namespace keel
