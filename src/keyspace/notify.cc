// Parsing and formatting of notify-keyspace-events (class letters as Redis documents them).
#include "keyspace/notify.h"

namespace keel {

NotifyState g_notify;

namespace {
constexpr uint32_t kAll = kNotifyGeneric | kNotifyString | kNotifyList | kNotifySet | kNotifyHash |
                          kNotifyZset | kNotifyExpired | kNotifyEvicted | kNotifyStream |
                          kNotifyModule;
}

std::optional<uint32_t> parse_notify_flags(std::string_view s) {
  uint32_t f = 0;
  for (char c : s) {
    switch (c) {
      case 'A': f |= kAll; break;
      case 'g': f |= kNotifyGeneric; break;
      case '$': f |= kNotifyString; break;
      case 'l': f |= kNotifyList; break;
      case 's': f |= kNotifySet; break;
      case 'h': f |= kNotifyHash; break;
      case 'z': f |= kNotifyZset; break;
      case 'x': f |= kNotifyExpired; break;
      case 'e': f |= kNotifyEvicted; break;
      case 'K': f |= kNotifyKeyspace; break;
      case 'E': f |= kNotifyKeyevent; break;
      case 't': f |= kNotifyStream; break;
      case 'm': f |= kNotifyKeyMiss; break;
      case 'd': f |= kNotifyModule; break;
      case 'n': f |= kNotifyNew; break;
      default: return std::nullopt;
    }
  }
  return f;
}

std::string format_notify_flags(uint32_t f) {
  std::string out;
  if ((f & kAll) == kAll) {
    out += 'A';
  } else {
    if (f & kNotifyGeneric) out += 'g';
    if (f & kNotifyString) out += '$';
    if (f & kNotifyList) out += 'l';
    if (f & kNotifySet) out += 's';
    if (f & kNotifyHash) out += 'h';
    if (f & kNotifyZset) out += 'z';
    if (f & kNotifyExpired) out += 'x';
    if (f & kNotifyEvicted) out += 'e';
    if (f & kNotifyStream) out += 't';
    if (f & kNotifyModule) out += 'd';
    if (f & kNotifyNew) out += 'n';
  }
  if (f & kNotifyKeyspace) out += 'K';
  if (f & kNotifyKeyevent) out += 'E';
  if (f & kNotifyKeyMiss) out += 'm';
  return out;
}

void set_notify_flags(uint32_t flags) {
  g_notify.flags = flags;
  const bool on = flags & (kNotifyKeyspace | kNotifyKeyevent);
  g_notify.mask = on ? (flags & ~(kNotifyKeyspace | kNotifyKeyevent)) : 0;
}

}  // namespace keel
