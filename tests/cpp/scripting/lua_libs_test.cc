// struct and cmsgpack through the Lua engine: small EVAL scripts run by LuaEngine with a stub
// host, checking the RESP reply bytes. The expected bytes are the reference redis-server's; the
// Tcl file tests/unit/scripting-libs.tcl covers the full table of cases, this one the engine
// wiring, longjmp safety under errors, and randomised round trips.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <string_view>

#include "scripting/lua_engine.h"

namespace keel {
namespace {

class NoCalls : public ScriptHost {
 public:
  void call(std::span<const std::string_view>, int, Buffer& out) override {
    out.append("-ERR no commands in this test\r\n");
  }
  const char* poll() override { return nullptr; }
};

class LuaLibsTest : public ::testing::Test {
 protected:
  // Runs an EVAL body with ARGV = args and returns the RESP reply.
  std::string eval(std::string_view body, std::span<const std::string_view> args = {}) {
    char hex[41];
    sha1_hex(body, hex);
    LuaEngine::Sha sha;
    std::copy(hex, hex + 40, sha.begin());
    std::string error;
    const LuaEngine::Script* script = engine_.load_script(body, sha, &error);
    if (script == nullptr) return error;
    Buffer out;
    ReplyWriter w(&out, 2);
    engine_.run(script->ref, {}, args, std::string_view(hex, 40), host_, w);
    return std::string(out.view());
  }
  static std::string bulk(std::string_view bytes) {
    return "$" + std::to_string(bytes.size()) + "\r\n" + std::string(bytes) + "\r\n";
  }

