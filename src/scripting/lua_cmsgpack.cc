// cmsgpack for scripts: Lua values <-> MessagePack. Written for Keel from the MessagePack
// specification and the observable behaviour of the library Redis bundles (redis-server 7.0,
// checked byte for byte; tests/unit/scripting-libs.tcl pins the results).
//
// Encoding (cmsgpack.pack(v1, ...) concatenates the encoding of each argument):
//   nil, functions, userdata, threads -> nil (c0);  booleans -> c2 / c3
//   numbers: integral and in [-2^63, 2^63) -> the smallest int form (positive fixint, cc cd ce
//     cf for >= 0; negative fixint, d0 d1 d2 d3 for < 0); others -> float32 (ca) when the value
//     survives a round trip through float (inf included), else float64 (cb; NaN is always cb)
//   strings -> str: fixstr a0|n (n < 32), d9 (<= 0xff), da (<= 0xffff), db; never bin
//   tables -> array (fixarray 90|n, dc, dd) when the keys are exactly 1..n (an empty table is
//     an empty array), else map (80|n, de, df) in lua_next order, key then value; tables nested
//     16 levels deep (the outermost is level 0) are written as nil
// Decoding accepts what the encoder writes plus ints of every width (cf is read as a signed
// 64-bit value, as the reference does); bin, ext and c1 are "Bad data format in input.",
// truncated input is "Missing bytes in input.".
//
// unpack(s) returns every value; unpack_one(s [, offset]) and unpack_limit(s, limit [, offset])
// return the next byte offset (0-based; -1 once the input is used up) followed by at most one /
// `limit` values. unpack_limit with limit 0 and offset 0 decodes everything and returns no
// offset (the reference's "decode all" case).
//
// Lua stack: every value decoded first checks for one free slot ("too many return values at
// once; ..."), and an array checks for one more after creating its table, so results and
// nesting depth hit their limits (LUAI_MAXCSTACK) exactly where the reference does.
//
// longjmp safety: the encoder appends to a file-level scratch buffer (not a local), and the
// decoder holds only raw pointers, so any Lua error leaves nothing to destroy.
#include "scripting/lua_cmsgpack.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "scripting/lua_sandbox.h"

namespace keel {
namespace {

constexpr int kMaxNesting = 16;             // tables deeper than this are encoded as nil
constexpr size_t kScratchKeep = 64 * 1024;  // larger scratch buffers are released after use

TableResolver g_resolve_table = nullptr;

// ---- encoding ----------------------------------------------------------------------------------

std::string& scratch() {
  static std::string buf;
  return buf;
}

void put_be(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; i--) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_tag_be(std::string& out, unsigned char tag, uint64_t v, int bytes) {
  out.push_back(static_cast<char>(tag));
  put_be(out, v, bytes);
}

void encode_int(std::string& out, int64_t v) {
  if (v >= 0) {
    const uint64_t u = static_cast<uint64_t>(v);
    if (u < 0x80) {
      out.push_back(static_cast<char>(u));
    } else if (u <= 0xff) {
      put_tag_be(out, 0xcc, u, 1);
    } else if (u <= 0xffff) {
      put_tag_be(out, 0xcd, u, 2);
    } else if (u <= 0xffffffffu) {
      put_tag_be(out, 0xce, u, 4);
    } else {
      put_tag_be(out, 0xcf, u, 8);
    }
    return;
  }
  const uint64_t bits = static_cast<uint64_t>(v);
  if (v >= -32) {
    out.push_back(static_cast<char>(bits & 0xff));
  } else if (v >= INT8_MIN) {
    put_tag_be(out, 0xd0, bits, 1);
  } else if (v >= INT16_MIN) {
    put_tag_be(out, 0xd1, bits, 2);
  } else if (v >= INT32_MIN) {
    put_tag_be(out, 0xd2, bits, 4);
  } else {
    put_tag_be(out, 0xd3, bits, 8);
  }
}

void encode_number(std::string& out, double d) {
  constexpr double k2p63 = 9223372036854775808.0;
  if (d >= -k2p63 && d < k2p63 && std::trunc(d) == d) {
    encode_int(out, static_cast<int64_t>(d));
    return;
  }
  // float32 when exact. A finite value beyond FLT_MAX can never be exact (and converting it
  // to float is undefined in C++), so it goes straight to float64.
  if (!(std::isfinite(d) && std::fabs(d) > FLT_MAX)) {
    const float f = static_cast<float>(d);
    if (static_cast<double>(f) == d) {
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      put_tag_be(out, 0xca, bits, 4);
      return;
    }
  }
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  put_tag_be(out, 0xcb, bits, 8);
}

void encode_string(std::string& out, const char* s, size_t len) {
  if (len < 32) {
    out.push_back(static_cast<char>(0xa0 | len));
  } else if (len <= 0xff) {
    put_tag_be(out, 0xd9, len, 1);
  } else if (len <= 0xffff) {
    put_tag_be(out, 0xda, len, 2);
  } else {
    put_tag_be(out, 0xdb, len, 4);
  }
  out.append(s, len);
}

// Array and map headers: fix form below 16 entries, then 16-bit, then 32-bit counts.
void encode_header(std::string& out, bool array, size_t n) {
  if (n < 16) {
    out.push_back(static_cast<char>((array ? 0x90 : 0x80) | n));
  } else if (n <= 0xffff) {
    put_tag_be(out, array ? 0xdc : 0xde, n, 2);
  } else {
    put_tag_be(out, array ? 0xdd : 0xdf, n, 4);
  }
}

// A key that can index an array: a number, > 0, integral and within int (the reference
// compares against a C int).
bool is_array_key(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TNUMBER) return false;
  const double k = lua_tonumber(L, idx);
  return k > 0 && k <= INT_MAX && std::trunc(k) == k;
}

void encode_value(lua_State* L, std::string& out, int idx, int level);

// Table at absolute index idx. Uses at most 4 stack slots above the top at each level.
void encode_table(lua_State* L, std::string& out, int idx, int level) {
  luaL_checkstack(L, 4, "in function mp_encode_lua_table");
  if (g_resolve_table != nullptr) {  // a readonly proxy -> the table behind it
    g_resolve_table(L, idx);
    idx = lua_gettop(L);
  }
  size_t count = 0;
  double max_key = 0;
  bool array = true;
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    lua_pop(L, 1);
    count++;
    if (array) {
      if (is_array_key(L, -1)) {
        max_key = std::fmax(max_key, lua_tonumber(L, -1));
      } else {
        array = false;
      }
    }
  }
  array = array && max_key == static_cast<double>(count);  // keys are exactly 1..count
  encode_header(out, array, count);
  if (array) {
    for (size_t i = 1; i <= count; i++) {
      lua_rawgeti(L, idx, static_cast<int>(i));
      encode_value(L, out, lua_gettop(L), level + 1);
      lua_pop(L, 1);
    }
  } else {
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
      const int top = lua_gettop(L);
      encode_value(L, out, top - 1, level + 1);
      encode_value(L, out, top, level + 1);
      lua_pop(L, 1);
    }
  }
  if (g_resolve_table != nullptr) lua_pop(L, 1);
}

