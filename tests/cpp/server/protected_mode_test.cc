// Protected mode's notion of a local peer (server/server.cc), as Redis's connIsLocal decides it
// for TCP: the textual address starts with "127." or is "::1". The Tcl test
// (tests/integration/network-limits.tcl) connects from a real non-loopback address when the
// machine has one; this covers the decision on any machine.
#include <gtest/gtest.h>

#include "server/server.h"

namespace keel {
namespace {

TEST(ProtectedMode, LoopbackAddresses) {
  EXPECT_TRUE(is_loopback_ip("127.0.0.1"));
  EXPECT_TRUE(is_loopback_ip("127.0.0.2"));
  EXPECT_TRUE(is_loopback_ip("127.255.255.254"));
  EXPECT_TRUE(is_loopback_ip("::1"));
}

TEST(ProtectedMode, OtherAddresses) {
  EXPECT_FALSE(is_loopback_ip("192.0.2.2"));
  EXPECT_FALSE(is_loopback_ip("10.0.0.1"));
  EXPECT_FALSE(is_loopback_ip("0.0.0.0"));
  EXPECT_FALSE(is_loopback_ip("1.127.0.0"));
  EXPECT_FALSE(is_loopback_ip("fd00::2"));
  EXPECT_FALSE(is_loopback_ip("::"));
  EXPECT_FALSE(is_loopback_ip("::10"));
  // Not local to Redis either: an IPv4-mapped loopback address.
  EXPECT_FALSE(is_loopback_ip("::ffff:127.0.0.1"));
  EXPECT_FALSE(is_loopback_ip(""));
}

}  // namespace
}  // namespace keel
