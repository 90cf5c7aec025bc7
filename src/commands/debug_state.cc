// DEBUG's shared state and Redis's dataset digest.
//
// The digest (facts from Redis's documentation of DEBUG DIGEST and its debug.c behaviour):
// with SHA1 as H, two operations on a 20-byte digest d:
//   xor(d, bytes): d ^= H(bytes)
//   mix(d, bytes): d = H(d ^ H(bytes))   (xor, then hash the 20 bytes)
// A value's digest starts at zero, mixes its type code as a 4-byte big-endian integer, then:
//   string  mix the bytes (an integer as its decimal text)
//   list    mix every element, head to tail
//   set     xor every member (order-free)
//   zset    per member: e = 0, mix(e, member), mix(e, score as fpconv_dtoa prints it), xor(d, e)
//   hash    per field: e = 0, mix(e, field), mix(e, value), xor(d, e)
//   stream  per live entry, in ID order: mix "ms.seq", then mix each field and value
// and finally xor(d, "!!expire!!") when the key has a TTL. The dataset digest starts at zero;
// for every non-empty database it mixes the db number (4 bytes, big-endian), then for each key
// k: e = 0, mix(e, key), apply the value steps to e, xor(final, e).
#include "commands/debug_state.h"

#include <openssl/evp.h>

#include <cstring>
#include <string_view>

#include "base/numbers.h"
#include "base/util_random.h"
#include "keyspace/keyspace.h"
#include "types/hash_type.h"
#include "types/list_type.h"
#include "types/set_type.h"
#include "types/zset_type.h"
#include "types/stream_type.h"

namespace keel {

DebugOptions& debug_options() {
  static DebugOptions o;
  return o;
}

namespace {

std::string random_hex40() {
  static const char* kHex = "0123456789abcdef";
  std::string s(40, '0');
  for (char& c : s) c = kHex[random_u64() & 15];
  return s;
}

std::string& replid_storage() {
  static std::string id = random_hex40();
  return id;
}

using Digest = unsigned char[20];

void sha1(const void* p, size_t n, unsigned char out[20]) {
  unsigned int len = 0;
  EVP_Digest(p, n, out, &len, EVP_sha1(), nullptr);
}

void digest_xor(Digest d, std::string_view bytes) {
  unsigned char h[20];
  sha1(bytes.data(), bytes.size(), h);
  for (int i = 0; i < 20; i++) d[i] ^= h[i];
}

void digest_mix(Digest d, std::string_view bytes) {
  digest_xor(d, bytes);
  unsigned char h[20];
  sha1(d, 20, h);
  std::memcpy(d, h, 20);
}

std::string_view be32(uint32_t v, char* buf) {
  buf[0] = static_cast<char>(v >> 24);
  buf[1] = static_cast<char>(v >> 16);
  buf[2] = static_cast<char>(v >> 8);
  buf[3] = static_cast<char>(v);
  return {buf, 4};
}

// Applies the value steps of `o` to d (which the caller zeroed, or seeded with the key).
void digest_object(Digest d, const Object& o) {
  char b4[4];
  digest_mix(d, be32(static_cast<uint32_t>(o.type()), b4));
  char scratch[kLpIntBufSize > 24 ? kLpIntBufSize : 24];
  switch (o.type()) {
    case Type::kString:
      digest_mix(d, o.string_view(scratch));
      break;
    case Type::kList: {
      const size_t n = ListType::size(o);
      struct Ctx {
        unsigned char* d;
      } ctx{d};
      ListType::range(o, 0, n,
                      [](void* c, const LpEntry& e) {
                        char buf[kLpIntBufSize];
                        digest_mix(static_cast<Ctx*>(c)->d, e.str(buf));
                      },
                      &ctx);
      break;
    }
    case Type::kSet:
      SetType::for_each(o, [&](const SetElem& e) {
        char buf[kInt64BufSize];
        digest_xor(d, e.text(buf));
        return true;
      });
      break;
    case Type::kZset:
      ZsetType::for_each(o, [&](std::string_view member, double score) {
        unsigned char e[20] = {};
        digest_mix(e, member);
        char sbuf[kDoubleBufSize];
        digest_mix(e, std::string_view(sbuf, format_double_fpconv(score, sbuf)));
        digest_xor(d, std::string_view(reinterpret_cast<const char*>(e), 20));
      });
      break;
    case Type::kHash:
      // A field with a TTL adds a marker (its presence, not its time), as Redis 7.4 does.
      HashType::for_each_with_ttl(o, [&](std::string_view field, std::string_view value, int64_t ttl) {
        unsigned char e[20] = {};
        digest_mix(e, field);
        digest_mix(e, value);
        if (ttl != 0) digest_xor(e, "!!hexpire!!");
        digest_xor(d, std::string_view(reinterpret_cast<const char*>(e), 20));
      });
      break;
    case Type::kStream: {
      StreamIterator it(const_cast<Stream&>(StreamType::get(o)), StreamID{}, StreamID::max(), false);
      StreamID id;
      int64_t nf;
      while (it.next(&id, &nf)) {
        char ib[48];
        digest_mix(d, std::string_view(ib, static_cast<size_t>(snprintf(ib, sizeof(ib), "%llu.%llu",
                                                                          static_cast<unsigned long long>(id.ms),
                                                                          static_cast<unsigned long long>(id.seq)))));
        it.for_each_field([&](const LpEntry& f, const LpEntry& v) {
          char fb[kLpIntBufSize], vb[kLpIntBufSize];
          digest_mix(d, f.str(fb));
          digest_mix(d, v.str(vb));
        });
      }
      break;
    }
    default:
      break;
  }
  if (o.has_expire()) digest_xor(d, "!!expire!!");
}

std::string hex(const Digest d) {
  static const char* kHex = "0123456789abcdef";
  std::string s(40, '0');
  for (int i = 0; i < 20; i++) {
    s[size_t(2 * i)] = kHex[d[i] >> 4];
    s[size_t(2 * i + 1)] = kHex[d[i] & 15];
  }
  return s;
}

}  // namespace

const std::string& master_replid() { return replid_storage(); }
void change_master_replid() { replid_storage() = random_hex40(); }
void set_master_replid(const std::string& id) { replid_storage() = id; }

std::string digest_value_hex(const Object* o) {
  Digest d = {};
  if (o != nullptr) digest_object(d, *o);
  return hex(d);
}

std::string digest_dataset_hex() {
  Digest final = {};
  for (int i = 0; i < keyspace().count(); i++) {
    const Db& db = keyspace().db(i);
    if (db.size() == 0) continue;
    char b4[4];
    digest_mix(final, be32(static_cast<uint32_t>(i), b4));
    db.for_each([&](const Object* o) {
      Digest e = {};
      digest_mix(e, o->key());
      digest_object(e, *o);
      digest_xor(final, std::string_view(reinterpret_cast<const char*>(e), 20));
    });
  }
  return hex(final);
}

}  // namespace keel
