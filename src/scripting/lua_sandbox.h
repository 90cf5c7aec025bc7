// Guards around the Lua library functions a script can reach that are unsafe as Debian ships
// them (liblua5.1 5.1.5, lua-bitop 1.0.2, lua-cjson 2.1.0 carry none of Redis's Lua fixes):
// Keel's own unpack / load / loadstring, and checks in front of bit.tohex, string.rep,
// string.find/match/gmatch/gsub, table.concat, cjson.* and collectgarbage. The list, with the
// CVE behind each, is in scripting/README.md ("Hardening"). The engine (lua_engine.cc) calls
// install_library_guards once per state, before it turns the library tables into readonly
// proxies, and restore_library_state after every script.
#pragma once
#include <cstddef>

struct lua_State;

namespace keel {

// The largest string a script may build with string.rep or table.concat, the largest output
// of cjson.encode and cmsgpack.pack, and the largest reply a script may return: 512 MB, as
// Redis's default proto-max-bulk-len (no larger value could be stored as a key anyway).
constexpr size_t kScriptMaxBytes = size_t{512} << 20;

// Compiles a chunk like luaL_loadbuffer, but never as precompiled bytecode: a chunk starting
// with the bytecode signature (ESC) is read as source, so it fails with Lua's syntax error
// "unexpected symbol near 'char(27)'" exactly as Redis's Lua (which removed the undump path).
// chunkname must stay alive (anchored) while the call runs: pass a literal the engine keeps
// interned in the registry, or a string on the Lua stack. Returns lua_load's status; a chunk
// over kScriptMaxBytes is a syntax error "chunk too large" (never read).
int compile_chunk(lua_State* L, const char* data, size_t len, const char* chunkname);

// Replaces or wraps the unsafe functions in the real library tables and globals. Start-up only
// (unprotected, like the other library openers); the libraries must already be open.
void install_library_guards(lua_State* L);

// Puts back what a script may have changed for later scripts: cjson's settings
// (encode_max_depth, encode_sparse_array, ...) and the collector's mode (collectgarbage "stop",
// "setpause", "setstepmul"). Cheap when the script changed nothing. Call outside any script.
void restore_library_state(lua_State* L);

}  // namespace keel