  LuaEngine engine_{LuaEngine::Kind::kEval};
  NoCalls host_;
};

TEST_F(LuaLibsTest, LibrariesAreRegisteredAndReadonly) {
  EXPECT_EQ("*2\r\n$5\r\ntable\r\n$5\r\ntable\r\n", eval("return {type(struct), type(cmsgpack)}"));
  EXPECT_NE(std::string::npos,
            eval("cmsgpack.pack = nil").find("Attempt to modify a readonly table"));
  EXPECT_NE(std::string::npos,
            eval("struct.size = nil").find("Attempt to modify a readonly table"));
}

TEST_F(LuaLibsTest, StructPackUnpackSize) {
  EXPECT_EQ(bulk(std::string("\x00\x00\x00\x01", 4)), eval("return struct.pack('>i', 1)"));
  EXPECT_EQ(bulk(std::string("\x01\x00\x00\x00\x02\x00\x00\x00", 8)),
            eval("return struct.pack('!bi', 1, 2)"));
  EXPECT_EQ("*3\r\n:-2\r\n:513\r\n:8\r\n",
            eval("return {struct.unpack('<h>I5', struct.pack('<h>I5', -2, 513))}"));
  EXPECT_EQ(":43\r\n", eval("return struct.size('bBhHlLTfdx')"));
  const std::string err = eval("return struct.pack('q')");
  EXPECT_EQ(0u, err.find("-ERR user_script:1: bad argument #1 to 'pack' (invalid format option "
                         "'q') script: "))
      << err;
}

TEST_F(LuaLibsTest, CmsgpackPackBytes) {
  EXPECT_EQ(bulk("\x93\x01\x02\x03"), eval("return cmsgpack.pack({1,2,3})"));
  EXPECT_EQ(bulk(std::string("\x01\xca\x40\x20\x00\x00\xff\xa1\x61\xc3\xc2\xc0", 12)),
            eval("return cmsgpack.pack(1, 2.5, -1, 'a', true, false, nil)"));
  EXPECT_EQ(bulk("\xcb\x3f\xb9\x99\x99\x99\x99\x99\x9a"), eval("return cmsgpack.pack(0.1)"));
  EXPECT_EQ(bulk("\x81\xa1\x61\x01"), eval("return cmsgpack.pack({a=1})"));
}

TEST_F(LuaLibsTest, CmsgpackUnpackAndOffsets) {
  EXPECT_EQ("*3\r\n:1\r\n:2\r\n:3\r\n", eval("return cmsgpack.unpack(cmsgpack.pack({1,2,3}))"));
  EXPECT_EQ("*2\r\n:2\r\n:2\r\n", eval("return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 1)}"));
  EXPECT_EQ("*3\r\n:-1\r\n:2\r\n:3\r\n",
            eval("return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 2, 1)}"));
}

// Errors raised half-way (longjmp out of the codecs) must leave the engine usable and leak
// nothing the sanitizer build would see; run many of them.
TEST_F(LuaLibsTest, ErrorsLeaveTheEngineUsable) {
  const char* bad[] = {
      "return cmsgpack.unpack('\\205\\1')",
      "return cmsgpack.unpack('\\193')",
      "return cmsgpack.unpack('\\129\\192\\1')",
      "return cmsgpack.unpack(string.rep('\\145', 100000) .. '\\1')",
      "return cmsgpack.pack()",
      "return struct.pack('c9000i', string.rep('x', 9000), {})",
      "return struct.unpack('bc0', '\\255ab')",
      "return struct.unpack(string.rep('b', 9000), string.rep('a', 9000))",
      "return struct.size('c0')",
  };
  for (int round = 0; round < 20; round++) {
    for (const char* body : bad) {
      const std::string reply = eval(body);
      ASSERT_FALSE(reply.empty());
      EXPECT_EQ('-', reply[0]) << body << " -> " << reply;
    }
  }
  EXPECT_EQ(bulk("\x93\x01\x02\x03"), eval("return cmsgpack.pack({1,2,3})"));
}

// Random values packed in Lua and unpacked again compare deep-equal to the originals (map
// order may change, so the bytes of a second pack are not compared).
TEST_F(LuaLibsTest, RandomRoundTrips) {
  std::mt19937_64 rng(::testing::UnitTest::GetInstance()->random_seed());
  auto number = [&]() -> std::string {
    switch (rng() % 4) {
      case 0:
        return std::to_string(static_cast<int64_t>(rng() % 1000) - 500);
      case 1:
        return std::to_string(static_cast<int64_t>(rng() >> (rng() % 64)) * (rng() % 2 ? 1 : -1));
      case 2: {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(rng() % 1000000) / 7.0);
        return buf;
      }
      default:
        return (rng() % 2) ? "1/0" : "2^63";
    }
  };
  std::function<std::string(int)> value = [&](int depth) -> std::string {
    switch (rng() % (depth > 3 ? 3 : 5)) {
      case 0:
        return number();
      case 1:
        return "string.rep('ab', " + std::to_string(rng() % 300) + ")";
      case 2:
        return (rng() % 2) ? "true" : "false";
      case 3: {
        std::string t = "{";
        for (size_t i = 0, n = rng() % 20; i < n; i++) t += value(depth + 1) + ",";
        return t + "}";
      }
      default: {
        std::string t = "{";
        for (size_t i = 0, n = rng() % 20; i < n; i++) {
          t += "[" + ((rng() % 2) ? "'k" + std::to_string(rng() % 50) + "'" : number()) +
               "]=" + value(depth + 1) + ",";
        }
        return t + "}";
      }
    }
  };
  for (int i = 0; i < 100; i++) {
    const std::string v = value(0);
    const std::string body =
        "local function same(a, b)\n"
        "  if type(a) ~= 'table' or type(b) ~= 'table' then return a == b end\n"
        "  for k, v in pairs(a) do if not same(v, b[k]) then return false end end\n"
        "  for k in pairs(b) do if a[k] == nil then return false end end\n"
        "  return true\n"
        "end\n"
        "local v = " +
        v +
        "\n"
        "local p = cmsgpack.pack(v, v)\n"
        "local x, y = cmsgpack.unpack(p)\n"
        "return {(same(v, x) and same(v, y)) and 1 or 0, #p}";
    const std::string reply = eval(body);
    EXPECT_EQ(0u, reply.find("*2\r\n:1\r\n")) << body << " -> " << reply;
  }
}

}  // namespace
}  // namespace keel
