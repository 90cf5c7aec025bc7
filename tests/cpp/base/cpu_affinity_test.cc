// parse_cpulist (base/cpu_affinity.h): Redis's cpulist syntax for server_cpulist, bio_cpulist,
// aof_rewrite_cpulist and bgsave_cpulist.
#include <gtest/gtest.h>

#include <vector>

#include "base/cpu_affinity.h"

namespace keel {
namespace {

std::vector<int> cpus(const char* list) {
  std::vector<int> out;
  EXPECT_TRUE(parse_cpulist(list, &out)) << list;
  return out;
}

TEST(CpuList, SinglesRangesAndSteps) {
  EXPECT_EQ(cpus("3"), (std::vector<int>{3}));
  EXPECT_EQ(cpus("0-3"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(cpus("0-7:2"), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(cpus("1,4-5,8-12:3"), (std::vector<int>{1, 4, 5, 8, 11}));
  EXPECT_EQ(cpus("2-2"), (std::vector<int>{2}));
}

TEST(CpuList, MalformedListsAreRefused) {
  std::vector<int> out;
  for (const char* bad : {"", ",", "1,", ",1", "a", "1-", "3-1", "0-4:0", "0-4:", "1 2", "-1",
                          "1;2", "0-99999", "1,,2"}) {
    EXPECT_FALSE(parse_cpulist(bad, &out)) << '"' << bad << '"';
  }
}

}  // namespace
}  // namespace keel
