// CPU affinity lists as Redis's server_cpulist / bio_cpulist / aof_rewrite_cpulist /
// bgsave_cpulist take them: comma-separated items, each a CPU ("3"), a range ("0-3") or a range
// with a step ("0-7:2"). The config layer stores the four lists here (immutable directives);
// each thread or child applies its own list when it starts.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace keel {

struct CpuLists {
  std::string server;       // the main thread (and what it starts, unless a list below says)
  std::string bio;          // background threads: lazyfree, the AOF fsync thread
  std::string aof_rewrite;  // the AOF rewrite child
  std::string bgsave;       // the RDB children (BGSAVE, full syncs)
};
CpuLists& cpu_lists();

// The CPUs of `list`; false on a malformed item (a negative or reversed range, a zero step,
// a stray character) or a CPU past the affinity mask.
bool parse_cpulist(std::string_view list, std::vector<int>* cpus);

// Binds the calling thread (or thread `tid`) to `list` (nothing when it is empty). A malformed
// list or a refused binding is logged with `what` ("bio_cpulist") and the thread runs unbound.
void apply_cpulist(const std::string& list, const char* what, int tid = 0);

// The thread ids of this process (/proc/self/task): to find the threads a library call
// started (jemalloc's background purge thread names itself only once it runs).
std::vector<int> process_thread_ids();

}  // namespace keel
