// RESP <-> Lua value conversions for scripts (rules in lua_value.h).
#include "scripting/lua_value.h"

extern "C" {
#include <lua.h>
}

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

namespace keel {
namespace {

// Reads the decimal number after the type byte up to CRLF.
int64_t read_len(const char*& p, const char* end) {
  uint64_t v = 0;  // unsigned: "-9223372036854775808" (an integer reply) must not overflow
  bool neg = false;
  if (p < end && *p == '-') neg = true, p++;
  while (p < end && *p != '\r') v = v * 10 + static_cast<uint64_t>(*p++ - '0');
  p += 2;
  return static_cast<int64_t>(neg ? 0 - v : v);
}

// The line after the type byte (up to CRLF), advancing past it.
std::string_view read_line(const char*& p, const char* end) {
  const char* s = p;
  const void* cr = memchr(p, '\r', static_cast<size_t>(end - p));
  const char* e = cr ? static_cast<const char*>(cr) : end;
  p = e + 2 <= end ? e + 2 : end;
  return {s, static_cast<size_t>(e - s)};
}

void push_table_field(lua_State* L, const char* field, std::string_view s) {
  lua_createtable(L, 0, 1);
  lua_pushlstring(L, s.data(), s.size());
  lua_setfield(L, -2, field);
}

bool field_is(lua_State* L, int t, const char* name, int type) {
  lua_pushstring(L, name);
  lua_rawget(L, t);
  if (lua_type(L, -1) == type) return true;  // left on the stack
  lua_pop(L, 1);
  return false;
}

void write_text_reply(ReplyWriter& w, bool error, const char* s, size_t len) {
  // Error and status texts cannot hold CR or LF: Redis turns them into spaces.
  if (memchr(s, '\r', len) == nullptr && memchr(s, '\n', len) == nullptr) {
    error ? w.error({s, len}) : w.simple({s, len});
    return;
  }
  std::string clean(s, len);
  for (char& c : clean) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  error ? w.error(clean) : w.simple(clean);
}

void write_value(lua_State* L, int idx, int resp, ReplyWriter& w, int depth);

void write_table(lua_State* L, int t, int resp, ReplyWriter& w, int depth) {
  size_t len;
  if (field_is(L, t, "err", LUA_TSTRING)) {
    const char* s = lua_tolstring(L, -1, &len);
    write_text_reply(w, true, s, len);
    return lua_pop(L, 1);
  }
  if (field_is(L, t, "ok", LUA_TSTRING)) {
    const char* s = lua_tolstring(L, -1, &len);
    write_text_reply(w, false, s, len);
    return lua_pop(L, 1);
  }
  if (field_is(L, t, "double", LUA_TNUMBER)) {
    w.dbl(lua_tonumber(L, -1));
    return lua_pop(L, 1);
  }
  if (field_is(L, t, "big_number", LUA_TSTRING)) {
    const char* s = lua_tolstring(L, -1, &len);
    if (w.resp() == 3) {
      std::string raw = "(";
      for (size_t i = 0; i < len; i++) raw += (s[i] == '\r' || s[i] == '\n') ? ' ' : s[i];
      raw += "\r\n";
      w.raw(raw);
    } else {
      w.bulk({s, len});
    }
    return lua_pop(L, 1);
  }
  if (field_is(L, t, "map", LUA_TTABLE)) {
    const int m = lua_gettop(L);
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, m)) n++, lua_pop(L, 1);
    w.map(n);
    lua_pushnil(L);
    while (lua_next(L, m)) {
      write_value(L, -2, resp, w, depth + 1);
      write_value(L, -1, resp, w, depth + 1);
      lua_pop(L, 1);
    }
    return lua_pop(L, 1);
  }
  if (field_is(L, t, "set", LUA_TTABLE)) {
    const int m = lua_gettop(L);
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, m)) n++, lua_pop(L, 1);
    w.set(n);
    lua_pushnil(L);
    while (lua_next(L, m)) {
      write_value(L, -2, resp, w, depth + 1);
      lua_pop(L, 1);
    }
    return lua_pop(L, 1);
  }
  if (field_is(L, t, "verbatim_string", LUA_TTABLE)) {
    const int v = lua_gettop(L);
    if (field_is(L, v, "format", LUA_TSTRING)) {
      if (field_is(L, v, "string", LUA_TSTRING)) {
        size_t flen;
        const char* fmt = lua_tolstring(L, -2, &flen);
        const char* s = lua_tolstring(L, -1, &len);
        w.verbatim({s, len}, {fmt, flen});
        return lua_pop(L, 3);
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  // An array: t[1], t[2], ... up to the first nil.
  size_t n = 0;
  for (;;) {
    lua_rawgeti(L, t, static_cast<int>(n + 1));
    const bool end = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (end) break;
    n++;
  }
  w.array(n);
  for (size_t i = 1; i <= n; i++) {
    lua_rawgeti(L, t, static_cast<int>(i));
    write_value(L, -1, resp, w, depth + 1);
    lua_pop(L, 1);
  }
}

void write_value(lua_State* L, int idx, int resp, ReplyWriter& w, int depth) {
  if (idx < 0) idx = lua_gettop(L) + idx + 1;
  // Each level uses a few stack slots; a self-referencing table ends here instead of looping.
  if (depth > 1000 || !lua_checkstack(L, 8)) return w.error("ERR reached lua stack limit");
  switch (lua_type(L, idx)) {
    case LUA_TSTRING: {
      size_t len;
      const char* s = lua_tolstring(L, idx, &len);
      return w.bulk({s, len});
    }
    case LUA_TBOOLEAN: {
      const bool b = lua_toboolean(L, idx);
      if (resp == 3) return w.boolean(b);
      return b ? w.integer(1) : w.null();
    }
    case LUA_TNUMBER: {
      const double d = lua_tonumber(L, idx);
      // (long long) of an out-of-range double: Redis gets INT64_MIN on x86; avoid the UB.
      const int64_t v = (d >= -9223372036854775808.0 && d < 9223372036854775808.0)
                            ? static_cast<int64_t>(d)
                            : INT64_MIN;
      return w.integer(v);
    }
    case LUA_TTABLE:
      return write_table(L, idx, resp, w, depth);
    default:
      return w.null();
  }
}

}  // namespace

void write_lua_value(lua_State* L, int idx, int script_resp, ReplyWriter& w) {
  write_value(L, idx, script_resp, w, 0);
}

void push_resp_value(lua_State* L, const char*& p, const char* end) {
  if (p >= end) return lua_pushboolean(L, 0);
  lua_checkstack(L, 8);
  const char type = *p++;
  switch (type) {
    case '+':
      return push_table_field(L, "ok", read_line(p, end));
    case '-':
      return push_table_field(L, "err", read_line(p, end));
    case ':':
      return lua_pushnumber(L, static_cast<double>(read_len(p, end)));
    case '$':
    case '!':
    case '=': {
      const int64_t n = read_len(p, end);
      if (n < 0) return lua_pushboolean(L, 0);
      const size_t len = static_cast<size_t>(n) <= static_cast<size_t>(end - p) ? static_cast<size_t>(n)
                                                                             : static_cast<size_t>(end - p);
      std::string_view s(p, len);
      p += len + 2;
      if (p > end) p = end;
      if (type == '!') return push_table_field(L, "err", s);
      if (type == '=') {
        // "fmt:text"
        lua_createtable(L, 0, 1);
        lua_createtable(L, 0, 2);
        std::string_view fmt = s.substr(0, 3), text = s.size() >= 4 ? s.substr(4) : std::string_view();
        lua_pushlstring(L, fmt.data(), fmt.size());
        lua_setfield(L, -2, "format");
        lua_pushlstring(L, text.data(), text.size());
        lua_setfield(L, -2, "string");
        lua_setfield(L, -2, "verbatim_string");
        return;
      }
      return lua_pushlstring(L, s.data(), s.size());
    }
    case '*':
    case '>': {
      const int64_t n = read_len(p, end);
      if (n < 0) return lua_pushboolean(L, 0);
      lua_createtable(L, static_cast<int>(n), 0);
      for (int64_t i = 1; i <= n; i++) {
        push_resp_value(L, p, end);
        lua_rawseti(L, -2, static_cast<int>(i));
      }
      return;
    }
    case '%':
    case '~': {
      const int64_t n = read_len(p, end);
      lua_createtable(L, 0, 1);
      lua_createtable(L, 0, static_cast<int>(n));
      for (int64_t i = 0; i < n; i++) {
        push_resp_value(L, p, end);
        if (type == '%') {
          push_resp_value(L, p, end);
        } else {
          lua_pushboolean(L, 1);
        }
        if (lua_isnil(L, -2)) {
          lua_pop(L, 2);  // a nil key cannot be stored
        } else {
          lua_rawset(L, -3);
        }
      }
      lua_setfield(L, -2, type == '%' ? "map" : "set");
      return;
    }
    case '_':
      p += 2;
      return lua_pushnil(L);
    case '#': {
      const bool b = p < end && *p == 't';
      p += 3;
      return lua_pushboolean(L, b);
    }
    case ',': {
      std::string_view s = read_line(p, end);
      double d;
      {  // strtod needs a terminator; the copy is gone before any Lua call can raise
        std::string buf(s);
        d = strtod(buf.c_str(), nullptr);
      }
      lua_createtable(L, 0, 1);
      lua_pushnumber(L, d);
      lua_setfield(L, -2, "double");
      return;
    }
    case '(':
      return push_table_field(L, "big_number", read_line(p, end));
    case '|': {  // attribute: skip it, the value follows
      const int64_t n = read_len(p, end);
      for (int64_t i = 0; i < 2 * n; i++) {
        push_resp_value(L, p, end);
        lua_pop(L, 1);
      }
      return push_resp_value(L, p, end);
    }
    default:
      p = end;
      return lua_pushboolean(L, 0);
  }
}

}  // namespace keel
