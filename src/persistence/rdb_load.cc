// The RDB loader (see rdb_load.h and README.md "Loading"). Reading is done by RdbIn, which
// throws RdbError; everything built on the way is held by an owner (ObjectPtr, Listpack,
// MallocPtr, unique_ptr<Quicklist>) so an error at any byte frees it all. The exception never
// leaves this file.
#include "persistence/rdb_load.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

#include "base/hash.h"
#include "base/log.h"
#include "base/numbers.h"
#include "base/time.h"
#include "ds/intset.h"
#include "ds/listpack.h"
#include "ds/quicklist.h"
#include "ds/ziplist.h"
#include "keyspace/keyspace.h"
#include "persistence/crc64.h"
#include "persistence/persistence.h"
#include "persistence/rdb_format.h"
#include "persistence/rdb_io.h"
#include "persistence/rdb_stream.h"
#include "types/hash_type.h"
#include "types/limits.h"
#include "types/list_type.h"
#include "types/set_type.h"
#include "types/zset_type.h"

namespace keel {

const char* rdb_type_name(int type) {
  switch (type) {
    case kRdbString: return "string";
    case kRdbList: case kRdbListZiplist: case kRdbListQuicklist: case kRdbListQuicklist2:
      return "list";
    case kRdbSet: case kRdbSetIntset: case kRdbSetListpack: return "set";
    case kRdbZset: case kRdbZset2: case kRdbZsetZiplist: case kRdbZsetListpack: return "zset";
    case kRdbHash: case kRdbHashZipmap: case kRdbHashZiplist: case kRdbHashListpack: return "hash";
    case kRdbModulePreGa: case kRdbModule2: return "module";
    case kRdbStreamListpacks: case kRdbStreamListpacks2: case kRdbStreamListpacks3: return "stream";
    case kRdbHashMetadataPreGa: case kRdbHashListpackExPreGa: case kRdbHashMetadata:
    case kRdbHashListpackEx:
      return "hash with field TTLs";
    default: return "unknown";
  }
}

namespace {

struct ObjectDeleter {
  void operator()(Object* o) const { Object::destroy(o); }
};
using ObjectPtr = std::unique_ptr<Object, ObjectDeleter>;

int clamp_int(int64_t v) {
  if (v > INT_MAX) return INT_MAX;
  if (v < INT_MIN) return INT_MIN;
  return static_cast<int>(v);
}

size_t limit_of(int64_t v) { return v < 0 ? 0 : static_cast<size_t>(v); }

// Text of a listpack entry: integers are formatted into `buf`.
std::string_view entry_text(const LpEntry& e, char* buf) { return e.str(buf); }

// Scratch for duplicate checks: the texts of the entries compared (integers formatted into
// `digits`, reserved up front so the views stay valid) and their hashes.
struct DupScratch {
  std::vector<std::string_view> views;
  std::vector<char> digits;
  std::vector<std::pair<uint64_t, uint32_t>> hashed;  // (hash, index into views)
};

// True when no two of the entries at positions first, first + step, ... of `lp` are equal as
// text (a hash's fields, a zset's members, a set's members). A repeat would break the big
// encodings' tables when the value converts, so it is refused whatever sanitize-dump-payload
// says. Texts are compared only when their (seeded) hashes are equal: small listpacks compare
// hashes pairwise, larger ones sort them. Byte-by-byte pairwise compares were a quarter of
// the time of loading 1M small hashes, sets and zsets.
bool lp_unique(const Listpack& lp, size_t step, DupScratch& s) {
  const size_t n = lp.size();
  s.views.clear();
  s.hashed.clear();
  s.digits.resize((n / step + 1) * kLpIntBufSize);
  char* d = s.digits.data();
  size_t idx = 0;
  for (LpPos p = lp.first(); p != kLpNone; p = lp.next(p), idx++) {
    if (idx % step != 0) continue;
    const LpEntry e = lp.get(p);
    std::string_view text;
    if (e.is_int) {
      text = entry_text(e, d);
      d += kLpIntBufSize;
    } else {
      text = e.sval;
    }
    s.hashed.push_back({hash_key(text), static_cast<uint32_t>(s.views.size())});
    s.views.push_back(text);
  }
  const std::vector<std::string_view>& v = s.views;
  std::vector<std::pair<uint64_t, uint32_t>>& h = s.hashed;
  if (h.size() <= 24) {
    for (size_t i = 0; i < h.size(); i++) {
      for (size_t j = i + 1; j < h.size(); j++) {
        if (h[i].first == h[j].first && v[i] == v[j]) return false;
      }
    }
    return true;
  }
  std::sort(h.begin(), h.end());
  for (size_t i = 0; i < h.size();) {
    size_t end = i + 1;
    while (end < h.size() && h[end].first == h[i].first) end++;
    for (size_t a = i; a < end; a++) {  // equal hashes: almost always a real repeat
      for (size_t b = a + 1; b < end; b++) {
        if (v[h[a].second] == v[h[b].second]) return false;
      }
    }
    i = end;
  }
  return true;
}

// A plain decimal ("-12.5", "3", "0.25": optional '-', digits, optionally '.' and digits) is a
// number and not NaN, which is all the score check needs: no conversion for the usual scores.
bool plain_decimal(std::string_view t) {
  size_t i = !t.empty() && t[0] == '-' ? 1 : 0;
  const size_t int_start = i;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') i++;
  if (i == int_start) return false;
  if (i == t.size()) return true;
  if (t[i] != '.') return false;
  const size_t frac_start = ++i;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') i++;
  return i == t.size() && i > frac_start;
}

// A zset listpack's scores (every second entry) must be numbers and not NaN; with `ordered`
// (sanitize-dump-payload yes) the pairs must also be in (score, member) order.
bool zset_lp_scores_ok(const Listpack& lp, bool ordered) {
  double prev_score = 0;
  std::string prev_member;
  bool first = true;
  char mbuf[kLpIntBufSize];
  for (LpPos m = lp.first(); m != kLpNone;) {
    const LpPos sp = lp.next(m);
    if (sp == kLpNone) return false;
    const LpEntry se = lp.get(sp);
    double score = 0;
    if (se.is_int) {
      score = static_cast<double>(se.ival);
    } else if (!ordered && se.sval.size() <= 64 && plain_decimal(se.sval)) {
      // A number, and the value is not needed.
    } else if (!parse_double(se.sval, &score)) {
      return false;
    }
    if (std::isnan(score)) return false;
    if (ordered) {
      const std::string_view member = lp.get(m).str(mbuf);
      if (!first && (score < prev_score ||
                     (score == prev_score && compare_members(prev_member, member) >= 0))) {
        return false;
      }
      prev_score = score;
      prev_member.assign(member);
      first = false;
    }
    m = lp.next(sp);
  }
  return true;
}

// Zipmap (Redis <= 2.4 small hashes) -> listpack of field, value pairs. False when the bytes
// are not a well-formed zipmap. *max_len gets the longest field or value.
bool zipmap_to_listpack(const uint8_t* z, size_t n, Listpack& lp, size_t* max_len) {
  if (n < 2 || z[n - 1] != 0xFF) return false;
  const unsigned stated = z[0];
  size_t p = 1, pairs = 0;
  *max_len = 0;
  auto read_len = [&](size_t* out) {
    if (p >= n) return false;
    const uint8_t b = z[p];
    if (b < 254) {
      *out = b;
      p += 1;
      return true;
    }
    if (b == 254 && p + 5 <= n) {
      uint32_t v;
      std::memcpy(&v, z + p + 1, 4);  // host order, as Redis wrote it (little-endian here)
      *out = v;
      p += 5;
      return true;
    }
    return false;
  };
  std::string field;
  for (;;) {
    if (p >= n) return false;
    if (z[p] == 0xFF) break;
    size_t flen, vlen;
    if (!read_len(&flen) || flen > n - p) return false;
    field.assign(reinterpret_cast<const char*>(z + p), flen);
    p += flen;
    if (!read_len(&vlen) || p >= n) return false;
    const size_t free_bytes = z[p++];
    if (vlen > n - p || free_bytes > n - p - vlen) return false;
    lp.append(field);
    lp.append({reinterpret_cast<const char*>(z + p), vlen});
    if (lp.bytes() > kLpSafeBytes) return false;
    p += vlen + free_bytes;
    *max_len = std::max({*max_len, flen, vlen});
    pairs++;
  }
  if (p != n - 1) return false;
  return stated >= 254 || stated == pairs;
}

// ---- Values ------------------------------------------------------------------------------------

class ValueLoader {
 public:
  ValueLoader(RdbIn& in, bool deep) : in_(in), deep_(deep) {}

