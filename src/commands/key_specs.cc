// Key specs: start-up derivations and the key search of COMMAND GETKEYS (see the header).
#include "commands/key_specs.h"

#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/assert.h"
#include "base/numbers.h"

namespace keel {
namespace {

bool fits_int8(int v) { return v >= INT8_MIN && v <= INT8_MAX; }

bool plain_range(const KeySpec& s) {
  return s.begin == BeginSearch::kIndex && s.find == FindKeys::kRange;
}

// Redis's legacy range (populateCommandLegacyRangeSpec): one index+range spec is the range as
// is; otherwise the union of the consecutive step-1 index+range specs. Any spec it cannot
// express makes the keys movable.
void derive_legacy_range(CommandSpec& c) {
  c.first_key = c.last_key = c.step = 0;
  const int n = c.n_key_specs;
  if (n == 0) return;
  if (n == 1 && plain_range(c.keys[0])) {
    const KeySpec& s = c.keys[0];
    c.first_key = s.pos;
    c.last_key = s.lastkey >= 0 ? s.pos + s.lastkey : s.lastkey;
    c.step = s.keystep;
    if (s.flags & kKsIncomplete) c.flags |= kMovableKeys;
    return;
  }
  int first = INT_MAX;
  unsigned last = 0, prev_last = 0;  // unsigned: a negative lastkey (from the end) wins
  for (int i = 0; i < n; i++) {
    const KeySpec& s = c.keys[i];
    if (!plain_range(s) || s.keystep != 1 ||
        (prev_last && prev_last != static_cast<unsigned>(s.pos - 1))) {
      c.flags |= kMovableKeys;
      continue;
    }
    if (s.flags & kKsIncomplete) c.flags |= kMovableKeys;
    if (s.pos < first) first = s.pos;
    const int abs_last = s.lastkey >= 0 ? s.pos + s.lastkey : s.lastkey;
    if (static_cast<unsigned>(abs_last) > last) last = static_cast<unsigned>(abs_last);
    prev_last = last;
  }
  if (first == INT_MAX) {
    c.flags |= kMovableKeys;
    return;
  }
  c.first_key = first;
  c.last_key = static_cast<int>(last);
  c.step = 1;
}

// Redis uses atoi() on the count argument when the specs did not fit (genericGetKeys).
int atoi_arg(std::string_view s) {
  const std::string copy(s.substr(0, s.find('\0')));
  return static_cast<int>(std::strtol(copy.c_str(), nullptr, 10));
}

// Redis's genericGetKeys, used for the commands with a keynum spec when the specs found no
// valid keys (a count that is not a clean integer, ...): the counted keys, then the keys of
// the single-key specs (ZUNIONSTORE's destination), all without flags.
int numkeys_fallback(const CommandSpec& c, std::span<const std::string_view> args,
                     std::vector<KeyArg>* keys) {
  const int argc = static_cast<int>(args.size());
  const KeySpec* kn = nullptr;
  for (int i = 0; i < c.n_key_specs && !kn; i++) {
    if (c.keys[i].find == FindKeys::kKeynum && c.keys[i].begin == BeginSearch::kIndex) kn = &c.keys[i];
  }
  if (!kn) return 0;
  const int count_at = kn->pos + kn->keynumidx;
  const int first = kn->pos + kn->firstkey;
  const int step = kn->keystep > 0 ? kn->keystep : 1;
  if (count_at >= argc) return 0;
  const int num = atoi_arg(args[size_t(count_at)]);
  if (num < 1 || num > (argc - first) / step) return 0;
  for (int i = 0; i < num; i++) keys->push_back({first + i * step, 0});
  for (int i = 0; i < c.n_key_specs; i++) {
    const KeySpec& s = c.keys[i];
    if (plain_range(s) && s.lastkey == 0 && !(s.flags & kKsNotKey)) keys->push_back({s.pos, 0});
  }
  return static_cast<int>(keys->size());
}

// Redis's getKeysUsingKeySpecs: -1 when a spec does not fit the arguments or is incomplete.
int keys_from_specs(const CommandSpec& c, std::span<const std::string_view> args,
                    std::vector<KeyArg>* keys) {
  const int argc = static_cast<int>(args.size());
  for (int j = 0; j < c.n_key_specs; j++) {
    const KeySpec& s = c.keys[j];
    if (s.flags & kKsNotKey) continue;
    int first = 0;
    if (s.begin == BeginSearch::kIndex) {
      first = s.pos;
    } else if (s.begin == BeginSearch::kKeyword) {
      // Forwards from startfrom to the end, or backwards from argc+startfrom down to 2.
      const int start = s.pos > 0 ? s.pos : argc + s.pos;
      const int end = s.pos > 0 ? argc - 1 : 1;
      for (int i = start; i != end; i = start <= end ? i + 1 : i - 1) {
        if (i >= argc || i < 1) break;
        if (equals_nocase(args[size_t(i)], s.keyword)) {
          first = i + 1;
          break;
        }
      }
      if (!first) continue;  // keyword absent: no keys from this spec
    } else {
      return -1;
    }
    int last, step;
    if (s.find == FindKeys::kRange) {
      if (s.lastkey >= 0) {
        last = first + s.lastkey;
      } else if (!s.limit) {
        last = argc + s.lastkey;
      } else {
        last = first + ((argc - first) / s.limit + s.lastkey);
      }
      step = s.keystep;
    } else if (s.find == FindKeys::kKeynum) {
      step = s.keystep;
      if (s.keynumidx >= argc - first) return -1;
      int64_t numkeys;
      if (!parse_int64(args[size_t(first + s.keynumidx)], &numkeys) || numkeys < 0) return -1;
      first += s.firstkey;
      last = first + static_cast<int>(numkeys) - 1;
    } else {
      return -1;
    }
    if (last >= argc || last < first || first >= argc) return -1;
    if (step <= 0) step = 1;
    for (int i = first; i <= last; i += step) keys->push_back({i, s.flags});
    if (s.flags & kKsIncomplete) return -1;
  }
  return static_cast<int>(keys->size());
}

}  // namespace

void init_key_specs(CommandSpec& c) {
  int n = 0;
  while (n < static_cast<int>(kMaxKeySpecs) && c.keys[n].begin != BeginSearch::kNone) n++;
  for (size_t i = size_t(n); i < kMaxKeySpecs; i++) KEEL_ASSERT(c.keys[i].begin == BeginSearch::kNone);
  if (n == 0 && c.first_key > 0) {
    // An old-style positional row: one range spec from its positions.
    const int last = c.last_key < 0 ? c.last_key : c.last_key - c.first_key;
    c.keys[0] = ks((c.flags & kWrite) ? kKsRW | kKsUpdate : kKsRO | kKsAccess, c.first_key,
                   fk_range(last, c.step > 0 ? c.step : 1, 0));
    n = 1;
  }
  c.n_key_specs = static_cast<uint8_t>(n);
  derive_legacy_range(c);
  bool all_not_keys = true;
  for (int i = 0; i < n; i++) all_not_keys &= (c.keys[i].flags & kKsNotKey) != 0;
  c.prefetch = CommandSpec::Prefetch{};
  if (c.first_key > 0 && !all_not_keys) {
    KEEL_ASSERT(fits_int8(c.first_key) && fits_int8(c.last_key) && fits_int8(c.step));
    c.prefetch.keys.first = static_cast<int8_t>(c.first_key);
    c.prefetch.keys.last = static_cast<int8_t>(c.last_key);
    c.prefetch.keys.step = static_cast<int8_t>(c.step > 0 ? c.step : 1);
    // The member stage looks the members up in the value of the first key.
    c.prefetch.members = c.members;
  }
}

bool command_has_keys(const CommandSpec& c) {
  if (c.getkeys) return true;
  for (int i = 0; i < c.n_key_specs; i++) {
    if (!(c.keys[i].flags & kKsNotKey)) return true;
  }
  return false;
}

int command_keys(const CommandSpec& c, std::span<const std::string_view> args,
                 std::vector<KeyArg>* keys) {
  bool has_key_spec = false, variable_flags = false;
  for (int i = 0; i < c.n_key_specs; i++) {
    has_key_spec |= !(c.keys[i].flags & kKsNotKey);
    variable_flags |= (c.keys[i].flags & kKsVariableFlags) != 0;
  }
  // Specs first when their flags are reliable; then the command's own procedure.
  if (has_key_spec && !variable_flags) {
    keys->clear();
    const int n = keys_from_specs(c, args, keys);
    if (n >= 0) return n;
  }
  keys->clear();
  if (c.getkeys) return c.getkeys(args, keys);
  return numkeys_fallback(c, args, keys);
}

void reply_key_spec_flags(ReplyWriter& w, uint16_t flags) {
  static constexpr struct {
    uint16_t bit;
    const char* name;
  } kNames[] = {
      {kKsRW, "RW"},         {kKsRO, "RO"},         {kKsOW, "OW"},
      {kKsRM, "RM"},         {kKsAccess, "access"}, {kKsUpdate, "update"},
      {kKsInsert, "insert"}, {kKsDelete, "delete"}, {kKsNotKey, "not_key"},
      {kKsIncomplete, "incomplete"}, {kKsVariableFlags, "variable_flags"},
  };
  size_t n = 0;
  for (const auto& f : kNames) n += (flags & f.bit) ? 1 : 0;
  w.set(n);
  for (const auto& f : kNames) {
    if (flags & f.bit) w.simple(f.name);
  }
}

void reply_key_specs(ReplyWriter& w, const CommandSpec& c) {
  w.set(c.n_key_specs);  // a set in RESP3, as Redis sends it
  for (int i = 0; i < c.n_key_specs; i++) {
    const KeySpec& s = c.keys[i];
    w.map(s.notes ? 4 : 3);
    if (s.notes) {
      w.bulk("notes");
      w.bulk(s.notes);
    }
    w.bulk("flags");
    reply_key_spec_flags(w, s.flags);
    w.bulk("begin_search");
    w.map(2);
    w.bulk("type");
    if (s.begin == BeginSearch::kIndex) {
      w.bulk("index");
      w.bulk("spec");
      w.map(1);
      w.bulk("index");
      w.integer(s.pos);
    } else if (s.begin == BeginSearch::kKeyword) {
      w.bulk("keyword");
      w.bulk("spec");
      w.map(2);
      w.bulk("keyword");
      w.bulk(s.keyword);
      w.bulk("startfrom");
      w.integer(s.pos);
    } else {
      w.bulk("unknown");
      w.bulk("spec");
      w.map(0);
    }
    w.bulk("find_keys");
    w.map(2);
    w.bulk("type");
    if (s.find == FindKeys::kRange) {
      w.bulk("range");
      w.bulk("spec");
      w.map(3);
      w.bulk("lastkey");
      w.integer(s.lastkey);
      w.bulk("keystep");
      w.integer(s.keystep);
      w.bulk("limit");
      w.integer(s.limit);
    } else if (s.find == FindKeys::kKeynum) {
      w.bulk("keynum");
      w.bulk("spec");
      w.map(3);
      w.bulk("keynumidx");
      w.integer(s.keynumidx);
      w.bulk("firstkey");
      w.integer(s.firstkey);
      w.bulk("keystep");
      w.integer(s.keystep);
    } else {
      w.bulk("unknown");
      w.bulk("spec");
      w.map(0);
    }
  }
}

}  // namespace keel
