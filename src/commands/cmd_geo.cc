// Geo commands over sorted sets whose scores are 52-bit geohashes (ds/geohash.h): GEOADD
// GEOPOS GEODIST GEOHASH GEOSEARCH GEOSEARCHSTORE GEORADIUS[_RO] GEORADIUSBYMEMBER[_RO].
// GEOADD is ZADD with computed scores (its events are ZADD's, and it propagates as the ZADD
// it amounts to, as Redis does); the searches scan the cells ds/geohash picks, in its order, so
// unsorted and COUNT ANY results are Redis's too.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "base/numbers.h"
#include "commands/command.h"
#include "commands/command_table.h"
#include "ds/geohash.h"
#include "protocol/errors.h"
#include "types/zset_type.h"

namespace keel {
namespace {

// Two doubles at idx, idx+1 within the geo limits; replies the error otherwise.
bool lonlat_args(CommandContext& cx, size_t idx, double* xy) {
  for (int i = 0; i < 2; i++) {
    if (!parse_double(cx.arg(idx + i), &xy[i])) {
      cx.reply().error(kErrNotFloat);
      return false;
    }
  }
  if (xy[0] < geo::kLonMin || xy[0] > geo::kLonMax || xy[1] < geo::kLatMin || xy[1] > geo::kLatMax) {
    cx.reply().error_fmt("ERR invalid longitude,latitude pair %f,%f", xy[0], xy[1]);
    return false;
  }
  return true;
}

// m / km / ft / mi (any case) -> meters per unit; replies the error otherwise.
bool unit_arg(CommandContext& cx, size_t idx, double* to_meters) {
  const std::string_view u = cx.arg(idx);
  if (equals_nocase(u, "m")) {
    *to_meters = 1;
  } else if (equals_nocase(u, "km")) {
    *to_meters = 1000;
  } else if (equals_nocase(u, "ft")) {
    *to_meters = 0.3048;
  } else if (equals_nocase(u, "mi")) {
    *to_meters = 1609.34;
  } else {
    cx.reply().error("ERR unsupported unit provided. please use M, KM, FT, MI");
    return false;
  }
  return true;
}

bool number_arg(CommandContext& cx, size_t idx, const char* what, double* out) {
  if (!parse_double(cx.arg(idx), out)) {
    cx.reply().error_fmt("ERR need numeric %s", what);
    return false;
  }
  return true;
}

// radius unit
bool distance_args(CommandContext& cx, size_t idx, geo::Shape* s) {
  double r;
  if (!number_arg(cx, idx, "radius", &r)) return false;
  if (r < 0) {
    cx.reply().error("ERR radius cannot be negative");
    return false;
  }
  s->radius = r;
  return unit_arg(cx, idx + 1, &s->conversion);
}

// width height unit
bool box_args(CommandContext& cx, size_t idx, geo::Shape* s) {
  double w, h;
  if (!number_arg(cx, idx, "width", &w) || !number_arg(cx, idx + 1, "height", &h)) return false;
  if (h < 0 || w < 0) {
    cx.reply().error("ERR height or width cannot be negative");
    return false;
  }
  s->width = w;
  s->height = h;
  return unit_arg(cx, idx + 2, &s->conversion);
}

// GEODIST / WITHDIST: four decimals, a bulk string in both protocols.
void reply_distance(CommandContext& cx, double d) {
  char buf[128];
  const int n = snprintf(buf, sizeof buf, "%.4f", d);
  cx.reply().bulk(std::string_view(buf, static_cast<size_t>(n)));
}

// A coordinate: "%.17Lf" with the trailing zeros trimmed; a bulk string (RESP2) or a double.
void reply_coord(CommandContext& cx, double v) {
  char buf[kLongDoubleBufSize];
  const size_t n = format_long_double_human(static_cast<long double>(v), buf, sizeof buf);
  if (cx.reply().resp() == 2) return cx.reply().bulk(std::string_view(buf, n));
  std::string s = ",";
  s.append(buf, n);
  s += "\r\n";
  cx.reply().raw(s);
}

// The position of a member; false when it is not in the zset.
bool member_position(const Object& z, std::string_view member, double* xy) {
  double score;
  if (!ZsetType::score(z, member, &score)) return false;
  geo::decode_score(score, xy);
  return true;
}

// GEOADD key [NX|XX] [CH] longitude latitude member [...]
void cmd_geoadd(CommandContext& cx) {
  bool nx = false, xx = false, ch = false;
  size_t first = 2;
  for (; first < cx.argc(); first++) {
    if (cx.is_arg(first, "nx")) nx = true;
    else if (cx.is_arg(first, "xx")) xx = true;
    else if (cx.is_arg(first, "ch")) ch = true;
    else break;
  }
  if ((cx.argc() - first) % 3 != 0 || (nx && xx)) return cx.reply().error(kErrSyntax);
  const size_t n = (cx.argc() - first) / 3;
  if (n == 0) {
    // What ZADD says to the flags alone (GEOADD key CH CH CH becomes ZADD key CH CH CH).
    return cx.reply().error(kErrSyntax);
  }
  std::vector<uint64_t> scores(n);
  size_t max_len = 0;
  for (size_t i = 0; i < n; i++) {
    double xy[2];
    if (!lonlat_args(cx, first + 3 * i, xy)) return;
    scores[i] = geo::score_of(xy[0], xy[1]);
    max_len = std::max(max_len, cx.arg(first + 3 * i + 2).size());
  }
  Db::Slot slot = cx.db().find_for_write(cx.key(1));
  if (slot && !cx.check_type(slot.obj(), Type::kZset)) return;
  const int flags = (nx ? ZsetType::kNx : 0) | (xx ? ZsetType::kXx : 0);
  size_t added = 0, updated = 0;
  auto apply = [&](Object& o) {
    for (size_t i = 0; i < n; i++) {
      double ns;
      switch (ZsetType::add(o, static_cast<double>(scores[i]), cx.arg(first + 3 * i + 2), flags, &ns)) {
        case ZsetType::AddResult::kAdded: added++; break;
        case ZsetType::AddResult::kUpdated: updated++; break;
        default: break;
      }
    }
  };
  if (!slot) {
    if (xx) return cx.reply().integer(0);
    Object* o = ZsetType::create(cx.arg(1), n, max_len);
    apply(*o);
    cx.db().insert(slot, o);
  } else {
    const int64_t old_len = static_cast<int64_t>(ZsetType::size(*slot));
    ZsetType::maybe_convert(*slot, n);
    apply(*slot);
    if (added || updated) cx.db().length_changed(slot, old_len);
  }
  if (added || updated) {
    cx.notify(kNotifyZset, "zadd", cx.arg(1));
    if (propagating()) {
      // Propagated as ZADD key [flags] score member ...
      std::vector<std::string> text;
      text.reserve(n);
      for (uint64_t s : scores) text.push_back(std::to_string(s));
      std::vector<std::string_view> argv;
      argv.reserve(first + 2 * n);
      argv.push_back("zadd");
      for (size_t i = 1; i < first; i++) argv.push_back(cx.arg(i));
      for (size_t i = 0; i < n; i++) {
        argv.push_back(text[i]);
        argv.push_back(cx.arg(first + 3 * i + 2));
      }
      cx.propagate_as(argv);
    }
  }
  cx.set_dirty(static_cast<int64_t>(added + updated));
  cx.reply().integer(static_cast<int64_t>(ch ? added + updated : added));
}

// GEOPOS key member [member ...]
void cmd_geopos(CommandContext& cx) {
  Object* z = cx.db().find(cx.key(1));
  if (z && !cx.check_type(z, Type::kZset)) return;
  cx.reply().array(cx.argc() - 2);
  for (size_t j = 2; j < cx.argc(); j++) {
    double xy[2];
    if (!z || !member_position(*z, cx.arg(j), xy)) {
      cx.reply().null_array();
      continue;
    }
    cx.reply().array(2);
    reply_coord(cx, xy[0]);
    reply_coord(cx, xy[1]);
  }
}

// GEODIST key member1 member2 [unit]
void cmd_geodist(CommandContext& cx) {
  double to_meters = 1;
  if (cx.argc() == 5) {
    if (!unit_arg(cx, 4, &to_meters)) return;
  } else if (cx.argc() > 5) {
    return cx.reply().error(kErrSyntax);
  }
  Object* z = cx.db().find(cx.key(1));
  if (!z) return cx.reply().null();
  if (!cx.check_type(z, Type::kZset)) return;
  double a[2], b[2];
  if (!member_position(*z, cx.arg(2), a) || !member_position(*z, cx.arg(3), b)) return cx.reply().null();
  reply_distance(cx, geo::distance(a[0], a[1], b[0], b[1]) / to_meters);
}

// GEOHASH key [member ...]
void cmd_geohash(CommandContext& cx) {
  Object* z = cx.db().find(cx.key(1));
  if (z && !cx.check_type(z, Type::kZset)) return;
  cx.reply().array(cx.argc() - 2);
  for (size_t j = 2; j < cx.argc(); j++) {
    double score;
    if (!z || !ZsetType::score(*z, cx.arg(j), &score)) {
      cx.reply().null();
      continue;
    }
    char buf[11];
    geo::standard_geohash(score, buf);
    cx.reply().bulk(std::string_view(buf, 11));
  }
}

// ---- searches ---------------------------------------------------------------------------------

enum SearchFlags : unsigned {
  kByCoords = 1,       // GEORADIUS[_RO] key lon lat radius unit
  kByMember = 2,       // GEORADIUSBYMEMBER[_RO] key member radius unit
  kSearch = 4,         // GEOSEARCH key / GEOSEARCHSTORE dst key
  kSearchStore = 8,
  kNoStore = 16,       // the _RO forms
};

// A match; its member's bytes are in Matches::names (a listpack integer member is formatted
// into a temporary buffer, so the zset's own bytes cannot be referenced), one buffer for all.
struct GeoPoint {
  double lon, lat, dist, score;
  size_t name_off;
  uint32_t name_len;
};

struct Matches {
  std::vector<GeoPoint> points;
  std::string names;
  std::string_view member(const GeoPoint& p) const { return {names.data() + p.name_off, p.name_len}; }
};

struct Collector {
  const geo::Shape* shape;
  Matches* out;
  static void emit(void* ctx, std::string_view member, double score) {
    auto* c = static_cast<Collector*>(ctx);
    double xy[2], dist = 0;
    geo::decode_score(score, xy);
    if (!geo::within(*c->shape, xy[0], xy[1], &dist)) return;
    c->out->points.push_back(GeoPoint{xy[0], xy[1], dist, score, c->out->names.size(),
                                      static_cast<uint32_t>(member.size())});
    c->out->names.append(member);
  }
};

// Scans the cells of the shape in Redis's order, stopping once `limit` points (0: no limit)
// were found, as COUNT ANY does.
void collect(const Object& z, geo::Shape shape, size_t limit, Matches* found) {
  std::vector<GeoPoint>* out = &found->points;
  const geo::SearchAreas areas = geo::areas_for(shape);
  geo::set_centre_cos(&shape);  // once, not per candidate
  int last = 0;
  for (int i = 0; i < 9; i++) {
    const geo::Bits& cell = areas.cells[i];
    if (cell.zero()) continue;
    // A huge radius can make adjacent neighbours the same cell: skip a repeat of the last one
    // scanned (Redis compares with the last scanned only, and never with the centre).
    if (last && cell.bits == areas.cells[last].bits && cell.step == areas.cells[last].step) continue;
    if (!out->empty() && limit && out->size() >= limit) break;
    uint64_t min, max;
    geo::score_range(cell, &min, &max);
    ZsetRange r;
    r.min = static_cast<double>(min);
    r.max = static_cast<double>(max);
    r.maxex = true;
    Collector c{&shape, found};
    ZsetType::range_by_score(z, r, false, 0, -1, &Collector::emit, &c);
    if (limit && out->size() > limit) out->resize(limit);
    last = i;
  }
}

void search_generic(CommandContext& cx, unsigned flags) {
  const size_t src_idx = (flags & kSearchStore) ? 2 : 1;
  Object* z = cx.db().find(cx.key(src_idx));
  if (z && !cx.check_type(z, Type::kZset)) return;

  geo::Shape shape;
  size_t base;
  if (flags & kByCoords) {
    base = 6;
    double xy[2];
    if (!lonlat_args(cx, 2, xy)) return;
    shape.lon = xy[0];
    shape.lat = xy[1];
    if (!distance_args(cx, 4, &shape)) return;
  } else if (flags & kByMember) {
    base = 5;
    if (z) {
      double xy[2];
      if (!member_position(*z, cx.arg(2), xy)) return cx.reply().error("ERR could not decode requested zset member");
      shape.lon = xy[0];
      shape.lat = xy[1];
      if (!distance_args(cx, 3, &shape)) return;
    }
  } else {
    base = (flags & kSearchStore) ? 3 : 2;
  }

  bool withdist = false, withhash = false, withcoord = false, any = false;
  bool frommember = false, fromloc = false, byradius = false, bybox = false;
  bool storedist = false;
  int sort = 0;  // 0 none, 1 asc, -1 desc
  int64_t count = 0;
  size_t store_idx = 0;
  const size_t argc = cx.argc();
  for (size_t i = base; i < argc; i++) {
    const size_t rest = argc - i - 1;  // arguments after this one
    if (cx.is_arg(i, "withdist")) {
      withdist = true;
    } else if (cx.is_arg(i, "withhash")) {
      withhash = true;
    } else if (cx.is_arg(i, "withcoord")) {
      withcoord = true;
    } else if (cx.is_arg(i, "any")) {
      any = true;
    } else if (cx.is_arg(i, "asc")) {
      sort = 1;
    } else if (cx.is_arg(i, "desc")) {
      sort = -1;
    } else if (cx.is_arg(i, "count") && rest >= 1) {
      if (!cx.int_arg(i + 1, &count)) return;
      if (count <= 0) return cx.reply().error("ERR COUNT must be > 0");
      i++;
    } else if (cx.is_arg(i, "store") && rest >= 1 && !(flags & (kNoStore | kSearch))) {
      store_idx = i + 1;
      storedist = false;
      i++;
    } else if (cx.is_arg(i, "storedist") && rest >= 1 && !(flags & (kNoStore | kSearch))) {
      store_idx = i + 1;
      storedist = true;
      i++;
    } else if (cx.is_arg(i, "storedist") && (flags & kSearchStore)) {
      storedist = true;
    } else if (cx.is_arg(i, "frommember") && rest >= 1 && (flags & kSearch) && !fromloc) {
      if (z) {
        double xy[2];
        if (!member_position(*z, cx.arg(i + 1), xy)) return cx.reply().error("ERR could not decode requested zset member");
        shape.lon = xy[0];
        shape.lat = xy[1];
      }
      frommember = true;
      i++;
    } else if (cx.is_arg(i, "fromlonlat") && rest >= 2 && (flags & kSearch) && !frommember) {
      double xy[2];
      if (!lonlat_args(cx, i + 1, xy)) return;
      shape.lon = xy[0];
      shape.lat = xy[1];
      fromloc = true;
      i += 2;
    } else if (cx.is_arg(i, "byradius") && rest >= 2 && (flags & kSearch) && !bybox) {
      if (!distance_args(cx, i + 1, &shape)) return;
      shape.box = false;
      byradius = true;
      i += 2;
    } else if (cx.is_arg(i, "bybox") && rest >= 3 && (flags & kSearch) && !byradius) {
      if (!box_args(cx, i + 1, &shape)) return;
      shape.box = true;
      bybox = true;
      i += 3;
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }
  const bool storing = store_idx != 0 || (flags & kSearchStore);
  if (flags & kSearchStore) store_idx = 1;
  const std::string name(cx.arg(0).substr(0, cx.arg(0).find('\0')));
  if (storing && (withdist || withhash || withcoord)) {
    return cx.reply().error_fmt("ERR %s is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
                                (flags & kSearchStore) ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS");
  }
  if ((flags & kSearch) && !(frommember || fromloc)) {
    return cx.reply().error_fmt("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for %s", name.c_str());
  }
  if ((flags & kSearch) && !(byradius || bybox)) {
    return cx.reply().error_fmt("ERR exactly one of BYRADIUS and BYBOX can be specified for %s", name.c_str());
  }
  if (any && !count) return cx.reply().error("ERR the ANY argument requires COUNT argument");

  if (!z) {
    if (!storing) return cx.reply().array(0);
    Db::Slot slot = cx.db().find_for_write(cx.key(store_idx));
    if (slot) {
      cx.db().remove(slot);
      cx.notify(kNotifyGeneric, "del", cx.arg(store_idx));
    }
    return cx.reply().integer(0);
  }
  // COUNT without an order returns the nearest ones.
  if (count != 0 && sort == 0 && !any) sort = 1;

  Matches found;
  collect(*z, shape, any ? static_cast<size_t>(count) : 0, &found);
  std::vector<GeoPoint>& points = found.points;
  if (points.empty() && !storing) return cx.reply().array(0);
  const size_t returned =
      (count == 0 || points.size() < static_cast<uint64_t>(count)) ? points.size() : static_cast<size_t>(count);
  if (sort == 1) {
    std::stable_sort(points.begin(), points.end(), [](const GeoPoint& a, const GeoPoint& b) { return a.dist < b.dist; });
  } else if (sort == -1) {
    std::stable_sort(points.begin(), points.end(), [](const GeoPoint& a, const GeoPoint& b) { return a.dist > b.dist; });
  }

  if (!storing) {
    const size_t options = (withdist ? 1 : 0) + (withcoord ? 1 : 0) + (withhash ? 1 : 0);
    cx.reply().array(returned);
    for (size_t i = 0; i < returned; i++) {
      const GeoPoint& p = points[i];
      if (options) cx.reply().array(options + 1);
      cx.reply().bulk(found.member(p));
      if (withdist) reply_distance(cx, p.dist / shape.conversion);
      if (withhash) cx.reply().integer(static_cast<int64_t>(p.score));
      if (withcoord) {
        cx.reply().array(2);
        reply_coord(cx, p.lon);
        reply_coord(cx, p.lat);
      }
    }
    return;
  }
  const std::string_view dst = cx.arg(store_idx);
  Db::Slot slot = cx.db().find_for_write(cx.key(store_idx));
  if (returned == 0) {
    if (slot) {
      cx.db().remove(slot);
      cx.notify(kNotifyGeneric, "del", dst);
    }
    return cx.reply().integer(0);
  }
  ZsetAccumulator acc;
  acc.reserve(returned);
  for (size_t i = 0; i < returned; i++) {
    bool created;
    acc.upsert(found.member(points[i]), storedist ? points[i].dist / shape.conversion : points[i].score, &created);
  }
  Object* o = acc.build(dst);
  if (slot) {
    cx.db().overwrite(slot, o);
  } else {
    cx.db().insert(slot, o);
  }
  cx.notify(kNotifyZset, (flags & kSearch) ? "geosearchstore" : "georadiusstore", dst);
  cx.set_dirty(static_cast<int64_t>(returned));
  cx.reply().integer(static_cast<int64_t>(returned));
}

void cmd_georadius(CommandContext& cx) { search_generic(cx, kByCoords); }
void cmd_georadius_ro(CommandContext& cx) { search_generic(cx, kByCoords | kNoStore); }
void cmd_georadiusbymember(CommandContext& cx) { search_generic(cx, kByMember); }
void cmd_georadiusbymember_ro(CommandContext& cx) { search_generic(cx, kByMember | kNoStore); }
void cmd_geosearch(CommandContext& cx) { search_generic(cx, kSearch); }
void cmd_geosearchstore(CommandContext& cx) { search_generic(cx, kSearch | kSearchStore); }

constexpr uint32_t kRW = kWrite | kDenyOom;
constexpr const char* kRadiusComplexity =
    "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.";
constexpr const char* kSearchComplexity =
    "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape";

CommandSpec kGeoCommands[] = {
    {.name = "geoadd", .handler = cmd_geoadd, .arity = -5, .flags = kRW, .acl = kAclGeo, .group = "geo",
     .summary = "Add one or more geospatial items in the geospatial index represented using a sorted set", .since = "3.2.0",
     .complexity = "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
     .keys = {ks(kKsRW | kKsUpdate)}},
    {.name = "geopos", .handler = cmd_geopos, .arity = -2, .flags = kReadOnly, .acl = kAclGeo, .group = "geo",
     .summary = "Returns longitude and latitude of members of a geospatial index", .since = "3.2.0",
     .complexity = "O(N) where N is the number of members requested.",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "geodist", .handler = cmd_geodist, .arity = -4, .flags = kReadOnly, .acl = kAclGeo, .group = "geo",
     .summary = "Returns the distance between two members of a geospatial index", .since = "3.2.0", .complexity = "O(log(N))",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "geohash", .handler = cmd_geohash, .arity = -2, .flags = kReadOnly, .acl = kAclGeo, .group = "geo",
     .summary = "Returns members of a geospatial index as standard geohash strings", .since = "3.2.0",
     .complexity = "O(log(N)) for each member requested, where N is the number of elements in the sorted set.",
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "geosearch", .handler = cmd_geosearch, .arity = -7, .flags = kReadOnly, .acl = kAclGeo, .group = "geo",
     .summary = "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle.",
     .since = "6.2.0", .complexity = kSearchComplexity,
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "geosearchstore", .handler = cmd_geosearchstore, .arity = -8, .flags = kRW, .acl = kAclGeo, .group = "geo",
     .summary = "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle, and store the result in another key.",
     .since = "6.2.0", .complexity = kSearchComplexity,
     .keys = {ks(kKsOW | kKsUpdate), ks(kKsRO | kKsAccess, 2)}},
    {.name = "georadius", .handler = cmd_georadius, .arity = -6, .flags = kRW, .acl = kAclGeo, .group = "geo",
     .summary = "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a point",
     .since = "3.2.0", .complexity = kRadiusComplexity,
     .keys = {ks(kKsRO | kKsAccess), ks(kKsOW | kKsUpdate, bs_keyword("STORE", 6), fk_range()),
              ks(kKsOW | kKsUpdate, bs_keyword("STOREDIST", 6), fk_range())}},
    {.name = "georadius_ro", .handler = cmd_georadius_ro, .arity = -6, .flags = kReadOnly, .acl = kAclGeo, .group = "geo",
     .summary = "A read-only variant for GEORADIUS", .since = "3.2.10", .complexity = kRadiusComplexity,
     .keys = {ks(kKsRO | kKsAccess)}},
    {.name = "georadiusbymember", .handler = cmd_georadiusbymember, .arity = -5, .flags = kRW, .acl = kAclGeo, .group = "geo",
     .summary = "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a member",
     .since = "3.2.0", .complexity = kRadiusComplexity,
     .keys = {ks(kKsRO | kKsAccess), ks(kKsOW | kKsUpdate, bs_keyword("STORE", 5), fk_range()),
              ks(kKsOW | kKsUpdate, bs_keyword("STOREDIST", 5), fk_range())}},
    {.name = "georadiusbymember_ro", .handler = cmd_georadiusbymember_ro, .arity = -5, .flags = kReadOnly, .acl = kAclGeo, .group = "geo",
     .summary = "A read-only variant for GEORADIUSBYMEMBER", .since = "3.2.10", .complexity = kRadiusComplexity,
     .keys = {ks(kKsRO | kKsAccess)}},
};

}  // namespace

std::span<CommandSpec> geo_commands() { return kGeoCommands; }

}  // namespace keel
