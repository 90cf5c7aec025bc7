// The `struct` library of the scripting sandbox: struct.pack, struct.unpack and struct.size,
// the binary packing library Redis scripts rely on. Only the library lives here; the engine
// (lua_engine.cc) opens it into the state and makes its table readonly.
#pragma once

struct lua_State;

namespace keel {

// Pushes a new table {pack, unpack, size}. Start-up only (it allocates, so it may raise on
// out-of-memory like any other library opener).
void push_struct_library(lua_State* L);

}  // namespace keel
