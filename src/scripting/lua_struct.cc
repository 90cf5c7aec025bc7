// struct.pack / struct.unpack / struct.size for scripts: converts between Lua numbers/strings
// and packed binary records described by a format string. Written for Keel from the documented
// format language of the struct library Redis bundles and from the replies of redis-server 7.0
// (tests/unit/scripting-libs.tcl pins them byte for byte).
//
// Format language (one character per item, optional decimal count after some):
//   <  >            little / big endian from here on (the default is the host's order)
//   !n  !           maximum alignment n (a power of 2); without n the widest native scalar (8)
//   b B  h H  l L   signed/unsigned char (1), short (2), long (8);  T  size_t (8)
//   i[n] I[n]       signed/unsigned integer of n bytes (default 4, at most 32)
//   f d             float (4), double (8)
//   s               zero-terminated string;  c[n]  fixed-length string of n bytes (default 1);
//                   c0: pack writes the whole string, unpack takes its length from the previous
//                   value unpacked (which is then dropped from the results)
//   x               one zero byte of padding;  ' '  ignored
// '=' is not an option (the bundled library rejects it, so do we).
//
// Items are aligned to min(item size, max alignment) from the start of the record; strings
// are never aligned. Every error is a Lua error with the texts Redis gives, including its
// quirks (checked on the reference): a short string for c<n> reports the argument after it;
// a missing argument right after the given ones reads as nil; struct.size ignores unknown
// letters and digits but rejects unknown punctuation.
//
// Lua raises with longjmp: nothing here owns a destructible C++ object. Output goes through a
// luaL_Buffer (Lua owns its storage), so an error half-way leaks nothing.
#include "scripting/lua_struct.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace keel {
namespace {

constexpr int kMaxIntSize = 32;     // i/I byte count limit
constexpr int kNativeMaxAlign = 8;  // '!' without a count: alignment of double/long/pointers
constexpr bool kHostLittle = std::endian::native == std::endian::little;

struct FormatState {
  bool little = kHostLittle;
  size_t max_align = 1;  // no padding until a '!' option
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Reads the decimal count that may follow an option; `dflt` when there is none. A count that
// does not fit an int is an error.
int read_count(lua_State* L, const char** fmt, int dflt) {
  if (!is_digit(**fmt)) return dflt;
  int n = 0;
  while (is_digit(**fmt)) {
    const int digit = **fmt - '0';
    if (n > INT_MAX / 10 || n * 10 > INT_MAX - digit) luaL_error(L, "integral size overflow");
    n = n * 10 + digit;
    ++*fmt;
  }
  return n;
}

// Byte size of the item `opt` (consuming its count); 0 for strings 's' and for options that
// are not items (endianness, alignment, unknown characters).
size_t item_size(lua_State* L, char opt, const char** fmt) {
  switch (opt) {
    case 'b':
    case 'B':
      return 1;
    case 'h':
    case 'H':
      return sizeof(short);
    case 'l':
    case 'L':
      return sizeof(long);
    case 'T':
      return sizeof(size_t);
    case 'f':
      return sizeof(float);
    case 'd':
      return sizeof(double);
    case 'x':
      return 1;
    case 'c':
      return static_cast<size_t>(read_count(L, fmt, 1));
    case 'i':
    case 'I': {
      const int n = read_count(L, fmt, static_cast<int>(sizeof(int)));
      if (n > kMaxIntSize) {
        luaL_error(L, "integral size %d is larger than limit of %d", n, kMaxIntSize);
      }
      return static_cast<size_t>(n);
    }
    default:
      return 0;
  }
}

// Zero bytes needed before an item of `size` bytes at `offset`. The alignment is
// min(size, max_align); for sizes that are not powers of two (i3, i5...) the mask arithmetic
// below gives the same odd padding the reference gives (e.g. "!4bi3" pads 2 bytes).
size_t padding(size_t offset, const FormatState& st, char opt, size_t size) {
  if (size == 0 || opt == 'c') return 0;
  const size_t a = std::min(size, st.max_align);
  return (a - (offset & (a - 1))) & (a - 1);
}

// The options that are not items. Anything else is "invalid format option".
void apply_control(lua_State* L, char opt, const char** fmt, FormatState* st) {
  switch (opt) {
    case ' ':
      return;
    case '<':
      st->little = true;
      return;
    case '>':
      st->little = false;
      return;
    case '!': {
      const int a = read_count(L, fmt, kNativeMaxAlign);
      if (a == 0 || (a & (a - 1)) != 0) luaL_error(L, "alignment %d is not a power of 2", a);
      st->max_align = static_cast<size_t>(a);
      return;
    }
    default:
      luaL_argerror(L, 1, lua_pushfstring(L, "invalid format option '%c'", opt));
  }
}

// The 64 bits struct.pack stores for a Lua number (and the length unpack "c0" takes from a
// number). In range it is the two's complement of the truncated value. Out of range, C leaves
// the conversion undefined; the reference (x86-64) yields 2^63 for NaN, for values below
// -2^63 and for [2^63, 2^64) shifted by 2^63's bit, and 0 from 2^64 up. Matched explicitly so
// the result does not depend on our compiler or CPU.
uint64_t number_bits(double n) {
  constexpr double k2p63 = 9223372036854775808.0;
  constexpr uint64_t kTop = uint64_t{1} << 63;
  if (std::isnan(n)) return kTop;
  if (n < 0) return n >= -k2p63 ? static_cast<uint64_t>(static_cast<int64_t>(n)) : kTop;
  if (n < k2p63) return static_cast<uint64_t>(static_cast<int64_t>(n));
  const double high = n - k2p63;
  return (high < k2p63 ? static_cast<uint64_t>(static_cast<int64_t>(high)) : kTop) ^ kTop;
}

// Appends `size` bytes of v (least significant first for little endian). Sizes above 8 are
// zero-extended: only 64 bits of a Lua number are kept.
void add_integer(luaL_Buffer* b, uint64_t v, size_t size, bool little) {
  char bytes[kMaxIntSize];
  for (size_t i = 0; i < size; i++) {
    bytes[little ? i : size - 1 - i] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
  luaL_addlstring(b, bytes, size);
}

// Reads `size` bytes as an integer. Only the 64 least significant bits survive (the reference
// shifts through a 64-bit accumulator). Signed values extend the sign bit of the item; for
// items wider than 8 bytes the reference's shift count wraps modulo 64 (x86), so the "sign
// bit" tested is bit ((8*size - 1) mod 64): reproduced with the & 63 below.
double read_integer(const char* p, size_t size, bool little, bool is_signed) {
  uint64_t v = 0;
  for (size_t i = 0; i < size; i++) {
    v = (v << 8) | static_cast<unsigned char>(p[little ? size - 1 - i : i]);
  }
  if (!is_signed) return static_cast<double>(v);
  const uint64_t sign = ~uint64_t{0} << ((size * 8 - 1) & 63);
  if (v & sign) v |= sign;
  return static_cast<double>(static_cast<int64_t>(v));
}

// Copies n (4 or 8) bytes between host order and the record's order.
void copy_ordered(char* dst, const char* src, size_t n, bool little) {
  if (little == kHostLittle) {
    std::memcpy(dst, src, n);
  } else {
    for (size_t i = 0; i < n; i++) dst[i] = src[n - 1 - i];
  }
}

// struct.pack(fmt, v1, v2, ...) -> string
int struct_pack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  FormatState st;
  int arg = 2;
  size_t total = 0;
  // As in the reference, a nil sits right after the arguments (the buffer's base), so the first
  // missing value is reported as "got nil" rather than "got no value".
  lua_pushnil(L);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  while (*fmt != '\0') {
    const char opt = *fmt++;
    size_t size = item_size(L, opt, &fmt);
    const size_t pad = padding(total, st, opt, size);
    for (size_t i = 0; i < pad; i++) luaL_addchar(&b, '\0');
    total += pad;
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        add_integer(&b, number_bits(luaL_checknumber(L, arg++)), size, st.little);
        break;
      case 'x':
        luaL_addchar(&b, '\0');
        break;
      case 'f': {
        const float f = static_cast<float>(luaL_checknumber(L, arg++));
        char bytes[sizeof f];
        copy_ordered(bytes, reinterpret_cast<const char*>(&f), sizeof f, st.little);
        luaL_addlstring(&b, bytes, sizeof f);
        break;
      }
      case 'd': {
        const double d = luaL_checknumber(L, arg++);
        char bytes[sizeof d];
        copy_ordered(bytes, reinterpret_cast<const char*>(&d), sizeof d, st.little);
        luaL_addlstring(&b, bytes, sizeof d);
        break;
      }
      case 'c':
      case 's': {
        size_t len = 0;
        const char* s = luaL_checklstring(L, arg++, &len);
        if (size == 0) size = len;  // 's', or "c0": the whole string
        // The reference names the argument after the string here; kept for identical errors.
        luaL_argcheck(L, len >= size, arg, "string too short");
        luaL_addlstring(&b, s, size);
        if (opt == 's') {
          luaL_addchar(&b, '\0');
          size++;
        }
        break;
      }
      default:
        apply_control(L, opt, &fmt, &st);
    }
    total += size;
  }
  luaL_pushresult(&b);
  return 1;
}

// struct.unpack(fmt, s [, pos]) -> v1, v2, ..., next position (1-based)
int struct_unpack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  size_t len = 0;
  const char* data = luaL_checklstring(L, 2, &len);
  // A negative pos wraps to a huge offset, which then fails as "data string too short" (as in
  // the reference); only 0 gets its own message.
  size_t pos = static_cast<size_t>(luaL_optinteger(L, 3, 1));
  luaL_argcheck(L, pos > 0, 3, "offset must be 1 or greater");
  pos--;
  FormatState st;
  int results = 0;
  while (*fmt != '\0') {
    const char opt = *fmt++;
    size_t size = item_size(L, opt, &fmt);
    pos += padding(pos, st, opt, size);
    // Checked for every option, control options included (the reference does the same).
    luaL_argcheck(L, size <= len && pos <= len - size, 2, "data string too short");
    luaL_checkstack(L, 2, "too many results");  // the item and the final position
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I': {
        const bool is_signed = opt >= 'a' && opt <= 'z';
        lua_pushnumber(L, read_integer(data + pos, size, st.little, is_signed));
        results++;
        break;
      }
      case 'x':
        break;
      case 'f': {
        float f;
        copy_ordered(reinterpret_cast<char*>(&f), data + pos, sizeof f, st.little);
        lua_pushnumber(L, f);
        results++;
        break;
      }
      case 'd': {
        double d;
        copy_ordered(reinterpret_cast<char*>(&d), data + pos, sizeof d, st.little);
        lua_pushnumber(L, d);
        results++;
        break;
      }
      case 'c':
        if (size == 0) {  // "c0": the length is the previous result, which is consumed
          if (results == 0 || !lua_isnumber(L, -1)) {
            luaL_error(L, "format 'c0' needs a previous size");
          }
          size = static_cast<size_t>(number_bits(lua_tonumber(L, -1)));
          lua_pop(L, 1);
          results--;
          luaL_argcheck(L, size <= len && pos <= len - size, 2, "data string too short");
        }
        lua_pushlstring(L, data + pos, size);
        results++;
        break;
      case 's': {
        const void* end = std::memchr(data + pos, '\0', len - pos);
        if (end == nullptr) luaL_error(L, "unfinished string in data");
        const size_t n = static_cast<size_t>(static_cast<const char*>(end) - (data + pos));
        lua_pushlstring(L, data + pos, n);
        results++;
        size = n + 1;
        break;
      }
      default:
        apply_control(L, opt, &fmt, &st);
    }
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos + 1));
  return results + 1;
}

// struct.size(fmt) -> bytes a record of this format takes (no variable-length items allowed)
int struct_size(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  FormatState st;
  size_t pos = 0;
  while (*fmt != '\0') {
    const char opt = *fmt++;
    const size_t size = item_size(L, opt, &fmt);
    pos += padding(pos, st, opt, size);
    if (opt == 's') {
      luaL_argerror(L, 1, "option 's' has no fixed size");
    } else if (opt == 'c' && size == 0) {
      luaL_argerror(L, 1, "option 'c0' has no fixed size");
    }
    if (!is_alnum(opt)) apply_control(L, opt, &fmt, &st);  // letters/digits: items or ignored
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos));
  return 1;
}

}  // namespace

void push_struct_library(lua_State* L) {
  lua_createtable(L, 0, 3);
  lua_pushcfunction(L, struct_pack);
  lua_setfield(L, -2, "pack");
  lua_pushcfunction(L, struct_unpack);
  lua_setfield(L, -2, "unpack");
  lua_pushcfunction(L, struct_size);
  lua_setfield(L, -2, "size");
}

}  // namespace keel
