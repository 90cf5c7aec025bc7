// Tests for lookup_command: every command is found by its name in any letter case, and nothing
// else is found: names one byte longer or shorter, bytes that sit next to the letters in ASCII
// ('@', '[', '`', '{') or are letters with bit 7 set, and names longer than 16 bytes.
#include "commands/command_table.h"

#include <gtest/gtest.h>

#include <string>

namespace keel {
namespace {

TEST(CommandTableTest, LooksUpEveryNameInAnyCase) {
  init_command_table();
  for (const CommandSpec* c : all_commands()) {
    std::string lower = c->name, upper = c->name, mixed = c->name;
    for (size_t i = 0; i < upper.size(); i++) {
      if (upper[i] >= 'a' && upper[i] <= 'z') upper[i] = static_cast<char>(upper[i] - 32);
      if (i % 2 == 0) mixed[i] = upper[i];
    }
    EXPECT_EQ(lookup_command(lower), c) << lower;
    EXPECT_EQ(lookup_command(upper), c) << upper;
    EXPECT_EQ(lookup_command(mixed), c) << mixed;
    EXPECT_NE(lookup_command(lower + "x"), c) << lower;
    EXPECT_NE(lookup_command(lower.substr(0, lower.size() - 1)), c) << lower;
  }
}

TEST(CommandTableTest, FindsNothingElse) {
  init_command_table();
  ASSERT_NE(lookup_command("get"), nullptr);
  for (const char* name : {"", "ge", "gett", "@et", "[et", "`et", "{et", "g\xc5t", "\xc7\xc5\xd4",
                           "zrevrangebyscorex", "zrevrangebyscore-and-more-bytes",
                           "ZREVRANGEBYSCOREZREVRANGEBYSCORE"}) {
    EXPECT_EQ(lookup_command(name), nullptr) << name;
  }
  EXPECT_EQ(lookup_command(std::string_view("get\0", 4)), nullptr);
  EXPECT_EQ(lookup_command(std::string(100, 'a')), nullptr);
  EXPECT_NE(lookup_command("ZREVRANGEBYSCORE"), nullptr);  // 16 bytes: the longest name
}

}  // namespace
}  // namespace keel