// The output may not pass kScriptMaxBytes: a table holding the same subtable twice per level
// is 2^16 copies at the nesting limit, and strings over 4 GB have no str32 length (the
// reference library's size arithmetic overflows there, CVE-2022-24834). Checked before every
// value, and before a string is appended. Raising is safe: out is the file-level scratch.
void check_output(lua_State* L, const std::string& out, size_t more) {
  if (out.size() > kScriptMaxBytes || more > kScriptMaxBytes - out.size()) {
    luaL_error(L, "MessagePack output larger than 512 MB");
  }
}

void encode_value(lua_State* L, std::string& out, int idx, int level) {
  check_output(L, out, 0);
  switch (lua_type(L, idx)) {
    case LUA_TBOOLEAN:
      out.push_back(static_cast<char>(lua_toboolean(L, idx) ? 0xc3 : 0xc2));
      return;
    case LUA_TNUMBER:
      encode_number(out, lua_tonumber(L, idx));
      return;
    case LUA_TSTRING: {
      size_t len = 0;
      const char* s = lua_tolstring(L, idx, &len);
      check_output(L, out, len + 5);
      encode_string(out, s, len);
      return;
    }
    case LUA_TTABLE:
      if (level < kMaxNesting) {
        encode_table(L, out, idx, level);
        return;
      }
      break;
    default:
      break;
  }
  out.push_back(static_cast<char>(0xc0));
}

