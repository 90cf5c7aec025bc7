// Streams in RDB files and DUMP payloads, in Redis's three forms: STREAM_LISTPACKS (15, Redis
// 5-6.2), STREAM_LISTPACKS_2 (19, Redis 7.0: first ID, max deleted ID, entries added, groups'
// entries-read) and STREAM_LISTPACKS_3 (21, Redis 7.2+: consumers' active time). The node
// listpacks are written and read as they are (ds/stream.h has the same bytes as Redis).
#pragma once
#include <memory>

#include "ds/stream.h"
#include "persistence/rdb_io.h"

namespace keel {

// The stream type a file of this RDB version carries: 10 -> 19, 11 and later -> 21.
int rdb_stream_type_for(int version);
// Writes the value part (after the type byte and key) of stream s as RDB type `type`.
void rdb_write_stream(RdbOut& out, const Stream& s, int type, bool compress);
// Reads a stream value of RDB type `type` (15, 19 or 21). Every node listpack is checked
// entry by entry (structure, lp-counts, counters, ascending IDs) whatever `deep` says, because
// the stream code walks nodes without bounds checks; deep adds the checks that cost more (every
// PEL entry has a consumer). Throws through in.fail() on bad input.
std::unique_ptr<Stream> rdb_read_stream(RdbIn& in, int type, bool deep);

}  // namespace keel
