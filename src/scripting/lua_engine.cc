// LuaEngine: the sandboxed Lua state, the EVAL script cache, the FUNCTION libraries, redis.*
// and the RESP <-> Lua conversions. Everything a client can see (error texts, conversion rules,
// which globals exist) follows Redis 7.x; the tests in tests/unit/scripting.tcl and
// functions.tcl pin them.
//
// Lua raises errors with longjmp. Every C function below that Lua calls finishes its C++ work
// in an inner scope (or before any Lua call that may raise) and raises last, with nothing
// destructible alive; C++ enters Lua only through lua_pcall.
#include "scripting/lua_engine.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
int luaopen_cjson(lua_State* L);
int luaopen_bit(lua_State* L);
}
#include <openssl/evp.h>

#include <pthread.h>
#include <signal.h>
#include <strings.h>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <mutex>
#include <thread>

#include "base/lazyfree.h"
#include "base/log.h"
#include "base/numbers.h"
#include "base/time.h"
#include "scripting/lua_cmsgpack.h"
#include "scripting/lua_sandbox.h"
#include "scripting/lua_struct.h"
#include "scripting/lua_value.h"

namespace keel {

ScriptingOptions& scripting_options() {
  static ScriptingOptions opts;
  return opts;
}

const ScriptFlagName kScriptFlagNames[5] = {
    {kScriptNoWrites, "no-writes"},   {kScriptAllowOom, "allow-oom"},
    {kScriptAllowStale, "allow-stale"}, {kScriptNoCluster, "no-cluster"},
    {kScriptAllowCrossSlot, "allow-cross-slot-keys"},
};

void sha1_hex(std::string_view data, char out[41]) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha1(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  for (unsigned i = 0; i < 20; i++) {
    out[2 * i] = kHex[md[i] >> 4];
    out[2 * i + 1] = kHex[md[i] & 15];
  }
  out[40] = 0;
}

namespace {

constexpr int kHookInstructions = 10000;   // instructions between ScriptHost::poll calls
constexpr int64_t kLoadTimeoutUs = 500000;  // FUNCTION LOAD: the library code's time budget
constexpr const char* kRedisVersion = "7.4.0";
constexpr int kRedisVersionNum = 0x070400;

// Registry keys (addresses of these statics are unique light userdata keys).
char kProxiesKey;     // weak-keyed table: readonly proxy -> its backing table
char kProxyMetaKey;   // weak-keyed table: readonly proxy -> what getmetatable(proxy) returns
char kChunkNamesKey;  // the chunk names the engine compiles with, kept alive (see open())
constexpr const char* kScriptChunkName = "@user_script";
constexpr const char* kFunctionChunkName = "@user_function";

// ---- rand48 (math.random / math.randomseed) ----------------------------------------------------
// Redis replaces Lua's math.random with the 48-bit linear congruential generator of the POSIX
// rand48 family, so the sequence after math.randomseed(n) is the same on every platform.
uint64_t g_rand48 = 0x1234ABCD330Eull;
int32_t rand48_next() {
  g_rand48 = (g_rand48 * 0x5DEECE66Dull + 0xB) & ((1ull << 48) - 1);
  return static_cast<int32_t>(g_rand48 >> 17);
}
void rand48_seed(int32_t seed) {
  g_rand48 = (static_cast<uint64_t>(static_cast<uint32_t>(seed)) << 16) | 0x330E;
}

int lua_math_random(lua_State* L) {
  constexpr int32_t kMax = INT32_MAX;
  const double r = static_cast<double>(rand48_next() % kMax) / static_cast<double>(kMax);
  switch (lua_gettop(L)) {
    case 0:
      lua_pushnumber(L, r);
      break;
    case 1: {
      const int u = luaL_checkint(L, 1);
      luaL_argcheck(L, 1 <= u, 1, "interval is empty");
      lua_pushnumber(L, std::floor(r * u) + 1);
      break;
    }
    case 2: {
      const int l = luaL_checkint(L, 1);
      const int u = luaL_checkint(L, 2);
      luaL_argcheck(L, l <= u, 2, "interval is empty");
      lua_pushnumber(L, std::floor(r * (u - l + 1)) + l);
      break;
    }
    default:
      return luaL_error(L, "wrong number of arguments");
  }
  return 1;
}

int lua_math_randomseed(lua_State* L) {
  rand48_seed(luaL_checkint(L, 1));
  return 0;
}

int lua_os_clock(lua_State* L) {
  lua_pushnumber(L, static_cast<double>(clock()) / CLOCKS_PER_SEC);
  return 1;
}

// ---- readonly proxies --------------------------------------------------------------------------
// Redis's Lua marks the globals and library tables readonly (a patch to the interpreter). With
// the stock interpreter each protected table is an empty proxy whose metatable reads through to
// the real (backing) table and rejects writes; next/pairs/rawget/rawset know about proxies.

int proxy_newindex(lua_State* L) { return luaL_error(L, "Attempt to modify a readonly table"); }

// __index of the globals proxy (upvalue 1: the backing table): a missing name is an error.
int strict_index(lua_State* L) {
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  if (!lua_isnil(L, -1)) return 1;
  const char* name = lua_tostring(L, 2);
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                    name ? name : "?");
}

// Backing table of the proxy at idx, pushed; or the value itself when it is no proxy.
void push_backing(lua_State* L, int idx) {
  lua_pushlightuserdata(L, &kProxiesKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, idx);
  lua_rawget(L, -2);
  lua_remove(L, -2);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_pushvalue(L, idx);
  }
}
bool is_proxy(lua_State* L, int idx) {
  lua_pushlightuserdata(L, &kProxiesKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, idx);
  lua_rawget(L, -2);
  const bool yes = !lua_isnil(L, -1);
  lua_pop(L, 2);
  return yes;
}

// Pushes a readonly proxy for the table at backing_idx. strict: reading a missing key raises
// "nonexistent global variable" (the globals table). The closure is left in *index_ref when
// given (the functions engine switches the backing table during FUNCTION LOAD).
void push_proxy(lua_State* L, int backing_idx, bool strict, int* index_ref = nullptr) {
  backing_idx = backing_idx < 0 ? lua_gettop(L) + backing_idx + 1 : backing_idx;
  lua_newtable(L);                       // proxy
  lua_createtable(L, 0, 3);              // metatable
  if (strict) {
    lua_pushvalue(L, backing_idx);
    lua_pushcclosure(L, strict_index, 1);
    if (index_ref) {
      lua_pushvalue(L, -1);
      *index_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    }
  } else {
    lua_pushvalue(L, backing_idx);
  }
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, proxy_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_pushlightuserdata(L, &kProxiesKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, -2);
  lua_pushvalue(L, backing_idx);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

int sandbox_next(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  push_backing(L, 1);
  lua_replace(L, 1);
  if (lua_next(L, 1)) return 2;
  lua_pushnil(L);
  return 1;
}
int sandbox_pairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushvalue(L, lua_upvalueindex(1));  // sandbox_next
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}
int sandbox_rawget(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  lua_settop(L, 2);
  push_backing(L, 1);
  lua_replace(L, 1);
  lua_rawget(L, 1);
  return 1;
}
int sandbox_rawset(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  if (is_proxy(L, 1)) {
    lua_pushstring(L, "Attempt to modify a readonly table");
    return lua_error(L);
  }
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 1;
}