  // The value of RDB type `type` as an object under `key`, or null for an empty collection
  // (which a file skips and RESTORE refuses). With `room` (a TTL follows) the objects built here
  // get the expire field up front, so setting it does not copy them.
  ObjectPtr load(int type, std::string_view key, bool room = false) {
    room_ = room;
    switch (type) {
      case kRdbString:
        in_.string(s1_);
        return ObjectPtr(Object::create_string(key, s1_, room));
      case kRdbList: return load_list_plain(key);
      case kRdbSet: return load_set_plain(key);
      case kRdbZset: return load_zset_plain(key, false);
      case kRdbZset2: return load_zset_plain(key, true);
      case kRdbHash: return load_hash_plain(key);
      case kRdbHashZipmap: return load_zipmap(key);
      case kRdbListZiplist: return load_list_ziplist(key);
      case kRdbSetIntset: return load_intset(key);
      case kRdbZsetZiplist: return load_pairs_ziplist(key, Type::kZset);
      case kRdbHashZiplist: return load_pairs_ziplist(key, Type::kHash);
      case kRdbListQuicklist: return load_quicklist(key, 1);
      case kRdbListQuicklist2: return load_quicklist(key, 2);
      case kRdbHashListpack: return finish_hash(checked_listpack("Hash"), key, false);
      case kRdbZsetListpack: return finish_zset(checked_listpack("Zset"), key);
      case kRdbSetListpack: return finish_set(checked_listpack("Set"), key);
      case kRdbStreamListpacks:
      case kRdbStreamListpacks2:
      case kRdbStreamListpacks3:  // an empty stream is a key too
        return collection(key, Type::kStream, Encoding::kStream, rdb_read_stream(in_, type, deep_).release());
      case kRdbModulePreGa:
      case kRdbModule2:
        unsupported(type, "Keel has no modules");
      case kRdbHashMetadataPreGa: return load_hash_metadata(key, /*pre_ga=*/true);
      case kRdbHashMetadata: return load_hash_metadata(key, /*pre_ga=*/false);
      case kRdbHashListpackExPreGa: return load_hash_listpack_ex(key, /*pre_ga=*/true);
      case kRdbHashListpackEx: return load_hash_listpack_ex(key, /*pre_ga=*/false);
      default:
        in_.fail("Unknown RDB encoding type " + std::to_string(type));
    }
  }

 private:
  [[noreturn]] void unsupported(int type, const char* why) {
    RdbError e{in_.offset(), std::string("values of RDB type ") + std::to_string(type) + " (" +
                                 rdb_type_name(type) + ") are not supported: " + why,
               true};
    throw e;
  }

  // A count as a size hint: never more elements than the bytes left could hold at
  // `min_bytes` each, so a forged count cannot make us pre-allocate a huge table.
  size_t hint(uint64_t n, uint64_t min_bytes = 2) const {
    return static_cast<size_t>(std::min<uint64_t>(n, in_.remaining() / min_bytes));
  }

  void check_item(std::string_view s) {
    if (s.size() > UINT32_MAX) in_.fail("Element too long for this server: " + std::to_string(s.size()));
  }

  Listpack checked_listpack(const char* what) {
    size_t n;
    MallocPtr b = in_.blob(&n);
    if (!listpack_validate(b.get(), n, /*deep=*/true)) {
      in_.fail(std::string(what) + " listpack integrity check failed.");
    }
    return Listpack::adopt(b.release());
  }

