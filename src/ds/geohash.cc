// Geohash cells, distances and search areas (see geohash.h). The order of floating-point
// operations is part of the format: GEODIST, WITHDIST and WITHCOORD print these doubles.
#include "ds/geohash.h"

#include <cmath>

namespace keel::geo {
namespace {

constexpr double kDegToRad = M_PI / 180.0;
constexpr double kMercatorMax = 20037726.37;
constexpr Range kLonRange{kLonMin, kLonMax};
constexpr Range kLatRange{kLatMin, kLatMax};

inline double deg_rad(double d) { return d * kDegToRad; }
inline double rad_deg(double r) { return r / kDegToRad; }

// Spreads the 32 bits of v to the even bit positions of a 64-bit word.
uint64_t spread(uint32_t v) {
  uint64_t x = v;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x << 2)) & 0x3333333333333333ULL;
  x = (x | (x << 1)) & 0x5555555555555555ULL;
  return x;
}
// The even bits of x packed into 32 bits.
uint32_t squash(uint64_t x) {
  x &= 0x5555555555555555ULL;
  x = (x | (x >> 1)) & 0x3333333333333333ULL;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
  return static_cast<uint32_t>(x);
}
// Latitude index in the even bits, longitude index in the odd bits.
uint64_t interleave(uint32_t lat, uint32_t lon) { return spread(lat) | (spread(lon) << 1); }

// Moves a cell one step east/west (dx) or north/south (dy), wrapping around the grid.
void move_x(Bits* h, int d) {
  if (d == 0) return;
  uint64_t x = h->bits & 0xaaaaaaaaaaaaaaaaULL;
  const uint64_t y = h->bits & 0x5555555555555555ULL;
  const uint64_t zz = 0x5555555555555555ULL >> (64 - h->step * 2);
  if (d > 0) {
    x = x + (zz + 1);
  } else {
    x = x | zz;
    x = x - (zz + 1);
  }
  x &= (0xaaaaaaaaaaaaaaaaULL >> (64 - h->step * 2));
  h->bits = x | y;
}
void move_y(Bits* h, int d) {
  if (d == 0) return;
  const uint64_t x = h->bits & 0xaaaaaaaaaaaaaaaaULL;
  uint64_t y = h->bits & 0x5555555555555555ULL;
  const uint64_t zz = 0xaaaaaaaaaaaaaaaaULL >> (64 - h->step * 2);
  if (d > 0) {
    y = y + (zz + 1);
  } else {
    y = y | zz;
    y = y - (zz + 1);
  }
  y &= (0x5555555555555555ULL >> (64 - h->step * 2));
  h->bits = x | y;
}
Bits moved(Bits h, int dx, int dy) {
  move_x(&h, dx);
  move_y(&h, dy);
  return h;
}

// The value x86-64 code compiled from C gives for (uint64_t)score: scores come from any sorted
// set, so negative and huge values must decode the same way Redis does.
uint64_t score_bits(double score) {
  constexpr double k2p63 = 9223372036854775808.0;
  if (std::isnan(score)) return 0x8000000000000000ULL;
  if (score < k2p63) {
    if (score <= -k2p63) return 0x8000000000000000ULL;
    return static_cast<uint64_t>(static_cast<int64_t>(score));
  }
  const double rest = score - k2p63;
  if (rest >= k2p63) return 0;  // the conversion's "indefinite" value xor the high bit
  return static_cast<uint64_t>(static_cast<int64_t>(rest)) ^ 0x8000000000000000ULL;
}

int steps_for_radius(double range_meters, double lat) {
  if (range_meters == 0) return 26;
  int step = 1;
  while (range_meters < kMercatorMax) {
    range_meters *= 2;
    step++;
  }
  step -= 2;  // so that the range is inside the 9 cells in most cases
  // Cells narrow towards the poles.
  if (lat > 66 || lat < -66) {
    step--;
    if (lat > 80 || lat < -80) step--;
  }
  if (step < 1) step = 1;
  if (step > 26) step = 26;
  return step;
}

}  // namespace

bool encode(Range lon_r, Range lat_r, double lon, double lat, int step, Bits* out) {
  if (step > 32 || step == 0) return false;
  if (lon > kLonMax || lon < kLonMin || lat > kLatMax || lat < kLatMin) return false;
  out->bits = 0;
  out->step = static_cast<uint8_t>(step);
  if (lat < lat_r.min || lat > lat_r.max || lon < lon_r.min || lon > lon_r.max) return false;
  double lat_off = (lat - lat_r.min) / (lat_r.max - lat_r.min);
  double lon_off = (lon - lon_r.min) / (lon_r.max - lon_r.min);
  lat_off *= static_cast<double>(1ULL << step);
  lon_off *= static_cast<double>(1ULL << step);
  out->bits = interleave(static_cast<uint32_t>(lat_off), static_cast<uint32_t>(lon_off));
  return true;
}

