// INFO KEYSIZES histograms: per db, per type, power-of-two bins of key lengths (bytes for
// strings, items for collections). Bin 0 holds length 0 (empty strings); bin i >= 1 holds
// lengths in [2^(i-1), 2^i) and is labelled 2^(i-1) ("1", "2", "4", ..., "1K", ...).
// Every mutation makes exactly ONE call to update(old type/len -> new type/len); a created key
// has no old side and a deleted key no new side (kAbsent). The common case (same type, same bin)
// returns after two bit scans and a compare.
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

#include "types/object.h"

namespace keel {

class KeySizes {
 public:
  // string, list, set, zset, hash, (5: modules, never counted), stream: indexed by Type value.
  static constexpr int kTypes = 7;
  static constexpr int kBins = 65;
  static constexpr int64_t kAbsent = -1;

  static int bin_of(int64_t len) { return len == 0 ? 0 : 64 - std::countl_zero(uint64_t(len)); }
  static bool tracked(Type t) { return static_cast<int>(t) < kTypes && static_cast<int>(t) != 5; }

  void update(Type old_type, int64_t old_len, Type new_type, int64_t new_len) {
#ifndef KEEL_NO_KEYSIZES
    if (old_type == new_type && old_len >= 0 && new_len >= 0 && bin_of(old_len) == bin_of(new_len)) return;
    if (old_len >= 0 && tracked(old_type)) counts_[int(old_type)][bin_of(old_len)]--;
    if (new_len >= 0 && tracked(new_type)) counts_[int(new_type)][bin_of(new_len)]++;
#else
    (void)old_type, (void)old_len, (void)new_type, (void)new_len;
#endif
  }
  void clear() { memset(counts_, 0, sizeof(counts_)); }
  int64_t count(int type, int bin) const { return counts_[type][bin]; }
  bool operator==(const KeySizes& o) const { return memcmp(counts_, o.counts_, sizeof(counts_)) == 0; }
  // Appends this db's lines ("db0_distrib_strings_sizes:1=2,4=1\r\n"...) to out.
  void append_info(int dbid, std::string& out) const;

 private:
  int64_t counts_[kTypes][kBins] = {};
};

}  // namespace keel