// cmsgpack.pack(v1 [, v2 ...]) -> string
int cmsgpack_pack(lua_State* L) {
  const int nargs = lua_gettop(L);
  if (nargs == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
  // The reference keeps one result per argument on the stack; its limit is kept as is.
  if (!lua_checkstack(L, nargs)) {
    return luaL_argerror(L, 0, "Too many arguments for MessagePack pack.");
  }
  std::string& out = scratch();
  out.clear();
  for (int i = 1; i <= nargs; i++) encode_value(L, out, i, 0);
  lua_pushlstring(L, out.data(), out.size());
  if (out.capacity() > kScratchKeep) std::string().swap(out);
  return 1;
}

// ---- decoding ----------------------------------------------------------------------------------

enum class DecodeError { kNone, kEof, kBadFormat };

struct Cursor {
  const unsigned char* p;
  size_t left;
  DecodeError err = DecodeError::kNone;

  // True when n more bytes are available; otherwise records kEof.
  bool need(size_t n) {
    if (left >= n) return true;
    err = DecodeError::kEof;
    return false;
  }
  void skip(size_t n) {
    p += n;
    left -= n;
  }
  uint64_t be(size_t at, int bytes) const {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = (v << 8) | p[at + i];
    return v;
  }
};

void decode_value(lua_State* L, Cursor& c);

void decode_array(lua_State* L, Cursor& c, uint64_t n) {
  lua_newtable(L);
  luaL_checkstack(L, 1, "in function mp_decode_to_lua_array");
  for (uint64_t i = 1; i <= n; i++) {
    lua_pushnumber(L, static_cast<double>(i));
    decode_value(L, c);
    if (c.err != DecodeError::kNone) return;
    lua_settable(L, -3);
  }
}

void decode_map(lua_State* L, Cursor& c, uint64_t n) {
  lua_newtable(L);
  for (uint64_t i = 0; i < n; i++) {
    decode_value(L, c);  // key
    if (c.err != DecodeError::kNone) return;
    decode_value(L, c);  // value
    if (c.err != DecodeError::kNone) return;
    lua_settable(L, -3);  // a nil or NaN key raises "table index is nil/NaN", as in Redis
  }
}

// Numbers with a tag byte: (tag, width) -> pushed value.
void decode_number(lua_State* L, Cursor& c, unsigned char tag, int width) {
  if (!c.need(1 + static_cast<size_t>(width))) return;
  const uint64_t v = c.be(1, width);
  switch (tag) {
    case 0xcc:
    case 0xcd:
    case 0xce:
      lua_pushnumber(L, static_cast<double>(v));
      break;
    case 0xcf:  // read as signed, as the reference does
    case 0xd3:
      lua_pushnumber(L, static_cast<double>(static_cast<int64_t>(v)));
      break;
    case 0xd0:
      lua_pushnumber(L, static_cast<int8_t>(v));
      break;
    case 0xd1:
      lua_pushnumber(L, static_cast<int16_t>(v));
      break;
    case 0xd2:
      lua_pushnumber(L, static_cast<int32_t>(v));
      break;
    case 0xca: {
      const uint32_t bits = static_cast<uint32_t>(v);
      float f;
      std::memcpy(&f, &bits, sizeof f);
      lua_pushnumber(L, f);
      break;
    }
    case 0xcb: {
      double d;
      std::memcpy(&d, &v, sizeof d);
      lua_pushnumber(L, d);
      break;
    }
    default:
      break;
  }
  c.skip(1 + static_cast<size_t>(width));
}

// A string whose length field (width bytes, 0 for fixstr) follows the tag.
void decode_string(lua_State* L, Cursor& c, int width, size_t fix_len) {
  if (!c.need(1 + static_cast<size_t>(width))) return;
  const size_t len = width == 0 ? fix_len : static_cast<size_t>(c.be(1, width));
  const size_t head = 1 + static_cast<size_t>(width);
  if (!c.need(head + len)) return;
  lua_pushlstring(L, reinterpret_cast<const char*>(c.p + head), len);
  c.skip(head + len);
}

// A container whose count field (width bytes, 0 for the fix forms) follows the tag.
void decode_container(lua_State* L, Cursor& c, bool array, int width, uint64_t fix_n) {
  if (!c.need(1 + static_cast<size_t>(width))) return;
  const uint64_t n = width == 0 ? fix_n : c.be(1, width);
  c.skip(1 + static_cast<size_t>(width));
  if (array) {
    decode_array(L, c, n);
  } else {
    decode_map(L, c, n);
  }
}

// Decodes one value onto the stack, or records an error in c (pushing maybe nothing).
void decode_value(lua_State* L, Cursor& c) {
  luaL_checkstack(L, 1, "too many return values at once; use unpack_one or unpack_limit instead.");
  if (!c.need(1)) return;
  const unsigned char tag = c.p[0];
  switch (tag) {
    case 0xc0:
      lua_pushnil(L);
      c.skip(1);
      return;
    case 0xc2:
      lua_pushboolean(L, 0);
      c.skip(1);
      return;
    case 0xc3:
      lua_pushboolean(L, 1);
      c.skip(1);
      return;
    case 0xcc:
    case 0xd0:
      decode_number(L, c, tag, 1);
      return;
    case 0xcd:
    case 0xd1:
      decode_number(L, c, tag, 2);
      return;
    case 0xce:
    case 0xd2:
    case 0xca:
      decode_number(L, c, tag, 4);
      return;
    case 0xcf:
    case 0xd3:
    case 0xcb:
      decode_number(L, c, tag, 8);
      return;
    case 0xd9:
      decode_string(L, c, 1, 0);
      return;
    case 0xda:
      decode_string(L, c, 2, 0);
      return;
    case 0xdb:
      decode_string(L, c, 4, 0);
      return;
    case 0xdc:
      decode_container(L, c, true, 2, 0);
      return;
    case 0xdd:
      decode_container(L, c, true, 4, 0);
      return;
    case 0xde:
      decode_container(L, c, false, 2, 0);
      return;
    case 0xdf:
      decode_container(L, c, false, 4, 0);
      return;
    default:
      break;
  }
  if (tag < 0x80) {  // positive fixint
    lua_pushnumber(L, tag);
    c.skip(1);
  } else if (tag >= 0xe0) {  // negative fixint
    lua_pushnumber(L, static_cast<int8_t>(tag));
    c.skip(1);
  } else if ((tag & 0xe0) == 0xa0) {
    decode_string(L, c, 0, tag & 0x1f);
  } else if ((tag & 0xf0) == 0x90) {
    decode_container(L, c, true, 0, tag & 0x0f);
  } else if ((tag & 0xf0) == 0x80) {
    decode_container(L, c, false, 0, tag & 0x0f);
  } else {  // c1, bin, ext
    c.err = DecodeError::kBadFormat;
  }
}

// Decodes up to `limit` values from byte `offset` of argument 1. limit 0 with offset 0 means
// "everything, and no offset result" (cmsgpack.unpack).
int unpack_values(lua_State* L, lua_Integer limit, lua_Integer offset) {
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  // The texts print the input length where they say "limit", and %d shows the low 32 bits:
  // both as the reference.
  if (offset < 0 || limit < 0) {
    return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.",
                      static_cast<int>(offset), static_cast<int>(len));
  }
  if (static_cast<uint64_t>(offset) > len) {
    return luaL_error(L, "Start offset %d greater than input length %d.", static_cast<int>(offset),
                      static_cast<int>(len));
  }
  const bool all = limit == 0 && offset == 0;
  if (all) limit = INT_MAX;
  Cursor c{reinterpret_cast<const unsigned char*>(s) + offset, len - static_cast<size_t>(offset)};
  int count = 0;
  for (; c.left > 0 && count < limit; count++) {
    decode_value(L, c);
    if (c.err == DecodeError::kEof) return luaL_error(L, "Missing bytes in input.");
    if (c.err == DecodeError::kBadFormat) return luaL_error(L, "Bad data format in input.");
  }
  if (all) return count;
  luaL_checkstack(L, 1, "in function mp_unpack_full");
  lua_pushinteger(L, c.left == 0 ? -1 : static_cast<lua_Integer>(len - c.left));
  lua_insert(L, 2);  // results are the top count+1 slots: offset first
  return count + 1;
}