  // A ziplist blob converted to a listpack (validated deeply first, always).
  Listpack ziplist_as_listpack(const char* what) {
    size_t n;
    MallocPtr b = in_.blob(&n);
    if (!ziplist_validate(b.get(), n, /*deep=*/true)) {
      in_.fail(std::string(what) + " ziplist integrity check failed.");
    }
    Listpack lp;
    if (!ziplist_append_to_listpack(b.get(), lp)) in_.fail(std::string(what) + " ziplist too big to convert.");
    return lp;
  }

  // ---- lists ----

  static int fill() { return clamp_int(encoding_limits().list_max_listpack_size); }
  static int depth() { return clamp_int(encoding_limits().list_compress_depth); }

  ObjectPtr list_from_listpack(Listpack&& lp, std::string_view key) {
    if (lp.empty()) return nullptr;
    if (!quicklist_exceeds_limit(fill(), lp.bytes(), lp.size())) {
      return collection(key, Type::kList, Encoding::kListpack, lp.release());
    }
    auto* q = new Quicklist(Quicklist::from_listpack(std::move(lp), fill(), depth()));
    return collection(key, Type::kList, Encoding::kQuicklist, q);
  }

  ObjectPtr list_from_quicklist(std::unique_ptr<Quicklist> q, std::string_view key) {
    if (q->count() == 0) return nullptr;
    // One packed node within the node limit is an ordinary small list.
    if (q->can_convert_to_listpack(false)) return list_from_listpack(q->take_listpack(), key);
    return collection(key, Type::kList, Encoding::kQuicklist, q.release());
  }

  ObjectPtr load_list_plain(std::string_view key) {
    const uint64_t n = in_.len();
    if (n == 0) return nullptr;
    ObjectPtr o(ListType::create(key));
    for (uint64_t i = 0; i < n; i++) {
      in_.string(s1_);
      ListType::push(*o, ListType::End::kTail, s1_);
    }
    return o;
  }

  ObjectPtr load_list_ziplist(std::string_view key) {
    return list_from_listpack(ziplist_as_listpack("List"), key);
  }

  ObjectPtr load_quicklist(std::string_view key, int version) {
    const uint64_t nodes = in_.len();
    if (nodes == 0) return nullptr;
    auto q = std::make_unique<Quicklist>(fill(), depth());
    for (uint64_t i = 0; i < nodes; i++) {
      if (version == 1) {
        Listpack lp = ziplist_as_listpack("Quicklist");
        if (!lp.empty()) q->append_listpack_node(std::move(lp));  // empty nodes are dropped
        continue;
      }
      const uint64_t container = in_.len();
      if (container == kQuicklistNodePlain) {
        in_.string(s1_);
        q->append_plain_node(s1_);
      } else if (container == kQuicklistNodePacked) {
        Listpack lp = checked_listpack("Quicklist");
        if (!lp.empty()) q->append_listpack_node(std::move(lp));
      } else {
        in_.fail("Quicklist integrity check failed.");
      }
    }
    return list_from_quicklist(std::move(q), key);
  }

  // ---- sets ----

  ObjectPtr load_set_plain(std::string_view key) {
    const uint64_t n = in_.len();
    if (n == 0) return nullptr;
    in_.string(s1_);
    check_item(s1_);
    ObjectPtr o(SetType::create(key, s1_, hint(n)));
    SetType::add(*o, s1_);
    for (uint64_t i = 1; i < n; i++) {
      in_.string(s1_);
      check_item(s1_);
      if (!SetType::add(*o, s1_)) in_.fail("Duplicate set members detected");
    }
    return o;
  }

  ObjectPtr load_intset(std::string_view key) {
    size_t n;
    MallocPtr b = in_.blob(&n);
    // Header, width, size and strictly ascending values; an empty intset is corrupt.
    if (!intset_validate(b.get(), n)) in_.fail("Intset integrity check failed.");
    auto* is = reinterpret_cast<Intset*>(b.release());
    ObjectPtr o = collection(key, Type::kSet, Encoding::kIntset, is);
    const size_t count = intset_size(is);
    if (count > limit_of(encoding_limits().set_max_intset_entries)) SetType::maybe_convert(*o, count);
    return o;
  }

  ObjectPtr finish_set(Listpack&& lp, std::string_view key) {
    if (lp.empty()) return nullptr;
    if (!lp_unique(lp, 1, dup_)) in_.fail("Set listpack with duplicate members");
    const size_t count = lp.size();
    ObjectPtr o = collection(key, Type::kSet, Encoding::kListpack, lp.release());
    if (count > limit_of(encoding_limits().set_max_listpack_entries)) SetType::maybe_convert(*o, count);
    return o;
  }

  // ---- sorted sets ----

  double read_score(bool binary) {
    const double score = binary ? in_.binary_double() : in_.text_double();
    if (std::isnan(score)) in_.fail("Zset with NAN score detected");
    return score;
  }

  ObjectPtr load_zset_plain(std::string_view key, bool binary) {
    const uint64_t n = in_.len();
    if (n == 0) return nullptr;
    const size_t max_entries = limit_of(encoding_limits().zset_max_listpack_entries);
    double ns;
    if (n > max_entries) {
      ObjectPtr o(ZsetType::create(key, std::max(hint(n, 9), max_entries + 1), 0));
      for (uint64_t i = 0; i < n; i++) {
        in_.string(s1_);
        check_item(s1_);
        const double score = read_score(binary);
        if (ZsetType::add(*o, score, s1_, 0, &ns) != ZsetType::AddResult::kAdded) {
          in_.fail("Duplicate zset fields detected");
        }
      }
      return o;
    }
    // Small: read first, so the encoding can be chosen from the longest member.
    pairs_.resize(n);
    size_t max_len = 0;
    for (auto& [m, s] : pairs_) {
      in_.string(m);
      s = read_score(binary);
      max_len = std::max(max_len, m.size());
    }
    ObjectPtr o(ZsetType::create(key, n, max_len));
    for (const auto& [m, s] : pairs_) {
      if (ZsetType::add(*o, s, m, 0, &ns) != ZsetType::AddResult::kAdded) {
        in_.fail("Duplicate zset fields detected");
      }
    }
    return o;
  }

