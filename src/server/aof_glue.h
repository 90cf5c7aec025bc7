// The AOF's hooks into the command layer (server/aof_glue.cc): the propagation sink that feeds
// the AOF buffer and the session that runs a loaded file's commands.
#pragma once

namespace keel {

// Installs persistence/aof.h's AofHooks (attach/detach the sink, known/exec for loading).
void aof_install_hooks();

}  // namespace keel
