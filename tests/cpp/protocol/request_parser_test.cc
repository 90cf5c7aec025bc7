// RequestParser cases found by the fuzz targets (tests/fuzz/resp_parser.cc, inline_parser.cc):
// Redis's inline argument rules for \v and \f, and the sticky protocol error.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/resp_parser.h"

namespace keel {
namespace {

using Args = std::vector<std::string>;

// Parses one inline command out of `text` (which must end with a newline).
Args inline_args(std::string text) {
  RequestParser p;
  size_t pos = 0;
  EXPECT_EQ(p.parse(text.data(), text.size(), pos), RequestParser::Result::kCommand);
  Args out;
  for (const ArgSpan& a : p.args()) out.emplace_back(text.data() + a.off, a.len);
  return out;
}

TEST(RequestParserTest, VerticalTabAndFormFeedInsideInlineArguments) {
  // redis-server 7.0.15: "ECHO a\vb" replies "$3 a\vb": an unquoted argument ends only at
  // space, \t, \r, \n (or NUL); \v and \f are blanks only between arguments.
  EXPECT_EQ(inline_args("ECHO a\vb\fc d\r\n"), (Args{"ECHO", "a\vb\fc", "d"}));
  EXPECT_EQ(inline_args("\v\fECHO x \v\r\n"), (Args{"ECHO", "x"}));
  EXPECT_EQ(inline_args("ECHO \"a\"\v'b'\f\r\n"), (Args{"ECHO", "a", "b"}));
  EXPECT_EQ(inline_args("ECHO a\tb\r\n"), (Args{"ECHO", "a", "b"}));
}

TEST(RequestParserTest, ProtocolErrorIsSticky) {
  // 70000 bytes without a newline: "too big inline request". A newline arriving before the
  // connection is closed must not turn the line into a command.
  std::string q(70000, 'a');
  RequestParser p;
  size_t pos = 0;
  ASSERT_EQ(p.parse(q.data(), q.size(), pos), RequestParser::Result::kError);
  EXPECT_EQ(p.error(), "Protocol error: too big inline request");
  EXPECT_FALSE(p.in_command());
  q += "\r\nPING\r\n";
  EXPECT_EQ(p.parse(q.data(), q.size(), pos), RequestParser::Result::kError);
  EXPECT_EQ(p.error(), "Protocol error: too big inline request");
  EXPECT_EQ(pos, 0u);
  EXPECT_TRUE(p.args().empty());

  // The same after a multibulk error in the middle of a command.
  std::string m = "*2\r\n$4\r\nECHO\r\n+x\r\n";
  RequestParser p2;
  pos = 0;
  ASSERT_EQ(p2.parse(m.data(), m.size(), pos), RequestParser::Result::kError);
  EXPECT_EQ(p2.error(), "Protocol error: expected '$', got '+'");
  p2.rebase(0);
  m += "*1\r\n$4\r\nPING\r\n";
  EXPECT_EQ(p2.parse(m.data(), m.size(), pos), RequestParser::Result::kError);
  EXPECT_EQ(pos, 0u);
}

TEST(RequestParserTest, InlineLineWithNulNeverCompletes) {
  // redis-server 7.0.15 (and 7.4: processInlineBuffer looks for the newline with strchr): a NUL
  // before the newline hides it. "SET k a\0b\r\nPING\r\n" gets no reply at all; once more
  // than 64 KB are buffered the connection gets "too big inline request".
  static constexpr char kReq[] = "SET k a\0b\r\nPING\r\n";
  std::string q(kReq, sizeof(kReq) - 1);
  RequestParser p;
  size_t pos = 0;
  EXPECT_EQ(p.parse(q.data(), q.size(), pos), RequestParser::Result::kNeedMore);
  EXPECT_EQ(pos, 0u);
  q += std::string(70000, 'x');
  EXPECT_EQ(p.parse(q.data(), q.size(), pos), RequestParser::Result::kError);
  EXPECT_EQ(p.error(), "Protocol error: too big inline request");

  // A NUL after the newline belongs to the next line: the first command runs.
  static constexpr char kReq2[] = "PING\r\n\0\r\n";
  std::string q2(kReq2, sizeof(kReq2) - 1);
  RequestParser p2;
  pos = 0;
  ASSERT_EQ(p2.parse(q2.data(), q2.size(), pos), RequestParser::Result::kCommand);
  EXPECT_EQ(pos, 6u);
  EXPECT_EQ(p2.parse(q2.data(), q2.size(), pos), RequestParser::Result::kNeedMore);
  EXPECT_EQ(pos, 6u);
}

// command_start(): where a multibulk's bytes start (its '*'), kNoStart for an inline command;
// checked with the input whole and arriving a byte at a time (kept across kNeedMore).
void expect_start(const std::string& input, size_t want) {
  for (bool bytewise : {false, true}) {
    std::string buf = input;
    RequestParser p;
    size_t pos = 0;
    RequestParser::Result r = RequestParser::Result::kNeedMore;
    for (size_t len = bytewise ? 1 : buf.size(); len <= buf.size(); len++) {
      r = p.parse(buf.data(), len, pos);
      if (r != RequestParser::Result::kNeedMore) break;
    }
    ASSERT_EQ(r, RequestParser::Result::kCommand) << input;
    EXPECT_EQ(pos, buf.size()) << input;
    EXPECT_EQ(p.command_start(), want) << input << (bytewise ? " (a byte at a time)" : "");
  }
}

TEST(RequestParserTest, CommandStart) {
  expect_start("*2\r\n$4\r\nINCR\r\n$1\r\nx\r\n", 0);
  expect_start("\r\n*1\r\n$4\r\nPING\r\n", 2);   // a blank line before it
  expect_start("*0\r\n*1\r\n$4\r\nPING\r\n", 4);  // an empty request before it
  expect_start("PING\r\n", RequestParser::kNoStart);  // inline
  // After the buffer's front was dropped while the command was incomplete.
  std::string buf = "*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPI";
  RequestParser p;
  size_t pos = 0;
  ASSERT_EQ(p.parse(buf.data(), buf.size(), pos), RequestParser::Result::kCommand);
  ASSERT_EQ(p.parse(buf.data(), buf.size(), pos), RequestParser::Result::kNeedMore);
  buf = buf.substr(pos) + "NG\r\n";
  p.rebase(pos);
  pos = 0;
  ASSERT_EQ(p.parse(buf.data(), buf.size(), pos), RequestParser::Result::kCommand);
  EXPECT_EQ(p.command_start(), 0u);
}

}  // namespace
}  // namespace keel
