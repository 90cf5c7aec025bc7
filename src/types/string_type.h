// String value helpers: the edits string and bitmap commands make to a string Object in place
// (APPEND, SETRANGE, SETBIT, BITFIELD growth, INCR), so handlers never look at encodings.
// Nothing here knows about Db, keysizes or limits: callers check proto-max-bulk-len before
// growing, take object_length() before an edit and report it to Db::length_changed() after.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "types/object.h"

namespace keel {

struct StringType {
  // The value's bytes; an int-encoded value is formatted into `scratch` (>= 24 bytes). The view
  // is valid until the next edit of `o`.
  static std::string_view view(const Object& o, char* scratch) { return o.string_view(scratch); }
  static size_t length(const Object& o) { return o.string_length(); }

  // The value as a strict int64 (Redis's string2ll rules). No allocation.
  static bool to_int64(const Object& o, int64_t* out);
  // The value as a long double (INCRBYFLOAT's parse of the stored value).
  static bool to_long_double(const Object& o, long double* out);

  // A new heap ("raw") string of `len` zero bytes, as SETRANGE/SETBIT create a missing key.
  static Object* create_zeroed(std::string_view key, size_t len);
  // A new raw string whose `len` bytes the caller fills through `*data` (BITOP's result).
  static Object* create_raw_uninit(std::string_view key, size_t len, char** data);

  // Makes the value a private raw buffer at least `len` bytes long (zero bytes added at the end
  // when it grows) and returns a pointer to its bytes. The encoding becomes raw even when the
  // length does not change, as Redis's unshare does. O(len) when it converts or grows.
  static char* edit(Object& o, size_t len);
  // APPEND: returns the new length. The encoding becomes raw.
  static size_t append(Object& o, std::string_view tail);
  // SETRANGE: writes `v` at `offset`, zero-padding; returns the new length. `v` is not empty.
  static size_t set_range(Object& o, size_t offset, std::string_view v);

  // INCR family: adds `delta` to an integer value in place (int-encoded afterwards).
  enum class IncrResult { kOk, kNotInteger, kOverflow };
  static IncrResult incr_by(Object& o, int64_t delta, int64_t* result);
  // Overflow-checked a + b for INCR on a missing key and for the in-place path.
  static bool add_overflows(int64_t a, int64_t b, int64_t* sum);
};

}  // namespace keel
