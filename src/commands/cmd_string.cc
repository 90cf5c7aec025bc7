// String commands: GET SET (the rest of the family lands with its tests).
#include "commands/command.h"
#include "commands/command_table.h"

namespace keel {
namespace {

// GET key -> bulk or null.
void cmd_get(CommandContext& cx) {
  Object* o = cx.db().find(cx.key(1));
  if (!o) return cx.reply().null();
  if (!cx.check_type(o, Type::kString)) return;
  char scratch[24];
  cx.reply().bulk(o->string_view(scratch));
}

// SET key value
void cmd_set(CommandContext& cx) {
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  cx.db().set_string(slot, cx.arg(2));
  cx.notify(kNotifyString, "set", cx.arg(1));
  cx.reply().ok();
}

CommandSpec kStringCommands[] = {
    {"get", cmd_get, 2, kReadOnly | kFast, 1, 1, 1, kAclString, "string", "Returns the string value of a key.", "1.0.0", "O(1)"},
    {"set", cmd_set, -3, kWrite | kDenyOom, 1, 1, 1, kAclString, "string", "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.", "1.0.0", "O(1)"},
};

}  // namespace

std::span<CommandSpec> string_commands() { return kStringCommands; }

}  // namespace keel
