// INFO KEYSIZES text for one db.
#include "keyspace/keysizes.h"

#include <cstdio>

namespace keel {
namespace {
const char* const kKinds[KeySizes::kTypes] = {"strings_sizes", "lists_items", "sets_items",
                                              "zsets_items", "hashes_items", nullptr,
                                              "streams_items"};

// Label of a bin: "0", then 2^(i-1) with binary unit suffixes (1K = 1024).
void bin_label(int bin, char* buf, size_t cap) {
  if (bin == 0) {
    snprintf(buf, cap, "0");
    return;
  }
  int exp = bin - 1;
  static const char kUnits[] = {'\0', 'K', 'M', 'G', 'T', 'P', 'E'};
  int unit = exp / 10;
  unsigned long long v = 1ull << (exp % 10);
  if (unit == 0) {
    snprintf(buf, cap, "%llu", v);
  } else {
    snprintf(buf, cap, "%llu%c", v, kUnits[unit]);
  }
}
}  // namespace

void KeySizes::append_info(int dbid, std::string& out) const {
  char buf[64];
  for (int t = 0; t < kTypes; t++) {
    if (kKinds[t] == nullptr) continue;
    bool first = true;
    for (int b = 0; b < kBins; b++) {
      if (counts_[t][b] == 0) continue;
      if (first) {
        snprintf(buf, sizeof(buf), "db%d_distrib_%s:", dbid, kKinds[t]);
        out += buf;
        first = false;
      } else {
        out += ',';
      }
      bin_label(b, buf, sizeof(buf));
      out += buf;
      snprintf(buf, sizeof(buf), "=%lld", static_cast<long long>(counts_[t][b]));
      out += buf;
    }
    if (!first) out += "\r\n";
  }
}

}  // namespace keel