// cmsgpack.unpack(s) -> every value in s
int cmsgpack_unpack(lua_State* L) { return unpack_values(L, 0, 0); }

// cmsgpack.unpack_one(s [, offset]) -> next offset, value
int cmsgpack_unpack_one(lua_State* L) {
  const lua_Integer offset = luaL_optinteger(L, 2, 0);
  if (lua_gettop(L) > 1) lua_settop(L, 1);
  return unpack_values(L, 1, offset);
}

// cmsgpack.unpack_limit(s, limit [, offset]) -> next offset, values...
int cmsgpack_unpack_limit(lua_State* L) {
  const lua_Integer limit = luaL_checkinteger(L, 2);
  const lua_Integer offset = luaL_optinteger(L, 3, 0);
  if (lua_gettop(L) > 1) lua_settop(L, 1);
  return unpack_values(L, limit, offset);
}

void set_string_field(lua_State* L, const char* name, const char* value) {
  lua_pushstring(L, value);
  lua_setfield(L, -2, name);
}

}  // namespace

void set_cmsgpack_table_resolver(TableResolver resolve) { g_resolve_table = resolve; }

void trim_cmsgpack_scratch() {
  if (scratch().capacity() > kScratchKeep) std::string().swap(scratch());
}

void push_cmsgpack_library(lua_State* L) {
  lua_createtable(L, 0, 8);
  lua_pushcfunction(L, cmsgpack_pack);
  lua_setfield(L, -2, "pack");
  lua_pushcfunction(L, cmsgpack_unpack);
  lua_setfield(L, -2, "unpack");
  lua_pushcfunction(L, cmsgpack_unpack_one);
  lua_setfield(L, -2, "unpack_one");
  lua_pushcfunction(L, cmsgpack_unpack_limit);
  lua_setfield(L, -2, "unpack_limit");
  // Identification fields scripts can read; values as the library Redis ships reports them.
  set_string_field(L, "_NAME", "cmsgpack");
  set_string_field(L, "_VERSION", "lua-cmsgpack 0.4.0");
  set_string_field(L, "_COPYRIGHT", "Copyright (C) 2012, Salvatore Sanfilippo");
  set_string_field(L, "_DESCRIPTION", "MessagePack C implementation for Lua");
}

}  // namespace keel