// getmetatable(v): Lua's, except for readonly proxies, whose own metatable is the proxy
// machinery. For the globals proxy it returns a readonly view of {__index = <the function that
// raises "nonexistent global variable">} (what Redis shows); for library proxies nil (as Redis).
// The string metatable needs nothing here: its __metatable field is a readonly view (open()).
int sandbox_getmetatable(lua_State* L) {
  luaL_checkany(L, 1);
  if (lua_istable(L, 1) && is_proxy(L, 1)) {
    lua_pushlightuserdata(L, &kProxyMetaKey);
    lua_rawget(L, LUA_REGISTRYINDEX);
    lua_pushvalue(L, 1);
    lua_rawget(L, -2);
    return 1;
  }
  if (!lua_getmetatable(L, 1)) {
    lua_pushnil(L);
    return 1;
  }
  luaL_getmetafield(L, 1, "__metatable");
  return 1;  // the __metatable field if there is one, else the metatable
}

// setmetatable(t, mt): Lua's, except that a readonly proxy (the globals, a library table, the
// string metatable's view) answers Redis's "Attempt to modify a readonly table".
int sandbox_setmetatable(lua_State* L) {
  const int t = lua_type(L, 2);
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_argcheck(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table expected");
  if (is_proxy(L, 1)) {
    lua_pushliteral(L, "Attempt to modify a readonly table");
    return lua_error(L);
  }
  if (luaL_getmetafield(L, 1, "__metatable")) return luaL_error(L, "cannot change a protected metatable");
  lua_settop(L, 2);
  lua_setmetatable(L, 1);
  return 1;
}

// table.insert writes with raw sets, past a proxy's __newindex: table.insert(string, x) would
// add x to the proxy every later script reads through. (table.remove and table.sort write
// nothing to a proxy: its own part is always empty, so its length is 0.)
lua_CFunction g_table_insert;
int guarded_table_insert(lua_State* L) {
  if (lua_istable(L, 1) && is_proxy(L, 1)) {
    lua_pushliteral(L, "Attempt to modify a readonly table");
    return lua_error(L);
  }
  return g_table_insert(L);
}

// Lua's pcall, except that a caught error table {err = "..."} (what redis.call and the redis.*
// helpers raise) is returned as its err string, as in Redis: scripts written for older versions
// expect a string there.
int sandbox_pcall(lua_State* L) {
  if (lua_gettop(L) == 0) {
    lua_pushboolean(L, 0);
    lua_pushliteral(L, "bad argument #1 to 'pcall' (value expected)");
    return 2;
  }
  const int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
  // Out of memory (the heap limit): what the failed call built is garbage now, but nothing
  // collects it before the next allocations fail too. Collect it all here.
  if (status == LUA_ERRMEM) lua_gc(L, LUA_GCCOLLECT, 0);
  if (status == 0) {
    // The results may fill the C function's stack allowance; true needs one more slot.
    if (!lua_checkstack(L, 1)) return luaL_error(L, "too many results to return");
    lua_pushboolean(L, 1);
    lua_insert(L, 1);
    return lua_gettop(L);
  }
  if (lua_istable(L, -1)) {  // raw: the table may be the script's, with metamethods
    lua_pushliteral(L, "err");
    lua_rawget(L, -2);
    if (lua_isstring(L, -1)) {
      lua_replace(L, -2);
    } else {
      lua_pop(L, 1);
    }
  }
  lua_pushboolean(L, 0);
  lua_insert(L, -2);
  return 2;
}

// ---- errors ------------------------------------------------------------------------------------

// Pushes {err = msg}.
void push_error_table(lua_State* L, const char* msg, size_t len) {
  lua_createtable(L, 0, 1);
  lua_pushlstring(L, msg, len);
  lua_setfield(L, -2, "err");
}
// Raises {err = msg}: the way redis.* report misuse (the reply gets no "user_script:N:" prefix).
int raise_error(lua_State* L, const char* msg) {
  push_error_table(L, msg, strlen(msg));
  return lua_error(L);
}

// The message handler of every protected call: turns a string error into {err = "ERR " .. msg}
// and records where the error happened (source, line) for the "script: ..., on @src:N." suffix.
//
// The reply is built in a new table even when the script raised a table: writing source/line
// into the script's own table could run its __newindex, or (error(string)) add fields to a
// readonly library proxy that every later script would see. Only err is taken from it, raw.
int error_handler(lua_State* L) {
  if (lua_istable(L, 1)) {
    lua_createtable(L, 0, 3);
    lua_pushliteral(L, "err");
    lua_pushliteral(L, "err");
    lua_rawget(L, 1);
    lua_rawset(L, -3);
    lua_replace(L, 1);
  } else {
    const char* s = lua_tostring(L, 1);
    lua_pushstring(L, "ERR ");
    if (s) {
      lua_pushvalue(L, 1);
    } else {
      lua_pushstring(L, lua_typename(L, lua_type(L, 1)));
    }
    lua_concat(L, 2);
    lua_createtable(L, 0, 3);
    lua_insert(L, -2);
    lua_setfield(L, -2, "err");
    lua_replace(L, 1);
  }
  lua_settop(L, 1);
  lua_Debug ar;
  bool found = lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar);
  if (found && strcmp(ar.what, "C") == 0) found = lua_getstack(L, 2, &ar) && lua_getinfo(L, "Sl", &ar);
  if (found && strcmp(ar.what, "C") != 0) {
    lua_pushliteral(L, "source");
    lua_pushstring(L, ar.source);
    lua_rawset(L, 1);
    lua_pushliteral(L, "line");
    lua_pushinteger(L, ar.currentline);
    lua_rawset(L, 1);
  }
  return 1;
}

void sanitize_into(std::string& out, std::string_view s) {
  for (char c : s) out += (c == '\r' || c == '\n') ? ' ' : c;
}

// ---- shebang -----------------------------------------------------------------------------------

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
bool ascii_iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}
// Function names are case-insensitive (FCALL myfunc finds MyFunc): the table is keyed by this.
std::string function_key(std::string_view name) {
  std::string k(name);
  for (char& c : k) c = ascii_lower(c);
  return k;
}

// The first line of a script or library, split into words as Redis splits it (sdssplitargs):
// blanks separate words; "double quotes" take \n \r \t \b \a \xHH and \<char> escapes,
// 'single quotes' only \'; a closing quote must end its word. The line ends at the first '\n';
// a NUL before it means there is none (Redis looks for it with strchr). Words stop at a NUL.
struct Shebang {
  enum Status { kAbsent, kNoNewline, kBadQuotes, kOk };
  Status status = kAbsent;
  std::vector<std::string> words;  // words[0] is "#!<engine>"
};

