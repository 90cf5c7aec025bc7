// The stream type: one encoding (`stream`, a Stream from ds/stream.h: listpack nodes under a
// radix tree), whatever its size. This module is the glue between Object and Stream: creation,
// access, the node limits from the config (stream-node-max-bytes / -entries) and the
// CollectionOps (free, COPY, length for KEYSIZES, MEMORY USAGE). Commands
// (commands/cmd_stream.cc) work on the Stream it hands out. Unlike the other collections an
// empty stream is a key of its own (XADD MAXLEN 0, XDEL of every entry, XGROUP CREATE MKSTREAM):
// Db::length_changed keeps it.
#pragma once
#include <string_view>

#include "ds/stream.h"
#include "types/limits.h"
#include "types/object.h"

namespace keel {

class StreamType {
 public:
  // A new, empty stream object for `key` (it owns `s` when given, else a new Stream).
  static Object* create(std::string_view key, Stream* s = nullptr);
  static Stream& get(Object& o) { return *static_cast<Stream*>(o.ptr()); }
  static const Stream& get(const Object& o) { return *static_cast<const Stream*>(o.ptr()); }
  // The node limits of the moment (configurable at run time; affect later appends only).
  static StreamLimits limits() {
    const EncodingLimits& l = encoding_limits();
    return StreamLimits{l.stream_node_max_bytes, l.stream_node_max_entries};
  }
};

}  // namespace keel
