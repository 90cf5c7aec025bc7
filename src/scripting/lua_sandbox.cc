// Keel's guards around the library functions of Debian's Lua packages (see lua_sandbox.h and
// the "Hardening" section of scripting/README.md for the attack behind each one).
//
// Two kinds of guard:
//   - replacements written here (unpack, load, loadstring), used instead of the library's;
//   - checks in front of a library C function (bit.tohex, string.rep, string.find/match/gmatch/
//     gsub, table.concat, cjson.*, collectgarbage). The guard is a C closure carrying the same
//     upvalues as the original, and it runs the original C function in its own call frame
//     once the arguments pass. So the original sees its own upvalues (cjson's settings), and
//     its error texts are unchanged: "bad argument #1 to 'rep'", "user_script:1: ..." (Lua
//     names the function and the line from the calling script's frame).
//
// Lua raises with longjmp: nothing here owns a destructible C++ object.
#include "scripting/lua_sandbox.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <array>
#include <climits>
#include <cstdint>
#include <cstring>
#include <utility>

namespace keel {
namespace {

// ---- compiling -------------------------------------------------------------------------------

// Feeds a chunk to lua_load. A chunk whose first byte is ESC (the bytecode signature) gets one
// leading space, so the parser (not the undumper) reads it; the space shifts no line number.
struct ChunkReader {
  const char* data;
  size_t len;
  int step = 0;
};

const char* read_chunk(lua_State*, void* ud, size_t* size) {
  auto* r = static_cast<ChunkReader*>(ud);
  if (r->step == 0) {
    r->step = 1;
    if (r->len > 0 && r->data[0] == '\x1b') {
      *size = 1;
      return " ";
    }
  }
  if (r->step == 1) {
    r->step = 2;
    *size = r->len;
    return r->len > 0 ? r->data : nullptr;
  }
  *size = 0;
  return nullptr;
}

// loadstring(s [, chunkname]): the name defaults to s itself, which is on the stack.
int sandbox_loadstring(lua_State* L) {
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  const char* name = luaL_optstring(L, 2, s);
  if (compile_chunk(L, s, len, name) == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;  // nil, message
}

// load(reader [, chunkname]): calls the reader until it returns nil or "" and only then
// compiles. Lua's own load calls the reader while the parser runs, so a reader that runs the
// collector could free the parser's chunk name under it (CVE-2025-49844); here no script code
// runs during parsing, and the chunk name is a string on the stack.
int sandbox_load(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  luaL_optstring(L, 2, "=(load)");
  if (lua_isnoneornil(L, 2)) {
    lua_settop(L, 1);
    lua_pushliteral(L, "=(load)");
  }
  lua_settop(L, 2);
  lua_newtable(L);  // 3: the pieces, in order
  int pieces = 0;
  for (;;) {
    lua_pushvalue(L, 1);
    if (lua_pcall(L, 0, 1, 0) != 0) {  // the reader's error is load's message
      lua_pushnil(L);
      lua_insert(L, -2);
      return 2;
    }
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    if (!lua_isstring(L, -1)) {
      lua_pushnil(L);
      lua_pushliteral(L, "reader function must return a string");
      return 2;
    }
    if (lua_objlen(L, -1) == 0) {
      lua_pop(L, 1);
      break;
    }
    lua_rawseti(L, 3, ++pieces);
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 1; i <= pieces; i++) {
    lua_rawgeti(L, 3, i);
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  size_t len = 0;
  const char* code = lua_tolstring(L, -1, &len);
  if (compile_chunk(L, code, len, lua_tostring(L, 2)) == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

// ---- unpack ----------------------------------------------------------------------------------

// unpack(t [, i [, j]]). Lua 5.1 computes the count as an int (j - i + 1), which overflows
// for unpack({}, 0, 2^31-1) and then writes past the stack (CVE-2025-46817). The count is
// computed in 64 bits here and checked against the stack before anything is pushed.
int sandbox_unpack(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  const int first = luaL_optint(L, 2, 1);
  const int last = luaL_opt(L, luaL_checkint, 3, static_cast<int>(lua_objlen(L, 1)));
  if (first > last) return 0;
  const int64_t count = int64_t{last} - int64_t{first} + 1;
  if (count >= INT_MAX || !lua_checkstack(L, static_cast<int>(count))) {
    return luaL_error(L, "too many results to unpack");
  }
  for (int64_t i = first; i <= last; i++) lua_rawgeti(L, 1, static_cast<int>(i));
  return static_cast<int>(count);
}

// ---- guards in front of library C functions ----------------------------------------------------

lua_CFunction g_tohex, g_rep, g_find, g_match, g_gmatch, g_gsub, g_concat, g_collectgarbage;
lua_CFunction g_encode, g_decode, g_cjson_new;

// Replaces t[name] (t an absolute index) by a closure of guard with the original's upvalues,
// and records the original C function in *orig. Leaves t[name] alone if it is no C function.
void rewrap(lua_State* L, int t, const char* name, lua_CFunction guard, lua_CFunction* orig) {
  lua_getfield(L, t, name);
  const int fn = lua_gettop(L);
  const lua_CFunction f = lua_tocfunction(L, fn);
  if (f == nullptr) return lua_pop(L, 1);
  *orig = f;
  int n = 0;
  while (lua_getupvalue(L, fn, n + 1) != nullptr) n++;
  lua_pushcclosure(L, guard, n);
  lua_setfield(L, t, name);
  lua_pop(L, 1);
}

// bit.tohex(x, n): lua-bitop negates n to pick upper case, and -INT32_MIN is still negative,
// so the digit loop runs off its 8-byte buffer (CVE-2024-31449). n is converted the way
// bitop converts it (low 32 bits of n + 2^52 + 2^51); INT32_MIN becomes -8, which prints what
// Redis's fixed library prints for it (8 upper-case digits).
int guarded_tohex(lua_State* L) {
  if (lua_gettop(L) >= 2 && lua_isnumber(L, 2)) {
    const double shifted = lua_tonumber(L, 2) + 6755399441055744.0;
    uint64_t bits;
    std::memcpy(&bits, &shifted, sizeof bits);
    if (static_cast<uint32_t>(bits) == 0x80000000u) {
      lua_pushnumber(L, -8);
      lua_replace(L, 2);
    }
  }
  return g_tohex(L);
}

// string.rep(s, n): refused up front when the result would pass kScriptMaxBytes, instead of
// building it piece by piece until memory runs out. n is read as Lua reads it (an int).
int guarded_rep(lua_State* L) {
  if (lua_isstring(L, 1) && lua_isnumber(L, 2)) {
    size_t len = 0;
    lua_tolstring(L, 1, &len);
    const int n = static_cast<int>(lua_tointeger(L, 2));
    if (n > 0 && len > 0 && len > kScriptMaxBytes / static_cast<size_t>(n)) {
      return luaL_error(L, "resulting string too large");
    }
  }
  return g_rep(L);
}

// Lua 5.1's pattern matcher recurses once per quantifier ('?', '*', '+', '-') and capture it
// meets, with no depth limit: "a?" repeated 300000 times overflows the C stack. Each of those
// characters adds at most one level (about 70 bytes of C stack, measured: the 8 MB stack
// holds ~100000), and only one match is active at a time (gsub calls its replacement function
// after the match returns). More than kMaxPatternSpecials is refused with Lua 5.2's text; a
// legitimate pattern has a handful.
constexpr size_t kMaxPatternSpecials = 5000;

void check_pattern(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TSTRING) return;  // numbers make no deep pattern
  size_t len = 0;
  const char* p = lua_tolstring(L, idx, &len);
  size_t specials = 0;
  for (size_t i = 0; i < len; i++) {
    const char c = p[i];
    if (c == '?' || c == '*' || c == '+' || c == '-' || c == '(') specials++;
  }
  if (specials > kMaxPatternSpecials) luaL_error(L, "pattern too complex");
}

int guarded_find(lua_State* L) {
  if (!lua_toboolean(L, 4)) check_pattern(L, 2);  // a plain find uses no pattern
  return g_find(L);
}
int guarded_match(lua_State* L) {
  check_pattern(L, 2);
  return g_match(L);
}
int guarded_gmatch(lua_State* L) {
  check_pattern(L, 2);
  return g_gmatch(L);
}
int guarded_gsub(lua_State* L) {
  check_pattern(L, 2);
  return g_gsub(L);
}

// table.concat(t [, sep [, i [, j]]]): the same argument checks, in the same order, as the
// original; then the result's length is summed first, so t = {s, s, s, ...} with one big s
// cannot make a string of many gigabytes. Stops at the first value the original rejects.
int guarded_concat(lua_State* L) {
  size_t sep_len = 0;
  luaL_optlstring(L, 2, "", &sep_len);
  luaL_checktype(L, 1, LUA_TTABLE);
  const int first = luaL_optint(L, 3, 1);
  const int last = luaL_opt(L, luaL_checkint, 4, static_cast<int>(lua_objlen(L, 1)));
  size_t total = 0;
  for (int64_t i = first; i <= last; i++) {
    lua_rawgeti(L, 1, static_cast<int>(i));
    const int type = lua_type(L, -1);
    const size_t len = type == LUA_TSTRING ? lua_objlen(L, -1) : 32;  // a number's text
    lua_pop(L, 1);
    if (type != LUA_TSTRING && type != LUA_TNUMBER) break;
    total += len + sep_len;
    if (total > kScriptMaxBytes + sep_len) return luaL_error(L, "resulting string too large");
  }
  return g_concat(L);
}

// ---- cjson -----------------------------------------------------------------------------------

// lua-cjson 2.1.0 sizes its output buffer with int arithmetic: a string needs 6 * len + 2
// bytes reserved, which wraps for strings of ~360 MB and then writes past the buffer
// (CVE-2022-24834); and a table holding the same subtable twice, n levels deep, writes 2^n
// copies. So cjson.encode first adds up what it will write (escapes counted, numbers at their
// widest) and refuses past kScriptMaxBytes; the count stops as soon as it passes the limit.

constexpr int kMaxJsonWalkDepth = 8000;  // cjson itself cannot nest deeper (Lua stack)

size_t json_string_bytes(const char* s, size_t len) {
  size_t n = 2;
  for (size_t i = 0; i < len; i++) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\' || c == '/' || c == '\b' || c == '\f' || c == '\n' || c == '\r' ||
        c == '\t') {
      n += 2;
    } else if (c < 0x20 || c == 0x7f) {
      n += 6;  // \u00XX
    } else {
      n += 1;
    }
  }
  return n;
}

// Adds to *total the bytes the value at absolute index idx encodes to (an upper bound). Values
// cjson refuses (functions, too deep) add nothing: cjson reports them itself.
void json_estimate(lua_State* L, int idx, int depth, size_t* total) {
  if (*total > kScriptMaxBytes) return;
  switch (lua_type(L, idx)) {
    case LUA_TSTRING: {
      size_t len = 0;
      const char* s = lua_tolstring(L, idx, &len);
      *total += json_string_bytes(s, len);
      return;
    }
    case LUA_TNUMBER:
      *total += 32;
      return;
    case LUA_TBOOLEAN:
    case LUA_TNIL:
    case LUA_TLIGHTUSERDATA:
      *total += 5;
      return;
    case LUA_TTABLE:
      break;
    default:
      return;
  }
  if (depth >= kMaxJsonWalkDepth || !lua_checkstack(L, 3)) return;
  *total += 2;
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    if (lua_type(L, -2) == LUA_TSTRING) {  // keys are read without converting them in place
      size_t len = 0;
      const char* k = lua_tolstring(L, -2, &len);
      *total += json_string_bytes(k, len) + 2;
    } else {
      *total += 34 + 2;
    }
    json_estimate(L, lua_gettop(L), depth + 1, total);
    lua_pop(L, 1);
    if (*total > kScriptMaxBytes) {
      lua_pop(L, 1);
      return;
    }
  }
}

int guarded_encode(lua_State* L) {
  if (lua_gettop(L) >= 1) {
    size_t total = 0;
    json_estimate(L, 1, 0, &total);
    if (total > kScriptMaxBytes) return luaL_error(L, "Cannot serialise, output too large");
  }
  return g_encode(L);
}

// cjson.decode sizes its scratch buffer from the input length as an int.
int guarded_decode(lua_State* L) {
  if (lua_type(L, 1) == LUA_TSTRING && lua_objlen(L, 1) > kScriptMaxBytes) {
    return luaL_error(L, "Cannot parse, input too large");
  }
  return g_decode(L);
}

// cjson.new() makes a second instance with its own settings: its encode/decode/new get the
// same guards.
void guard_cjson_instance(lua_State* L, int t);
int guarded_cjson_new(lua_State* L) {
  const int results = g_cjson_new(L);
  if (results >= 1 && lua_istable(L, -1)) guard_cjson_instance(L, lua_gettop(L));
  return results;
}

void guard_cjson_instance(lua_State* L, int t) {
  rewrap(L, t, "encode", guarded_encode, &g_encode);
  rewrap(L, t, "decode", guarded_decode, &g_decode);
  rewrap(L, t, "new", guarded_cjson_new, &g_cjson_new);
}

// cjson's settings are shared by every script (the library keeps them in an upvalue). The
// setters are guarded to note that a script changed one; restore_library_state then calls each
// setter with the values it reported at start-up.
constexpr const char* kCjsonSettings[] = {
    "encode_sparse_array",   "encode_max_depth",       "decode_max_depth",
    "encode_number_precision", "encode_keep_buffer",   "encode_invalid_numbers",
    "decode_invalid_numbers",
};
constexpr int kCjsonSettingCount = sizeof(kCjsonSettings) / sizeof(kCjsonSettings[0]);
lua_CFunction g_cjson_setters[kCjsonSettingCount];
bool g_cjson_dirty = false;
char kCjsonDefaultsKey;  // registry: { {setter, value...}, ... }

template <int K>
int guarded_cjson_setting(lua_State* L) {
  if (lua_gettop(L) > 0) g_cjson_dirty = true;
  return g_cjson_setters[K](L);
}
template <int... K>
constexpr auto make_setting_guards(std::integer_sequence<int, K...>) {
  return std::array<lua_CFunction, sizeof...(K)>{guarded_cjson_setting<K>...};
}
constexpr auto kCjsonSettingGuards =
    make_setting_guards(std::make_integer_sequence<int, kCjsonSettingCount>{});

// Records {setter, current values...} for each setting and guards the setters. Start-up only.
void guard_cjson_settings(lua_State* L, int t) {
  lua_pushlightuserdata(L, &kCjsonDefaultsKey);
  lua_createtable(L, kCjsonSettingCount, 0);
  const int defaults = lua_gettop(L);
  for (int k = 0; k < kCjsonSettingCount; k++) {
    lua_getfield(L, t, kCjsonSettings[k]);
    if (!lua_isfunction(L, -1)) {
      lua_pop(L, 1);
      continue;
    }
    const int base = lua_gettop(L);
    lua_pushvalue(L, base);
    lua_call(L, 0, LUA_MULTRET);  // no arguments: the current values
    const int values = lua_gettop(L) - base;
    lua_createtable(L, values + 1, 0);
    lua_insert(L, base);  // {entry}, setter, values...
    for (int i = values + 1; i >= 1; i--) lua_rawseti(L, base, i);
    lua_rawseti(L, defaults, k + 1);
    rewrap(L, t, kCjsonSettings[k], kCjsonSettingGuards[static_cast<size_t>(k)],
           &g_cjson_setters[k]);
  }
  lua_rawset(L, LUA_REGISTRYINDEX);
}

// ---- collectgarbage --------------------------------------------------------------------------

// collectgarbage("stop") (or a new pause / step multiplier) would stay in force for every
// later script; the guard notes it and restore_library_state puts the collector back.
bool g_gc_dirty = false;
int g_gc_pause = 200;
int g_gc_stepmul = 200;

int guarded_collectgarbage(lua_State* L) {
  if (lua_type(L, 1) == LUA_TSTRING) {
    const char* opt = lua_tostring(L, 1);
    if (strcmp(opt, "stop") == 0 || strcmp(opt, "setpause") == 0 ||
        strcmp(opt, "setstepmul") == 0) {
      g_gc_dirty = true;
    }
  }
  return g_collectgarbage(L);
}

}  // namespace

int compile_chunk(lua_State* L, const char* data, size_t len, const char* chunkname) {
  // Lua 5.1's lexer counts the '=' of a long bracket in an int: a run of 2^31 of them wraps
  // the count and the string it then copies starts outside the buffer (CVE-2025-46819). No
  // chunk over 512 MB is compiled, so no such run exists (EVAL bodies are under
  // proto-max-bulk-len anyway; this bounds loadstring/load).
  if (len > kScriptMaxBytes) {
    lua_pushliteral(L, "chunk too large");
    return LUA_ERRSYNTAX;
  }
  ChunkReader reader{data, len};
  return lua_load(L, read_chunk, &reader, chunkname);
}

void install_library_guards(lua_State* L) {
  const int G = LUA_GLOBALSINDEX;
  lua_pushcfunction(L, sandbox_unpack);
  lua_setfield(L, G, "unpack");
  lua_pushcfunction(L, sandbox_loadstring);
  lua_setfield(L, G, "loadstring");
  lua_pushcfunction(L, sandbox_load);
  lua_setfield(L, G, "load");
  rewrap(L, G, "collectgarbage", guarded_collectgarbage, &g_collectgarbage);
  g_gc_pause = lua_gc(L, LUA_GCSETPAUSE, 200);
  lua_gc(L, LUA_GCSETPAUSE, g_gc_pause);
  g_gc_stepmul = lua_gc(L, LUA_GCSETSTEPMUL, 200);
  lua_gc(L, LUA_GCSETSTEPMUL, g_gc_stepmul);

  lua_getglobal(L, "string");
  const int str = lua_gettop(L);
  rewrap(L, str, "rep", guarded_rep, &g_rep);
  rewrap(L, str, "find", guarded_find, &g_find);
  rewrap(L, str, "match", guarded_match, &g_match);
  rewrap(L, str, "gmatch", guarded_gmatch, &g_gmatch);
  rewrap(L, str, "gsub", guarded_gsub, &g_gsub);
  lua_pop(L, 1);

  lua_getglobal(L, "table");
  rewrap(L, lua_gettop(L), "concat", guarded_concat, &g_concat);
  lua_pop(L, 1);

  lua_getglobal(L, "bit");
  rewrap(L, lua_gettop(L), "tohex", guarded_tohex, &g_tohex);
  lua_pop(L, 1);

  lua_getglobal(L, "cjson");
  const int cjson = lua_gettop(L);
  guard_cjson_instance(L, cjson);
  guard_cjson_settings(L, cjson);
  lua_pop(L, 1);
}

void restore_library_state(lua_State* L) {
  if (g_gc_dirty) {
    g_gc_dirty = false;
    lua_gc(L, LUA_GCRESTART, 0);
    lua_gc(L, LUA_GCSETPAUSE, g_gc_pause);
    lua_gc(L, LUA_GCSETSTEPMUL, g_gc_stepmul);
  }
  if (g_cjson_dirty) {
    g_cjson_dirty = false;
    lua_pushlightuserdata(L, &kCjsonDefaultsKey);
    lua_rawget(L, LUA_REGISTRYINDEX);
    const int defaults = lua_gettop(L);
    for (int k = 1; k <= kCjsonSettingCount; k++) {
      lua_rawgeti(L, defaults, k);
      if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        continue;
      }
      const int entry = lua_gettop(L);
      const int n = static_cast<int>(lua_objlen(L, entry));
      for (int i = 1; i <= n; i++) lua_rawgeti(L, entry, i);
      if (lua_pcall(L, n - 1, 0, 0) != 0) lua_pop(L, 1);  // cannot fail: values it gave us
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
}

}  // namespace keel
