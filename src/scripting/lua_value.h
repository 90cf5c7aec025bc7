// Conversions between RESP replies and Lua values, with Redis's rules for scripts:
//   RESP -> Lua (what redis.call returns): integer -> number, bulk -> string, null bulk/array ->
//   false (RESP2) or nil (RESP3 null), array -> table, status -> {ok=s}, error -> {err=s};
//   RESP3 only: map -> {map={k=v}}, set -> {set={m=true}}, double -> {double=n}, boolean ->
//   true/false, big number -> {big_number=s}, verbatim -> {verbatim_string={format=,string=}}.
//   Lua -> RESP (what a script returns): see write_lua_value.
#pragma once
#include "protocol/reply_writer.h"

struct lua_State;

namespace keel {

// Parses one complete RESP value at p (advancing p) and pushes its Lua form. The bytes come
// from our own ReplyWriter, so they are well formed; a truncated value pushes what it has.
// May raise a Lua memory error: call only where a longjmp is safe.
void push_resp_value(lua_State* L, const char*& p, const char* end);

// Writes the Lua value at idx as one reply. script_resp is the version set by redis.setresp():
// booleans are RESP3 booleans with 3, else true -> 1 and false -> null. Numbers are truncated
// to integers; a table with a string `err` / `ok` field is an error / status reply; `double`,
// `big_number`, `map`, `set`, `verbatim_string` fields give those types; any other table is an
// array of t[1], t[2], ... up to the first nil. Uses raw table access only (no metamethods run).
void write_lua_value(lua_State* L, int idx, int script_resp, ReplyWriter& w);

}  // namespace keel
