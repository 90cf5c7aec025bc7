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
    case Encoding::kHashtableEx: return "hashtable";
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

Object* Object::alloc(std::string_view key, size_t value_room, bool expire_room) {
  const size_t key_off = expire_room ? 8 : 0;
  // Every block has room for the 8-byte value slot (see the layout in object.h).
  const size_t slot_need = slot_off(key_off, key.size()) + 8 - key_off - key.size();
  if (value_room < slot_need) value_room = slot_need;
  const size_t before_value = kHeaderSize + key_off + key.size();
  const size_t request = before_value + value_room;
  void* mem = malloc(request);
  KEEL_ASSERT(mem != nullptr);
  auto* o = new (mem) Object();
  o->type_ = static_cast<uint8_t>(Type::kString);
  o->enc_ = 0;
  o->flags_ = expire_room ? kExpireRoom : 0;
  // Room for an embedded value, so SET can rewrite a value in place without asking the
  // allocator for the block's size (malloc_usable_size was 4% of a SET).
  o->set_room(usable_size_of_new(mem, request) - before_value);
  o->lru_ = 0;
  o->key_len_ = static_cast<uint32_t>(key.size());
  o->embed_len_ = 0;
  if (!key.empty()) memcpy(o->key_ptr(), key.data(), key.size());
  o->set_int(0);
  return o;
}

void Object::set_expire_field(int64_t ms) {
  KEEL_ASSERT(flags_ & kExpireRoom);
  flags_ |= kHasExpire;
  store(data_, ms);
}

Object* Object::with_expire(Object* o, int64_t ms) {
  if (!(o->flags_ & kExpireRoom)) {
    // Same contents in a block 8 bytes longer: header, then the field, then key and value
    // area shifted by 8 (the slot keeps its alignment: both offsets grow by 8). Only the bytes
    // in use move; the old block's spare room does not.
    const size_t slot_end = slot_off(0, o->key_len_) + 8;
    const size_t embedded_end = o->key_len_ + o->embed_len_;
    const size_t used = o->embedded() && embedded_end > slot_end ? embedded_end : slot_end;
    const size_t request = kHeaderSize + 8 + used;
    void* mem = malloc(request);
    KEEL_ASSERT(mem != nullptr);
    auto* n = static_cast<Object*>(mem);
    memcpy(n, o, kHeaderSize);
    memcpy(n->data_ + 8, o->data_, used);
    n->flags_ |= kExpireRoom;
    n->set_room(usable_size_of_new(mem, request) - kHeaderSize - 8 - n->key_len_);
    free(o);
    o = n;
  }
  o->set_expire_field(ms);
  return o;
}

Object* Object::create_int(std::string_view key, int64_t v, bool expire_room) {
  Object* o = alloc(key, 0, expire_room);
  o->enc_ = static_cast<uint8_t>(Encoding::kInt);
  o->set_int(v);
  return o;
}

Object* Object::create_string(std::string_view key, std::string_view value, bool expire_room) {
  int64_t iv;
  if (string_is_canonical_int(value, &iv)) return create_int(key, iv, expire_room);
  return create_string_noint(key, value, expire_room);
}

Object* Object::create_string_noint(std::string_view key, std::string_view value, bool expire_room) {
  if (kHeaderSize + (expire_room ? 8 : 0) + key.size() + value.size() <= kMaxEmbedTotal) {
    Object* o = alloc(key, value.size(), expire_room);
    o->enc_ = static_cast<uint8_t>(string_encoding_for(value.size()));
    o->flags_ |= kEmbedded;
    o->embed_len_ = static_cast<uint32_t>(value.size());
    if (!value.empty()) memcpy(o->embedded_ptr(), value.data(), value.size());
    return o;
  }
  // Bytes on the heap, but OBJECT ENCODING still answers by value length (a long key with a
  // short value is "embstr" in Redis).
  Object* o = alloc(key, 0, expire_room);
  o->set_raw(RawString::create(value, value.size()));
  o->enc_ = static_cast<uint8_t>(string_encoding_for(value.size()));
  return o;
}

Object* Object::create_raw(std::string_view key, std::string_view value, size_t cap) {
  Object* o = alloc(key, 0, false);
  o->enc_ = static_cast<uint8_t>(Encoding::kRaw);
  o->set_raw(RawString::create(value, cap));
  return o;
}

Object* Object::create_collection(std::string_view key, Type t, Encoding e, void* ptr, bool expire_room) {
  Object* o = alloc(key, 0, expire_room);
  o->type_ = static_cast<uint8_t>(t);
  o->enc_ = static_cast<uint8_t>(e);
  o->set_ptr(ptr);
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
    RawString* r = has_heap_string() ? raw() : nullptr;
    if (r && r->cap >= value.size() && r->cap <= 2 * value.size() + 64) {
      if (!value.empty()) memcpy(r->data, value.data(), value.size());
      r->len = value.size();
      enc_ = static_cast<uint8_t>(string_encoding_for(value.size()));
      return true;
    }
    return false;
  }
  const size_t before = kHeaderSize + key_off() + key_len_;
  const size_t need = before + value.size();
  const size_t have = before + embed_cap_;
  if (need > have || have > 2 * need + 32) return false;
  memcpy(embedded_ptr(), value.data(), value.size());
  embed_len_ = static_cast<uint32_t>(value.size());
  enc_ = static_cast<uint8_t>(string_encoding_for(value.size()));
  return true;
}

