// SORT and SORT_RO: sort the elements of a list, set or sorted set numerically or (ALPHA) as
// strings, by themselves or by the values other keys hold (BY pattern, `*` replaced by the
// element, `->field` for a hash field), reply them or the values GET patterns name, or STORE
// them as a list. Redis's rules kept here:
// - BY without `*` (BY nosort) does not sort: lists and sorted sets keep their order (reversed
//   by DESC), sets their iteration order, except that a set is sorted ALPHA when the result is
//   stored or the caller is a script (so replicas and the AOF see the same thing).
// - Numeric sorting reads each value with strtod and fails as a whole ("One or more scores
//   can't be converted into double") on one that does not convert; a missing BY key sorts as 0,
//   ties are broken by comparing the elements' bytes. ALPHA with BY puts missing values first
//   and keeps ties in the order the elements were read.
// - A pattern is looked up with read semantics: a missing key, a key of another type (a string
//   for `*`, a hash for `*->field`) or a pattern without `*` gives nothing (a null reply, an
//   empty string when stored); GET # is the element itself.
// - A listpack sorted set is converted to a skiplist (zsetConvert), as Redis 7.0-8.0 do.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "commands/cmd_scripting.h"
#include "commands/command.h"
#include "commands/command_table.h"
#include "protocol/errors.h"
#include "types/hash_type.h"
#include "types/list_type.h"
#include "types/set_type.h"
#include "types/zset_type.h"

namespace keel {
namespace {

// The C-string prefix of s (Redis reads patterns with strchr / strstr).
std::string_view cstr(std::string_view s) { return s.substr(0, s.find('\0')); }

// The value a BY / GET pattern names for `elem`, or nullopt.
std::optional<std::string> lookup_by_pattern(CommandContext& cx, std::string_view pattern,
                                             std::string_view elem) {
  const std::string_view pc = cstr(pattern);
  if (pc == "#") return std::string(elem);
  const size_t star = pc.find('*');
  if (star == std::string_view::npos) return std::nullopt;
  // "->field" after the star, with a non-empty field, reads a hash field.
  size_t field_len = 0;
  const size_t arrow = pc.find("->", star + 1);
  if (arrow != std::string_view::npos && arrow + 2 < pc.size()) field_len = pattern.size() - arrow - 2;
  const size_t postfix_len = pattern.size() - (star + 1) - (field_len ? field_len + 2 : 0);
  std::string key;
  key.reserve(star + elem.size() + postfix_len);
  key.append(pattern.substr(0, star));
  key.append(elem);
  key.append(pattern.substr(star + 1, postfix_len));
  Object* o = cx.db().find(KeyRef::of(key));
  if (!o) return std::nullopt;
  if (field_len) {
    if (o->type() != Type::kHash) return std::nullopt;
    HashScratch scratch;
    std::string_view v;
    if (!HashType::get(*o, pattern.substr(pattern.size() - field_len), scratch, &v)) return std::nullopt;
    return std::string(v);
  }
  if (o->type() != Type::kString) return std::nullopt;
  char scratch[24];
  return std::string(o->string_view(scratch));
}

// Redis's numeric read of a sort value: strtod over the C string, the whole of it, no
// overflow or underflow, not NaN (leading blanks, hex and "inf" are accepted; "" is 0).
bool sort_score(const char* s, double* out) {
  char* end;
  errno = 0;
  *out = strtod(s, &end);
  return end[0] == '\0' && errno != ERANGE && !std::isnan(*out);
}

// An element to sort: its bytes live in the command's arena (one buffer for all of them, each
// followed by a NUL for strtod), so loading, sorting and replying allocate nothing per element.
struct Item {
  std::string_view elem;
  double score = 0;
  uint32_t cmp = 0;  // ALPHA with BY: 1 + the index of its BY value in `cmps`; 0 when missing
  bool scored = false;  // score already known (an integer element, numeric sort by itself)
};

// Collects elements into the arena as offsets (the arena may move while it grows), then views.
struct Loader {
  std::string arena;
  std::vector<Item> items;
  std::vector<std::pair<size_t, size_t>> spans;
  bool numeric_self = false;  // numeric sort by the elements themselves: take integers as is

