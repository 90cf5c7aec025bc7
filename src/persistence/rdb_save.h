// The RDB writer: values, keys, whole snapshots, DUMP payloads, and SAVE's file protocol.
// It walks the keyspace with plain iterators and writes through RdbOut, so a forked child can
// later run rdb_write_snapshot() unchanged on a file or a socket.
#pragma once
#include <string>
#include <string_view>

#include "persistence/rdb_io.h"
#include "types/object.h"

namespace keel {

// The type byte and the value of `o` as RDB `version` writes it (10: sets never as listpack).
// Listpack and intset blobs go out as they are; `compress` applies LZF to strings over 20 bytes.
void rdb_write_value(RdbOut& out, const Object& o, int version, bool compress);
// [EXPIRETIME_MS] type key value.
void rdb_write_key(RdbOut& out, const Object& o, int version, bool compress);
// A whole snapshot: header, AUX fields, function libraries, every non-empty db, EOF and the
// checksum (zero when `checksum` is off).
void rdb_write_snapshot(RdbOut& out, int version, bool compress, bool checksum);

// Set only in a BGSAVE child: called by rdb_write_snapshot after every 1024th key with the
// number of keys written so far (the child's progress report to its parent).
extern void (*g_rdb_save_progress)(uint64_t keys);

// DUMP: type + value + u16 LE version + CRC64 (always computed).
std::string rdb_dump_payload(const Object& o, int version, bool compress);
// FUNCTION DUMP: FUNCTION2 + code per library, then version and CRC64.
std::string rdb_function_dump_payload(int version);

// SAVE: writes temp-<pid>.rdb in the working directory (`dir`), fsyncs it, renames it over
// `filename` and fsyncs the directory. Logs as Redis does; on success updates LASTSAVE, zeroes
// the dirty counter and clears a failed BGSAVE status (as Redis's rdbSave). False on any
// failure (the old file is left as it was). A BGSAVE child runs it too, on its own pid.
bool rdb_save_file(const std::string& filename);

}  // namespace keel
