// Fuzz target: scripting/lua_value.cc, the conversions between RESP replies and Lua values.
//
// Input: byte 0 picks the direction and RESP versions, the rest drives a builder.
//   RESP -> Lua -> RESP (what redis.call returns, then a script returning it): a reply tree is
//     written with ReplyWriter (RESP2 or RESP3: simple, error, integer, bulk, nulls, arrays,
//     maps, sets, pushes, booleans, doubles, verbatim, big numbers and attributes, nested up to
//     40 levels), optionally cut short (push_resp_value documents that a truncated value pushes
//     what it has). push_resp_value must consume exactly the value (all of it when not cut),
//     push exactly one Lua value, and that value written back with write_lua_value must be
//     one well-formed RESP value.
//   Lua -> RESP: a Lua value is built directly (numbers including NaN, +-inf and out-of-range
//     values, strings with CR/LF, booleans, nil, arrays with holes, tables with err / ok /
//     double / big_number / map / set / verbatim_string fields of any type, self-referencing
//     tables, chains deeper than the 1000-level limit); write_lua_value with script RESP 2/3
//     and writer RESP 2/3 must produce exactly one well-formed RESP value, and a nesting past
//     the limit must end in "-ERR reached lua stack limit"; the bytes then go back through
//     push_resp_value.
// The checker below is a strict RESP2/RESP3 parser written for this target.
// With KEEL_FUZZ_LUA_RAW=1 in the environment, a third mode feeds arbitrary bytes to
// push_resp_value, outside its documented contract (its input always comes from ReplyWriter).
extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "base/buffer.h"
#include "base/numbers.h"
#include "fuzz_util.h"
#include "protocol/reply_writer.h"
#include "scripting/lua_value.h"

using keel::Buffer;
using keel::ReplyWriter;
using keel::fuzz::Input;

namespace {

// ---- strict RESP checker -----------------------------------------------------------------

struct Resp {
  const char* p;
  const char* end;
  bool saw_limit_error = false;