  ObjectPtr finish_zset(Listpack&& lp, std::string_view key) {
    if (lp.empty()) return nullptr;
    const size_t count = lp.size();
    if (count % 2 != 0) in_.fail("Zset listpack with an odd number of entries");
    if (!lp_unique(lp, 2, dup_)) in_.fail("Zset listpack with duplicate members");
    if (!zset_lp_scores_ok(lp, deep_)) in_.fail("Zset listpack with an invalid score or order");
    ObjectPtr o = collection(key, Type::kZset, Encoding::kListpack, lp.release());
    if (count / 2 > limit_of(encoding_limits().zset_max_listpack_entries)) {
      ZsetType::maybe_convert(*o, count / 2);
    }
    return o;
  }

  // ---- hashes ----

  ObjectPtr load_hash_plain(std::string_view key) {
    const uint64_t n = in_.len();
    if (n == 0) return nullptr;
    const EncodingLimits& lim = encoding_limits();
    ObjectPtr o(HashType::create(key));
    if (n > limit_of(lim.hash_max_listpack_entries)) HashType::convert_to_hashtable(*o, hint(n));
    for (uint64_t i = 0; i < n; i++) {
      in_.string(s1_);
      in_.string(s2_);
      check_item(s1_);
      check_item(s2_);
      if (!HashType::set(*o, s1_, s2_, lim)) in_.fail("Duplicate hash fields detected");
    }
    return o;
  }

  // ---- hashes with field TTLs (Redis 7.4) ----
  // Fields whose TTL has already passed are dropped (a hash left without fields is skipped like
  // any empty collection). The hash is rebuilt through the type layer rather than adopted, so a
  // listpackex keeps Redis's expiry order whatever the file says, and a TTL outside Redis's range
  // (above 2^48 - 1 ms) is refused.
  static constexpr uint64_t kMaxStoredTtl = (uint64_t{1} << 48) - 1;

  struct TtlHashBuilder {
    ObjectPtr o;
    int64_t now = mstime();
  };
  TtlHashBuilder ttl_hash(std::string_view key, uint64_t n) {
    TtlHashBuilder b{ObjectPtr(HashType::create(key))};
    if (n > limit_of(encoding_limits().hash_max_listpack_entries)) {
      HashType::convert_to_hashtable(*b.o, hint(n));
    }
    HashType::enable_field_ttls(*b.o);
    return b;
  }
  void ttl_hash_add(TtlHashBuilder& b, std::string_view f, std::string_view v, uint64_t ttl) {
    check_item(f);
    check_item(v);
    if (ttl > kMaxStoredTtl) in_.fail("Hash field TTL out of range: " + std::to_string(ttl));
    if (ttl != 0 && static_cast<int64_t>(ttl) < b.now) {
      // Already expired: dropped, but a repeat of it is still a corrupt value.
      if (HashType::exists(*b.o, f)) in_.fail("Duplicate hash fields detected");
      return;
    }
    if (!HashType::set(*b.o, f, v, encoding_limits())) in_.fail("Duplicate hash fields detected");
    if (ttl != 0) HashType::set_field_ttl(*b.o, f, static_cast<int64_t>(ttl));
  }

  // Types 24 (GA: the earliest TTL first, then per field ttl - min + 1 or 0) and 22 (7.4 release
  // candidates: per field the absolute TTL or 0).
  ObjectPtr load_hash_metadata(std::string_view key, bool pre_ga) {
    const uint64_t min = pre_ga ? 0 : in_.u64_le();
    const uint64_t n = in_.len();
    if (n == 0) return nullptr;
    TtlHashBuilder b = ttl_hash(key, n);
    for (uint64_t i = 0; i < n; i++) {
      uint64_t t = in_.len();
      if (t != 0 && !pre_ga) {
        if (t - 1 > kMaxStoredTtl || min > kMaxStoredTtl - (t - 1)) in_.fail("Hash field TTL out of range");
        t = min + t - 1;
      }
      in_.string(s1_);
      in_.string(s2_);
      ttl_hash_add(b, s1_, s2_, t);
    }
    if (HashType::size(*b.o) == 0) return nullptr;
    return std::move(b.o);
  }

  // Types 25 (GA: the earliest TTL, 8 bytes, then the listpack) and 23 (the listpack alone):
  // field, value, ttl triplets, ttl an integer (0 = none).
  ObjectPtr load_hash_listpack_ex(std::string_view key, bool pre_ga) {
    if (!pre_ga) (void)in_.u64_le();
    Listpack lp = checked_listpack("Hash");
    if (lp.empty()) return nullptr;
    const size_t count = lp.size();
    if (count % 3 != 0) in_.fail("Hash listpack with TTLs with a number of entries not a multiple of 3");
    if (!lp_unique(lp, 3, dup_)) in_.fail("Hash listpack with duplicate fields");
    TtlHashBuilder b = ttl_hash(key, count / 3);
    char fb[kLpIntBufSize], vb[kLpIntBufSize];
    for (LpPos p = lp.first(); p != kLpNone;) {
      const LpPos v = lp.next(p);
      const LpPos t = lp.next(v);
      const LpEntry te = lp.get(t);
      if (!te.is_int || te.ival < 0) in_.fail("Hash listpack with an invalid field TTL");
      ttl_hash_add(b, lp.get(p).str(fb), lp.get(v).str(vb), static_cast<uint64_t>(te.ival));
      p = lp.next(t);
    }
    if (HashType::size(*b.o) == 0) return nullptr;
    return std::move(b.o);
  }

