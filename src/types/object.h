// Object: one key of the keyspace and its value in a single allocation (the key's entry in the
// Db's hash table points here). Layout:
//
//   +------+-----+-------+------+---------+---------+-----------+
//   | type | enc | flags | ecap | lru u32 | key_len | embed_len |   16-byte header
//   +------+-----+-------+------+---------+---------+-----------+
//   | [expire_ms, 8 B: only with kExpireRoom] | key bytes | value area ...
//
// The value area is either the embedded value bytes, right after the key (a string whose
// header + key + value fit kMaxEmbedTotal), or an 8-byte slot at the next 8-aligned offset
// holding the int64 of an int-encoded string, a RawString* for a heap string, or the pointer to
// a collection's structure. Every block has room for that slot, so an embedded string can turn
// into an int or a heap string in place (INCR, APPEND).
//
// Why this shape: a key without a TTL pays nothing for expiry, and an embedded string pays
// nothing for the pointer slot it does not use, so a 10-byte key with a 100-byte value is
// 126 bytes (jemalloc's 128 class) instead of 142 (the 160 class) with a fixed 32-byte header.
// The price is that giving a key its first TTL may move the object to a bigger block
// (Object::with_expire); Db::set_expire updates the table. PERSIST keeps the room.
//
// `enc` is the encoding Redis would report for OBJECT ENCODING; where the bytes live (embedded
// or heap) is the separate kEmbedded flag, so Keel may embed more than Redis's 44-byte embstr
// while answering exactly what Redis answers.
// Nothing here knows about databases or commands; Db (keyspace/) owns Objects.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace keel {

enum class Type : uint8_t { kString = 0, kList = 1, kSet = 2, kZset = 3, kHash = 4, kStream = 6 };
enum class Encoding : uint8_t {
  kRaw = 0,
  kInt = 1,
  kHashtable = 2,
  kQuicklist = 9,
  kListpack = 11,
  kIntset = 6,
  kSkiplist = 7,
  kEmbstr = 8,
  kListpackEx = 12,
  kStream = 10,
  // Keel's own: a hashtable hash with per-field TTL metadata (HashDictEx). OBJECT ENCODING
  // answers "hashtable", as Redis does for its dict with HFE metadata.
  kHashtableEx = 13,
};

const char* type_name(Type t);          // "string", "list", ...
const char* encoding_name(Encoding e);  // "int", "embstr", "raw", "listpack", ...

// A heap string value with spare capacity for APPEND/SETRANGE/SETBIT growth.
struct RawString {
  size_t len;
  size_t cap;
  char data[];
  std::string_view view() const { return {data, len}; }
  static RawString* create(std::string_view s, size_t cap);
  static RawString* grow(RawString* r, size_t min_cap);  // may move; contents kept
};

class Object {
 public:
  static constexpr uint8_t kHasExpire = 1;
  static constexpr uint8_t kEmbedded = 2;
  static constexpr uint8_t kExpireRoom = 8;  // the block has the expire field (the key is 8 B in)
  static constexpr size_t kHeaderSize = 16;
  static constexpr size_t kMaxEmbedTotal = 256;  // header + key + value embedded in one block
  // Bytes from the block's start that a lookup usually reads (header, a short key, the start of
  // the value): what the keyspace prefetches, at most two cache lines.
  static constexpr size_t kPrefetchSpan = 48;

  Type type() const { return static_cast<Type>(type_); }
  Encoding encoding() const { return static_cast<Encoding>(enc_); }
  void set_encoding(Encoding e) { enc_ = static_cast<uint8_t>(e); }
  std::string_view key() const { return {key_ptr(), key_len_}; }

  bool has_expire() const { return flags_ & kHasExpire; }
  int64_t expire_ms() const { return has_expire() ? load<int64_t>(data_) : 0; }
  bool has_expire_room() const { return flags_ & kExpireRoom; }
  // Sets the TTL field; the block must have the room (see with_expire).
  void set_expire_field(int64_t ms);
  void clear_expire_field() { flags_ &= static_cast<uint8_t>(~kHasExpire); }
  // o with its expire field set to ms: o itself when it has the room, else a copy in a bigger
  // block (o is freed). Only for an object no table points to, or through Db::set_expire.
  static Object* with_expire(Object* o, int64_t ms);

  uint32_t lru() const { return lru_; }
  void set_lru(uint32_t v) { lru_ = v; }

  // --- string values -------------------------------------------------------------------------
  bool is_int() const { return enc_ == static_cast<uint8_t>(Encoding::kInt); }
  int64_t int_value() const { return load<int64_t>(slot()); }
  // The string's bytes; an int-encoded value is formatted into `scratch` (>= 21 bytes).
  std::string_view string_view(char* scratch) const;
  size_t string_length() const;  // STRLEN
  bool embedded() const { return flags_ & kEmbedded; }
  // True when the value bytes live in a separate RawString (whatever encoding is reported).
  bool has_heap_string() const {
    return type_ == 0 && !(flags_ & kEmbedded) && enc_ != static_cast<uint8_t>(Encoding::kInt);
  }
  RawString* raw() const { return load<RawString*>(slot()); }