bool decode(Range lon_r, Range lat_r, Bits h, Area* out) {
  if (h.zero()) return false;
  out->hash = h;
  const uint32_t ilat = squash(h.bits);
  const uint32_t ilon = squash(h.bits >> 1);
  const double lat_scale = lat_r.max - lat_r.min;
  const double lon_scale = lon_r.max - lon_r.min;
  const double cells = static_cast<double>(1ULL << h.step);
  out->lat.min = lat_r.min + (ilat * 1.0 / cells) * lat_scale;
  out->lat.max = lat_r.min + ((ilat + 1) * 1.0 / cells) * lat_scale;
  out->lon.min = lon_r.min + (ilon * 1.0 / cells) * lon_scale;
  out->lon.max = lon_r.min + ((ilon + 1) * 1.0 / cells) * lon_scale;
  return true;
}

uint64_t score_of(double lon, double lat) {
  Bits h;
  encode(kLonRange, kLatRange, lon, lat, kStepMax, &h);
  return h.bits << (52 - kStepMax * 2);
}

void decode_score(double score, double* xy) {
  // decode() with the step known here: the divisions by 2^26 become exact multiplications, the
  // values are the same bits. (A zero score decodes too: its step is not zero.)
  const uint64_t bits = score_bits(score);
  const uint32_t ilat = squash(bits);
  const uint32_t ilon = squash(bits >> 1);
  constexpr double kCells = static_cast<double>(1ULL << kStepMax);
  const double lat_scale = kLatRange.max - kLatRange.min;
  const double lon_scale = kLonRange.max - kLonRange.min;
  Area a;
  a.lat.min = kLatRange.min + (ilat * 1.0 / kCells) * lat_scale;
  a.lat.max = kLatRange.min + ((ilat + 1) * 1.0 / kCells) * lat_scale;
  a.lon.min = kLonRange.min + (ilon * 1.0 / kCells) * lon_scale;
  a.lon.max = kLonRange.min + ((ilon + 1) * 1.0 / kCells) * lon_scale;
  xy[0] = (a.lon.min + a.lon.max) / 2;
  if (xy[0] > kLonMax) xy[0] = kLonMax;
  if (xy[0] < kLonMin) xy[0] = kLonMin;
  xy[1] = (a.lat.min + a.lat.max) / 2;
  if (xy[1] > kLatMax) xy[1] = kLatMax;
  if (xy[1] < kLatMin) xy[1] = kLatMin;
}

void standard_geohash(double score, char out[11]) {
  static const char kAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  double xy[2];
  decode_score(score, xy);
  Bits h;
  encode(Range{-180, 180}, Range{-90, 90}, xy[0], xy[1], 26, &h);
  for (int i = 0; i < 11; i++) {
    // 52 bits make 10.4 characters: the 11th is always '0', as Redis prints it.
    const int idx = i == 10 ? 0 : static_cast<int>((h.bits >> (52 - ((i + 1) * 5))) & 0x1f);
    out[i] = kAlphabet[idx];
  }
}

double lat_distance(double lat1, double lat2) {
  return kEarthRadius * std::fabs(deg_rad(lat2) - deg_rad(lat1));
}

namespace {
// distance() with cos(lat1 in radians) given: the same operations in the same order.
double distance_cos1(double lon1, double lat1, double cos_lat1r, double lon2, double lat2) {
  const double lon1r = deg_rad(lon1);
  const double lon2r = deg_rad(lon2);
  const double v = std::sin((lon2r - lon1r) / 2);
  // Same meridian: the latitude difference alone, without the trigonometry.
  if (v == 0.0) return lat_distance(lat1, lat2);
  const double lat1r = deg_rad(lat1);
  const double lat2r = deg_rad(lat2);
  const double u = std::sin((lat2r - lat1r) / 2);
  const double a = u * u + cos_lat1r * std::cos(lat2r) * v * v;
  return 2.0 * kEarthRadius * std::asin(std::sqrt(a));
}

double centre_cos(const Shape& s) { return std::isnan(s.lat_cos) ? std::cos(deg_rad(s.lat)) : s.lat_cos; }
}  // namespace

double distance(double lon1, double lat1, double lon2, double lat2) {
  return distance_cos1(lon1, lat1, std::cos(deg_rad(lat1)), lon2, lat2);
}

void set_centre_cos(Shape* s) { s->lat_cos = std::cos(deg_rad(s->lat)); }

