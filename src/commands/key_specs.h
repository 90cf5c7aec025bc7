// Key specs (command.h): what the command table derives from them at start-up (the legacy
// first/last/step range of COMMAND INFO, the movablekeys flag, the batch prefetch's key range)
// and how COMMAND GETKEYS / GETKEYSANDFLAGS find a command's keys in its arguments, the way
// Redis 7 does (specs first, then the command's getkeys proc, then the numkeys fallback).
#pragma once
#include <span>
#include <string_view>
#include <vector>

#include "commands/command.h"
#include "protocol/reply_writer.h"

namespace keel {

// Completes one row (not its subcommands): counts its key specs (making one from an old-style
// row's first_key/last_key/step), then derives first_key/last_key/step, kMovableKeys and
// prefetch (the batch prefetch positions). Called once per row by init_command_table().
void init_key_specs(CommandSpec& c);

// Redis's doesCommandHaveKeys: a spec that is not not_key, or a getkeys proc.
bool command_has_keys(const CommandSpec& c);

// The keys of `args` (the command's name first) with their flags, in Redis's order; returns
// their count (0: none found or the arguments do not fit the specs). The arity is the
// caller's to check.
int command_keys(const CommandSpec& c, std::span<const std::string_view> args,
                 std::vector<KeyArg>* keys);

// A set of key-spec flag names in Redis's order (RW RO OW RM access update insert delete
// not_key incomplete variable_flags).
void reply_key_spec_flags(ReplyWriter& w, uint16_t flags);
// COMMAND INFO element 9: the row's key specs (a set of maps in RESP3, as in Redis).
void reply_key_specs(ReplyWriter& w, const CommandSpec& c);

}  // namespace keel
