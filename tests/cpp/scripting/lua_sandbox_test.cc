// The sandbox's guards through LuaEngine with a stub host: the heap limit (lowered here so the
// test stays small), the restores between scripts, bytecode refusal, and that the engine keeps
// working after each refused attack. tests/unit/scripting-hardening.tcl covers the replies
// end to end against the server.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "scripting/lua_engine.h"
#include "scripting/lua_sandbox.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace keel {
namespace {

class PingHost : public ScriptHost {
 public:
  void call(std::span<const std::string_view>, int, Buffer& out) override {
    out.append("+PONG\r\n");
  }
  const char* poll() override { return nullptr; }
};

class LuaSandboxTest : public ::testing::Test {
 protected:
  ~LuaSandboxTest() override { scripting_options().lua_heap_limit = saved_limit_; }

  std::string eval(std::string_view body) {
    char hex[41];
    sha1_hex(body, hex);
    LuaEngine::Sha sha;
    std::copy(hex, hex + 40, sha.begin());
    std::string error;
    const LuaEngine::Script* script = engine_.load_script(body, sha, &error);
    if (script == nullptr) return error;
    Buffer out;
    ReplyWriter w(&out, 2);
    engine_.run(script->ref, {}, {}, std::string_view(hex, 40), host_, w);
    return std::string(out.view());
  }
  bool contains(std::string_view body, std::string_view what) {
    const std::string reply = eval(body);
    const bool found = reply.find(what) != std::string::npos;
    if (!found) ADD_FAILURE() << body << " -> " << reply;
    return found;
  }

  int64_t saved_limit_ = scripting_options().lua_heap_limit;
  LuaEngine engine_{LuaEngine::Kind::kEval};
  PingHost host_;
};

TEST_F(LuaSandboxTest, HeapLimitStopsAllocationBombsAndTheEngineRecovers) {
  scripting_options().lua_heap_limit = int64_t{64} << 20;
  // Each of these needs far more than 64 MB; each fails inside the script.
  contains("local s = string.rep('a', 1e4) return #s:gsub('a', string.rep('b', 1e4))",
           "not enough memory");
  contains("local t = {} for i = 1, 1e8 do t[i] = i end return #t", "not enough memory");
  contains("local t = {} for i = 1, 1e7 do t[i] = 'k' .. i end return #t", "not enough memory");
  contains("local s = string.rep('x', 1e6) local t = {} for i = 1, 100 do t[i] = s .. i end "
           "return #table.concat(t)",
           "not enough memory");
  // A script may catch it and go on; the memory it held is collectable afterwards.
  EXPECT_EQ(":1\r\n", eval("local ok = pcall(string.rep, 'x', 2^27) "
                           "local ok2 = pcall(function() local t = {} for i = 1, 1e8 do t[i] = i end end) "
                           "return (not ok2) and 1 or 0"));
  EXPECT_EQ("$3\r\nxxx\r\n", eval("return string.rep('x', 3)"));
  EXPECT_LT(engine_.memory(), size_t{64} << 20);
  // Without a limit the same 200 MB table builds.
  scripting_options().lua_heap_limit = 0;
  EXPECT_EQ(":10000000\r\n", eval("local t = {} for i = 1, 1e7 do t[i] = i end return #t"));
}

TEST_F(LuaSandboxTest, RefusedAttacksLeaveTheEngineWorking) {
  for (int i = 0; i < 50; i++) {
    contains("return bit.tohex(1, -2147483648)", "$8\r\n00000001\r\n");
    contains("return {unpack({}, 0, 2147483647)}", "too many results to unpack");
    contains("getmetatable('').__index = {}", "Attempt to modify a readonly table");
    contains("return string.find('a', string.rep('a?', 10000))", "pattern too complex");
    contains("error(setmetatable({}, {__index = function() error('x') end}))", "unknown error");
    contains("return loadstring(string.dump(function() end))", "$-1\r\n");
  }
  EXPECT_EQ("+PONG\r\n", eval("return redis.call('ping')"));
}

TEST_F(LuaSandboxTest, BytecodeBodiesDoNotCompile) {
  EXPECT_EQ("ERR Error compiling script (new function): user_script:1: unexpected symbol near "
            "'char(27)'",
            eval(std::string("\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00", 12)));
  std::string name, error;
  EXPECT_FALSE(engine_.load_library("#!lua name=x\n\x1bLua", false, &name, &error));
}

TEST(CompileChunk, RefusesHugeChunksWithoutReadingThem) {
  lua_State* L = luaL_newstate();
  // The length is checked before any byte is read, so a short buffer stands for a huge one.
  EXPECT_EQ(LUA_ERRSYNTAX, compile_chunk(L, "x", kScriptMaxBytes + 1, "=t"));
  EXPECT_STREQ("chunk too large", lua_tostring(L, -1));
  lua_pop(L, 1);
  EXPECT_EQ(0, compile_chunk(L, "return 1", 8, "=t"));
  lua_close(L);
}

TEST_F(LuaSandboxTest, SettingsAScriptChangesAreBackForTheNextScript) {
  EXPECT_EQ("$13\r\n[null,null,1]\r\n",
            eval("cjson.encode_sparse_array(true) cjson.encode_max_depth(1) "
                 "collectgarbage('stop') return cjson.encode({[3]=1})"));
  contains("return cjson.encode({[1]=1, [100]=2})", "excessively sparse array");
  EXPECT_EQ("$7\r\n[[[1]]]\r\n", eval("return cjson.encode({{{1}}})"));
  // The collector is running: dropped tables do not pile up.
  const std::string grown = eval(
      "local b = collectgarbage('count') for i = 1, 1e6 do local t = {i} end "
      "return collectgarbage('count') - b < 20000");
  EXPECT_EQ(":1\r\n", grown);
  // A second cjson instance is guarded too, and its own settings stay its own.
  contains("local j = cjson.new() return j.encode(string.rep('\\1', 9e7))",
           "Cannot serialise, output too large");
}

TEST_F(LuaSandboxTest, FunctionEngineIsGuardedToo) {
  LuaEngine functions(LuaEngine::Kind::kFunction);
  std::string name, error;
  ASSERT_TRUE(functions.load_library(
      "#!lua name=lib\nredis.register_function('f', function() "
      "return bit.tohex(255, 2^31) .. ('x'):rep(2) end)",
      false, &name, &error))
      << error;
  const LuaEngine::Function* f = functions.find_function("f");
  ASSERT_NE(nullptr, f);
  Buffer out;
  ReplyWriter w(&out, 2);
  functions.run(f->ref, {}, {}, "f", host_, w);
  EXPECT_EQ("$10\r\n000000FFxx\r\n", std::string(out.view()));
}

}  // namespace
}  // namespace keel