  // check_sizes: a converted zipmap also converts when a field or value is too long.
  ObjectPtr finish_hash(Listpack&& lp, std::string_view key, bool check_sizes,
                        size_t max_len = 0) {
    if (lp.empty()) return nullptr;
    const size_t count = lp.size();
    if (count % 2 != 0) in_.fail("Hash listpack with an odd number of entries");
    if (!lp_unique(lp, 2, dup_)) in_.fail("Hash listpack with duplicate fields");
    ObjectPtr o = collection(key, Type::kHash, Encoding::kListpack, lp.release());
    const EncodingLimits& lim = encoding_limits();
    if (count / 2 > limit_of(lim.hash_max_listpack_entries) ||
        (check_sizes && max_len > limit_of(lim.hash_max_listpack_value))) {
      HashType::convert_to_hashtable(*o, count / 2);
    }
    return o;
  }

  ObjectPtr load_zipmap(std::string_view key) {
    size_t n;
    MallocPtr b = in_.blob(&n);
    Listpack lp;
    size_t max_len;
    if (!zipmap_to_listpack(b.get(), n, lp, &max_len)) in_.fail("Zipmap integrity check failed.");
    return finish_hash(std::move(lp), key, true, max_len);
  }

  ObjectPtr load_pairs_ziplist(std::string_view key, Type t) {
    Listpack lp = ziplist_as_listpack(t == Type::kHash ? "Hash" : "Zset");
    return t == Type::kHash ? finish_hash(std::move(lp), key, false) : finish_zset(std::move(lp), key);
  }

  ObjectPtr collection(std::string_view key, Type t, Encoding e, void* ptr) {
    return ObjectPtr(Object::create_collection(key, t, e, ptr, room_));
  }