bool within(const Shape& s, double lon, double lat, double* dist) {
  if (!s.box) {
    const double r = s.radius * s.conversion;
    // The great-circle distance is never below the latitude difference's arc, so a point that
    // is farther than the radius in latitude alone is out without the trigonometry. The margin
    // (a micrometre, and a billionth) is far above the rounding of both computations, so a
    // point the full formula would put inside is never refused here.
    if (lat_distance(s.lat, lat) > r * (1 + 1e-9) + 1e-6) return false;
    *dist = distance_cos1(s.lon, s.lat, centre_cos(s), lon, lat);
    return *dist <= r;
  }
  const double w = s.width * s.conversion, h = s.height * s.conversion;
  // Latitude first: cheaper, and it rejects most points outside the box.
  if (lat_distance(lat, s.lat) > h / 2) return false;
  if (distance(lon, lat, s.lon, lat) > w / 2) return false;
  *dist = distance_cos1(s.lon, s.lat, centre_cos(s), lon, lat);
  return true;
}

SearchAreas areas_for(const Shape& s) {
  // Bounding box of the shape.
  const double height = s.conversion * (s.box ? s.height / 2 : s.radius);
  const double width = s.conversion * (s.box ? s.width / 2 : s.radius);
  const double lat_delta = rad_deg(height / kEarthRadius);
  const double lon_delta_top = rad_deg(width / kEarthRadius / std::cos(deg_rad(s.lat + lat_delta)));
  const double lon_delta_bottom = rad_deg(width / kEarthRadius / std::cos(deg_rad(s.lat - lat_delta)));
  // The widest parallel is the one nearer the equator.
  const bool south = s.lat < 0;
  const double min_lon = south ? s.lon - lon_delta_bottom : s.lon - lon_delta_top;
  const double max_lon = south ? s.lon + lon_delta_bottom : s.lon + lon_delta_top;
  const double min_lat = s.lat - lat_delta;
  const double max_lat = s.lat + lat_delta;

  double radius_m = s.box ? std::sqrt((s.width / 2) * (s.width / 2) + (s.height / 2) * (s.height / 2)) : s.radius;
  radius_m *= s.conversion;
  int steps = steps_for_radius(radius_m, s.lat);

  Bits h;
  Area area;
  Bits nb[8];  // N S E W NE NW SE SW
  auto neighbours = [&] {
    nb[0] = moved(h, 0, 1);
    nb[1] = moved(h, 0, -1);
    nb[2] = moved(h, 1, 0);
    nb[3] = moved(h, -1, 0);
    nb[4] = moved(h, 1, 1);
    nb[5] = moved(h, -1, 1);
    nb[6] = moved(h, 1, -1);
    nb[7] = moved(h, -1, -1);
  };
  encode(kLonRange, kLatRange, s.lon, s.lat, steps, &h);
  neighbours();
  decode(kLonRange, kLatRange, h, &area);

  // Near the edge of its cell the shape may reach past a neighbour: one step coarser then.
  bool decrease = false;
  {
    Area n, so, e, w;
    decode(kLonRange, kLatRange, nb[0], &n);
    decode(kLonRange, kLatRange, nb[1], &so);
    decode(kLonRange, kLatRange, nb[2], &e);
    decode(kLonRange, kLatRange, nb[3], &w);
    if (n.lat.max < max_lat) decrease = true;
    if (so.lat.min > min_lat) decrease = true;
    if (e.lon.max < max_lon) decrease = true;
    if (w.lon.min > min_lon) decrease = true;
  }
  if (steps > 1 && decrease) {
    steps--;
    encode(kLonRange, kLatRange, s.lon, s.lat, steps, &h);
    neighbours();
    decode(kLonRange, kLatRange, h, &area);
  }
  // Drop the neighbours the bounding box cannot reach.
  if (steps >= 2) {
    const Bits z{};
    if (area.lat.min < min_lat) nb[1] = nb[7] = nb[6] = z;
    if (area.lat.max > max_lat) nb[0] = nb[4] = nb[5] = z;
    if (area.lon.min < min_lon) nb[3] = nb[7] = nb[5] = z;
    if (area.lon.max > max_lon) nb[2] = nb[6] = nb[4] = z;
  }
  SearchAreas out;
  out.cells[0] = h;
  for (int i = 0; i < 8; i++) out.cells[i + 1] = nb[i];
  return out;
}

void score_range(Bits h, uint64_t* min, uint64_t* max) {
  *min = h.bits << (52 - h.step * 2);
  *max = (h.bits + 1) << (52 - h.step * 2);
}

}  // namespace keel::geo