void Object::set_int_in_place(int64_t v) {
  if (has_heap_string()) free(raw());
  // An embedded block keeps its room (alloc made it big enough for the slot); the flag goes so
  // the value reads as the int.
  flags_ &= static_cast<uint8_t>(~kEmbedded);
  embed_len_ = 0;
  enc_ = static_cast<uint8_t>(Encoding::kInt);
  set_int(v);
}

RawString* Object::make_raw_for_edit(size_t min_cap) {
  // An embedded value of 45+ bytes also reports "raw"; only a heap value has a RawString.
  if (has_heap_string()) {
    RawString* r = RawString::grow(raw(), min_cap);
    set_raw(r);
    enc_ = static_cast<uint8_t>(Encoding::kRaw);  // an edited value is "raw" whatever its length
    return r;
  }
  char scratch[24];
  std::string_view cur = string_view(scratch);
  // Copied out before the slot (which overlaps embedded bytes) is written.
  RawString* r = RawString::create(cur, min_cap > cur.size() ? min_cap : cur.size());
  flags_ &= static_cast<uint8_t>(~kEmbedded);
  embed_len_ = 0;
  enc_ = static_cast<uint8_t>(Encoding::kRaw);
  set_raw(r);
  return r;
}

std::string_view Object::string_view(char* scratch) const {
  if (flags_ & kEmbedded) return {embedded_ptr(), embed_len_};
  if (enc_ == static_cast<uint8_t>(Encoding::kInt)) return {scratch, format_int64(int_value(), scratch)};
  return raw()->view();
}

size_t Object::string_length() const {
  if (flags_ & kEmbedded) return embed_len_;
  if (enc_ == static_cast<uint8_t>(Encoding::kInt)) {
    const int64_t v = int_value();
    return v < 0 ? 1 + digits10(static_cast<uint64_t>(-(v + 1)) + 1) : digits10(static_cast<uint64_t>(v));
  }
  return raw()->len;
}

void Object::free_value() {
  if (type() == Type::kString) {
    if (has_heap_string()) free(raw());
    return;
  }
  const CollectionOps* ops = g_ops[type_];
  KEEL_ASSERT(ops != nullptr);
  ops->free_value(encoding(), ptr());
}

void Object::destroy(Object* o) {
  if (!o) return;
  o->free_value();
  free(o);
}

Object* Object::clone_with_key(const Object* o, std::string_view key, bool deep) {
  Object* n;
  const bool expire_room = o->has_expire();
  if (o->type() == Type::kString) {
    char scratch[24];
    if (o->is_int()) {
      n = create_int(key, o->int_value(), expire_room);
    } else if (o->embedded()) {
      n = alloc(key, o->embed_len_, expire_room);
      n->flags_ |= kEmbedded;
      n->embed_len_ = o->embed_len_;
      memcpy(n->embedded_ptr(), o->embedded_ptr(), o->embed_len_);
    } else {
      std::string_view v = o->string_view(scratch);
      n = alloc(key, 0, expire_room);
      n->set_raw(RawString::create(v, v.size()));
    }
    n->enc_ = o->enc_;
  } else {
    const CollectionOps* ops = g_ops[o->type_];
    KEEL_ASSERT(ops != nullptr);
    void* p = deep ? ops->copy_value(o->encoding(), o->ptr()) : o->ptr();
    n = create_collection(key, o->type(), o->encoding(), p, expire_room);
  }
  n->lru_ = o->lru_;
  if (o->has_expire()) n->set_expire_field(o->expire_ms());
  return n;
}

Object* Object::rekey(Object* o, std::string_view key) {
  Object* n = clone_with_key(o, key, false);
  // The value moved into n (collections by pointer, strings by copy); free only o's block and,
  // for strings, o's own heap copy.
  if (o->has_heap_string()) free(o->raw());
  free(o);
  return n;
}

int64_t object_length(const Object* o) {
  if (o->type() == Type::kString) return static_cast<int64_t>(o->string_length());
  const CollectionOps* ops = g_ops[static_cast<int>(o->type())];
  return ops ? ops->length(o->encoding(), o->ptr()) : 0;
}

size_t object_memory_usage(const Object* o, size_t samples) {
  size_t n = allocation_size(o);
  if (o->type() == Type::kString) {
    if (o->has_heap_string()) n += allocation_size(o->raw());
    return n;
  }
  const CollectionOps* ops = g_ops[static_cast<int>(o->type())];
  if (ops && ops->memory_usage) n += ops->memory_usage(o->encoding(), o->ptr(), samples);
  return n;
}

}  // namespace keel
