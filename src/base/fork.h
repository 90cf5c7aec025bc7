// Fork state, read by the layers that must behave differently while a forked child (the next
// issue's BGSAVE, AOF rewrite and full replication sync) may be running. The child shares the
// parent's memory copy-on-write: every page the parent writes meanwhile is copied, so the parent
// avoids the writes it can skip:
// - hash tables neither grow, rehash nor shrink unless heavily overloaded (ds/hashtable.h),
// - key lookups leave the LRU field alone (the keyspace folds this into g_clock.no_touch),
// - no new table asks for transparent huge pages (one write would copy 2 MB).
// Set and cleared through set_fork_child_exists() (keyspace/keyspace.h), which updates the
// keyspace's view too.
#pragma once

namespace keel {

inline constinit bool g_fork_child_exists = false;

// Big hash tables may ask for transparent huge pages (MADV_HUGEPAGE). False when the process
// disabled them at start-up (disable-thp yes, the default, as Redis does with
// PR_SET_THP_DISABLE): a child may be forked at any time (BGSAVE), and with huge pages a write
// to a table copies 2 MB instead of 4 KB.
inline constinit bool g_huge_pages_allowed = true;

}  // namespace keel
