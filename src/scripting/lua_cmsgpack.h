// The `cmsgpack` library of the scripting sandbox: MessagePack encoding of Lua values
// (cmsgpack.pack) and decoding back (cmsgpack.unpack, unpack_one, unpack_limit), with the
// rules and error texts of the library Redis bundles. The engine (lua_engine.cc) opens it into
// the state and makes its table readonly.
#pragma once

struct lua_State;

namespace keel {

// Pushes a new table {pack, unpack, unpack_one, unpack_limit, _NAME, _VERSION, _COPYRIGHT,
// _DESCRIPTION}. Start-up only.
void push_cmsgpack_library(lua_State* L);

// Pushes the table whose contents the table at (absolute) index idx stands for, or that table
// itself. The engine installs one at start-up so cmsgpack.pack encodes what a readonly proxy
// (e.g. the `string` library table) shows, as Redis does; without one, tables are taken as is.
using TableResolver = void (*)(lua_State* L, int idx);
void set_cmsgpack_table_resolver(TableResolver resolve);

// Releases the encoder's scratch buffer if a pack left it large (one that failed half-way,
// e.g. on the output limit, cannot release it itself). The engine calls it after each script.
void trim_cmsgpack_scratch();

}  // namespace keel
