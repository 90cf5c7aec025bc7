// Object allocation, string encodings and the per-type hooks collections register.
#include "types/object.h"

#include <malloc.h>

#include <cstdlib>

#include "base/assert.h"
#include "base/memory.h"
#include "base/numbers.h"

namespace keel {
namespace {
const CollectionOps* g_ops[8] = {};
constexpr size_t kEmbstrMax = 44;  // Redis: embstr up to 44 bytes (one 64-byte allocation)

Encoding string_encoding_for(size_t len) { return len <= kEmbstrMax ? Encoding::kEmbstr : Encoding::kRaw; }
}  // namespace

void register_collection_ops(Type t, const CollectionOps* ops) { g_ops[static_cast<int>(t)] = ops; }

const char* type_name(Type t) {
  switch (t) {
    case Type::kString: return "string";
    case Type::kList: return "list";
    case Type::kSet: return "set";
    case Type::kZset: return "zset";
    case Type::kHash: return "hash";
    case Type::kStream: return "stream";
  }
  return "none";
}

const char* encoding_name(Encoding e) {
  switch (e) {
    case Encoding::kRaw: return "raw";
    case Encoding::kInt: return "int";
    case Encoding::kHashtable: return "hashtable";
    case Encoding::kQuicklist: return "quicklist";
    case Encoding::kListpack: return "listpack";
    case Encoding::kIntset: return "intset";
    case Encoding::kSkiplist: return "skiplist";
    case Encoding::kEmbstr: return "embstr";
    case Encoding::kListpackEx: return "listpackex";
    case Encoding::kStream: return "stream";
  }
  return "unknown";
}

bool string_is_canonical_int(std::string_view s, int64_t* out) {
  return s.size() <= 20 && parse_int64(s, out);
}

RawString* RawString::create(std::string_view s, size_t cap) {
  if (cap < s.size()) cap = s.size();
  auto* r = static_cast<RawString*>(malloc(sizeof(RawString) + cap));
  KEEL_ASSERT(r != nullptr);
  r->cap = usable_size_of_new(r, sizeof(RawString) + cap) - sizeof(RawString);
  r->len = s.size();
  if (!s.empty()) memcpy(r->data, s.data(), s.size());
  return r;
}

RawString* RawString::grow(RawString* r, size_t min_cap) {
  if (r->cap >= min_cap) return r;
  // Grow geometrically below 1 MB, then by 1 MB steps (APPEND loops stay linear).
  size_t cap = min_cap < (1u << 20) ? min_cap * 2 : min_cap + (1u << 20);
  auto* n = static_cast<RawString*>(realloc(r, sizeof(RawString) + cap));
  KEEL_ASSERT(n != nullptr);
  n->cap = malloc_usable_size(n) - sizeof(RawString);
  return n;
}

Object* Object::alloc(std::string_view key, size_t extra) {
  const size_t request = kHeaderSize + key.size() + extra;
  void* mem = malloc(request);
  KEEL_ASSERT(mem != nullptr);
  auto* o = new (mem) Object();
  o->type_ = static_cast<uint8_t>(Type::kString);
  o->enc_ = 0;
  o->flags_ = 0;
  // Room for an embedded value, so SET can rewrite a value in place without asking the
  // allocator for the block's size (malloc_usable_size was 4% of a SET). Embedded blocks are
  // at most kMaxEmbedTotal bytes, so the true room fits; a larger one is understated, which
  // only means fewer in-place rewrites.
  const size_t room = usable_size_of_new(mem, request) - kHeaderSize - key.size();
  o->embed_cap_ = static_cast<uint8_t>(room < 255 ? room : 255);
  o->lru_ = 0;
  o->key_len_ = static_cast<uint32_t>(key.size());
  o->embed_len_ = 0;
  o->v_.ptr = nullptr;
  o->expire_ms_ = 0;
  if (!key.empty()) memcpy(o->data_, key.data(), key.size());
  return o;
}

Object* Object::create_int(std::string_view key, int64_t v) {
  Object* o = alloc(key, 0);
  o->enc_ = static_cast<uint8_t>(Encoding::kInt);
  o->v_.ival = v;
  return o;
}

Object* Object::create_string(std::string_view key, std::string_view value) {
  int64_t iv;
  if (string_is_canonical_int(value, &iv)) return create_int(key, iv);
  return create_string_noint(key, value);
}

Object* Object::create_string_noint(std::string_view key, std::string_view value) {
  if (kHeaderSize + key.size() + value.size() <= kMaxEmbedTotal) {
    Object* o = alloc(key, value.size());
    o->enc_ = static_cast<uint8_t>(string_encoding_for(value.size()));
    o->flags_ = kEmbedded;
    o->embed_len_ = static_cast<uint32_t>(value.size());
    if (!value.empty()) memcpy(o->data_ + o->key_len_, value.data(), value.size());
    return o;
  }
  // Bytes on the heap, but OBJECT ENCODING still answers by value length (a long key with a
  // short value is "embstr" in Redis).
  Object* o = create_raw(key, value, value.size());
  o->enc_ = static_cast<uint8_t>(string_encoding_for(value.size()));
  return o;
}

Object* Object::create_raw(std::string_view key, std::string_view value, size_t cap) {
  Object* o = alloc(key, 0);
  o->enc_ = static_cast<uint8_t>(Encoding::kRaw);
  o->v_.raw = RawString::create(value, cap);
  return o;
}

Object* Object::create_collection(std::string_view key, Type t, Encoding e, void* ptr) {
  Object* o = alloc(key, 0);
  o->type_ = static_cast<uint8_t>(t);
  o->enc_ = static_cast<uint8_t>(e);
  o->v_.ptr = ptr;
  return o;
}

bool Object::assign_string_in_place(std::string_view value) {
  if (type() != Type::kString) return false;
  int64_t iv;
  if (string_is_canonical_int(value, &iv)) {
    set_int_in_place(iv);
    return true;
  }
  if (!(flags_ & kEmbedded)) {
    // A heap string is reused when it has room; SET then reports embstr/raw by length.
    // Only when the buffer is not much larger than needed, so a shrunk value frees memory.
    if (has_heap_string() && v_.raw->cap >= value.size() && v_.raw->cap <= 2 * value.size() + 64) {
      if (!value.empty()) memcpy(v_.raw->data, value.data(), value.size());
      v_.raw->len = value.size();
      enc_ = static_cast<uint8_t>(string_encoding_for(value.size()));
      return true;
    }
    return false;
  }
  const size_t need = kHeaderSize + key_len_ + value.size();
  const size_t have = kHeaderSize + key_len_ + embed_cap_;
  if (need > have || have > 2 * need + 32) return false;
  memcpy(data_ + key_len_, value.data(), value.size());
  embed_len_ = static_cast<uint32_t>(value.size());
  enc_ = static_cast<uint8_t>(string_encoding_for(value.size()));
  return true;
}

void Object::set_int_in_place(int64_t v) {
  if (has_heap_string()) free(v_.raw);
  // An embedded block keeps its bytes unused; the flag goes so the value reads as the int.
  flags_ &= static_cast<uint8_t>(~kEmbedded);
  embed_len_ = 0;
  enc_ = static_cast<uint8_t>(Encoding::kInt);
  v_.ival = v;
}

RawString* Object::make_raw_for_edit(size_t min_cap) {
  // An embedded value of 45+ bytes also reports "raw"; only a heap value has a RawString.
  if (has_heap_string()) {
    v_.raw = RawString::grow(v_.raw, min_cap);
    enc_ = static_cast<uint8_t>(Encoding::kRaw);  // an edited value is "raw" whatever its length
    return v_.raw;
  }
  char scratch[24];
  std::string_view cur = string_view(scratch);
  RawString* r = RawString::create(cur, min_cap > cur.size() ? min_cap : cur.size());
  flags_ &= static_cast<uint8_t>(~kEmbedded);
  embed_len_ = 0;
  enc_ = static_cast<uint8_t>(Encoding::kRaw);
  v_.raw = r;
  return r;
}

std::string_view Object::string_view(char* scratch) const {
  if (flags_ & kEmbedded) return {data_ + key_len_, embed_len_};
  if (enc_ == static_cast<uint8_t>(Encoding::kInt)) return {scratch, format_int64(v_.ival, scratch)};
  return v_.raw->view();
}

size_t Object::string_length() const {
  if (flags_ & kEmbedded) return embed_len_;
  if (enc_ == static_cast<uint8_t>(Encoding::kInt)) {
    return v_.ival < 0 ? 1 + digits10(static_cast<uint64_t>(-(v_.ival + 1)) + 1)
                       : digits10(static_cast<uint64_t>(v_.ival));
  }
  return v_.raw->len;
}

void Object::free_value() {
  if (type() == Type::kString) {
    if (has_heap_string()) free(v_.raw);
    return;
  }
  const CollectionOps* ops = g_ops[type_];
  KEEL_ASSERT(ops != nullptr);
  ops->free_value(encoding(), v_.ptr);
}

void Object::destroy(Object* o) {
  if (!o) return;
  o->free_value();
  free(o);
}

Object* Object::clone_with_key(const Object* o, std::string_view key, bool deep) {
  Object* n;
  if (o->type() == Type::kString) {
    char scratch[24];
    if (o->is_int()) {
      n = create_int(key, o->v_.ival);
    } else if (o->embedded()) {
      n = alloc(key, o->embed_len_);
      n->flags_ = kEmbedded;
      n->embed_len_ = o->embed_len_;
      memcpy(n->data_ + n->key_len_, o->data_ + o->key_len_, o->embed_len_);
    } else {
      std::string_view v = o->string_view(scratch);
      n = alloc(key, 0);
      n->v_.raw = RawString::create(v, v.size());
    }
    n->enc_ = o->enc_;
  } else {
    const CollectionOps* ops = g_ops[o->type_];
    KEEL_ASSERT(ops != nullptr);
    void* p = deep ? ops->copy_value(o->encoding(), o->v_.ptr) : o->v_.ptr;
    n = create_collection(key, o->type(), o->encoding(), p);
  }
  n->lru_ = o->lru_;
  if (o->has_expire()) n->set_expire_field(o->expire_ms_);
  return n;
}

Object* Object::rekey(Object* o, std::string_view key) {
  Object* n = clone_with_key(o, key, false);
  // The value moved into n (collections by pointer, strings by copy); free only o's block and,
  // for strings, o's own heap copy.
  if (o->has_heap_string()) free(o->v_.raw);
  free(o);
  return n;
}

int64_t object_length(const Object* o) {
  if (o->type() == Type::kString) return static_cast<int64_t>(o->string_length());
  const CollectionOps* ops = g_ops[static_cast<int>(o->type())];
  return ops ? ops->length(o->encoding(), o->ptr()) : 0;
}

}  // namespace keel