  void add(std::string_view text, bool is_int, int64_t ival) {
    spans.emplace_back(arena.size(), text.size());
    arena.append(text);
    arena.push_back('\0');
    items.emplace_back();
    if (numeric_self && is_int) {
      // The double strtod would read from the digits (both round to nearest).
      items.back().score = static_cast<double>(ival);
      items.back().scored = true;
    }
  }
  void finish() {
    for (size_t i = 0; i < items.size(); i++) items[i].elem = {arena.data() + spans[i].first, spans[i].second};
  }
};

int binary_compare(std::string_view a, std::string_view b) {
  const int c = memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}
// strcoll in the C locale: bytes up to the first NUL.
int collate_compare(std::string_view a, std::string_view b) { return binary_compare(cstr(a), cstr(b)); }

void sort_generic(CommandContext& cx, bool readonly) {
  bool desc = false, alpha = false, dontsort = false;
  int64_t limit_start = 0, limit_count = -1;
  std::optional<std::string_view> sortby;
  size_t store_idx = 0;
  std::vector<std::string_view> gets;
  const size_t argc = cx.argc();
  for (size_t j = 2; j < argc; j++) {
    const size_t left = argc - j - 1;
    if (cx.is_arg(j, "asc")) {
      desc = false;
    } else if (cx.is_arg(j, "desc")) {
      desc = true;
    } else if (cx.is_arg(j, "alpha")) {
      alpha = true;
    } else if (cx.is_arg(j, "limit") && left >= 2) {
      if (!cx.int_arg(j + 1, &limit_start) || !cx.int_arg(j + 2, &limit_count)) return;
      j += 2;
    } else if (!readonly && cx.is_arg(j, "store") && left >= 1) {
      store_idx = j + 1;
      j++;
    } else if (cx.is_arg(j, "by") && left >= 1) {
      sortby = cx.arg(j + 1);
      // A pattern without '*' names no key: nothing to sort by.
      if (cstr(*sortby).find('*') == std::string_view::npos) dontsort = true;
      j++;
    } else if (cx.is_arg(j, "get") && left >= 1) {
      gets.push_back(cx.arg(j + 1));
      j++;
    } else {
      return cx.reply().error(kErrSyntax);
    }
  }

  Object* o = cx.db().find(cx.key(1));
  if (o && o->type() != Type::kSet && o->type() != Type::kList && o->type() != Type::kZset) {
    return cx.reply().error(kErrWrongType);
  }
  const Type type = o ? o->type() : Type::kList;
  if (dontsort && type == Type::kSet && (store_idx || is_script_session(&cx.session()))) {
    // A set's order is not reproducible: sort it when the result is written or scripted.
    dontsort = false;
    alpha = true;
    sortby.reset();
  }

  // Load the elements.
  Loader ld;
  ld.numeric_self = !dontsort && !alpha && !sortby;
  if (o) {
    if (type == Type::kList) {
      const size_t size = ListType::size(*o);
      ld.items.reserve(size);
      ld.spans.reserve(size);
      ld.arena.reserve(size * 12);
      int64_t from;
      const size_t n = ListType::range_count(*o, 0, -1, &from);
      ListType::range(*o, from, n, [](void* ctx, const LpEntry& e) {
        char buf[kLpIntBufSize];
        static_cast<Loader*>(ctx)->add(e.str(buf), e.is_int, e.ival);
      }, &ld);
    } else if (type == Type::kSet) {
      ld.items.reserve(SetType::size(*o));
      ld.spans.reserve(SetType::size(*o));
      SetType::for_each(*o, [&](const SetElem& e) {
        char buf[kInt64BufSize];
        ld.add(e.text(buf), e.is_int, e.ival);
        return true;
      });
    } else {
      // As Redis (through 8.0): a small sorted set is converted for good, even by SORT_RO.
      ZsetType::convert_to_skiplist(*o);
      ld.items.reserve(ZsetType::size(*o));
      ld.spans.reserve(ZsetType::size(*o));
      ZsetType::for_each(*o, [&](std::string_view m, double) { ld.add(m, false, 0); });
    }
  }
  ld.finish();
  std::vector<Item>& items = ld.items;
  // Unsorted lists and sorted sets come in their own order, DESC reading it backwards.
  if (dontsort && desc && type != Type::kSet) std::reverse(items.begin(), items.end());

  const int64_t vlen = static_cast<int64_t>(items.size());
  int64_t start = limit_start < 0 ? 0 : limit_start;
  int64_t end;
  if (limit_count < 0) {
    end = vlen - 1;
  } else if (__builtin_add_overflow(start, limit_count - 1, &end)) {
    end = INT64_MAX;
  }
  if (start >= vlen) {
    start = vlen - 1;
    end = vlen - 2;
  }
  if (end >= vlen) end = vlen - 1;

  bool conversion_error = false;
  std::vector<std::string> cmps;  // ALPHA with BY: the BY values (Item::cmp)
  if (!dontsort) {
    for (Item& it : items) {
      if (it.scored) continue;
      std::optional<std::string> byval;
      if (sortby) {
        byval = lookup_by_pattern(cx, *sortby, it.elem);
        if (!byval) continue;
      }
      if (alpha) {
        if (sortby) {
          cmps.push_back(std::move(*byval));
          it.cmp = static_cast<uint32_t>(cmps.size());
        }
      } else if (!sort_score(sortby ? byval->c_str() : it.elem.data(), &it.score)) {
        conversion_error = true;
      }
    }
    const bool bypattern = sortby.has_value(), storing = store_idx != 0;
    if (!alpha) {
      // Ties are broken by the bytes, so only identical elements compare equal and an unstable
      // sort gives the same reply.
      auto compare = [desc](const Item& a, const Item& b) {
        const int c = a.score > b.score ? 1 : a.score < b.score ? -1 : binary_compare(a.elem, b.elem);
        return (desc ? -c : c) < 0;
      };
      std::sort(items.begin(), items.end(), compare);
    } else {
      auto compare = [&](const Item& a, const Item& b) {
        int c;
        if (bypattern) {
          if (!a.cmp || !b.cmp) {
            c = ((a.cmp != 0) == (b.cmp != 0)) ? 0 : !a.cmp ? -1 : 1;
          } else {
            const std::string& x = cmps[a.cmp - 1];
            const std::string& y = cmps[b.cmp - 1];
            c = storing ? binary_compare(x, y) : collate_compare(x, y);
          }
        } else {
          c = storing ? binary_compare(a.elem, b.elem) : collate_compare(a.elem, b.elem);
        }
        return (desc ? -c : c) < 0;
      };
      std::stable_sort(items.begin(), items.end(), compare);
    }
  }

  const int64_t nitems = end - start + 1;
  const int64_t outputlen = gets.empty() ? nitems : static_cast<int64_t>(gets.size()) * nitems;
  if (conversion_error) return cx.reply().error("ERR One or more scores can't be converted into double");
  if (!store_idx) {
    cx.reply().array(static_cast<size_t>(outputlen));
    for (int64_t j = start; j <= end; j++) {
      const std::string_view elem = items[static_cast<size_t>(j)].elem;
      if (gets.empty()) cx.reply().bulk(elem);
      for (std::string_view g : gets) {
        const std::optional<std::string> v = lookup_by_pattern(cx, g, elem);
        if (v) cx.reply().bulk(*v);
        else cx.reply().null();
      }
    }
    return;
  }
  const KeyRef dst = cx.key(store_idx);
  Object* list = ListType::create(dst.name);
  for (int64_t j = start; j <= end; j++) {
    const std::string_view elem = items[static_cast<size_t>(j)].elem;
    if (gets.empty()) ListType::push(*list, ListType::End::kTail, elem);
    for (std::string_view g : gets) {
      const std::optional<std::string> v = lookup_by_pattern(cx, g, elem);
      ListType::push(*list, ListType::End::kTail, v ? std::string_view(*v) : std::string_view());
    }
  }
  Db::Slot slot = cx.db().find_for_write(dst);
  if (outputlen) {
    if (slot) {
      cx.db().overwrite(slot, list);
    } else {
      cx.db().insert(slot, list);
    }
    cx.notify(kNotifyList, "sortstore", dst.name);
    cx.set_dirty(outputlen);
  } else {
    Object::destroy(list);
    if (slot) {
      cx.db().remove(slot);
      cx.notify(kNotifyGeneric, "del", dst.name);
    }
  }
  cx.reply().integer(outputlen);
}

void cmd_sort(CommandContext& cx) { sort_generic(cx, false); }
void cmd_sort_ro(CommandContext& cx) { sort_generic(cx, true); }

// COMMAND GETKEYS for SORT (Redis's sortGetKeys): the sorted key, and the key after the last
// STORE, skipping the arguments of LIMIT (2), GET and BY (1).
int sort_getkeys(std::span<const std::string_view> args, std::vector<KeyArg>* keys) {
  keys->push_back({1, uint16_t(kKsRO | kKsAccess)});
  int store = 0;
  const int argc = static_cast<int>(args.size());
  for (int i = 2; i < argc; i++) {
    const std::string_view a = cstr(args[size_t(i)]);
    if (equals_nocase(a, "limit")) {
      i += 2;
    } else if (equals_nocase(a, "get") || equals_nocase(a, "by")) {
      i += 1;
    } else if (equals_nocase(a, "store") && i + 1 < argc) {
      store = i + 1;  // the last STORE wins, as in SORT
    }
  }
  if (store) keys->push_back({store, uint16_t(kKsOW | kKsUpdate)});
  return static_cast<int>(keys->size());
}

int sort_ro_getkeys(std::span<const std::string_view>, std::vector<KeyArg>* keys) {
  keys->push_back({1, uint16_t(kKsRO | kKsAccess)});
  return 1;
}

constexpr const char* kSortComplexity =
    "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N).";
constexpr const char* kNotesByGet =
    "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort";
constexpr const char* kNotesStore =
    "For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array";

CommandSpec kSortCommands[] = {
    {.name = "sort", .handler = cmd_sort, .arity = -2, .flags = kWrite | kDenyOom,
     .acl = kAclSet | kAclSortedSet | kAclList | kAclDangerous, .group = "generic",
     .summary = "Sort the elements in a list, set or sorted set", .since = "1.0.0", .complexity = kSortComplexity,
     .keys = {ks(kKsRO | kKsAccess), ks(kKsRO | kKsAccess, bs_unknown(), fk_unknown(), kNotesByGet),
              ks(kKsOW | kKsUpdate, bs_unknown(), fk_unknown(), kNotesStore)},
     .getkeys = sort_getkeys},
    {.name = "sort_ro", .handler = cmd_sort_ro, .arity = -2, .flags = kReadOnly,
     .acl = kAclSet | kAclSortedSet | kAclList | kAclDangerous, .group = "generic",
     .summary = "Sort the elements in a list, set or sorted set. Read-only variant of SORT.", .since = "7.0.0",
     .complexity = kSortComplexity,
     .keys = {ks(kKsRO | kKsAccess), ks(kKsRO | kKsAccess, bs_unknown(), fk_unknown(), kNotesByGet)},
     .getkeys = sort_ro_getkeys},
};

}  // namespace

std::span<CommandSpec> sort_commands() { return kSortCommands; }

}  // namespace keel
