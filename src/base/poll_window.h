// PollWindow: decides, before each wait of an event loop, whether to poll without blocking (spin)
// or to sleep. Pure policy over timestamps the caller passes in; server/server.cc drives it.
//
// Why: on a virtual machine without a cpuidle driver every sleep of the server's core is a HLT
// and a VM exit, and the client that sends the next request pays for waking it (an IPI from the
// sender's core, another VM exit). A fast server sleeps after almost every small batch: at -P1
// with 50 connections Keel's core took 80k wake-up IPIs per 300k GETs where redis-server, slower
// per batch and so rarely idle, took 21-58k, and the load generator on the other core ran out
// first. Spinning through short gaps removes those wake-ups; spinning through long gaps only
// burns CPU. The window adapts the way the guest haltpoll governor does: an idle gap that ended
// within the maximum would have been caught by a longer spin, so the window doubles; a gap longer
// than the maximum halves it. Under steady light traffic (gaps beyond the maximum) the window
// stays at 0 and the loop sleeps exactly as it would without this.
#pragma once
#include <algorithm>
#include <cstdint>

namespace keel {

class PollWindow {
 public:
  static constexpr int64_t kStartUs = 10;  // first window after a caught gap

  // max_us = 0 disables spinning: before_wait then always answers false.
  void set_max_us(int64_t max_us) {
    max_us_ = std::max<int64_t>(max_us, 0);
    window_us_ = std::min(window_us_, max_us_);
  }
  int64_t max_us() const { return max_us_; }
  int64_t window_us() const { return window_us_; }
  bool blocked() const { return blocking_; }  // the current wait blocks (after_wait pending)

  // Before a wait. `worked`: the loop iteration that just ran served requests (an idle gap ends
  // there and a new one starts now). True: poll without blocking, the gap is younger than the
  // window. False: block; call after_wait(now) when the wait returns.
  bool before_wait(int64_t now_us, bool worked) {
    if (worked) idle_since_us_ = now_us;
    blocking_ = !(window_us_ > 0 && now_us - idle_since_us_ < window_us_);
    return !blocking_;
  }

  // After a wait. Adapts the window when the wait blocked: the whole gap (spin + sleep) is
  // measured from the end of the last iteration that served requests.
  void after_wait(int64_t now_us) {
    if (!blocking_ || max_us_ == 0) return;
    blocking_ = false;
    int64_t gap = now_us - idle_since_us_;
    if (gap <= max_us_) {
      window_us_ = std::min(window_us_ > 0 ? window_us_ * 2 : kStartUs, max_us_);
    } else {
      window_us_ /= 2;
      if (window_us_ < kStartUs) window_us_ = 0;
    }
  }

 private:
  int64_t max_us_ = 0;
  int64_t window_us_ = 0;
  int64_t idle_since_us_ = 0;
  bool blocking_ = false;
};

}  // namespace keel
