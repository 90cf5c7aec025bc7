// CPU affinity lists (base/cpu_affinity.h).
#include "base/cpu_affinity.h"

#include <dirent.h>
#include <sched.h>

#include <cstdlib>

#include "base/log.h"

namespace keel {

CpuLists& cpu_lists() {
  static CpuLists l;
  return l;
}

namespace {

// Reads a decimal number at `s[*i]`; false when there is none.
bool read_number(std::string_view s, size_t* i, int* out) {
  int v = 0;
  const size_t start = *i;
  while (*i < s.size() && s[*i] >= '0' && s[*i] <= '9' && *i - start < 6) {
    v = v * 10 + (s[*i] - '0');
    ++*i;
  }
  *out = v;
  return *i > start;
}

}  // namespace

bool parse_cpulist(std::string_view list, std::vector<int>* cpus) {
  cpus->clear();
  size_t i = 0;
  while (i < list.size()) {
    int a, b, step = 1;
    if (!read_number(list, &i, &a)) return false;
    b = a;
    if (i < list.size() && list[i] == '-') {
      ++i;
      if (!read_number(list, &i, &b) || b < a) return false;
      if (i < list.size() && list[i] == ':') {
        ++i;
        if (!read_number(list, &i, &step) || step == 0) return false;
      }
    }
    if (b >= CPU_SETSIZE) return false;
    for (int c = a; c <= b; c += step) cpus->push_back(c);
    if (i == list.size()) break;
    if (list[i] != ',' || i + 1 == list.size()) return false;
    ++i;
  }
  return !cpus->empty();
}

void apply_cpulist(const std::string& list, const char* what, int tid) {
  if (list.empty()) return;
  std::vector<int> cpus;
  if (!parse_cpulist(list, &cpus)) {
    LOG_WARNING("%s '%s' is not a valid CPU list: left unbound", what, list.c_str());
    return;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  if (sched_setaffinity(tid, sizeof set, &set) != 0) {
    LOG_WARNING("%s '%s' could not be applied: left unbound", what, list.c_str());
  }
}

std::vector<int> process_thread_ids() {
  std::vector<int> ids;
  DIR* d = opendir("/proc/self/task");
  if (!d) return ids;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] >= '0' && e->d_name[0] <= '9') ids.push_back(atoi(e->d_name));
  }
  closedir(d);
  return ids;
}

}  // namespace keel
