// What INFO needs from the scripting commands (cmd_scripting.cc): the memory of the two Lua
// engines (EVAL's and FUNCTION's) and what they hold.
#pragma once
#include <cstddef>
#include <span>
#include <string_view>

namespace keel {

struct ScriptingMemory {
  size_t vm_eval = 0;          // used_memory_vm_eval (alias used_memory_lua): EVAL's Lua heap
  size_t vm_functions = 0;     // used_memory_vm_functions: FUNCTION's Lua heap
  size_t scripts_eval = 0;     // used_memory_scripts_eval: the script cache (bodies, entries)
  size_t functions = 0;        // used_memory_functions: libraries and functions (code, names)
  size_t cached_scripts = 0;   // number_of_cached_scripts
  size_t function_count = 0;   // number_of_functions
  size_t library_count = 0;    // number_of_libraries
};
ScriptingMemory scripting_memory();

// Creates EVAL's and FUNCTION's Lua states, at start-up as Redis does (before used_memory_startup
// is taken): created on first use instead, the first INFO would add their ~80 KB to the
// dataset figure of whatever was being measured.
void scripting_init();

struct CommandSpec;
// Redis's evalGetCommandFlags / fcallGetCommandFlags, for admission (dispatch.cc): an EVAL /
// EVALSHA / FCALL / FCALL_RO whose script has a shebang, or whose function exists, is a write
// command unless it declares no-writes. False for every other command and for unknown scripts.
bool script_admission_writes(const CommandSpec& c, std::span<const std::string_view> args);
// As Redis's scriptFlagsToCmdFlags decides deny-oom: EVAL* / FCALL* of a script or function
// that declares flags, none of them allow-oom or no-writes. A script without a shebang is
// checked per redis.call instead (script_call_oom below).
bool script_admission_denyoom(const CommandSpec& c, std::span<const std::string_view> args);

struct Session;
// True for the session scripts run their commands with (Redis's CLIENT_SCRIPT): SORT sorts a
// set it would otherwise return unsorted.
bool is_script_session(const Session* s);

}  // namespace keel