  // --- collection values ---------------------------------------------------------------------
  void* ptr() const { return load<void*>(slot()); }
  void set_ptr(void* p) { store(slot(), p); }
  // The pointer's storage (ListpackEdit writes it back); 8-aligned.
  void*& ptr_ref() { return *reinterpret_cast<void**>(slot()); }

  // Creates a string object (int / embstr / raw as Redis would encode a SET value). With
  // expire_room the block has the expire field (for a TTL set right after).
  static Object* create_string(std::string_view key, std::string_view value, bool expire_room = false);
  static Object* create_int(std::string_view key, int64_t v, bool expire_room = false);
  // As create_string but never int-encoded (INCRBYFLOAT's result: embstr/raw by length).
  static Object* create_string_noint(std::string_view key, std::string_view value, bool expire_room = false);
  // Creates a heap ("raw") string with capacity for in-place edits.
  static Object* create_raw(std::string_view key, std::string_view value, size_t cap);
  // Creates a collection object; `ptr` is owned by the object from now on.
  static Object* create_collection(std::string_view key, Type t, Encoding e, void* ptr, bool expire_room = false);
  // A copy of `o` under another key (COPY, RENAME, MOVE), with deep-copied value for COPY.
  static Object* clone_with_key(const Object* o, std::string_view key, bool deep);
  // Re-keys `o` into a new block; `o` is freed (its value moves, not copied).
  static Object* rekey(Object* o, std::string_view key);
  static void destroy(Object* o);

  // Rewrites the value of a string object in place when the new value fits the block it already
  // has (same encoding rules as create_string). Returns false when a new object is needed.
  bool assign_string_in_place(std::string_view value);
  // Turns an int/embedded value into a heap RawString that can grow to at least `min_cap`.
  RawString* make_raw_for_edit(size_t min_cap);
  void set_int_in_place(int64_t v);  // value becomes int-encoded (frees a heap string)


 private:
  Object() = default;
  // A block for key with `value_room` bytes after it (at least the 8-byte slot's worth).
  static Object* alloc(std::string_view key, size_t value_room, bool expire_room);
  void free_value();

  template <class T>
  static T load(const char* p) {
    T v;
    memcpy(&v, p, sizeof v);
    return v;
  }
  template <class T>
  static void store(char* p, T v) {
    memcpy(p, &v, sizeof v);
  }
  size_t key_off() const { return flags_ & kExpireRoom; }  // 0 or 8
  const char* key_ptr() const { return data_ + key_off(); }
  char* key_ptr() { return data_ + key_off(); }
  // Embedded value bytes: right after the key.
  const char* embedded_ptr() const { return key_ptr() + key_len_; }
  char* embedded_ptr() { return key_ptr() + key_len_; }
  // The 8-byte value slot: the first 8-aligned offset after the key (data_ is 8-aligned).
  static size_t slot_off(size_t key_off, size_t key_len) { return (key_off + key_len + 7) & ~size_t(7); }
  const char* slot() const { return data_ + slot_off(key_off(), key_len_); }
  char* slot() { return data_ + slot_off(key_off(), key_len_); }
  void set_int(int64_t v) { store(slot(), v); }
  // Records the bytes the block has after the key. Embedded blocks are at most kMaxEmbedTotal
  // bytes, so their room is exact; a larger one is understated (fewer in-place rewrites).
  void set_room(size_t room) { embed_cap_ = static_cast<uint8_t>(room < 255 ? room : 255); }
  void set_raw(RawString* r) { store(slot(), r); }

  uint8_t type_;
  uint8_t enc_;
  uint8_t flags_;
  uint8_t embed_cap_;  // bytes the block has after the key (capped at 255; see alloc)
  uint32_t lru_;
  uint32_t key_len_;
  uint32_t embed_len_;
  alignas(8) char data_[];
};
static_assert(sizeof(Object) == Object::kHeaderSize);

// Length that INFO KEYSIZES counts: bytes for strings, items for collections.
int64_t object_length(const Object* o);

// MEMORY USAGE: the allocator's size for the Object block (key, header, embedded value) plus
// the value's own allocations (a heap string, a collection's structures, estimated from up to
// `samples` members of big encodings; 0 = all). Not the key table's slot.
size_t object_memory_usage(const Object* o, size_t samples);

// Registered by each collection type so Object::destroy/clone can handle values it does not know.
struct CollectionOps {
  void (*free_value)(Encoding e, void* ptr);
  void* (*copy_value)(Encoding e, const void* ptr);
  int64_t (*length)(Encoding e, const void* ptr);
  // MEMORY USAGE: estimated bytes of the value's structures (not the Object block), looking at
  // up to `samples` members of big encodings (0 = all of them).
  size_t (*memory_usage)(Encoding e, const void* ptr, size_t samples) = nullptr;
};
void register_collection_ops(Type t, const CollectionOps* ops);

// Redis's rule for int encoding: at most 20 chars and a canonical int64.
bool string_is_canonical_int(std::string_view s, int64_t* out);

}  // namespace keel