bool is_c_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }  // C locale isspace
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool split_words(std::string_view line, std::vector<std::string>* out) {
  size_t i = 0;
  const size_t n = line.size();
  auto at = [&](size_t k) { return k < n ? line[k] : '\0'; };
  while (true) {
    while (i < n && is_c_space(line[i])) i++;
    if (i >= n) return true;
    std::string word;
    bool dq = false, sq = false;
    while (true) {
      const char c = at(i);
      if (dq) {
        if (c == '\\' && at(i + 1) == 'x' && hex_value(at(i + 2)) >= 0 && hex_value(at(i + 3)) >= 0) {
          word += static_cast<char>(hex_value(at(i + 2)) * 16 + hex_value(at(i + 3)));
          i += 3;
        } else if (c == '\\' && at(i + 1) != '\0') {
          i++;
          switch (line[i]) {
            case 'n': word += '\n'; break;
            case 'r': word += '\r'; break;
            case 't': word += '\t'; break;
            case 'b': word += '\b'; break;
            case 'a': word += '\a'; break;
            default: word += line[i]; break;
          }
        } else if (c == '"') {
          if (at(i + 1) != '\0' && !is_c_space(at(i + 1))) return false;
          i++;
          break;
        } else if (c == '\0') {
          return false;  // unterminated quotes
        } else {
          word += c;
        }
      } else if (sq) {
        if (c == '\\' && at(i + 1) == '\'') {
          i++;
          word += '\'';
        } else if (c == '\'') {
          if (at(i + 1) != '\0' && !is_c_space(at(i + 1))) return false;
          i++;
          break;
        } else if (c == '\0') {
          return false;
        } else {
          word += c;
        }
      } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\0') {
        break;
      } else if (c == '"') {
        dq = true;
      } else if (c == '\'') {
        sq = true;
      } else {
        word += c;
      }
      i++;
    }
    out->push_back(std::move(word));
  }
}

Shebang parse_shebang(std::string_view body) {
  Shebang sb;
  if (body.substr(0, 2) != "#!") return sb;
  const size_t end = body.find_first_of(std::string_view("\n\0", 2));
  if (end == std::string_view::npos || body[end] != '\n') {
    sb.status = Shebang::kNoNewline;
    return sb;
  }
  sb.status = split_words(body.substr(0, end), &sb.words) ? Shebang::kOk : Shebang::kBadQuotes;
  return sb;
}

// A word as Redis prints it with %s: up to its first NUL.
std::string_view c_str_view(const std::string& s) { return std::string_view(s.c_str()); }

// EVAL shebangs compare flag names exactly, redis.register_function ignoring case (as Redis).
bool flag_by_name(std::string_view name, uint32_t* flag, bool nocase = false) {
  for (const ScriptFlagName& f : kScriptFlagNames) {
    if (nocase ? ascii_iequals(name, f.name) : name == f.name) {
      *flag = f.flag;
      return true;
    }
  }
  return false;
}

bool valid_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
      return false;
    }
  }
  return true;
}

// The code Lua compiles: the shebang line turned into a comment so line numbers stay the same.
std::string code_for_lua(std::string_view body) {
  std::string code(body);
  if (code.size() >= 2 && code[0] == '#' && code[1] == '!') code[0] = code[1] = '-';
  return code;
}

LuaEngine* engine_of(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return static_cast<LuaEngine*>(ud);
}


int at_panic(lua_State* L) {
  const char* msg = lua_tostring(L, -1);
  LOG_WARNING("Lua panic (unprotected error): %s", msg ? msg : "?");
  abort();
}

}  // namespace

// The C functions Lua calls; a struct so they can reach LuaEngine's private state.
struct LuaEngine::Protected {
  // The state's allocator. While a script or a library's code runs, the state may not grow
  // more than ScriptingOptions::lua_heap_limit past what it held when the run began (so cached
  // scripts and libraries do not count against it); past that an allocation fails, which Lua
  // raises as "not enough memory" inside the script's protected call. string.rep, gsub,
  // table.concat, huge tables cannot take the server's memory. Shrinking and freeing always
  // succeed (Lua relies on that), and outside a run nothing is refused (heap_cap_ 0): an
  // error there would be unprotected.
  static void* alloc(void* ud, void* ptr, size_t osize, size_t nsize) {
    LuaEngine* e = static_cast<LuaEngine*>(ud);
    const size_t old = ptr ? osize : 0;
    if (nsize == 0) {
      free(ptr);
      e->heap_bytes_ -= old;
      return nullptr;
    }
    if (nsize > old && e->heap_cap_ != 0 && e->heap_bytes_ + (nsize - old) > e->heap_cap_) {
      return nullptr;
    }
    void* p = realloc(ptr, nsize);
    if (p == nullptr) return nullptr;
    e->heap_bytes_ = e->heap_bytes_ - old + nsize;
    return p;
  }

  static int call(lua_State* L) { return generic_call(L, true); }
  static int pcall(lua_State* L) { return generic_call(L, false); }

  // redis.acl_check_cmd(command, args...): whether the script's user may run it (Redis 7.0).
  static int acl_check_cmd(lua_State* L) {
    LuaEngine* e = engine_of(L);
    const char* misuse = nullptr;
    if (!e->host_) {
      misuse = "ERR redis.acl_check_cmd is only available while a script runs";
    } else if (lua_gettop(L) == 0) {
      misuse = "ERR Please specify at least one argument for this redis lib call";
    } else {
      misuse = collect_args(L, e);
    }
    int verdict = 0;
    if (!misuse) {
      verdict = e->host_->acl_check(e->call_args_);
      if (verdict < 0) misuse = "ERR Invalid command passed to redis.acl_check_cmd()";
    }
    if (misuse) {
      push_error_table(L, misuse, strlen(misuse));
      return lua_error(L);
    }
    lua_pushboolean(L, verdict);
    return 1;
  }

  // The arguments of a redis lib call into e->call_args_ (views into Lua strings on the stack,
  // alive until the C function returns, and into e->call_numbers_); null or the misuse text.
  static const char* collect_args(lua_State* L, LuaEngine* e) {
    const int argc = lua_gettop(L);
    const char* misuse = nullptr;
    e->call_args_.clear();
    e->call_numbers_.clear();
    for (int i = 1; i <= argc && !misuse; i++) {
      const int t = lua_type(L, i);
      if (t == LUA_TSTRING) {
        size_t len;
        const char* s = lua_tolstring(L, i, &len);
        e->call_args_.emplace_back(s, len);
      } else if (t == LUA_TNUMBER) {
        // Integral numbers as integers, others as "%.17g" (Redis's rule). The text goes into
        // call_numbers_; the view is filled in once that string stops growing.
        char buf[kDoubleBufSize];
        const double d = lua_tonumber(L, i);
        size_t n;
        if (d == std::floor(d) && std::fabs(d) < 9.2e18) {
          n = format_int64(static_cast<int64_t>(d), buf);
        } else {
          n = static_cast<size_t>(snprintf(buf, sizeof(buf), "%.17g", d));
        }
        e->call_numbers_.append(buf, n);
        e->call_args_.emplace_back(static_cast<const char*>(nullptr), n);
      } else {
        misuse = "ERR Lua redis lib command arguments must be strings or integers";
      }
    }
    if (!misuse) {
      size_t off = 0;
      for (std::string_view& v : e->call_args_) {
        if (v.data() != nullptr) continue;
        v = std::string_view(e->call_numbers_.data() + off, v.size());
        off += v.size();
      }
    }
    return misuse;
  }

