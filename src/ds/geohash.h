// Geohash as Redis's geo commands use it: a point is the cell of a 2^26 x 2^26 grid over
// longitude [-180, 180] and latitude [-85.05112878, 85.05112878] (the Web Mercator limits),
// stored as a sorted-set score: the 52-bit interleave of the cell's latitude index (even bits)
// and longitude index (odd bits). A score decodes to the centre of its cell, so GEOPOS and
// distances are those of the centre. Distances are haversine on a sphere of radius
// 6372797.560856 m. A search covers the cell around the centre at a step chosen from the radius
// and its 8 neighbours (some dropped when the shape cannot reach them), each a score range.
// Everything is plain double arithmetic in a fixed order, so results match Redis to the digit.
#pragma once
#include <cstdint>

namespace keel::geo {

inline constexpr double kLonMin = -180;
inline constexpr double kLonMax = 180;
inline constexpr double kLatMin = -85.05112878;
inline constexpr double kLatMax = 85.05112878;
inline constexpr int kStepMax = 26;
inline constexpr double kEarthRadius = 6372797.560856;

struct Range {
  double min, max;
};
struct Bits {
  uint64_t bits = 0;
  uint8_t step = 0;
  bool zero() const { return bits == 0 && step == 0; }
};
struct Area {
  Bits hash;
  Range lon, lat;
};

// The cell of (lon, lat) at `step` bits per coordinate within the given ranges. False when the
// point is outside the ranges or the Web Mercator limits.
bool encode(Range lon_r, Range lat_r, double lon, double lat, int step, Bits* out);
// The cell's bounds.
bool decode(Range lon_r, Range lat_r, Bits h, Area* out);
// A 52-bit score for (lon, lat) (GEOADD); the point must be valid.
uint64_t score_of(double lon, double lat);
// The centre of the step-26 cell of a score, clamped to the limits: xy[0] lon, xy[1] lat.
void decode_score(double score, double* xy);
// GEOHASH's 11-character standard geohash (latitude over [-90, 90]) of a stored score.
void standard_geohash(double score, char out[11]);

double distance(double lon1, double lat1, double lon2, double lat2);  // meters
double lat_distance(double lat1, double lat2);

// A search shape: centre, radius or box (in the request's unit) and the unit's meters.
struct Shape {
  bool box = false;
  double lon = 0, lat = 0;
  double radius = 0;          // circle
  double width = 0, height = 0;  // box
  double conversion = 1;      // meters per unit
  // cos() of the centre's latitude in radians when known (set_centre_cos): a search calls
  // within() for every candidate with the same centre. NaN: within() computes it each time.
  double lat_cos = __builtin_nan("");
};
// Fills s->lat_cos (the very value distance() computes, so results do not change).
void set_centre_cos(Shape* s);
// True when the point is inside the shape; *dist is its distance from the centre in meters.
bool within(const Shape& s, double lon, double lat, double* dist);

// The areas to scan, in Redis's order: centre, N, S, E, W, NE, NW, SE, SW; zero() ones are
// skipped, as is one equal to the last scanned.
struct SearchAreas {
  Bits cells[9];
};
SearchAreas areas_for(const Shape& s);
// The score range [min, max) of a cell.
void score_range(Bits h, uint64_t* min, uint64_t* max);

}  // namespace keel::geo
