// Tests for commands/propagate.h: the RESP encoding of the change stream for one consumer
// (SELECT inserted when the db changes, never before MULTI/EXEC) and IntArg.
#include "commands/propagate.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "protocol/resp_parser.h"

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

// What the parser makes of `input` (one command, from its start) as views into it, and whether
// the whole input is that command's canonical encoding (the bytes Session::raw_request holds).
bool canonical(std::string input, std::string* encoded = nullptr) {
  RequestParser parser;
  size_t pos = 0;
  if (parser.parse(input.data(), input.size(), pos) != RequestParser::Result::kCommand) {
    ADD_FAILURE() << "not one command: " << input;
    return false;
  }
  std::vector<std::string_view> argv;
  for (const ArgSpan& a : parser.args()) argv.emplace_back(input.data() + a.off, a.len);
  const std::string_view raw(input.data(), pos);
  // The server's check of the parser's bytes (from its '*') agrees with the full check.
  if (parser.command_start() != RequestParser::kNoStart) {
    const std::string_view cmd(input.data() + parser.command_start(), pos - parser.command_start());
    EXPECT_EQ(is_crlf_framed(cmd, argv), is_canonical_encoding(cmd, argv)) << input;
  }
  if (encoded != nullptr) {
    StreamEncoder e;
    Buffer out;
    e.append(out, -1, argv);
    *encoded = std::string(out.view());
  }
  return is_canonical_encoding(raw, argv);
}

TEST(CanonicalEncoding, TheClientsBytesWhenTheyAreTheEncoding) {
  std::string enc;
  for (std::string in : {std::string("*2\r\n$4\r\nINCR\r\n$1\r\nx\r\n"),
                         std::string("*2\r\n$4\r\nincr\r\n$0\r\n\r\n"),
                         std::string("*3\r\n$3\r\nSET\r\n$5\r\na\0\r\nb\r\n$1\r\nv\r\n", 31),
                         "*12\r\n$5\r\nRPUSH\r\n$1\r\nl" + [] {
                           std::string r;
                           for (int i = 0; i < 10; i++) r += "\r\n$2\r\ne" + std::to_string(i);
                           return r;
                         }() + "\r\n",
                         "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\n" + std::string(100, 'v') + "\r\n"}) {
    EXPECT_TRUE(canonical(in, &enc)) << in;
    EXPECT_EQ(enc, in);  // what the encoder would have written
  }
}

TEST(CanonicalEncoding, AnythingElseIsEncodedAgain) {
  // The parser does not look at the byte after a number's or an argument's '\r' (nor does
  // Redis's): accepted, but not the canonical form.
  EXPECT_FALSE(canonical("*2\r\n$4\r\nINCR\r\n$1\r\nx\rZ"));
  EXPECT_FALSE(canonical("*2\r\n$4\rZINCR\r\n$1\r\nx\r\n"));
  EXPECT_FALSE(canonical("*2\rZ$4\r\nINCR\r\n$1\r\nx\r\n"));
  EXPECT_FALSE(canonical("*3\rZ$3\r\nSET\r\n$1\r\nd\r\n$1\r\n4\r\n"));
  EXPECT_FALSE(canonical("INCR x\r\n"));               // inline
  EXPECT_FALSE(canonical("*0\r\n*1\r\n$4\r\nPING\r\n"));  // a skipped empty request first
  // Views that are not in the raw bytes.
  const std::string raw = "*1\r\n$4\r\nPING\r\n";
  const std::string_view other[] = {"PING"};
  EXPECT_FALSE(is_canonical_encoding(raw, other));
  EXPECT_FALSE(is_canonical_encoding(raw, std::span<const std::string_view>()));
  EXPECT_FALSE(is_canonical_encoding("", other));
}

}  // namespace
}  // namespace keel
