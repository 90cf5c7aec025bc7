// Object: one key of the keyspace and its value in a single allocation (the key's entry in the
// Db's hash table points here). Layout:
//
//   +------+-----+-------+-----+---------+---------+-----------+---------------+-------------+
//   | type | enc | flags | ecap| lru u32 | key_len | embed_len | value (8 B)   | expire_ms   |
//   +------+-----+-------+-----+---------+---------+-----------+---------------+-------------+
//   | key bytes ... | embedded value bytes ... (strings up to kMaxEmbedTotal in all)          |
//
// `value` is the int64 of an int-encoded string, a RawString* for a heap string, or the pointer
// to a collection's structure. `enc` is the encoding Redis would report for OBJECT ENCODING;
// where the bytes live (embedded or heap) is the separate kEmbedded flag, so Keel may embed
// more than Redis's 44-byte embstr while answering exactly what Redis answers.
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
  static constexpr size_t kHeaderSize = 32;
  static constexpr size_t kMaxEmbedTotal = 256;  // header + key + value embedded in one block

  Type type() const { return static_cast<Type>(type_); }
  Encoding encoding() const { return static_cast<Encoding>(enc_); }
  void set_encoding(Encoding e) { enc_ = static_cast<uint8_t>(e); }
  std::string_view key() const { return {data_, key_len_}; }

  bool has_expire() const { return flags_ & kHasExpire; }
  int64_t expire_ms() const { return expire_ms_; }
  void set_expire_field(int64_t ms) {
    flags_ |= kHasExpire;
    expire_ms_ = ms;
  }
  void clear_expire_field() {
    flags_ &= static_cast<uint8_t>(~kHasExpire);
    expire_ms_ = 0;
  }

  uint32_t lru() const { return lru_; }
  void set_lru(uint32_t v) { lru_ = v; }

  // --- string values -------------------------------------------------------------------------
  bool is_int() const { return enc_ == static_cast<uint8_t>(Encoding::kInt); }
  int64_t int_value() const { return v_.ival; }
  // The string's bytes; an int-encoded value is formatted into `scratch` (>= 21 bytes).
  std::string_view string_view(char* scratch) const;
  size_t string_length() const;  // STRLEN
  bool embedded() const { return flags_ & kEmbedded; }
  // True when the value bytes live in a separate RawString (whatever encoding is reported).
  bool has_heap_string() const {
    return type_ == 0 && !(flags_ & kEmbedded) && enc_ != static_cast<uint8_t>(Encoding::kInt);
  }
  RawString* raw() const { return v_.raw; }

  // --- collection values ---------------------------------------------------------------------
  void* ptr() const { return v_.ptr; }
  void set_ptr(void* p) { v_.ptr = p; }
  void*& ptr_ref() { return v_.ptr; }  // the pointer's storage (ListpackEdit writes it back)

  // Creates a string object (int / embstr / raw as Redis would encode a SET value).
  static Object* create_string(std::string_view key, std::string_view value);
  static Object* create_int(std::string_view key, int64_t v);
  // As create_string but never int-encoded (INCRBYFLOAT's result: embstr/raw by length).
  static Object* create_string_noint(std::string_view key, std::string_view value);
  // Creates a heap ("raw") string with capacity for in-place edits.
  static Object* create_raw(std::string_view key, std::string_view value, size_t cap);
  // Creates a collection object; `ptr` is owned by the object from now on.
  static Object* create_collection(std::string_view key, Type t, Encoding e, void* ptr);
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
  static Object* alloc(std::string_view key, size_t extra);
  void free_value();

  uint8_t type_;
  uint8_t enc_;
  uint8_t flags_;
  uint8_t embed_cap_;  // bytes the block has for an embedded value (capped at 255; see alloc)
  uint32_t lru_;
  uint32_t key_len_;
  uint32_t embed_len_;
  union {
    int64_t ival;
    RawString* raw;
    void* ptr;
  } v_;
  int64_t expire_ms_;
  char data_[];
};
static_assert(sizeof(Object) == Object::kHeaderSize);

// Length that INFO KEYSIZES counts: bytes for strings, items for collections.
int64_t object_length(const Object* o);

// Registered by each collection type so Object::destroy/clone can handle values it does not know.
struct CollectionOps {
  void (*free_value)(Encoding e, void* ptr);
  void* (*copy_value)(Encoding e, const void* ptr);
  int64_t (*length)(Encoding e, const void* ptr);
};
void register_collection_ops(Type t, const CollectionOps* ops);

// Redis's rule for int encoding: at most 20 chars and a canonical int64.
bool string_is_canonical_int(std::string_view s, int64_t* out);

}  // namespace keel
