// In-place edits of string values. Redis turns a value into a private raw sds before any edit
// (dbUnshareStringValue) and never goes back to embstr/int until the key is rewritten; the
// Redis-visible encoding here follows the same rule through Object::make_raw_for_edit().
#include "types/string_type.h"

#include <cstring>

#include "base/numbers.h"

namespace keel {

bool StringType::to_int64(const Object& o, int64_t* out) {
  if (o.is_int()) {
    *out = o.int_value();
    return true;
  }
  char scratch[24];
  return string_is_canonical_int(o.string_view(scratch), out);
}

bool StringType::to_long_double(const Object& o, long double* out) {
  if (o.is_int()) {
    *out = static_cast<long double>(o.int_value());
    return true;
  }
  char scratch[24];
  return parse_long_double(o.string_view(scratch), out);
}

Object* StringType::create_zeroed(std::string_view key, size_t len) {
  char* data;
  Object* o = create_raw_uninit(key, len, &data);
  if (len) memset(data, 0, len);
  return o;
}

Object* StringType::create_raw_uninit(std::string_view key, size_t len, char** data) {
  Object* o = Object::create_raw(key, {}, len);
  RawString* r = o->raw();
  r->len = len;
  *data = r->data;
  return o;
}

char* StringType::edit(Object& o, size_t len) {
  RawString* r = o.make_raw_for_edit(len);
  if (r->len < len) {
    memset(r->data + r->len, 0, len - r->len);
    r->len = len;
  }
  return r->data;
}

size_t StringType::append(Object& o, std::string_view tail) {
  const size_t old = o.string_length();
  char* p = edit(o, old + tail.size());
  if (!tail.empty()) memcpy(p + old, tail.data(), tail.size());
  return old + tail.size();
}

size_t StringType::set_range(Object& o, size_t offset, std::string_view v) {
  const size_t old = o.string_length();
  const size_t end = offset + v.size();
  char* p = edit(o, end > old ? end : old);
  memcpy(p + offset, v.data(), v.size());
  return o.raw()->len;
}

bool StringType::add_overflows(int64_t a, int64_t b, int64_t* sum) {
  return __builtin_add_overflow(a, b, sum);
}

StringType::IncrResult StringType::incr_by(Object& o, int64_t delta, int64_t* result) {
  int64_t v;
  if (!to_int64(o, &v)) return IncrResult::kNotInteger;
  if (add_overflows(v, delta, &v)) return IncrResult::kOverflow;
  o.set_int_in_place(v);
  *result = v;
  return IncrResult::kOk;
}

}  // namespace keel