  // redis.call / redis.pcall: arguments -> host->call -> RESP reply -> Lua value. redis.call
  // raises error replies; redis.pcall returns them as {err = ...}.
  static int generic_call(lua_State* L, bool raise) {
    LuaEngine* e = engine_of(L);
    const int argc = lua_gettop(L);
    const char* misuse = nullptr;
    if (!e->host_) {
      misuse = "ERR redis.call is only available while a script runs";
    } else if (argc == 0) {
      misuse = "ERR Please specify at least one argument for this redis lib call";
    } else {
      misuse = collect_args(L, e);
      if (!misuse) {
        e->call_reply_.clear();
        e->host_->call(e->call_args_, e->resp_, e->call_reply_);
      }
    }
    if (misuse) {
      push_error_table(L, misuse, strlen(misuse));
      if (raise) return lua_error(L);
      return 1;
    }
    const char* p = e->call_reply_.data();
    const char* end = p + e->call_reply_.size();
    const bool is_error = p < end && (*p == '-' || *p == '!');
    push_resp_value(L, p, end);
    if (is_error && raise) return lua_error(L);
    return 1;
  }

  static int error_reply(lua_State* L) {
    if (lua_gettop(L) != 1 || lua_type(L, 1) != LUA_TSTRING) {
      static constexpr char kMsg[] = "ERR wrong number or type of arguments";
      push_error_table(L, kMsg, sizeof(kMsg) - 1);
      return 1;
    }
    size_t len;
    const char* s = lua_tolstring(L, 1, &len);
    if (len > 0 && s[0] == '-') s++, len--;
    if (memchr(s, ' ', len) == nullptr) {  // no error code given: Redis adds "ERR "
      lua_pushliteral(L, "ERR ");
      lua_pushlstring(L, s, len);
      lua_concat(L, 2);
      s = lua_tolstring(L, -1, &len);
    }
    push_error_table(L, s, len);
    return 1;
  }

  static int status_reply(lua_State* L) {
    if (lua_gettop(L) != 1 || lua_type(L, 1) != LUA_TSTRING) {
      static constexpr char kMsg[] = "ERR wrong number or type of arguments";
      push_error_table(L, kMsg, sizeof(kMsg) - 1);
      return 1;
    }
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, 1);
    lua_setfield(L, -2, "ok");
    return 1;
  }

  static int sha1hex(lua_State* L) {
    if (lua_gettop(L) != 1) return raise_error(L, "ERR wrong number of arguments");
    size_t len = 0;
    const char* s = lua_tolstring(L, 1, &len);
    char hex[41];
    sha1_hex(std::string_view(s ? s : "", s ? len : 0), hex);
    lua_pushlstring(L, hex, 40);
    return 1;
  }

  static int log(lua_State* L) {
    const int argc = lua_gettop(L);
    if (argc < 2) return raise_error(L, "ERR redis.log() requires two arguments or more.");
    if (!lua_isnumber(L, 1)) return raise_error(L, "ERR First argument must be a number (log level).");
    const int level = static_cast<int>(lua_tonumber(L, 1));
    if (level < 0 || level > 3) return raise_error(L, "ERR Invalid debug level.");
    if (!log_enabled(static_cast<LogLevel>(level))) return 0;
    // Concatenate the message in a luaL_Buffer (no C++ string alive if this raises; a few
    // stack slots whatever the argument count, so thousands of arguments cannot overflow it).
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    bool first = true;
    for (int i = 2; i <= argc; i++) {
      if (!lua_isstring(L, i)) continue;
      if (!first) luaL_addchar(&b, ' ');
      first = false;
      lua_pushvalue(L, i);
      luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    log_raw(static_cast<LogLevel>(level), "%s", lua_tostring(L, -1));
    return 0;
  }

  static int setresp(lua_State* L) {
    if (lua_gettop(L) != 1) return raise_error(L, "ERR redis.setresp() requires one argument.");
    const int v = static_cast<int>(lua_tonumber(L, 1));
    if (v != 2 && v != 3) return raise_error(L, "ERR RESP version must be 2 or 3.");
    engine_of(L)->resp_ = v;
    return 0;
  }

  static int set_repl(lua_State* L) {
    if (lua_gettop(L) != 1) return raise_error(L, "ERR redis.set_repl() requires two arguments.");
    const int v = static_cast<int>(lua_tonumber(L, 1));
    if (v & ~3) {
      return raise_error(
          L, "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
    }
    return 0;
  }

  static int replicate_commands(lua_State* L) {
    lua_pushboolean(L, 1);
    return 1;
  }
  static int breakpoint(lua_State* L) {
    lua_pushboolean(L, 0);
    return 1;
  }
  static int debug(lua_State*) { return 0; }

  // redis.register_function(name, callback) or redis.register_function{function_name=...,
  // callback=..., flags={...}, description=...}: only while FUNCTION LOAD runs the library.
  // Redis's checks in Redis's order: a named table is checked entry by entry as lua_next gives
  // them (the first bad entry is the error), keys and flag names ignoring case; names and
  // descriptions may be numbers (Lua converts them). Strings are compared as C strings, as
  // Redis does (strcasecmp), so they stop at a NUL.
  static int register_function(lua_State* L) {
    LuaEngine* e = engine_of(L);
    if (!e->loading_) return raise_error(L, "ERR redis.register_function can only be called on FUNCTION LOAD command");
    const int argc = lua_gettop(L);
    if (argc < 1 || argc > 2) return raise_error(L, "ERR wrong number of arguments to redis.register_function");
    // Slots for what was given (nil: not given), so repeated keys ("callback", "CALLBACK") do
    // not grow the stack.
    const int name_slot = argc + 1, desc_slot = argc + 2, cb_slot = argc + 3;
    lua_settop(L, argc + 3);
    uint32_t flags = 0;
    if (argc == 1) {
      if (!lua_istable(L, 1)) {
        return raise_error(L, "ERR calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).");
      }
      lua_pushnil(L);
      while (lua_next(L, 1)) {
        if (!lua_isstring(L, -2)) {
          return raise_error(L, "ERR named argument key given to redis.register_function is not a string");
        }
        // A number key is a string to Redis too, and never one of the names below.
        const char* k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
        int slot = 0;
        if (strcasecmp(k, "function_name") == 0) {
          if (!lua_isstring(L, -1)) return raise_error(L, "ERR function_name argument given to redis.register_function must be a string");
          slot = name_slot;
        } else if (strcasecmp(k, "description") == 0) {
          if (!lua_isstring(L, -1)) return raise_error(L, "ERR description argument given to redis.register_function must be a string");
          slot = desc_slot;
        } else if (strcasecmp(k, "callback") == 0) {
          if (!lua_isfunction(L, -1)) return raise_error(L, "ERR callback argument given to redis.register_function must be a function");
          slot = cb_slot;
        } else if (strcasecmp(k, "flags") == 0) {
          if (!lua_istable(L, -1)) return raise_error(L, "ERR flags argument to redis.register_function must be a table representing function flags");
          if (!read_flags(L, lua_gettop(L), &flags)) return raise_error(L, "ERR unknown flag given");
        } else {
          return raise_error(L, "ERR unknown argument given to redis.register_function");
        }
        if (slot) {
          lua_replace(L, slot);  // pops the value
        } else {
          lua_pop(L, 1);
        }
      }
      if (lua_isnil(L, name_slot)) return raise_error(L, "ERR redis.register_function must get a function name argument");
      if (lua_isnil(L, cb_slot)) return raise_error(L, "ERR redis.register_function must get a callback argument");
    } else {
      if (!lua_isstring(L, 1)) return raise_error(L, "ERR first argument to redis.register_function must be a string");
      if (!lua_isfunction(L, 2)) return raise_error(L, "ERR second argument to redis.register_function must be a function");
      lua_pushvalue(L, 1);
      lua_replace(L, name_slot);
      lua_pushvalue(L, 2);
      lua_replace(L, cb_slot);
    }
    size_t name_len;
    const char* name = lua_tolstring(L, name_slot, &name_len);
    // Redis's text says "Library names" here too.
    if (!valid_name(std::string_view(name, name_len))) {
      return raise_error(L, "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long");
    }
    // Redis 7.0-8.0 compare names within a library case-sensitively but across libraries
    // case-insensitively, so 'f' and 'F' in one library are both accepted and FUNCTION DELETE
    // of it then fails an assertion. Keel compares case-insensitively here too (as Valkey's fix).
    for (const Function& f : *e->loading_) {
      if (ascii_iequals(f.name, std::string_view(name, name_len))) {
        return raise_error(L, "ERR Function already exists in the library");
      }
    }
    size_t desc_len = 0;
    const char* desc = lua_isnil(L, desc_slot) ? nullptr : lua_tolstring(L, desc_slot, &desc_len);
    lua_pushvalue(L, cb_slot);
    const int ref = luaL_ref(L, LUA_REGISTRYINDEX);
    {
      Function fn;
      fn.name.assign(name, name_len);
      if (desc) fn.description.assign(desc, desc_len);
      fn.has_description = desc != nullptr;
      fn.flags = flags;
      fn.ref = ref;
      e->loading_->push_back(std::move(fn));
    }
    return 0;
  }

  // The flags list at index t: t[1], t[2], ... up to the first nil, each a flag name (any case).
  static bool read_flags(lua_State* L, int t, uint32_t* flags) {
    uint32_t out = 0;
    for (int j = 1;; j++) {
      lua_rawgeti(L, t, j);
      if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        break;
      }
      uint32_t f = 0;
      const bool ok = lua_type(L, -1) == LUA_TSTRING && flag_by_name(lua_tostring(L, -1), &f, true);
      lua_pop(L, 1);
      if (!ok) return false;
      out |= f;
    }
    *flags = out;
    return true;
  }

  static void hook(lua_State* L, lua_Debug*) {
    LuaEngine* e = engine_of(L);
    const char* err = nullptr;
    if (e->loading_) {
      if (monotonic_us() > e->load_deadline_us_) err = "ERR FUNCTION LOAD timeout";
    } else if (e->host_) {
      err = e->host_->poll();
    }
    if (!err) return;
    // From now on every instruction raises again, so a pcall inside the script cannot keep
    // it alive.
    lua_sethook(L, hook, LUA_MASKCOUNT, 1);
    raise_error(L, err);
  }
};

