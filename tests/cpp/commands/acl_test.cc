// Tests for commands/acl: SHA-256 against the FIPS 180-2 vectors, the all-or-nothing rule
// application, distinct command ids for every row, the unrestricted flag that keeps a user on
// the fast admission path, and the key check by key-spec flags.
#include "commands/acl.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "commands/command_table.h"
#include "commands/dispatch.h"

namespace keel {
namespace {

void init() {
  init_command_table();
  acl_init();
}

bool setuser(std::string_view name, std::vector<std::string_view> rules, std::string* err = nullptr) {
  std::string e;
  const bool ok = acl_setuser(name, rules, &e);
  if (err) *err = e;
  return ok;
}

AclDeny check(const char* user, std::vector<std::string_view> args) {
  const AclUser* u = acl_find_user(user);
  const CommandSpec* c = resolve_command(args);
  std::string object;
  return acl_check(*u, *c, args, &object);
}

TEST(AclTest, Sha256Vectors) {
  EXPECT_EQ(acl_hash_password(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(acl_hash_password("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(AclTest, EveryRowHasItsOwnId) {
  init();
  std::set<uint16_t> ids;
  size_t rows = 0;
  for (const CommandSpec* c : all_commands()) {
    ids.insert(c->acl_id);
    rows++;
    for (const CommandSpec& sub : c->subcommands) {
      ids.insert(sub.acl_id);
      rows++;
    }
  }
  EXPECT_EQ(ids.size(), rows);
}

TEST(AclTest, DefaultUserIsUnrestricted) {
  init();
  ASSERT_NE(acl_default_user(), nullptr);
  EXPECT_TRUE(acl_default_user()->unrestricted);
  ASSERT_TRUE(setuser("t_all", {"on", "nopass", "allkeys", "allchannels", "allcommands"}));
  EXPECT_TRUE(acl_find_user("t_all")->unrestricted);
  ASSERT_TRUE(setuser("t_all", {"-debug"}));
  EXPECT_FALSE(acl_find_user("t_all")->unrestricted);
  ASSERT_TRUE(setuser("t_all", {"resetkeys", "+debug"}));
  EXPECT_FALSE(acl_find_user("t_all")->unrestricted);
}

TEST(AclTest, NothingHalfApplied) {
  init();
  ASSERT_TRUE(setuser("t_half", {"on", "~a*", "+get"}));
  const std::string before = acl_find_user("t_half")->describe();
  std::string err;
  EXPECT_FALSE(setuser("t_half", {"off", "~b*", "+set", "+nosuchcommand"}, &err));
  EXPECT_EQ(err, "ERR Error in ACL SETUSER modifier '+nosuchcommand': Unknown command or category name in ACL");
  EXPECT_EQ(acl_find_user("t_half")->describe(), before);
  EXPECT_FALSE(setuser("t_new", {"on", "bogus"}));
  EXPECT_EQ(acl_find_user("t_new"), nullptr);
}

TEST(AclTest, KeyPermissionsFollowKeySpecs) {
  init();
  ASSERT_TRUE(setuser("t_keys", {"on", "nopass", "%R~r*", "%W~w*", "+@all"}));
  EXPECT_EQ(check("t_keys", {"get", "r1"}), AclDeny::kOk);
  EXPECT_EQ(check("t_keys", {"get", "w1"}), AclDeny::kKey);
  EXPECT_EQ(check("t_keys", {"set", "w1", "v"}), AclDeny::kOk);
  EXPECT_EQ(check("t_keys", {"set", "r1", "v"}), AclDeny::kKey);
  // SET ... GET reads the key too (variable flags).
  EXPECT_EQ(check("t_keys", {"set", "w1", "v", "get"}), AclDeny::kKey);
  // COPY reads its source and writes its destination.
  EXPECT_EQ(check("t_keys", {"copy", "r1", "w1"}), AclDeny::kOk);
  EXPECT_EQ(check("t_keys", {"copy", "w1", "r1"}), AclDeny::kKey);
}

TEST(AclTest, SubcommandRules) {
  init();
  ASSERT_TRUE(setuser("t_sub", {"on", "nopass", "allkeys", "+config|get"}));
  EXPECT_EQ(check("t_sub", {"config", "get", "x"}), AclDeny::kOk);
  EXPECT_EQ(check("t_sub", {"config", "set", "x", "y"}), AclDeny::kCommand);
  ASSERT_TRUE(setuser("t_sub", {"+config", "-config|set"}));
  EXPECT_EQ(check("t_sub", {"config", "resetstat"}), AclDeny::kOk);
  EXPECT_EQ(check("t_sub", {"config", "set", "x", "y"}), AclDeny::kCommand);
  // Redis 7.0's first-argument rule.
  ASSERT_TRUE(setuser("t_sub", {"+select|0"}));
  EXPECT_EQ(check("t_sub", {"select", "0"}), AclDeny::kOk);
  EXPECT_EQ(check("t_sub", {"select", "1"}), AclDeny::kCommand);
}

}  // namespace
}  // namespace keel