  bool line(std::string_view* out) {
    const void* cr = std::memchr(p, '\r', static_cast<size_t>(end - p));
    if (!cr) return false;
    const char* c = static_cast<const char*>(cr);
    if (c + 1 >= end || c[1] != '\n') return false;
    *out = std::string_view(p, static_cast<size_t>(c - p));
    if (out->find('\n') != std::string_view::npos) return false;
    p = c + 2;
    return true;
  }
  bool number(int64_t* n) {
    std::string_view l;
    return line(&l) && keel::parse_int64(l, n);
  }
  bool value(int depth) {
    if (depth > 2000 || p >= end) return false;
    const char t = *p++;
    std::string_view l;
    int64_t n;
    switch (t) {
      case '+':
        return line(&l);
      case '-':
        if (!line(&l)) return false;
        if (l == "ERR reached lua stack limit") saw_limit_error = true;
        return true;
      case ':':
        return number(&n);
      case '$':
      case '!':
      case '=':
        if (!number(&n)) return false;
        if (n == -1 && t == '$') return true;
        if (n < 0 || n > end - p - 2) return false;
        if (t == '=' && (n < 4 || p[3] != ':')) return false;  // RESP3: exactly 3 format bytes
        p += n;
        if (p[0] != '\r' || p[1] != '\n') return false;
        p += 2;
        return true;
      case '*':
      case '~':
      case '>':
      case '%':
        if (!number(&n)) return false;
        if (n == -1 && t == '*') return true;
        if (n < 0) return false;
        for (int64_t i = 0; i < (t == '%' ? 2 * n : n); i++) {
          if (!value(depth + 1)) return false;
        }
        return true;
      case '_':
        return line(&l) && l.empty();
      case '#':
        return line(&l) && (l == "t" || l == "f");
      case ',': {
        if (!line(&l)) return false;
        if (l == "inf" || l == "-inf" || l == "nan") return true;
        double d;
        return keel::parse_double(l, &d);
      }
      case '(':
        return line(&l);
      case '|':  // attribute: n key/value pairs, then the value they annotate
        if (!number(&n) || n < 0) return false;
        for (int64_t i = 0; i < 2 * n; i++) {
          if (!value(depth + 1)) return false;
        }
        return value(depth + 1);
      default:
        return false;
    }
  }
};

// Exactly one well-formed value, nothing after it.
bool one_value(std::string_view bytes, bool* limit_error = nullptr) {
  Resp r{bytes.data(), bytes.data() + bytes.size()};
  const bool ok = r.value(0) && r.p == r.end;
  if (limit_error) *limit_error = r.saw_limit_error;
  return ok;
}

// ---- Lua state -----------------------------------------------------------------------------

lua_State* state() {
  static lua_State* L = [] {
    lua_State* s = luaL_newstate();
    luaL_openlibs(s);
    return s;
  }();
  return L;
}

struct PushArgs {
  const char* p;
  const char* end;
};

int push_in_protected_mode(lua_State* L) {
  auto* a = static_cast<PushArgs*>(lua_touserdata(L, 1));
  lua_pop(L, 1);
  keel::push_resp_value(L, a->p, a->end);
  return 1;
}

// push_resp_value under lua_pcall (it may raise a memory error); leaves the value (or the
// error) on top and returns lua_pcall's status.
int push_value_status(lua_State* L, PushArgs* a) {
  lua_pushcfunction(L, push_in_protected_mode);
  lua_pushlightuserdata(L, a);
  return lua_pcall(L, 1, 1, 0);
}

void push_value(lua_State* L, PushArgs* a) { FUZZ_CHECK(push_value_status(L, a) == 0); }

std::string write_back(lua_State* L, int script_resp, int writer_resp) {
  Buffer out;
  ReplyWriter w(&out, writer_resp);
  keel::write_lua_value(L, -1, script_resp, w);
  return std::string(out.view());
}

// ---- RESP builder --------------------------------------------------------------------------

std::string line_text(Input& in) {
  std::string s(in.bytes(in.u8() % 24));
  for (char& c : s) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return s;
}

void gen_reply(Input& in, ReplyWriter& w, int depth, int& budget) {
  uint8_t op = in.u8() % 18;
  if (--budget <= 0 || depth >= 40 || in.empty()) op = op % 6;  // leaves only
  const bool r3 = w.resp() == 3;
  switch (op) {
    case 0: w.simple(line_text(in)); break;
    case 1: w.error(line_text(in)); break;
    case 2: w.integer(static_cast<int64_t>(in.u64())); break;
    case 3: w.bulk(in.bytes(in.u8())); break;
    case 4: w.null(); break;
    case 5: w.integer(static_cast<int8_t>(in.u8())); break;
    case 6: w.null_array(); break;
    case 7:
    case 8: {
      const size_t n = in.u8() % 6;
      w.array(n);
      for (size_t i = 0; i < n; i++) gen_reply(in, w, depth + 1, budget);
      break;
    }
    case 9: {
      const size_t n = in.u8() % 4;
      w.map(n);
      for (size_t i = 0; i < 2 * n; i++) gen_reply(in, w, depth + 1, budget);
      break;
    }
    case 10: {
      const size_t n = in.u8() % 4;
      w.set(n);
      for (size_t i = 0; i < n; i++) gen_reply(in, w, depth + 1, budget);
      break;
    }
    case 11: {
      const size_t n = in.u8() % 4;
      w.push(n);
      for (size_t i = 0; i < n; i++) gen_reply(in, w, depth + 1, budget);
      break;
    }
    case 12: w.boolean(in.flag()); break;
    case 13: {
      const uint64_t bits = in.u64();
      double d;
      std::memcpy(&d, &bits, sizeof d);
      w.dbl(d);
      break;
    }
    case 14: w.verbatim(in.bytes(in.u8()), in.flag() ? "txt" : "mkd"); break;
    case 15: {
      const uint64_t bits = in.u64();
      double d;
      std::memcpy(&d, &bits, sizeof d);
      w.bulk_double(d);
      break;
    }
    case 16:
      if (!r3) return w.integer(0);
      {  // big number
        char buf[keel::kInt64BufSize];
        std::string s = "(";
        if (in.flag()) s += '-';
        for (int i = in.u8() % 4; i >= 0; i--) s.append(buf, keel::format_uint64(in.u64(), buf));
        s += "\r\n";
        w.raw(s);
      }
      break;
    default:
      if (!r3) return w.null();
      {  // an attribute, then the value it annotates
        const size_t n = in.u8() % 3;
        w.raw("|" + std::to_string(n) + "\r\n");
        for (size_t i = 0; i < 2 * n; i++) gen_reply(in, w, depth + 1, budget);
        gen_reply(in, w, depth + 1, budget);
      }
      break;
  }
}

void resp_to_lua(Input& in, uint8_t flags) {
  lua_State* L = state();
  const int resp = (flags & 2) ? 3 : 2;
  const bool cut = flags & 4;
  Buffer out;
  ReplyWriter w(&out, resp);
  int budget = 400;
  gen_reply(in, w, 0, budget);
  std::string bytes(out.view());
  if (!one_value(bytes)) {
    std::fprintf(stderr, "ReplyWriter output [%s] is not one value\n", keel::fuzz::show(bytes.substr(0, 300)).c_str());
    FUZZ_CHECK(false);
  }
  if (cut) bytes.resize(in.u32() % (bytes.size() + 1));
  // An exact-size heap copy: a read past the end is an ASan report.
  std::unique_ptr<char[]> exact(new char[bytes.size() + 1]);
  std::memcpy(exact.get(), bytes.data(), bytes.size());
  PushArgs a{exact.get(), exact.get() + bytes.size()};
  const int top = lua_gettop(L);
  push_value(L, &a);
  FUZZ_CHECK(lua_gettop(L) == top + 1);
  FUZZ_CHECK(a.p >= exact.get() && a.p <= exact.get() + bytes.size());
  if (!cut) FUZZ_CHECK(a.p == exact.get() + bytes.size());
  for (int script_resp = 2; script_resp <= 3; script_resp++) {
    for (int writer_resp = 2; writer_resp <= 3; writer_resp++) {
      const std::string back = write_back(L, script_resp, writer_resp);
      if (!one_value(back)) {
        std::fprintf(stderr, "write_lua_value (script %d, writer %d) of [%s] gave [%s]\n", script_resp,
                     writer_resp, keel::fuzz::show(bytes.substr(0, 300)).c_str(), keel::fuzz::show(back.substr(0, 300)).c_str());
        FUZZ_CHECK(false);
      }
    }
  }
  lua_settop(L, top);
}

// ---- Lua builder ---------------------------------------------------------------------------

void build(lua_State* L, Input& in, int depth, int& budget);

void build_table_field(lua_State* L, Input& in, const char* field, int depth, int& budget) {
  lua_createtable(L, 0, 1);
  build(L, in, depth + 1, budget);
  lua_setfield(L, -2, field);
}

void build(lua_State* L, Input& in, int depth, int& budget) {
  FUZZ_CHECK(lua_checkstack(L, 8));
  uint8_t op = in.u8() % 17;
  if (--budget <= 0 || depth >= 30 || in.empty()) op = op % 5;
  switch (op) {
    case 0: {
      const uint64_t bits = in.u64();
      double d;
      std::memcpy(&d, &bits, sizeof d);
      lua_pushnumber(L, d);
      break;
    }
    case 1: {
      const std::string_view s = in.bytes(in.u8());
      lua_pushlstring(L, s.data(), s.size());
      break;
    }
    case 2: lua_pushboolean(L, in.flag()); break;
    case 3: lua_pushnil(L); break;
    case 4: {
      const std::string_view s = in.bytes(in.u8() % 40);
      lua_pushlstring(L, s.data(), s.size());
      break;
    }
    case 5:
    case 6: {  // array, possibly with holes (nil stops it)
      const int n = in.u8() % 6;
      lua_createtable(L, n, 0);
      for (int i = 1; i <= n; i++) {
        build(L, in, depth + 1, budget);
        lua_rawseti(L, -2, i);
      }
      break;
    }
    case 7: build_table_field(L, in, "err", depth, budget); break;
    case 8: build_table_field(L, in, "ok", depth, budget); break;
    case 9: build_table_field(L, in, "double", depth, budget); break;
    case 10: build_table_field(L, in, "big_number", depth, budget); break;
    case 11:
    case 12: {  // map / set: a table of key -> value pairs under the field
      lua_createtable(L, 0, 1);
      lua_createtable(L, 0, 4);
      const int n = in.u8() % 5;
      for (int i = 0; i < n; i++) {
        build(L, in, depth + 1, budget);  // key
        build(L, in, depth + 1, budget);  // value
        if (lua_isnil(L, -2) || (lua_type(L, -2) == LUA_TNUMBER && std::isnan(lua_tonumber(L, -2)))) {
          lua_pop(L, 2);  // not a valid key
        } else {
          lua_rawset(L, -3);
        }
      }
      lua_setfield(L, -2, op == 11 ? "map" : "set");
      break;
    }
    case 13: {  // verbatim_string = {format = x, string = y}, any types
      lua_createtable(L, 0, 1);
      lua_createtable(L, 0, 2);
      build(L, in, depth + 1, budget);
      lua_setfield(L, -2, "format");
      build(L, in, depth + 1, budget);
      lua_setfield(L, -2, "string");
      lua_setfield(L, -2, "verbatim_string");
      break;
    }
    case 14: {  // a table holding itself once: t[1] = t, or t.map = {k = t}
      // Not twice: with two self references (t[1] = t[2] = t, or t.map = {[t] = t}) the
      // output doubles at every level up to the depth limit, 2^1000 values: write_lua_value
      // never returns (redis-server 7.0.15 hangs the same way). Reported, see README.md.
      lua_createtable(L, 1, 0);
      if (in.flag()) {
        lua_pushvalue(L, -1);
        lua_rawseti(L, -2, 1);
      } else {
        lua_createtable(L, 0, 1);
        lua_pushvalue(L, -2);
        lua_setfield(L, -2, "k");
        lua_setfield(L, -2, "map");
      }
      break;
    }
    case 15: {  // a chain of nested arrays around the 1000-level limit
      const int levels = 990 + in.u8() % 20;
      lua_createtable(L, 1, 0);
      lua_pushvalue(L, -1);  // keep the outermost table; build inward from a copy
      for (int i = 0; i < levels; i++) {
        lua_createtable(L, 1, 0);
        lua_pushvalue(L, -1);
        lua_rawseti(L, -3, 1);
        lua_remove(L, -2);
      }
      lua_pushinteger(L, 7);
      lua_rawseti(L, -2, 1);
      lua_pop(L, 1);
      break;
    }
    default: {  // a table with an error field and array part both present
      lua_createtable(L, 2, 1);
      build(L, in, depth + 1, budget);
      lua_rawseti(L, -2, 1);
      build(L, in, depth + 1, budget);
      lua_setfield(L, -2, in.flag() ? "err" : "ok");
      break;
    }
  }
}

void lua_to_resp(Input& in, uint8_t flags) {
  lua_State* L = state();
  const int top = lua_gettop(L);
  int budget = 300;
  build(L, in, 0, budget);
  FUZZ_CHECK(lua_gettop(L) == top + 1);
  const int script_resp = (flags & 2) ? 3 : 2;
  const int writer_resp = (flags & 4) ? 3 : 2;
  const std::string bytes = write_back(L, script_resp, writer_resp);
  bool limit_error = false;
  if (!one_value(bytes, &limit_error)) {
    std::fprintf(stderr, "write_lua_value (script %d, writer %d) gave [%s]\n", script_resp, writer_resp,
                 keel::fuzz::show(bytes.substr(0, 400)).c_str());
    FUZZ_CHECK(false);
  }
  lua_settop(L, top);
  // What a script returns may come back through redis.call in another script.
  std::unique_ptr<char[]> exact(new char[bytes.size() + 1]);
  std::memcpy(exact.get(), bytes.data(), bytes.size());
  PushArgs a{exact.get(), exact.get() + bytes.size()};
  push_value(L, &a);
  FUZZ_CHECK(a.p == exact.get() + bytes.size());
  lua_settop(L, top);
}

void raw_to_lua(Input& in) {
  lua_State* L = state();
  const std::string_view raw = in.rest();
  std::unique_ptr<char[]> exact(new char[raw.size() + 1]);
  std::memcpy(exact.get(), raw.data(), raw.size());
  PushArgs a{exact.get(), exact.get() + raw.size()};
  const int top = lua_gettop(L);
  // A huge count may raise "not enough memory": a Lua error, which redis.call would report.
  if (push_value_status(L, &a) == 0) FUZZ_CHECK(a.p <= exact.get() + raw.size());
  lua_settop(L, top);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool raw_mode = std::getenv("KEEL_FUZZ_LUA_RAW") != nullptr;
  Input in(data, size);
  const uint8_t flags = in.u8();
  if (raw_mode && (flags & 0x80)) {
    raw_to_lua(in);
  } else if (flags & 1) {
    lua_to_resp(in, flags);
  } else {
    resp_to_lua(in, flags);
  }
  static unsigned runs = 0;
  if (++runs % 256 == 0) lua_gc(state(), LUA_GCCOLLECT, 0);
  return 0;
}