// ---- Background closing (FLUSH ASYNC) ------------------------------------------------------------
// The lazyfree thread (base/lazyfree.h) closes the Lua states SCRIPT FLUSH ASYNC / FUNCTION FLUSH
// ASYNC hand over, so a big state (many scripts, big tables kept in upvalues) is not freed on
// the reply path (Redis's lazyfree thread). A handed-over state shares nothing with the server:
// its allocator no longer counts into the engine (plain_alloc), the collector settings and
// cjson were restored on the main thread, and its finalizers (cjson's) only free memory.
namespace {

void* plain_alloc(void*, void* ptr, size_t, size_t nsize) {
  if (nsize == 0) {
    free(ptr);
    return nullptr;
  }
  return realloc(ptr, nsize);
}

// Runs on the lazyfree thread (base/lazyfree.h).
void close_state_job(void* arg) {
  lua_State* L = static_cast<lua_State*>(arg);
  // A full collection first with the collector in its normal mode, as close() does
  // (CVE-2024-46981).
  lua_gc(L, LUA_GCCOLLECT, 0);
  lua_close(L);
}

}  // namespace

LuaLazyfreeStats lua_lazyfree_stats() {
  const LazyfreeStats st = lazyfree_stats();
  return LuaLazyfreeStats{st.pending, st.freed};
}
void lua_lazyfree_reset_stats() { lazyfree_reset_stats(); }
void lua_lazyfree_drain() { lazyfree_drain(); }

// ---- LuaEngine ---------------------------------------------------------------------------------

LuaEngine::LuaEngine(Kind kind) : kind_(kind) { open(); }
LuaEngine::~LuaEngine() { close(); }

void LuaEngine::close() {
  if (L_) {
    // A full collection first, with the collector in its normal mode, so lua_close does not
    // inherit whatever state scripts left it in (CVE-2024-46981, SCRIPT FLUSH).
    restore_library_state(L_);
    lua_gc(L_, LUA_GCCOLLECT, 0);
    lua_close(L_);
  }
  L_ = nullptr;
}

void LuaEngine::reset(bool async, uint64_t lazyfree_objects) {
  if (async && L_) {
    restore_library_state(L_);  // touches the sandbox's globals: main thread only
    lua_setallocf(L_, plain_alloc, nullptr);
    lazyfree_submit(close_state_job, L_, lazyfree_objects);
    L_ = nullptr;
  }
  close();
  scripts_.clear();
  libraries_.clear();
  functions_.clear();
  open();
}

size_t LuaEngine::memory() const { return L_ ? static_cast<size_t>(lua_gc(L_, LUA_GCCOUNT, 0)) * 1024 : 0; }

size_t LuaEngine::scripts_memory() const {
  size_t n = 0;
  for (const auto& [sha, s] : scripts_) n += sha.size() + s.body.size() + sizeof(Script);
  return n;
}

namespace {
void set_cfunction(lua_State* L, int table, const char* name, lua_CFunction f) {
  lua_pushcfunction(L, f);
  lua_setfield(L, table, name);
}
void set_number(lua_State* L, int table, const char* name, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, table, name);
}
void open_lib(lua_State* L, lua_CFunction f, const char* name) {
  lua_pushcfunction(L, f);
  lua_pushstring(L, name);
  lua_call(L, 1, 0);
}
}  // namespace

