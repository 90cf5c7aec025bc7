// Tests for base/poll_window.h: the adaptive spin window grows while idle gaps end within the
// maximum, shrinks to 0 when they are longer, and never spins when disabled.
#include "base/poll_window.h"

#include <gtest/gtest.h>

namespace keel {
namespace {

// One loop iteration that served requests at `t`, then an idle gap of `gap` µs that ends with the
// next request: returns how many of the waits in the gap were non-blocking polls when the loop
// re-checks every `step` µs while spinning.
int serve_then_gap(PollWindow& w, int64_t t, int64_t gap, int64_t step = 1) {
  int spins = 0;
  bool worked = true;
  int64_t now = t;
  while (w.before_wait(now, worked)) {
    worked = false;
    spins++;
    now += step;
    if (now >= t + gap) return spins;  // the request arrived while spinning
  }
  w.after_wait(t + gap);  // slept until the request arrived
  return spins;
}

TEST(PollWindowTest, DisabledNeverSpins) {
  PollWindow w;
  for (int i = 0; i < 100; i++) {
    EXPECT_EQ(0, serve_then_gap(w, i * 100, 5));
  }
  EXPECT_EQ(0, w.window_us());
}

TEST(PollWindowTest, ShortGapsGrowTheWindowUpToTheMaximum) {
  PollWindow w;
  w.set_max_us(50);
  EXPECT_EQ(0, serve_then_gap(w, 0, 20));  // first gap: slept, caught within max -> grow
  EXPECT_EQ(PollWindow::kStartUs, w.window_us());
  serve_then_gap(w, 1000, 20);  // spun 10, then slept: gap 20 <= 50 -> 20
  EXPECT_EQ(20, w.window_us());
  serve_then_gap(w, 2000, 30);  // 20 not enough -> 40
  EXPECT_EQ(40, w.window_us());
  EXPECT_EQ(30, serve_then_gap(w, 3000, 30));  // caught by spinning: the window stays
  EXPECT_EQ(40, w.window_us());
  serve_then_gap(w, 4000, 45);  // 40 < 45 <= 50 -> capped at 50
  EXPECT_EQ(50, w.window_us());
}

TEST(PollWindowTest, LongGapsShrinkTheWindowToZero) {
  PollWindow w;
  w.set_max_us(80);
  for (int i = 0; i < 4; i++) serve_then_gap(w, i * 1000, 75);
  EXPECT_EQ(80, w.window_us());
  serve_then_gap(w, 10000, 5000);
  EXPECT_EQ(40, w.window_us());
  serve_then_gap(w, 20000, 5000);
  EXPECT_EQ(20, w.window_us());
  serve_then_gap(w, 30000, 5000);
  EXPECT_EQ(10, w.window_us());
  serve_then_gap(w, 40000, 5000);
  EXPECT_EQ(0, w.window_us());
  EXPECT_EQ(0, serve_then_gap(w, 50000, 5000));  // light traffic: sleeps at once
}

TEST(PollWindowTest, SpinStopsAtTheWindowEvenWithoutTraffic) {
  PollWindow w;
  w.set_max_us(50);
  for (int i = 0; i < 4; i++) serve_then_gap(w, i * 1000, 45);
  ASSERT_EQ(50, w.window_us());
  // Nothing arrives: the loop spins for the window, then blocks.
  EXPECT_EQ(50, serve_then_gap(w, 10000, 1000000));
  EXPECT_EQ(25, w.window_us());
}

TEST(PollWindowTest, LoweringTheMaximumClampsTheWindow) {
  PollWindow w;
  w.set_max_us(100);
  for (int i = 0; i < 6; i++) serve_then_gap(w, i * 1000, 95);
  EXPECT_EQ(100, w.window_us());
  w.set_max_us(30);
  EXPECT_EQ(30, w.window_us());
  w.set_max_us(0);
  EXPECT_EQ(0, w.window_us());
  EXPECT_FALSE(w.before_wait(10000, true));
}

}  // namespace
}  // namespace keel
