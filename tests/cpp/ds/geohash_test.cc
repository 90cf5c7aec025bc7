// Tests for ds/geohash.h: scores, positions, geohash strings and distances as Debian's
// redis-server 7.0.15 gives them (GEOADD then ZSCORE / GEOPOS / GEOHASH / GEODIST), the
// encode/decode round trip (a point lies in its own cell), neighbour moves, and the areas a
// search scans (they cover the circle, away from the poles).
#include "ds/geohash.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace keel {
namespace {

std::string coord(double v) {
  char b[64];
  snprintf(b, sizeof b, "%.17Lf", static_cast<long double>(v));
  std::string s = b;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

TEST(Geohash, ScoresPositionsAndHashesAsRedis) {
  // GEOADD G 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
  EXPECT_EQ(geo::score_of(13.361389, 38.115556), 3479099956230698ULL);
  EXPECT_EQ(geo::score_of(15.087269, 37.502669), 3479447370796909ULL);
  double xy[2];
  geo::decode_score(3479099956230698.0, xy);
  EXPECT_EQ(coord(xy[0]), "13.36138933897018433");
  EXPECT_EQ(coord(xy[1]), "38.11555639549629859");
  double c[2];
  geo::decode_score(3479447370796909.0, c);
  EXPECT_EQ(coord(c[0]), "15.08726745843887329");
  EXPECT_EQ(coord(c[1]), "37.50266842333162032");
  char h[11];
  geo::standard_geohash(3479099956230698.0, h);
  EXPECT_EQ(std::string(h, 11), "sqc8b49rny0");
  geo::standard_geohash(3479447370796909.0, h);
  EXPECT_EQ(std::string(h, 11), "sqdtr74hyu0");
  char d[32];
  snprintf(d, sizeof d, "%.4f", geo::distance(xy[0], xy[1], c[0], c[1]));
  EXPECT_STREQ(d, "166274.1516");
  snprintf(d, sizeof d, "%.4f", geo::distance(xy[0], xy[1], c[0], c[1]) / 1609.34);
  EXPECT_STREQ(d, "103.3182");
  // GEOADD xx ch 1 1 New -> 3377822707026402; GEOADD 15 37 -> 3476504601741708
  EXPECT_EQ(geo::score_of(1, 1), 3377822707026402ULL);
  EXPECT_EQ(geo::score_of(15, 37), 3476504601741708ULL);
}

TEST(Geohash, PointsDecodeInsideTheirCell) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> lon(geo::kLonMin, geo::kLonMax), lat(geo::kLatMin, geo::kLatMax);
  const double cell_lon = 360.0 / (1 << 26), cell_lat = (geo::kLatMax - geo::kLatMin) / (1 << 26);
  for (int i = 0; i < 100000; i++) {
    const double x = lon(rng), y = lat(rng);
    const uint64_t s = geo::score_of(x, y);
    ASSERT_LT(s, uint64_t{1} << 52);
    double xy[2];
    geo::decode_score(static_cast<double>(s), xy);
    ASSERT_LE(std::fabs(xy[0] - x), cell_lon / 2 + 1e-12);
    ASSERT_LE(std::fabs(xy[1] - y), cell_lat / 2 + 1e-12);
    // the centre encodes to the same cell
    ASSERT_EQ(geo::score_of(xy[0], xy[1]), s);
  }
}

TEST(Geohash, DistanceProperties) {
  EXPECT_EQ(geo::distance(10, 20, 10, 20), 0.0);
  EXPECT_DOUBLE_EQ(geo::distance(0, 0, 0, 1), geo::lat_distance(0, 1));
  // Half the circumference between antipodes on the equator.
  EXPECT_NEAR(geo::distance(0, 0, 180, 0), M_PI * geo::kEarthRadius, 1e-6);
  EXPECT_DOUBLE_EQ(geo::distance(1, 2, 3, 4), geo::distance(3, 4, 1, 2));
}

// within() for a circle (its latitude pre-check and the centre's cosine computed once) decides
// exactly as `distance() <= radius` and reports the very same distance, also for points on the
// border (the radius set to a point's own distance, and one ulp either side) and on the centre's
// meridian or parallel.
// decode_score (the step fixed at 26) gives the very doubles the general decode() gives, for
// scores from 0 to 2^64 (beyond the 52 geohash bits too).
TEST(Geohash, DecodeScoreIsGeneralDecode) {
  std::mt19937_64 rng(31);
  std::vector<double> scores = {0.0, 1.0, 4503599627370495.0, 4503599627370496.0, 18446744073709549568.0};
  for (int i = 0; i < 20000; i++) scores.push_back(static_cast<double>(rng() >> (i % 20)));
  for (double sc : scores) {
    double xy[2];
    geo::decode_score(sc, xy);
    // The general path: the score's bits at step 26, both cell edges, their middle, clamped.
    // (Negative and 2^64+ scores have no C++ conversion to compare with: the Tcl tests and
    // ScoresPositionsAndHashesAsRedis cover them.)
    if (sc < 0 || sc >= 18446744073709551616.0) continue;
    const auto bits = static_cast<uint64_t>(sc);
    geo::Area a;
    ASSERT_TRUE(geo::decode(geo::Range{geo::kLonMin, geo::kLonMax}, geo::Range{geo::kLatMin, geo::kLatMax},
                            geo::Bits{bits, 26}, &a));
    const double lon = std::clamp((a.lon.min + a.lon.max) / 2, geo::kLonMin, geo::kLonMax);
    const double lat = std::clamp((a.lat.min + a.lat.max) / 2, geo::kLatMin, geo::kLatMax);
    ASSERT_EQ(xy[0], lon) << sc;
    ASSERT_EQ(xy[1], lat) << sc;
  }
}

TEST(Geohash, CircleWithinIsDistanceTest) {
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> lon(-179, 179), lat(-85, 85), off(-0.05, 0.05), r(1, 20000);
  for (int i = 0; i < 20000; i++) {
    geo::Shape s;
    s.lon = lon(rng);
    s.lat = lat(rng);
    if (i % 2) geo::set_centre_cos(&s);
    double plon = s.lon + off(rng), plat = std::clamp(s.lat + off(rng), geo::kLatMin, geo::kLatMax);
    if (i % 7 == 0) plon = s.lon;
    if (i % 11 == 0) plat = s.lat;
    const double d = geo::distance(s.lon, s.lat, plon, plat);
    const int kind = i % 4;
    s.radius = kind == 0 ? r(rng) : kind == 1 ? d : kind == 2 ? std::nextafter(d, 0.0) : std::nextafter(d, 1e9);
    if (i % 3 == 0) {  // in kilometres: the comparison is with radius * conversion
      s.conversion = 1000;
      s.radius /= 1000;
    }
    double got = -1;
    const bool in = geo::within(s, plon, plat, &got);
    ASSERT_EQ(in, d <= s.radius * s.conversion) << i;
    if (in) {
      ASSERT_EQ(got, d) << i;
    }
  }
}

TEST(Geohash, SearchAreasCoverTheShape) {
  std::mt19937_64 rng(9);
  // Away from the poles: near them Redis's cell choice can miss part of a large circle (it does
  // on redis-server too: GEOSEARCH from -109.34,79.64 within 1222 km misses -66.66,80.12), and
  // Keel keeps Redis's choice.
  std::uniform_real_distribution<double> lon(-179, 179), lat(-60, 60), r(1, 2e6);
  for (int i = 0; i < 3000; i++) {
    geo::Shape s;
    s.lon = lon(rng);
    s.lat = lat(rng);
    s.radius = r(rng);
    const geo::SearchAreas a = geo::areas_for(s);
    ASSERT_FALSE(a.cells[0].zero());
    // A point at a random distance inside the circle lies in one of the scanned cells.
    std::uniform_real_distribution<double> ang(0, 2 * M_PI), frac(0, 0.999);
    for (int j = 0; j < 20; j++) {
      const double d = s.radius * frac(rng), t = ang(rng);
      const double plat = s.lat + (d * std::cos(t) / geo::kEarthRadius) * 180 / M_PI;
      const double plon = s.lon + (d * std::sin(t) / geo::kEarthRadius) * 180 / M_PI / std::cos(plat * M_PI / 180);
      if (plat < geo::kLatMin || plat > geo::kLatMax || plon < -180 || plon > 180) continue;
      double dist;
      const uint64_t sc = geo::score_of(plon, plat);
      double xy[2];
      geo::decode_score(static_cast<double>(sc), xy);
      if (!geo::within(s, xy[0], xy[1], &dist)) continue;
      bool found = false;
      for (const geo::Bits& c : a.cells) {
        if (c.zero()) continue;
        uint64_t mn, mx;
        geo::score_range(c, &mn, &mx);
        if (sc >= mn && sc < mx) found = true;
      }
      ASSERT_TRUE(found) << s.lon << "," << s.lat << " r=" << s.radius << " point " << plon << "," << plat;
    }
  }
}

}  // namespace
}  // namespace keel
