// rename-command (redis.conf only, as in Redis): clients reach a command under another name, or
// not at all when the new name is "". The row itself keeps its name: INFO commandstats, COMMAND
// and ACL rules still know it by the original one.
#pragma once
#include <string>
#include <string_view>

#include "commands/command.h"

namespace keel {

// False with *err (Redis's text) when `from` is no command clients can reach or `to` is taken.
bool rename_command(std::string_view from, std::string_view to, std::string* err);
// A top-level command by its original name, renamed or not: ACL rules name commands this way
// (as in Redis, `+config` still works and the new name does not), and so does code that needs
// a given row whatever the configuration renamed.
const CommandSpec* lookup_original_command(std::string_view name);

}  // namespace keel
