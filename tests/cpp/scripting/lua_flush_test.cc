// LuaEngine::reset with async (SCRIPT / FUNCTION FLUSH ASYNC): the old state goes to the
// background thread, the engine works on its fresh state at once, and the counts the command
// layer passes show as pending and then freed.
#include <gtest/gtest.h>

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

std::string fcall(LuaEngine& e, std::string_view name) {
  const LuaEngine::Function* f = e.find_function(name);
  if (f == nullptr) return "not found";
  NoCalls host;
  Buffer out;
  ReplyWriter w(&out, 2);
  e.run(f->ref, {}, {}, f->name, host, w);
  return std::string(out.view());
}

TEST(LuaFlushTest, AsyncResetHandsTheStateOverAndCounts) {
  lua_lazyfree_drain();
  lua_lazyfree_reset_stats();
  LuaEngine e(LuaEngine::Kind::kFunction);
  for (int round = 0; round < 10; round++) {
    std::string code = "#!lua name=lib\nlocal t = {}\nfor i = 1, 50000 do t[i] = {i} end\n";
    for (int i = 1; i <= 65; i++) {
      code += "redis.register_function('f" + std::to_string(i) + "', function() return #t end)\n";
    }
    std::string name, error;
    ASSERT_TRUE(e.load_library(code, false, &name, &error)) << error;
    EXPECT_EQ(":50000\r\n", fcall(e, "F65"));  // names ignore case
    e.reset(true, 65);
    EXPECT_EQ(0u, e.function_count());
    EXPECT_EQ("not found", fcall(e, "f1"));
    ASSERT_TRUE(e.load_library("#!lua name=x\nredis.register_function('g', function() return 2 end)",
                               false, &name, &error))
        << error;
    EXPECT_EQ(":2\r\n", fcall(e, "g"));
    e.reset(true, 0);  // 64 or fewer: closed in the background, not counted
    const LuaLazyfreeStats st = lua_lazyfree_stats();
    EXPECT_EQ(65u * (round + 1), st.pending + st.freed);
  }
  lua_lazyfree_drain();
  EXPECT_EQ(0u, lua_lazyfree_stats().pending);
  EXPECT_EQ(650u, lua_lazyfree_stats().freed);
  lua_lazyfree_reset_stats();
  EXPECT_EQ(0u, lua_lazyfree_stats().freed);
}

TEST(LuaFlushTest, AsyncResetOfAnEvalEngine) {
  LuaEngine e(LuaEngine::Kind::kEval);
  char hex[41];
  sha1_hex("return 1", hex);
  LuaEngine::Sha sha;
  std::copy(hex, hex + 40, sha.begin());
  std::string error;
  ASSERT_NE(nullptr, e.load_script("return 1", sha, &error));
  e.reset(true, 0);
  EXPECT_EQ(0u, e.script_count());
  ASSERT_NE(nullptr, e.load_script("return 1", sha, &error));
  EXPECT_EQ(1u, e.script_count());
  lua_lazyfree_drain();
}

}  // namespace
}  // namespace keel