  RdbIn& in_;
  bool deep_;
  bool room_ = false;
  std::string s1_, s2_;
  std::vector<std::pair<std::string, double>> pairs_;
  DupScratch dup_;
};

// ---- Files -------------------------------------------------------------------------------------

struct LoadProgress {
  const char* phase = "start";
  std::string key;
  int type = -1;
  uint64_t keys = 0, expires = 0, already_expired = 0, empty = 0;
};

// Where the keys of a file go: the keyspace (start-up, DEBUG RELOAD) or nowhere (the checker).
class LoadTarget {
 public:
  virtual ~LoadTarget() = default;
  virtual int databases() const = 0;
  // The server's load (logs its lines, drops expired keys); false for the checker.
  virtual bool server_mode() const { return true; }
  // Keys already expired are dropped (the server's load, except an AOF's RDB preamble).
  virtual bool drop_expired() const { return server_mode(); }
  virtual void on_aux(uint64_t offset, std::string_view k, std::string_view v) = 0;
  virtual void on_select(uint64_t offset, int db) = 0;
  virtual void on_resize(int db, size_t keys, size_t expires) = 0;
  // Takes the object (releases `o`). False when a key (this one or one taken earlier and not
  // yet placed: a target may place keys a few calls late) is a duplicate; *dup and *dup_db
  // then name it.
  virtual bool on_key(int db, ObjectPtr& o, std::string* dup, int* dup_db) = 0;
  // Places every key taken so far (before the end of the stream). Same failure as on_key.
  virtual bool flush_keys(std::string*, int*) { return true; }
  // False with *err when the library cannot be loaded.
  virtual bool on_function(std::string_view code, std::string* err) = 0;
  virtual void on_checksum(uint64_t offset, bool checked) = 0;
  // Whether after_key must be called (asked once per load: the test knobs and the start-up
  // load's event processing cost nothing per key otherwise).
  virtual bool paced() const { return false; }
  // After each key read, `offset` bytes consumed so far.
  virtual void after_key(uint64_t, const LoadProgress&) {}
};

// Reads a whole RDB stream into `t`. Throws RdbError.
void load_stream(RdbIn& in, LoadTarget& t, bool deep, bool checksum, LoadProgress& pr) {
  pr.phase = "start";
  const uint8_t* magic = in.take(9);
  if (std::memcmp(magic, "REDIS", 5) != 0) in.fail("Wrong signature trying to load DB from file");
  int version = 0;
  for (int i = 5; i < 9; i++) {
    if (magic[i] < '0' || magic[i] > '9') break;  // atoi: stops at the first non-digit
    version = version * 10 + (magic[i] - '0');
  }
  if (version < kRdbMinVersion || version > kRdbMaxVersion) {
    in.fail("Can't handle RDB format version " + std::to_string(version));
  }
  ValueLoader values(in, deep);
  const int64_t now = mstime();
  const uint32_t lru_now = static_cast<uint32_t>(now / 1000);
  const uint32_t lfu_minute = static_cast<uint32_t>(now / 60000) & 65535;
  int db = 0;
  int64_t expire = -1;
  int64_t idle = -1;
  int freq = -1;  // RDB_OPCODE_FREQ's LFU counter for the next key
  std::string k, v;
  const bool paced = t.paced();
  for (;;) {
    pr.phase = "read-type";
    pr.key.clear();
    pr.type = -1;
    const uint8_t type = in.byte();
    switch (type) {
      case kRdbOpExpireTime:
        pr.phase = "read-expire";
        expire = int64_t{static_cast<int32_t>(in.u32_le())} * 1000;
        continue;
      case kRdbOpExpireTimeMs:
        pr.phase = "read-expire";
        expire = static_cast<int64_t>(in.u64_le());
        continue;
      case kRdbOpFreq:
        freq = in.byte();
        continue;
      case kRdbOpIdle:
        idle = static_cast<int64_t>(std::min<uint64_t>(in.len(), INT64_MAX));
        continue;
      case kRdbOpEof:
        break;
      case kRdbOpSelectDb: {
        const uint64_t id = in.len();
        if (id >= static_cast<uint64_t>(t.databases())) {
          in.fail("FATAL: Data file was created with a Redis server configured to handle more than " +
                  std::to_string(t.databases()) + " databases. Exiting");
        }
        db = static_cast<int>(id);
        t.on_select(in.offset(), db);
        continue;
      }
      case kRdbOpResizeDb: {
        const uint64_t keys = in.len(), expires = in.len();
        // A hint only: bounded by what the rest of the input can hold (a key takes at least a
        // few bytes; a low bound only costs a rehash during the load).
        const uint64_t cap = in.remaining() / 8;
        t.on_resize(db, static_cast<size_t>(std::min(keys, cap)), static_cast<size_t>(std::min(expires, cap)));
        continue;
      }
      case kRdbOpSlotInfo:
        (void)in.len();
        (void)in.len();
        (void)in.len();
        continue;
      case kRdbOpAux: {
        pr.phase = "read-aux";
        in.string(k);
        in.string(v);
        t.on_aux(in.offset(), k, v);
        continue;
      }
      case kRdbOpModuleAux:
        pr.phase = "read-module-aux";
        in.fail("The RDB file contains AUX module data Keel can't load (Keel has no modules)");
      case kRdbOpFunctionPreGa:
        pr.phase = "read-functions";
        in.fail("Pre-release function format not supported.");
      case kRdbOpFunction2: {
        pr.phase = "read-functions";
        in.string(v);
        std::string err;
        if (!t.on_function(v, &err)) in.fail("Failed loading library: " + err);
        continue;
      }
      default: {
        pr.phase = "read-key";
        pr.type = type;
        in.string(pr.key);
        pr.phase = "read-object-value";
        ObjectPtr o = values.load(type, pr.key, expire != -1);
        if (!o) {
          pr.empty++;
          if (pr.empty <= 10 && t.server_mode()) {
            LOG_NOTICE("rdbLoadObject skipping empty key: %s", pr.key.c_str());
          }
        } else {
          if (expire != -1) {
            o.reset(Object::with_expire(o.release(), expire));
            pr.expires++;
          }
          if (g_clock.lfu) {
            // Redis's objectSetLRUOrLFU under an LFU policy: the saved counter, or LFU_INIT_VAL
            // (5) as for any new key, stamped with the current minute.
            o->set_lru(lfu_minute << 8 | static_cast<uint32_t>(freq >= 0 ? freq : 5));
          } else {
            o->set_lru(idle >= 0 ? lru_now - static_cast<uint32_t>(std::min<int64_t>(idle, lru_now)) : lru_now);
          }
          if (expire != -1 && expire < now) pr.already_expired++;
          if (expire != -1 && expire < now && t.drop_expired()) {
            o.reset();
          } else {
            pr.keys++;
            std::string dup;
            int dup_db = db;
            if (!t.on_key(db, o, &dup, &dup_db)) {
              pr.key = dup;
              in.fail("RDB has duplicated key '" + dup + "' in DB " + std::to_string(dup_db));
            }
          }
        }
        expire = -1;
        idle = -1;
        freq = -1;
        if (KEEL_UNLIKELY(paced)) t.after_key(in.offset(), pr);
        continue;
      }
    }
    break;  // EOF
  }
  {
    std::string dup;
    int dup_db = 0;
    if (!t.flush_keys(&dup, &dup_db)) {
      pr.key = dup;
      in.fail("RDB has duplicated key '" + dup + "' in DB " + std::to_string(dup_db));
    }
  }
  pr.phase = "check-sum";
  pr.key.clear();
  pr.type = -1;
  if (version >= 5) {
    const uint64_t expected = in.crc();
    const uint64_t stored = in.u64_le();
    if (!checksum) {
      t.on_checksum(in.offset(), false);
    } else if (stored == 0) {
      if (t.server_mode()) LOG_NOTICE("RDB file was saved with checksum disabled: no check performed.");
      t.on_checksum(in.offset(), false);
    } else if (stored != expected) {
      if (t.server_mode()) LOG_WARNING("Wrong RDB checksum expected: (%llx) but got (%llx). Aborting now.",
                  static_cast<unsigned long long>(expected), static_cast<unsigned long long>(stored));
      in.fail("RDB CRC error");
    } else {
      t.on_checksum(in.offset(), true);
    }
  }
}

// Keys go into the tables kWindow keys late: each key's bucket is prefetched when it is read
// and the key is placed once kWindow more have been read, so the cache miss of a random
// bucket in a big table overlaps with reading and building the next keys (it was half of the
// time of loading 2M small strings). Order is kept, so duplicates and MERGE behave as placing
// at once would; only the error's offset may be up to kWindow keys later.
class KeyspaceTarget : public LoadTarget {
 public:
  explicit KeyspaceTarget(bool merge) : merge_(merge) {}
  void set_keep_expired(bool keep) { keep_expired_ = keep; }
  bool drop_expired() const override { return !keep_expired_; }
  ~KeyspaceTarget() override {
    for (; count_ > 0; count_--) Object::destroy(pending_[(head_ + kWindow - count_) % kWindow].obj);
  }
  int databases() const override { return keyspace().count(); }
  void on_aux(uint64_t, std::string_view k, std::string_view v) override {
    const std::string val(v);
    if (k == "redis-ver" || k == "valkey-ver") {
      LOG_NOTICE("Loading RDB produced by version %s", val.c_str());
    } else if (k == "ctime") {
      int64_t t;
      if (parse_int64(v, &t)) {
        int64_t age = time(nullptr) - t;
        if (age < 0) age = 0;
        LOG_NOTICE("RDB age %lld seconds", static_cast<long long>(age));
      }
    } else if (k == "used-mem") {
      int64_t m;
      if (parse_int64(v, &m) && m >= 0) loading_state().rdb_used_mem = static_cast<uint64_t>(m);
      if (parse_int64(v, &m)) LOG_NOTICE("RDB memory usage when created %.2f Mb", double(m) / (1024 * 1024));
    } else if (!k.empty() && k[0] == '%') {
      LOG_NOTICE("RDB '%s': %s", std::string(k.substr(1)).c_str(), val.c_str());
    }
  }
  void on_select(uint64_t, int) override {}
  void on_resize(int db, size_t keys, size_t expires) override {
    std::string dup;
    int dup_db;
    // Pending keys of this db go in first (a resize moves the table the prefetches aimed at);
    // a duplicate among them is reported by the next on_key or flush_keys.
    if (!flush_keys(&dup, &dup_db)) failed_ = {dup, dup_db};
    Db& d = keyspace().db(db);
    d.load_reserve(d.size() + keys, d.expires_count() + expires);
  }
  bool on_key(int db, ObjectPtr& o, std::string* dup, int* dup_db) override {
    if (failed_.second >= 0) return take_failure(dup, dup_db);
    keyspace().db(db).prefetch(hash_key(o->key()));
    if (count_ == kWindow && !place_oldest(dup, dup_db)) {
      Object::destroy(o.release());
      return false;
    }
    pending_[head_] = {o.release(), db};
    head_ = (head_ + 1) % kWindow;
    count_++;
    return true;
  }
  bool flush_keys(std::string* dup, int* dup_db) override {
    if (failed_.second >= 0) return take_failure(dup, dup_db);
    while (count_ > 0) {
      if (!place_oldest(dup, dup_db)) return false;
    }
    return true;
  }
  bool on_function(std::string_view code, std::string* err) override {
    if (g_function_hooks.load_library == nullptr) {
      *err = "function libraries are not available";
      return false;
    }
    return g_function_hooks.load_library(code, merge_, err);
  }
  void on_checksum(uint64_t, bool) override {}
  bool paced() const override { return delay_ != 0 || g_rdb_load_events != nullptr; }
  void after_key(uint64_t offset, const LoadProgress& pr) override {
    if (delay_ != 0) rdb_debug_delay(delay_);  // key-load-delay
    if (g_rdb_load_events == nullptr || offset < next_events_) return;
    const int64_t interval = persistence_options().loading_events_interval;
    next_events_ = offset + static_cast<uint64_t>(interval > 0 ? interval : 1);
    // The keys still in the window go in first, so that what runs meanwhile (INFO keyspace,
    // the counts) sees every key read so far; a duplicate among them fails the next on_key.
    std::string dup;
    int dup_db;
    if (!flush_keys(&dup, &dup_db)) failed_ = {dup, dup_db};
    loading_state().loaded_bytes = offset;
    persistence_state().keys_loaded = pr.keys;  // rdb_last_load_keys_loaded moves (as Redis's)
    g_rdb_load_events();
  }

