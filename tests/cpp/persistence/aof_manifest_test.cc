// The AOF manifest: Redis 7's syntax both ways (persistence/aof.h).
#include <gtest/gtest.h>

#include "persistence/aof.h"

namespace keel {
namespace {

struct Parsed {
  bool ok;
  AofManifest m;
  std::string err;
  int line;
};

Parsed parse(std::string_view text) {
  Parsed p;
  std::string line_text;
  p.ok = aof_parse_manifest(text, &p.m, &p.err, &p.line, &line_text);
  return p;
}

TEST(AofManifest, ParsesBaseHistoryAndIncrementals) {
  Parsed p = parse(
      "# a comment\n"
      "file appendonly.aof.3.base.rdb seq 3 type b\n"
      "file appendonly.aof.2.incr.aof seq 2 type h\n"
      "FILE appendonly.aof.3.incr.aof SEQ 3 TYPE i unknown-key x\n"
      "file appendonly.aof.5.incr.aof seq 5 type i\n");
  ASSERT_TRUE(p.ok) << p.err;
  ASSERT_TRUE(p.m.base.has_value());
  EXPECT_EQ("appendonly.aof.3.base.rdb", p.m.base->name);
  EXPECT_EQ(3, p.m.curr_base_seq);
  ASSERT_EQ(1u, p.m.history.size());
  ASSERT_EQ(2u, p.m.incrs.size());
  EXPECT_EQ(5, p.m.curr_incr_seq);  // gaps are fine
  EXPECT_EQ("appendonly.aof.3.incr.aof", p.m.incrs[0].name);
}

TEST(AofManifest, TextRoundTripsWithQuotedNames) {
  AofManifest m;
  m.base = AofInfo{"my file.1.base.rdb", 1, 'b'};
  m.history.push_back(AofInfo{"old\x01.aof", 1, 'h'});
  m.incrs.push_back(AofInfo{"my file.1.incr.aof", 1, 'i'});
  m.incrs.push_back(AofInfo{"plain.2.incr.aof", 2, 'i'});
  const std::string text = aof_manifest_text(m);
  EXPECT_EQ(
      "file \"my file.1.base.rdb\" seq 1 type b\n"
      "file \"old\\x01.aof\" seq 1 type h\n"
      "file \"my file.1.incr.aof\" seq 1 type i\n"
      "file plain.2.incr.aof seq 2 type i\n",
      text);
  Parsed p = parse(text);
  ASSERT_TRUE(p.ok) << p.err;
  EXPECT_EQ("my file.1.base.rdb", p.m.base->name);
  EXPECT_EQ("old\x01.aof", p.m.history[0].name);
  EXPECT_EQ("plain.2.incr.aof", p.m.incrs[1].name);
}

TEST(AofManifest, RefusesWithRedisReasons) {
  const struct {
    const char* text;
    const char* reason;
    int line;
  } cases[] = {
      {"", "Found an empty AOF manifest", 0},
      {"# only a comment\n", "Found an empty AOF manifest", 0},
      {"file a seq 1\n", "Invalid AOF manifest file format", 1},
      {"file a seq 1 type b x\n", "Invalid AOF manifest file format", 1},
      {"file a seq 0 type b\n", "Invalid AOF manifest file format", 1},
      {"file \"a seq 1 type b\n", "Invalid AOF manifest file format", 1},
      {"file a seq 1 type b\n\nfile b seq 1 type i\n", "Invalid AOF manifest file format", 2},
      {"file x/y seq 1 type b\n", "File can't be a path, just a filename", 1},
      {"file a seq 1 type b\nfile b seq 2 type b\n", "Found duplicate base file information", 2},
      {"file a seq 2 type i\nfile b seq 2 type i\n", "Found a non-monotonic sequence number", 2},
      {"file a seq 1 type x\n", "Unknown AOF file type", 1},
      {"file a seq 1 type \"\"\n", "Invalid AOF manifest file format", 1},
  };
  for (const auto& c : cases) {
    Parsed p = parse(c.text);
    EXPECT_FALSE(p.ok) << c.text;
    EXPECT_EQ(c.reason, p.err) << c.text;
    EXPECT_EQ(c.line, p.line) << c.text;
  }
  // Only the type's first character counts, as in Redis ("bb" is a base).
  Parsed bb = parse("file a seq 1 type bb\n");
  ASSERT_TRUE(bb.ok);
  EXPECT_EQ('b', bb.m.base->type);
  const std::string long_line = "file " + std::string(1100, 'a') + " seq 1 type b\n";
  Parsed p = parse(long_line);
  EXPECT_FALSE(p.ok);
  EXPECT_EQ("The AOF manifest file contains too long line", p.err);
}

}  // namespace
}  // namespace keel
