// Argument parsing that ZADD and the batch prefetch (which walks ZADD's skiplist paths ahead)
// must agree on. Implemented in cmd_zset.cc.
#pragma once
#include <cstddef>
#include <span>
#include <string_view>

namespace keel {

// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member ...: reads the flag words from argument 2
// on (any case, repeats allowed) into *flags (ZsetType::AddFlags) and *ch, and returns the
// index of the first argument that is not a flag (the first score). No validation.
size_t parse_zadd_flags(std::span<const std::string_view> args, int* flags, bool* ch);

}  // namespace keel