 private:
  static constexpr size_t kWindow = 16;
  struct Pending {
    Object* obj;
    int db;
  };

  // Places the oldest pending key; on a duplicate frees it and names it.
  bool place_oldest(std::string* dup, int* dup_db) {
    Pending& p = pending_[(head_ + kWindow - count_) % kWindow];
    count_--;
    if (keyspace().db(p.db).load_add(p.obj, merge_)) return true;
    dup->assign(p.obj->key());
    *dup_db = p.db;
    Object::destroy(p.obj);
    return false;
  }
  bool take_failure(std::string* dup, int* dup_db) {
    *dup = failed_.first;
    *dup_db = failed_.second;
    return false;
  }

  bool merge_;
  bool keep_expired_ = false;
  int delay_ = persistence_options().key_load_delay;
  uint64_t next_events_ = 0;
  Pending pending_[kWindow];
  size_t head_ = 0;   // next free slot
  size_t count_ = 0;  // pending keys, the oldest at head_ - count_
  std::pair<std::string, int> failed_{std::string(), -1};  // a duplicate found by on_resize
};

// ---- keel-check-rdb ----------------------------------------------------------------------------

class CheckTarget : public LoadTarget {
 public:
  explicit CheckTarget(bool verbose) : verbose_(verbose) {}
  int databases() const override { return INT_MAX; }
  bool server_mode() const override { return false; }
  void on_aux(uint64_t offset, std::string_view k, std::string_view v) override {
    if (!verbose_) return;
    printf("[offset %llu] AUX FIELD %.*s = '%.*s'\n", static_cast<unsigned long long>(offset),
           static_cast<int>(k.size()), k.data(), static_cast<int>(v.size()), v.data());
  }
  void on_select(uint64_t offset, int db) override {
    if (!verbose_) return;
    printf("[offset %llu] Selecting DB ID %d\n", static_cast<unsigned long long>(offset), db);
  }
  void on_resize(int, size_t, size_t) override {}
  bool on_key(int, ObjectPtr& o, std::string*, int*) override {
    o.reset();
    return true;
  }
  bool on_function(std::string_view, std::string*) override { return true; }
  void on_checksum(uint64_t offset, bool checked) override {
    if (checked && verbose_) printf("[offset %llu] Checksum OK\n", static_cast<unsigned long long>(offset));
  }

