// Tests for commands/propagate.h: the RESP encoding of the change stream for one consumer
// (SELECT inserted when the db changes, never before MULTI/EXEC) and IntArg.
#include "commands/propagate.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace keel {
namespace {

std::string encode(StreamEncoder& e, int dbid, std::initializer_list<std::string_view> argv) {
  Buffer out;
  e.append(out, dbid, std::span<const std::string_view>(argv.begin(), argv.size()));
  return std::string(out.view());
}

TEST(StreamEncoder, SelectOnlyWhenTheDbChanges) {
  StreamEncoder e;
  EXPECT_EQ(e.selected_db(), -1);
  EXPECT_EQ(encode(e, 0, {"set", "k", "v"}),
            "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nset\r\n$1\r\nk\r\n$1\r\nv\r\n");
  EXPECT_EQ(encode(e, 0, {"DEL", "k"}), "*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n");
  EXPECT_EQ(encode(e, -1, {"MULTI"}), "*1\r\n$5\r\nMULTI\r\n");  // never a SELECT first
  EXPECT_EQ(encode(e, 12, {"incr", ""}),
            "*2\r\n$6\r\nSELECT\r\n$2\r\n12\r\n*2\r\n$4\r\nincr\r\n$0\r\n\r\n");
  EXPECT_EQ(encode(e, -1, {"EXEC"}), "*1\r\n$4\r\nEXEC\r\n");
  EXPECT_EQ(e.selected_db(), 12);
  e.reset();
  EXPECT_EQ(encode(e, 12, {"x"}), "*2\r\n$6\r\nSELECT\r\n$2\r\n12\r\n*1\r\n$1\r\nx\r\n");
}

TEST(StreamEncoder, BinarySafeArguments) {
  StreamEncoder e;
  const std::string bin("a\0\r\nb", 5);
  Buffer out;
  const std::string_view argv[] = {"SET", bin, std::string_view()};
  e.append(out, -1, argv);
  static constexpr char kWant[] = "*3\r\n$3\r\nSET\r\n$5\r\na\0\r\nb\r\n$0\r\n\r\n";
  EXPECT_EQ(std::string(out.view()), std::string(kWant, sizeof(kWant) - 1));
}

TEST(IntArg, Formats) {
  EXPECT_EQ(IntArg(0).view(), "0");
  EXPECT_EQ(IntArg(-42).view(), "-42");
  EXPECT_EQ(IntArg(INT64_MIN).view(), "-9223372036854775808");
  EXPECT_EQ(IntArg(1700000000123).view(), "1700000000123");
}

}  // namespace
}  // namespace keel