void LuaEngine::open() {
  heap_bytes_ = 0;
  L_ = lua_newstate(Protected::alloc, this);
  lua_atpanic(L_, at_panic);
  lua_State* L = L_;
  // Everything below runs unprotected at start-up; it only fails on out-of-memory (panic).
  for (char* key : {&kProxiesKey, &kProxyMetaKey}) {
    lua_pushlightuserdata(L, key);
    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_rawset(L, LUA_REGISTRYINDEX);
  }
  // The parser keeps the chunk name as a string object it does not anchor (CVE-2025-49844:
  // a collection during parsing could free it). Strings are interned, so holding these here
  // keeps the very objects luaL_loadbuffer looks up alive for the state's whole life.
  lua_pushlightuserdata(L, &kChunkNamesKey);
  lua_createtable(L, 2, 0);
  lua_pushstring(L, kScriptChunkName);
  lua_rawseti(L, -2, 1);
  lua_pushstring(L, kFunctionChunkName);
  lua_rawseti(L, -2, 2);
  lua_rawset(L, LUA_REGISTRYINDEX);

  open_lib(L, luaopen_base, "");
  open_lib(L, luaopen_table, LUA_TABLIBNAME);
  open_lib(L, luaopen_string, LUA_STRLIBNAME);
  open_lib(L, luaopen_math, LUA_MATHLIBNAME);
  lua_pushcfunction(L, luaopen_cjson);
  lua_call(L, 0, 1);
  lua_setglobal(L, "cjson");
  lua_pushcfunction(L, luaopen_bit);
  lua_pushliteral(L, "bit");
  lua_call(L, 1, 1);
  lua_setglobal(L, "bit");
  push_struct_library(L);  // lua_struct.cc
  lua_setglobal(L, "struct");
  push_cmsgpack_library(L);  // lua_cmsgpack.cc
  lua_setglobal(L, "cmsgpack");
  set_cmsgpack_table_resolver(push_backing);  // pack a readonly proxy's contents, as Redis

  const int G = LUA_GLOBALSINDEX;
  for (const char* name : {"dofile", "loadfile", "print", "setfenv", "getfenv", "module",
                           "require", "newproxy"}) {
    lua_pushnil(L);
    lua_setfield(L, G, name);
  }
  lua_getglobal(L, "math");
  set_cfunction(L, lua_gettop(L), "random", lua_math_random);
  set_cfunction(L, lua_gettop(L), "randomseed", lua_math_randomseed);
  lua_pop(L, 1);
  lua_createtable(L, 0, 1);  // os: only clock (Redis 7.4)
  set_cfunction(L, lua_gettop(L), "clock", lua_os_clock);
  lua_setglobal(L, "os");
  lua_pushcfunction(L, sandbox_next);
  lua_pushvalue(L, -1);
  lua_setfield(L, G, "next");
  lua_pushcclosure(L, sandbox_pairs, 1);
  lua_setfield(L, G, "pairs");
  set_cfunction(L, G, "rawget", sandbox_rawget);
  set_cfunction(L, G, "rawset", sandbox_rawset);
  set_cfunction(L, G, "pcall", sandbox_pcall);
  set_cfunction(L, G, "getmetatable", sandbox_getmetatable);
  set_cfunction(L, G, "setmetatable", sandbox_setmetatable);
  lua_getglobal(L, "table");
  lua_getfield(L, -1, "insert");
  g_table_insert = lua_tocfunction(L, -1);
  lua_pop(L, 1);
  set_cfunction(L, lua_gettop(L), "insert", guarded_table_insert);
  lua_pop(L, 1);
  install_library_guards(L);  // lua_sandbox.cc: unpack, load, bit.tohex, cjson, ...

  // The redis table.
  lua_newtable(L);
  const int R = lua_gettop(L);
  set_cfunction(L, R, "call", Protected::call);
  set_cfunction(L, R, "pcall", Protected::pcall);
  set_cfunction(L, R, "acl_check_cmd", Protected::acl_check_cmd);
  set_cfunction(L, R, "error_reply", Protected::error_reply);
  set_cfunction(L, R, "status_reply", Protected::status_reply);
  set_cfunction(L, R, "sha1hex", Protected::sha1hex);
  set_cfunction(L, R, "log", Protected::log);
  set_cfunction(L, R, "setresp", Protected::setresp);
  set_cfunction(L, R, "set_repl", Protected::set_repl);
  set_cfunction(L, R, "replicate_commands", Protected::replicate_commands);
  set_cfunction(L, R, "breakpoint", Protected::breakpoint);
  set_cfunction(L, R, "debug", Protected::debug);
  set_number(L, R, "LOG_DEBUG", 0);
  set_number(L, R, "LOG_VERBOSE", 1);
  set_number(L, R, "LOG_NOTICE", 2);
  set_number(L, R, "LOG_WARNING", 3);
  set_number(L, R, "REPL_NONE", 0);
  set_number(L, R, "REPL_AOF", 1);
  set_number(L, R, "REPL_SLAVE", 2);
  set_number(L, R, "REPL_REPLICA", 2);
  set_number(L, R, "REPL_ALL", 3);
  lua_pushstring(L, kRedisVersion);
  lua_setfield(L, R, "REDIS_VERSION");
  set_number(L, R, "REDIS_VERSION_NUM", kRedisVersionNum);
  lua_setglobal(L, "redis");

  // Library tables become readonly proxies.
  for (const char* lib : {"redis", "string", "math", "table", "cjson", "bit", "struct", "cmsgpack",
                          "os", "coroutine"}) {
    lua_getglobal(L, lib);
    push_proxy(L, -1, false);
    lua_setglobal(L, lib);
    lua_pop(L, 1);
  }

  // The string metatable is shared by every string of every script. Its __metatable field
  // makes getmetatable('') return a readonly view {__index = <the string library proxy>}
  // instead of the table itself (CVE-2025-46818). The VM keeps reading the real one.
  lua_pushliteral(L, "");
  lua_getmetatable(L, -1);
  const int string_meta = lua_gettop(L);
  lua_createtable(L, 0, 1);
  lua_getglobal(L, "string");
  lua_setfield(L, -2, "__index");
  push_proxy(L, -1, false);
  lua_setfield(L, string_meta, "__metatable");
  lua_pop(L, 3);

  // The globals: the real table stays reachable from the registry; scripts see a strict proxy.
  lua_pushvalue(L, G);
  const int real = lua_gettop(L);
  lua_pushvalue(L, real);
  runtime_globals_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  push_proxy(L, real, true, &globals_index_ref_);
  lua_pushvalue(L, -1);
  lua_setfield(L, real, "_G");
  // What getmetatable(_G) shows: a readonly {__index = <the strict reader>}, as in Redis.
  const int globals_proxy = lua_gettop(L);
  lua_pushlightuserdata(L, &kProxyMetaKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, globals_proxy);
  lua_createtable(L, 0, 1);
  lua_rawgeti(L, LUA_REGISTRYINDEX, globals_index_ref_);
  lua_setfield(L, -2, "__index");
  push_proxy(L, -1, false);
  lua_replace(L, -2);
  lua_rawset(L, -3);
  lua_pop(L, 1);

  if (kind_ == Kind::kFunction) {
    // What library code sees while FUNCTION LOAD runs it: redis.register_function, redis.log,
    // the log levels and the version, nothing else.
    lua_newtable(L);  // load-time globals
    const int LG = lua_gettop(L);
    lua_newtable(L);
    const int LR = lua_gettop(L);
    set_cfunction(L, LR, "register_function", Protected::register_function);
    set_cfunction(L, LR, "log", Protected::log);
    set_number(L, LR, "LOG_DEBUG", 0);
    set_number(L, LR, "LOG_VERBOSE", 1);
    set_number(L, LR, "LOG_NOTICE", 2);
    set_number(L, LR, "LOG_WARNING", 3);
    lua_pushstring(L, kRedisVersion);
    lua_setfield(L, LR, "REDIS_VERSION");
    set_number(L, LR, "REDIS_VERSION_NUM", kRedisVersionNum);
    push_proxy(L, LR, true);
    lua_setfield(L, LG, "redis");
    lua_pop(L, 1);
    load_globals_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  lua_replace(L, G);  // the proxy becomes the globals table of the state
  lua_pop(L, 1);      // real
  lua_settop(L, 0);
}

// ---- EVAL scripts --------------------------------------------------------------------------------

const LuaEngine::Script* LuaEngine::find_script(std::string_view sha) const {
  if (sha.size() != 40) return nullptr;
  char lower[40];
  for (size_t i = 0; i < 40; i++) lower[i] = static_cast<char>(tolower(static_cast<unsigned char>(sha[i])));
  auto it = scripts_.find(std::string_view(lower, 40));
  return it == scripts_.end() ? nullptr : &it->second;
}

std::string LuaEngine::compile_error(const char* what) {
  std::string msg = what;
  const char* lua_msg = lua_tostring(L_, -1);
  msg += lua_msg ? lua_msg : "unknown error";
  lua_pop(L_, 1);
  std::string clean;
  sanitize_into(clean, msg);
  return clean;
}

namespace {
// An EVAL body's shebang: its flags (kScriptEvalCompat without one), or false with *error set.
bool script_flags(std::string_view body, uint32_t* out, std::string* error) {
  uint32_t flags = kScriptEvalCompat;
  const Shebang sb = parse_shebang(body);
  if (sb.status == Shebang::kNoNewline) {
    *error = "ERR Invalid script shebang";
    return false;
  }
  if (sb.status == Shebang::kBadQuotes) {
    *error = "ERR Invalid engine in script shebang";
    return false;
  }
  if (sb.status == Shebang::kOk) {
    flags = 0;
    if (c_str_view(sb.words[0]) != "#!lua") {
      *error = "ERR Unexpected engine in script shebang: ";
      error->append(c_str_view(sb.words[0]));
      return false;
    }
    for (size_t w = 1; w < sb.words.size(); w++) {
      std::string_view opt = c_str_view(sb.words[w]);
      if (opt.substr(0, 6) != "flags=") {
        *error = "ERR Unknown lua shebang option: ";
        error->append(opt);
        return false;
      }
      // Comma-separated; every item must be a flag (so "a,,b" and a trailing comma fail), an
      // empty list is none (Redis's sdssplitlen).
      std::string_view list = std::string_view(sb.words[w]).substr(6);
      while (!list.empty()) {
        const size_t comma = list.find(',');
        std::string_view name = list.substr(0, comma);
        name = name.substr(0, name.find('\0'));  // compared and printed as C strings (Redis)
        uint32_t f = 0;
        if (!flag_by_name(name, &f)) {
          *error = "ERR Unexpected flag in script shebang: ";
          error->append(name);
          return false;
        }
        flags |= f;
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
        if (list.empty()) {
          *error = "ERR Unexpected flag in script shebang: ";
          return false;
        }
      }
    }
  }
  *out = flags;
  return true;
}
}  // namespace

uint32_t LuaEngine::shebang_flags(std::string_view body) {
  uint32_t flags;
  std::string error;
  return script_flags(body, &flags, &error) ? flags : uint32_t{kScriptEvalCompat};
}

const LuaEngine::Script* LuaEngine::load_script(std::string_view body, const Sha& sha,
                                               std::string* error) {
  std::string key(sha.data(), sha.size());
  auto it = scripts_.find(key);
  if (it != scripts_.end()) return &it->second;
  uint32_t flags;
  if (!script_flags(body, &flags, error)) return nullptr;
  const std::string code = code_for_lua(body);
  if (compile_chunk(L_, code.data(), code.size(), kScriptChunkName) != 0) {
    *error = compile_error("ERR Error compiling script (new function): ");
    return nullptr;
  }
  Script s;
  s.ref = luaL_ref(L_, LUA_REGISTRYINDEX);
  s.flags = flags;
  s.body.assign(body);
  return &scripts_.emplace(std::move(key), std::move(s)).first->second;
}

// ---- FUNCTION libraries ----------------------------------------------------------------------------

const LuaEngine::Function* LuaEngine::find_function(std::string_view name) const {
  auto it = functions_.find(function_key(name));
  return it == functions_.end() ? nullptr : &it->second;
}

bool LuaEngine::delete_library(std::string_view name) {
  auto it = libraries_.find(std::string(name));
  if (it == libraries_.end()) return false;
  for (const std::string& f : it->second.functions) {
    auto fit = functions_.find(function_key(f));
    if (fit != functions_.end()) {
      luaL_unref(L_, LUA_REGISTRYINDEX, fit->second.ref);
      functions_.erase(fit);
    }
  }
  libraries_.erase(it);
  return true;
}

bool LuaEngine::load_library(std::string_view code, bool replace, std::string* name,
                             std::string* error) {
  // Redis's order: the metadata, the name's characters, the engine, an existing library.
  const Shebang sb = parse_shebang(code);
  if (sb.status == Shebang::kAbsent) {
    *error = "ERR Missing library metadata";
    return false;
  }
  if (sb.status != Shebang::kOk) {
    *error = "ERR Invalid library metadata";
    return false;
  }
  std::string_view lib;
  bool has_name = false;
  for (size_t w = 1; w < sb.words.size(); w++) {
    const std::string& opt = sb.words[w];
    if (opt.size() >= 5 && ascii_iequals(std::string_view(opt).substr(0, 5), "name=")) {
      if (has_name) {
        *error = "ERR Invalid metadata value, name argument was given multiple times";
        return false;
      }
      lib = std::string_view(opt).substr(5);
      has_name = true;
    } else {
      *error = "ERR Invalid metadata value given: ";
      error->append(c_str_view(opt));
      return false;
    }
  }
  if (!has_name) {
    *error = "ERR Library name was not given";
    return false;
  }
  if (!valid_name(lib)) {
    *error = "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long";
    return false;
  }
  std::string_view engine = std::string_view(sb.words[0]).substr(2);
  if (!ascii_iequals(engine, "lua")) {
    *error = "ERR Engine '" + std::string(engine) + "' not found";
    return false;
  }
  const std::string lib_name(lib);
  if (!replace && libraries_.count(lib_name)) {
    *error = "ERR Library '" + lib_name + "' already exists";
    return false;
  }
  const std::string lua_code = code_for_lua(code);
  if (compile_chunk(L_, lua_code.data(), lua_code.size(), kFunctionChunkName) != 0) {
    *error = compile_error("ERR Error compiling function: ");
    return false;
  }
  // Run the library code with the load-time globals.
  std::vector<Function> pending;
  lua_State* L = L_;
  lua_rawgeti(L, LUA_REGISTRYINDEX, globals_index_ref_);
  lua_rawgeti(L, LUA_REGISTRYINDEX, load_globals_ref_);
  lua_setupvalue(L, -2, 1);
  lua_pop(L, 1);
  lua_pushcfunction(L, error_handler);
  lua_insert(L, -2);
  loading_ = &pending;
  load_deadline_us_ = monotonic_us() + kLoadTimeoutUs;
  lua_sethook(L, Protected::hook, LUA_MASKCOUNT, kHookInstructions);
  heap_cap_ = heap_cap_for_run();
  const int rc = lua_pcall(L, 0, 0, -2);
  heap_cap_ = 0;
  if (rc == LUA_ERRMEM) lua_gc(L, LUA_GCCOLLECT, 0);  // free what the code built
  lua_sethook(L, nullptr, 0, 0);
  loading_ = nullptr;
  restore_library_state(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, globals_index_ref_);
  lua_rawgeti(L, LUA_REGISTRYINDEX, runtime_globals_ref_);
  lua_setupvalue(L, -2, 1);
  lua_pop(L, 1);
  auto drop_pending = [&] {
    for (const Function& f : pending) luaL_unref(L, LUA_REGISTRYINDEX, f.ref);
  };
  if (rc != 0) {
    std::string msg = "ERR Error registering functions: ";
    if (lua_istable(L, -1)) {
      lua_pushliteral(L, "err");
      lua_rawget(L, -2);
      const char* e = lua_tostring(L, -1);
      sanitize_into(msg, e ? e : "unknown error");
      lua_pop(L, 1);
    } else {
      const char* e = lua_tostring(L, -1);
      sanitize_into(msg, e ? e : "unknown error");
    }
    lua_settop(L, 0);
    drop_pending();
    *error = std::move(msg);
    return false;
  }
  lua_settop(L, 0);
  if (pending.empty()) {
    *error = "ERR No functions registered";
    return false;
  }
  for (const Function& f : pending) {
    auto it = functions_.find(function_key(f.name));
    if (it != functions_.end() && !(replace && it->second.library == lib_name)) {
      drop_pending();
      *error = "ERR Function " + f.name + " already exists";
      return false;
    }
  }
  if (replace) delete_library(lib_name);
  Library& l = libraries_[lib_name];
  l.name = lib_name;
  l.code.assign(code);
  for (Function& f : pending) {
    f.library = lib_name;
    l.functions.push_back(f.name);
    functions_.emplace(function_key(f.name), std::move(f));
  }
  *name = lib_name;
  return true;
}

// ---- Running ---------------------------------------------------------------------------------------

size_t LuaEngine::heap_cap_for_run() const {
  const int64_t limit = scripting_options().lua_heap_limit;
  if (limit <= 0) return 0;
  return heap_bytes_ + static_cast<size_t>(limit);
}

void LuaEngine::run(int ref, std::span<const std::string_view> keys,
                    std::span<const std::string_view> args, std::string_view name, ScriptHost& host,
                    ReplyWriter& w) {
  lua_State* L = L_;
  host_ = &host;
  resp_ = 2;
  lua_settop(L, 0);
  lua_pushcfunction(L, error_handler);
  lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
  auto push_array = [L](std::span<const std::string_view> items) {
    lua_createtable(L, static_cast<int>(items.size()), 0);
    for (size_t i = 0; i < items.size(); i++) {
      lua_pushlstring(L, items[i].data(), items[i].size());
      lua_rawseti(L, -2, static_cast<int>(i + 1));
    }
  };
  int nargs = 0;
  if (kind_ == Kind::kEval) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, runtime_globals_ref_);
    push_array(keys);
    lua_setfield(L, -2, "KEYS");
    push_array(args);
    lua_setfield(L, -2, "ARGV");
    lua_pop(L, 1);
  } else {
    push_array(keys);
    push_array(args);
    nargs = 2;
  }
  lua_sethook(L, Protected::hook, LUA_MASKCOUNT, kHookInstructions);
  heap_cap_ = heap_cap_for_run();
  const int rc = lua_pcall(L, nargs, 1, 1);
  heap_cap_ = 0;
  // A script stopped by the heap limit leaves up to the whole limit in garbage; collect it
  // now (uncapped), or the next scripts would fail before the collector catches up.
  if (rc == LUA_ERRMEM) lua_gc(L, LUA_GCCOLLECT, 0);
  lua_sethook(L, nullptr, 0, 0);
  host_ = nullptr;
  if (rc == 0) {
    write_lua_value(L, -1, resp_, w);
  } else {
    // Raw reads: no metamethod may run here, outside any protected call.
    std::string msg;
    if (lua_istable(L, -1)) {
      lua_pushliteral(L, "err");
      lua_rawget(L, -2);
      const char* e = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : nullptr;
      sanitize_into(msg, e ? e : "ERR unknown error");
      lua_pop(L, 1);
      lua_pushliteral(L, "source");
      lua_rawget(L, -2);
      lua_pushliteral(L, "line");
      lua_rawget(L, -3);
      msg += " script: ";
      msg.append(name);
      if (lua_isstring(L, -2) && lua_isnumber(L, -1)) {
        char tail[128];
        snprintf(tail, sizeof(tail), ", on %.80s:%d.", lua_tostring(L, -2),
                 static_cast<int>(lua_tonumber(L, -1)));
        msg += tail;
      }
      lua_pop(L, 2);
    } else {
      const char* e = lua_tostring(L, -1);
      msg = "ERR ";
      sanitize_into(msg, e ? e : "unknown error");
      msg += " script: ";
      msg.append(name);
    }
    w.error(msg);
  }
  lua_settop(L, 0);
  if (kind_ == Kind::kEval) {
    // Drop KEYS/ARGV so their strings can be collected.
    lua_rawgeti(L, LUA_REGISTRYINDEX, runtime_globals_ref_);
    lua_pushnil(L);
    lua_setfield(L, -2, "KEYS");
    lua_pushnil(L);
    lua_setfield(L, -2, "ARGV");
    lua_pop(L, 1);
  }
  restore_library_state(L);
  trim_cmsgpack_scratch();
}

}  // namespace keel