 private:
  bool verbose_;
};

// Runs load_stream and fills r: the error (offset, reason, the key being read) if one was
// thrown, and the counts either way.
void run_load(RdbIn& in, LoadTarget& target, bool deep, bool checksum, LoadProgress& pr,
              RdbLoadResult& r) {
  try {
    load_stream(in, target, deep, checksum, pr);
    r.end_offset = in.offset();
  } catch (RdbError& e) {
    r.status = RdbLoadResult::kError;
    r.offset = e.offset;
    r.reason = std::move(e.reason);
    r.key = pr.key;
    r.type = pr.type;
  }
  r.keys_loaded = pr.keys;
  r.keys_expired = pr.already_expired;
  r.empty_keys_skipped = pr.empty;
}

}  // namespace

// ---- Public -----------------------------------------------------------------------------------

RdbLoadResult rdb_load_file(const std::string& filename, bool merge, bool aof_preamble) {
  RdbLoadResult r;
  const int fd = open(filename.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    r.status = errno == ENOENT ? RdbLoadResult::kMissing : RdbLoadResult::kOpenError;
    r.reason = strerror(errno);
    return r;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    r.status = RdbLoadResult::kOpenError;
    r.reason = strerror(errno);
    close(fd);
    return r;
  }
  const PersistenceOptions& po = persistence_options();
  RdbIn in(fd, static_cast<uint64_t>(sb.st_size));
  in.set_checksum(po.rdbchecksum);
  KeyspaceTarget target(merge);
  target.set_keep_expired(aof_preamble);
  LoadProgress pr;
  const bool was_loading = g_clock.loading;
  g_clock.loading = true;
  run_load(in, target, po.sanitize_dump_payload == static_cast<int>(SanitizePayload::kYes),
           po.rdbchecksum, pr, r);
  g_clock.loading = was_loading;
  r.end_offset = in.offset();
  close(fd);
  if (r.status == RdbLoadResult::kOk) {
    PersistenceState& st = persistence_state();
    st.keys_loaded = pr.keys;
    st.keys_expired = pr.already_expired;
    if (pr.empty > 0) {
      LOG_NOTICE("Done loading RDB, keys loaded: %llu, keys expired: %llu, empty keys skipped: %llu.",
                 static_cast<unsigned long long>(pr.keys), static_cast<unsigned long long>(pr.already_expired),
                 static_cast<unsigned long long>(pr.empty));
    } else {
      LOG_NOTICE("Done loading RDB, keys loaded: %llu, keys expired: %llu.",
                 static_cast<unsigned long long>(pr.keys), static_cast<unsigned long long>(pr.already_expired));
    }
  }
  return r;
}

bool rdb_verify_payload(std::string_view payload, int* version) {
  if (payload.size() < 10) return false;
  const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
  const size_t n = payload.size();
  const int ver = p[n - 10] | p[n - 9] << 8;
  if (ver > kRdbMaxVersion) return false;
  uint64_t stored = 0;
  for (int i = 7; i >= 0; i--) stored = (stored << 8) | p[n - 8 + static_cast<size_t>(i)];
  if (crc64(0, p, n - 8) != stored) return false;
  if (version) *version = ver;
  return true;
}

Object* rdb_payload_to_object(std::string_view payload, std::string_view key, bool deep,
                              std::string* err) {
  // Over the whole payload, footer included, as Redis reads it: a value running into the
  // footer's bytes is read from them (both servers accept the same payloads).
  RdbIn in(reinterpret_cast<const uint8_t*>(payload.data()), payload.size());
  try {
    const uint8_t type = in.byte();
    ValueLoader values(in, deep);
    ObjectPtr o = values.load(type, key);
    if (!o) {
      *err = "ERR Bad data format";
      return nullptr;
    }
    return o.release();  // trailing bytes are ignored, as Redis does
  } catch (RdbError& e) {
    *err = e.unsupported ? "ERR Bad data format: " + e.reason : "ERR Bad data format";
    return nullptr;
  }
}

bool rdb_payload_functions(std::string_view payload, std::vector<std::string>* codes,
                           std::string* err) {
  RdbIn in(reinterpret_cast<const uint8_t*>(payload.data()), payload.size());
  try {
    while (in.remaining() > 10) {  // the footer is the last 10 bytes, as Redis counts
      const uint8_t type = in.byte();
      if (type == kRdbOpFunctionPreGa) {
        *err = "Pre-GA function format not supported";
        return false;
      }
      if (type != kRdbOpFunction2) {
        *err = "given type is not a function";
        return false;
      }
      codes->emplace_back();
      in.string(codes->back());
    }
  } catch (RdbError&) {
    *err = "failed loading the given functions payload";
    return false;
  }
  return true;
}

RdbLoadResult rdb_check_memory(const uint8_t* p, size_t n) {
  RdbLoadResult r;
  RdbIn in(p, n);
  CheckTarget target(false);
  LoadProgress pr;
  run_load(in, target, /*deep=*/true, /*checksum=*/true, pr, r);
  return r;
}

RdbLoadResult rdb_check_file(const std::string& filename) {
  RdbLoadResult r;
  const int fd = open(filename.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0) {
    r.status = RdbLoadResult::kOpenError;
    r.reason = strerror(errno);
    if (fd >= 0) close(fd);
    return r;
  }
  {
    RdbIn in(fd, static_cast<uint64_t>(sb.st_size));
    CheckTarget target(false);
    LoadProgress pr;
    run_load(in, target, /*deep=*/true, /*checksum=*/true, pr, r);
  }
  close(fd);
  return r;
}

int rdb_check_main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "Usage: %s <rdb-file-name>\n", argv[0]);
    return 1;
  }
  const char* file = argv[1];
  printf("[offset 0] Checking RDB file %s\n", file);
  const int fd = open(file, O_RDONLY | O_CLOEXEC);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0) {
    printf("--- RDB ERROR DETECTED ---\n[offset 0] Can't open '%s': %s\n", file, strerror(errno));
    if (fd >= 0) close(fd);
    return 1;
  }
  RdbIn in(fd, static_cast<uint64_t>(sb.st_size));
  CheckTarget target(true);
  LoadProgress pr;
  int rc = 0;
  try {
    load_stream(in, target, /*deep=*/true, /*checksum=*/true, pr);
    printf("[offset %llu] \\o/ RDB looks OK! \\o/\n", static_cast<unsigned long long>(in.offset()));
  } catch (RdbError& e) {
    printf("--- RDB ERROR DETECTED ---\n");
    printf("[offset %llu] %s\n", static_cast<unsigned long long>(e.offset), e.reason.c_str());
    printf("[additional info] While doing: %s\n", pr.phase);
    if (!pr.key.empty()) printf("[additional info] Reading key '%s'\n", pr.key.c_str());
    if (pr.type >= 0) printf("[additional info] Reading type %d (%s)\n", pr.type, rdb_type_name(pr.type));
    rc = 1;
  }
  close(fd);
  printf("[info] %llu keys read\n", static_cast<unsigned long long>(pr.keys));
  printf("[info] %llu expires\n", static_cast<unsigned long long>(pr.expires));
  printf("[info] %llu already expired\n", static_cast<unsigned long long>(pr.already_expired));
  if (pr.empty > 0) printf("[info] %llu empty keys skipped\n", static_cast<unsigned long long>(pr.empty));
  return rc;
}

}  // namespace keel
