// Access control lists: users, rule parsing and description, the permission check, ACL LOG,
// and the ACL file. See acl.h for the cost model.
#include "commands/acl.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <cerrno>
#include <unistd.h>

#include "base/glob.h"
#include "base/numbers.h"
#include "base/time.h"
#include "commands/command_rename.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "commands/key_specs.h"
#include "commands/pubsub.h"
#include "commands/server_api.h"
#include "commands/session.h"

namespace keel {
namespace {

// "prefix*" with no other glob character (*, ?, [ or a backslash): the prefix's length, else -1.
int32_t literal_prefix_of(std::string_view pat) {
  if (pat.empty() || pat.back() != '*') return -1;
  const std::string_view prefix = pat.substr(0, pat.size() - 1);
  if (prefix.find_first_of("*?[\\") != std::string_view::npos) return -1;
  return static_cast<int32_t>(prefix.size());
}

// Redis's ACL CAT order.
constexpr const char* kCategoryNames[] = {
    "keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap",
    "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous",
    "connection", "transaction", "scripting"};
constexpr size_t kNumCategories = sizeof(kCategoryNames) / sizeof(kCategoryNames[0]);

struct AclState {
  std::vector<std::unique_ptr<AclUser>> users;
  // Deleted users stay allocated: a session may still point at one until it is closed.
  std::vector<std::unique_ptr<AclUser>> retired;
  std::vector<const CommandSpec*> by_id;  // CommandSpec::acl_id -> row
  std::vector<uint32_t> categories;       // CommandSpec::acl_id -> category bits
  size_t words = 0;                       // bitmap words per selector
  std::vector<AclLogEntry> log;
  uint64_t next_entry_id = 0;
  AclOptions options;
  AclDeniedCounts denied;
};

AclState& state() {
  static AclState st;
  return st;
}

int category_index(std::string_view name) {
  for (size_t i = 0; i < kNumCategories; i++) {
    if (equals_nocase(name, kCategoryNames[i])) return static_cast<int>(i);
  }
  return -1;
}

void set_bit(AclSelector& s, uint16_t id, bool on) {
  if (on) {
    s.allowed[id >> 6] |= uint64_t{1} << (id & 63);
  } else {
    s.allowed[id >> 6] &= ~(uint64_t{1} << (id & 63));
  }
}

AclSelector new_selector() {
  AclSelector s;
  s.allowed.assign(state().words, 0);
  return s;
}

// The rule list ACL LIST shows (Redis 7.2 keeps the rules as given, dropping an earlier rule
// for the same command or category; 7.0 recomputed a description from the bitmap instead).
void record_rule(AclSelector& s, const std::string& rule) {
  if (rule == "+@all" || rule == "-@all") {
    s.cmd_rules.clear();
    s.cmd_rules.push_back(rule);
    return;
  }
  std::string_view name = std::string_view(rule).substr(1);
  std::erase_if(s.cmd_rules, [&](const std::string& r) { return std::string_view(r).substr(1) == name; });
  s.cmd_rules.push_back(rule);
}

void set_command(AclSelector& s, const CommandSpec& c, bool on) {
  set_bit(s, c.acl_id, on);
  for (const CommandSpec& sub : c.subcommands) set_bit(s, sub.acl_id, on);
  const uint16_t id = c.acl_id;
  std::erase_if(s.first_args, [&](const auto& p) { return p.first == id; });
}

std::string lower(std::string_view v) {
  std::string out(v);
  for (char& ch : out) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
  return out;
}

bool valid_hash(std::string_view h) {
  if (h.size() != 64) return false;
  for (char ch : h) {
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return false;
  }
  return true;
}

constexpr const char* kErrHash =
    "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters";
constexpr const char* kErrNoSuchPass = "The password you are trying to remove from the user does not exist";
constexpr const char* kErrUnknownCmd = "Unknown command or category name in ACL";

// Redis refuses key and channel patterns holding whitespace or NUL (ACL LIST could not
// be read back).
bool has_spaces(std::string_view v) {
  for (char ch : v) {
    if (ch == '\0' || isspace(static_cast<unsigned char>(ch))) return true;
  }
  return false;
}

// One selector rule (keys, channels, commands); false with *err's reason otherwise.
bool apply_selector_rule(AclSelector& s, std::string_view op, const char** err) {
  if (!op.empty() && (op[0] == '~' || op[0] == '%' || op[0] == '&') && has_spaces(op)) {
    *err = "Syntax error";
    return false;
  }
  if (equals_nocase(op, "allkeys") || op == "~*") {
    s.allkeys = true;
    s.keys.clear();
    return true;
  }
  if (equals_nocase(op, "resetkeys")) {
    s.allkeys = false;
    s.keys.clear();
    return true;
  }
  if (!op.empty() && (op[0] == '~' || op[0] == '%')) {
    uint8_t perm = kAclKeyAll;
    std::string_view pat;
    if (op[0] == '~') {
      pat = op.substr(1);
    } else {
      perm = 0;
      size_t i = 1;
      for (; i < op.size() && op[i] != '~'; i++) {
        const char f = static_cast<char>(toupper(static_cast<unsigned char>(op[i])));
        if (f == 'R') {
          perm |= kAclKeyRead;
        } else if (f == 'W') {
          perm |= kAclKeyWrite;
        } else {
          *err = "Syntax error";
          return false;
        }
      }
      if (i >= op.size() || perm == 0) {
        *err = "Syntax error";
        return false;
      }
      pat = op.substr(i + 1);
    }
    if (s.allkeys) {
      *err = "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have "
             "any effect. Try 'resetkeys' to start with an empty list of patterns";
      return false;
    }
    if (pat == "*" && perm == kAclKeyAll) {
      s.allkeys = true;
      s.keys.clear();
      return true;
    }
    for (AclKeyPattern& k : s.keys) {
      if (k.pattern == pat) {
        k.perm |= perm;
        return true;
      }
    }
    s.keys.push_back({std::string(pat), perm, literal_prefix_of(pat)});
    return true;
  }
  if (equals_nocase(op, "allchannels") || op == "&*") {
    s.allchannels = true;
    s.channels.clear();
    return true;
  }
  if (equals_nocase(op, "resetchannels")) {
    s.allchannels = false;
    s.channels.clear();
    return true;
  }
  if (!op.empty() && op[0] == '&') {
    if (s.allchannels) {
      *err = "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not "
             "have any effect. Try 'resetchannels' to start with an empty list of channels";
      return false;
    }
    std::string pat(op.substr(1));
    if (std::find(s.channels.begin(), s.channels.end(), pat) == s.channels.end()) s.channels.push_back(pat);
    return true;
  }
  if (equals_nocase(op, "allcommands")) op = "+@all";
  if (equals_nocase(op, "nocommands")) op = "-@all";
  if (!op.empty() && (op[0] == '+' || op[0] == '-')) {
    const bool on = op[0] == '+';
    std::string_view name = op.substr(1);
    AclState& st = state();
    if (!name.empty() && name[0] == '@') {
      std::string_view cat = name.substr(1);
      if (equals_nocase(cat, "all")) {
        for (uint64_t& w : s.allowed) w = on ? ~uint64_t{0} : 0;
        s.first_args.clear();
        record_rule(s, on ? "+@all" : "-@all");
        return true;
      }
      const int ci = category_index(cat);
      if (ci < 0) {
        *err = kErrUnknownCmd;
        return false;
      }
      for (size_t id = 0; id < st.by_id.size(); id++) {
        if (st.categories[id] & (1u << ci)) set_bit(s, static_cast<uint16_t>(id), on);
      }
      record_rule(s, std::string(1, op[0]) + "@" + lower(cat));
      return true;
    }
    const size_t bar = name.find('|');
    const CommandSpec* c = lookup_original_command(name.substr(0, bar));
    if (!c || name.empty()) {
      *err = kErrUnknownCmd;
      return false;
    }
    if (bar == std::string_view::npos) {
      set_command(s, *c, on);
      record_rule(s, std::string(1, op[0]) + c->name);
      return true;
    }
    std::string_view arg = name.substr(bar + 1);
    if (arg.empty() || arg.find('|') != std::string_view::npos) {
      *err = kErrUnknownCmd;
      return false;
    }
    if (!c->subcommands.empty()) {
      const CommandSpec* sub = lookup_subcommand(*c, arg);
      if (!sub) {
        *err = kErrUnknownCmd;
        return false;
      }
      set_bit(s, sub->acl_id, on);
      record_rule(s, std::string(1, op[0]) + sub->full_name);
      return true;
    }
    // Redis 7.0's first-argument rule (+select|0); only allowing is supported, as in Redis.
    if (!on) {
      *err = "Allowing first-arg of a subcommand is not supported";
      return false;
    }
    if (!s.allows_command(c->acl_id)) {
      s.first_args.emplace_back(c->acl_id, lower(arg));
      record_rule(s, "+" + std::string(c->name) + "|" + lower(arg));
    }
    return true;
  }
  *err = "Syntax error";
  return false;
}

bool apply_user_rule(AclUser& u, std::string_view op, const char** err) {
  if (equals_nocase(op, "on")) {
    u.enabled = true;
  } else if (equals_nocase(op, "off")) {
    u.enabled = false;
  } else if (equals_nocase(op, "nopass")) {
    u.nopass = true;
    u.passwords.clear();
  } else if (equals_nocase(op, "resetpass")) {
    u.nopass = false;
    u.passwords.clear();
  } else if (equals_nocase(op, "sanitize-payload")) {
    u.sanitize = 1;
  } else if (equals_nocase(op, "skip-sanitize-payload")) {
    u.sanitize = 2;
  } else if (!op.empty() && (op[0] == '>' || op[0] == '#')) {
    std::string h;
    if (op[0] == '>') {
      h = acl_hash_password(op.substr(1));
    } else {
      if (!valid_hash(op.substr(1))) {
        *err = kErrHash;
        return false;
      }
      h = std::string(op.substr(1));
    }
    if (std::find(u.passwords.begin(), u.passwords.end(), h) == u.passwords.end()) u.passwords.push_back(h);
    u.nopass = false;
  } else if (!op.empty() && (op[0] == '<' || op[0] == '!')) {
    std::string h;
    if (op[0] == '<') {
      h = acl_hash_password(op.substr(1));
    } else {
      if (!valid_hash(op.substr(1))) {
        *err = kErrHash;
        return false;
      }
      h = std::string(op.substr(1));
    }
    auto it = std::find(u.passwords.begin(), u.passwords.end(), h);
    if (it == u.passwords.end()) {
      *err = kErrNoSuchPass;
      return false;
    }
    u.passwords.erase(it);
  } else if (equals_nocase(op, "clearselectors")) {
    u.selectors.clear();
  } else if (equals_nocase(op, "reset")) {
    u.passwords.clear();
    u.nopass = false;
    u.enabled = false;
    u.sanitize = 1;
    u.selectors.clear();
    u.root = new_selector();
    if (state().options.pubsub_default) u.root.allchannels = true;
    record_rule(u.root, "-@all");
  } else if (op.size() >= 2 && op.front() == '(' && op.back() == ')') {
    AclSelector sel = new_selector();
    if (state().options.pubsub_default) sel.allchannels = true;
    std::string inner(op.substr(1, op.size() - 2));
    std::istringstream in(inner);
    std::string word;
    while (in >> word) {
      if (!apply_selector_rule(sel, word, err)) return false;
    }
    u.selectors.push_back(std::move(sel));
  } else {
    return apply_selector_rule(u.root, op, err);
  }
  return true;
}

void derive(AclUser& u) {
  bool all = u.root.allkeys && u.root.allchannels;
  for (uint64_t w : u.root.allowed) all = all && w == ~uint64_t{0};
  u.unrestricted = all;
  // acl_allows's inline shapes (acl.h).
  const AclSelector& r = u.root;
  u.fast_cmd_flags = r.allchannels ? 0u : uint32_t{kPubSubCmd};
  u.fast_allkeys = r.allkeys;
  u.fast_word = 1;  // with a zero mask: never matches
  u.fast_mask = 0;
  if (!r.allkeys && r.keys.size() == 1 && r.keys[0].perm == kAclKeyAll && r.keys[0].literal_prefix > 0 &&
      r.keys[0].literal_prefix <= 8) {
    const size_t n = static_cast<size_t>(r.keys[0].literal_prefix);
    u.fast_word = 0;
    memcpy(&u.fast_word, r.keys[0].pattern.data(), n);
    u.fast_mask = n == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1;
  }
  const AclState& st = state();
  u.fast_cmd.assign(st.by_id.size(), kAclFastSlow);
  for (size_t id = 0; id < st.by_id.size(); id++) {
    const CommandSpec& c = *st.by_id[id];
    if ((c.flags & u.fast_cmd_flags) != 0 || !r.allows_command(static_cast<uint16_t>(id))) continue;
    const size_t pos = c.acl_key_pos;
    const size_t min_args = static_cast<size_t>(c.arity > 0 ? c.arity : -c.arity);
    if (pos == kAclNoKeys || u.fast_allkeys) {
      u.fast_cmd[id] = kAclFastAny;
    } else if (pos > 0 && pos < min_args && pos < kAclFastAny && u.fast_mask != 0) {
      u.fast_cmd[id] = static_cast<uint8_t>(pos);
    }
  }
}

AclUser make_user(std::string_view name) {
  AclUser u;
  u.name.assign(name);
  u.root = new_selector();
  if (state().options.pubsub_default) u.root.allchannels = true;
  derive(u);  // a user is never without its derived fields (fast_cmd), even before its rules
  return u;
}

// Redis's ACLCheckKey: the permissions a key spec needs, then a pattern holding all of them.
bool key_allowed(const AclSelector& s, std::string_view key, uint16_t ks_flags) {
  uint8_t need = 0;
  if (ks_flags & kKsAccess) need |= kAclKeyRead;
  if (ks_flags & (kKsInsert | kKsDelete | kKsUpdate)) need |= kAclKeyWrite;
  for (const AclKeyPattern& p : s.keys) {
    if ((p.perm & need) != need) continue;
    if (p.literal_prefix >= 0) {
      const size_t n = static_cast<size_t>(p.literal_prefix);
      if (key.size() >= n && memcmp(key.data(), p.pattern.data(), n) == 0) return true;
    } else if (glob_match(p.pattern, key)) {
      return true;
    }
  }
  return false;
}

// True when every key pattern of the selector grants both read and write: the flags of a key
// spec then do not matter (a command whose flags depend on its arguments, as SET's with GET,
// needs no key list).
bool keys_grant_all(const AclSelector& s) {
  for (const AclKeyPattern& p : s.keys) {
    if (p.perm != kAclKeyAll) return false;
  }
  return true;
}

bool channel_allowed(const AclSelector& s, std::string_view ch, bool is_pattern) {
  if (s.allchannels) return true;
  for (const std::string& p : s.channels) {
    // A PSUBSCRIBE pattern must be one of the user's patterns literally.
    if (is_pattern ? p == ch : (p == "*" || glob_match(p, ch))) return true;
  }
  return false;
}

// Channels of a pub/sub command: first argument index, or 0 for none; *all: every argument
// from there; *pattern: PSUBSCRIBE.
int channel_args(const CommandSpec& c, bool* all, bool* pattern) {
  *all = false;
  *pattern = false;
  if (c.parent) return 0;
  const char* n = c.name;
  if (!strcmp(n, "publish") || !strcmp(n, "spublish")) return 1;
  if (!strcmp(n, "subscribe") || !strcmp(n, "ssubscribe")) {
    *all = true;
    return 1;
  }
  if (!strcmp(n, "psubscribe")) {
    *all = true;
    *pattern = true;
    return 1;
  }
  return 0;
}

AclDeny check_channels(const AclSelector& s, const CommandSpec& c, std::span<const std::string_view> args,
                       std::string* object);

AclDeny check_selector(const AclSelector& s, const CommandSpec& c, std::span<const std::string_view> args,
                       std::string* object) {
  // AUTH, HELLO, QUIT, RESET (no_auth) are always allowed, as in Redis.
  if (!s.allows_command(c.acl_id) && !(c.flags & kNoAuth)) {
    bool ok = false;
    if (args.size() >= 2) {
      for (const auto& [id, arg] : s.first_args) {
        if (id == c.acl_id && equals_nocase(args[1], arg)) ok = true;
      }
    }
    if (!ok) {
      *object = c.full_name;
      return AclDeny::kCommand;
    }
  }
  if (!s.allkeys && command_has_keys(c)) {
    // The common shape (one key at a fixed position, fixed flags: GET, INCR, LPUSH ...) needs
    // no key list; the others reuse one vector, so a check never allocates once warm.
    const KeySpec& k0 = c.keys[0];
    if (c.n_key_specs == 1 && !c.getkeys && k0.begin == BeginSearch::kIndex && k0.find == FindKeys::kRange &&
        k0.lastkey == 0 && !(k0.flags & kKsNotKey) && (!(k0.flags & kKsVariableFlags) || keys_grant_all(s))) {
      const size_t pos = static_cast<size_t>(k0.pos);
      if (pos < args.size() && !key_allowed(s, args[pos], k0.flags)) {
        object->assign(args[pos]);
        return AclDeny::kKey;
      }
      return check_channels(s, c, args, object);
    }
    static std::vector<KeyArg> keys;
    command_keys(c, args, &keys);
    for (const KeyArg& k : keys) {
      if (k.flags & kKsNotKey) continue;
      if (!key_allowed(s, args[static_cast<size_t>(k.pos)], k.flags)) {
        object->assign(args[static_cast<size_t>(k.pos)]);
        return AclDeny::kKey;
      }
    }
  }
  return check_channels(s, c, args, object);
}

AclDeny check_channels(const AclSelector& s, const CommandSpec& c, std::span<const std::string_view> args,
                       std::string* object) {
  if (!s.allchannels && (c.flags & kPubSubCmd)) {
    bool all, pattern;
    const int first = channel_args(c, &all, &pattern);
    if (first > 0) {
      const size_t last = all ? args.size() : static_cast<size_t>(first) + 1;
      for (size_t i = static_cast<size_t>(first); i < last && i < args.size(); i++) {
        if (!channel_allowed(s, args[i], pattern)) {
          object->assign(args[i]);
          return AclDeny::kChannel;
        }
      }
    }
  }
  return AclDeny::kOk;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    if (p.empty()) continue;
    if (!out.empty()) out += ' ';
    out += p;
  }
  return out;
}

}  // namespace

AclOptions& acl_options() { return state().options; }

std::span<const char* const> acl_category_names() { return {kCategoryNames, kNumCategories}; }

std::string acl_hash_password(std::string_view s) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(s.data(), s.size(), md, &len, EVP_sha256(), nullptr);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; i++) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

void acl_init() {
  AclState& st = state();
  if (!st.by_id.empty()) return;
  auto add = [&](CommandSpec& c) {
    c.acl_id = static_cast<uint16_t>(st.by_id.size());
    const KeySpec& k0 = c.keys[0];
    if (!command_has_keys(c)) {
      c.acl_key_pos = kAclNoKeys;
    } else if (c.n_key_specs == 1 && (!c.getkeys || (k0.flags & kKsVariableFlags)) && k0.begin == BeginSearch::kIndex &&
               k0.find == FindKeys::kRange && k0.lastkey == 0 && !(k0.flags & kKsNotKey) && k0.pos > 0 &&
               k0.pos < kAclNoKeys) {
      c.acl_key_pos = static_cast<uint8_t>(k0.pos);
    }
    st.by_id.push_back(&c);
    uint32_t bits = 0;
    for (const char* cat : acl_categories(c)) {
      const int i = category_index(cat + 1);
      if (i >= 0) bits |= 1u << i;
    }
    st.categories.push_back(bits);
  };
  for (CommandSpec* c : all_commands()) {
    add(*c);
    for (CommandSpec& sub : c->subcommands) add(sub);
  }
  st.words = (st.by_id.size() + 63) / 64;
  auto def = std::make_unique<AclUser>(make_user("default"));
  const char* err = nullptr;
  for (const char* r : {"on", "nopass", "~*", "&*", "+@all"}) apply_user_rule(*def, r, &err);
  derive(*def);
  st.users.push_back(std::move(def));
  acl_set_requirepass(command_options().requirepass);
}

const std::vector<std::unique_ptr<AclUser>>& acl_users() { return state().users; }

AclUser* acl_find_user(std::string_view name) {
  for (auto& u : state().users) {
    if (u && u->name == name) return u.get();
  }
  return nullptr;
}

AclUser* acl_default_user() { return state().users.empty() ? nullptr : state().users[0].get(); }

void acl_set_requirepass(const std::string& pass) {
  AclUser* d = acl_default_user();
  if (!d) return;
  d->passwords.clear();
  if (pass.empty()) {
    d->nopass = true;
  } else {
    d->nopass = false;
    d->passwords.push_back(acl_hash_password(pass));
  }
}

bool acl_merge_selectors(std::span<const std::string_view> in, std::vector<std::string>* out,
                         std::string* err) {
  std::string cur;
  bool open = false;
  for (std::string_view a : in) {
    if (open) {
      cur += ' ';
      cur.append(a);
      if (!a.empty() && a.back() == ')') {
        out->push_back(cur);
        open = false;
      }
    } else if (!a.empty() && a[0] == '(' && a.back() != ')') {
      cur.assign(a);
      open = true;
    } else {
      out->emplace_back(a);
    }
  }
  if (open) {
    *err = "ERR Unmatched parenthesis in acl selector starting at '" + cur.substr(0, cur.find(' ')) + "'.";
    return false;
  }
  return true;
}

bool acl_setuser(std::string_view name, std::span<const std::string_view> rules, std::string* err,
                 std::string* bad_op, std::string* bad_reason) {
  if (name.find(' ') != std::string_view::npos || name.find('\0') != std::string_view::npos) {
    *err = "ERR Usernames can't contain spaces or null characters";
    return false;
  }
  std::vector<std::string> merged;
  if (!acl_merge_selectors(rules, &merged, err)) {
    if (bad_reason) *bad_reason = err->substr(4);  // without "ERR "
    return false;
  }
  AclUser* existing = acl_find_user(name);
  AclUser u = existing ? *existing : make_user(name);
  for (const std::string& r : merged) {
    const char* reason = nullptr;
    if (!apply_user_rule(u, r, &reason)) {
      *err = "ERR Error in ACL SETUSER modifier '" + r + "': " + reason;
      if (bad_op) *bad_op = r;
      if (bad_reason) *bad_reason = reason;
      return false;
    }
  }
  derive(u);
  if (existing) {
    *existing = std::move(u);
  } else {
    state().users.push_back(std::make_unique<AclUser>(std::move(u)));
  }
  return true;
}

bool acl_deluser(std::string_view name) {
  auto& users = state().users;
  for (auto it = users.begin(); it != users.end(); ++it) {
    if ((*it)->name == name) {
      state().retired.push_back(std::move(*it));
      users.erase(it);
      return true;
    }
  }
  return false;
}

AclUser* acl_authenticate(Session& s, std::string_view user, std::string_view pass, const char* cmd) {
  AclUser* u = acl_find_user(user);
  bool ok = u != nullptr && u->enabled;
  if (ok && !u->nopass) {
    const std::string h = acl_hash_password(pass);
    ok = std::find(u->passwords.begin(), u->passwords.end(), h) != u->passwords.end();
  }
  if (!ok) {
    acl_log(s, AclDeny::kAuth, (s.flags & Session::kMulti) ? "multi" : "toplevel", cmd,
            std::string(user), server_api());
    return nullptr;
  }
  return u;
}

void acl_session_init(Session& s) {
  AclUser* d = acl_default_user();
  if (!d) {  // unit tests without acl_init()
    s.authenticated = command_options().requirepass.empty();
    return;
  }
  acl_attach(s, d);
  s.authenticated = d->enabled && d->nopass;
}

void acl_attach(Session& s, AclUser* u) {
  s.user = u;
  if (u && !u->unrestricted) {
    s.flags |= Session::kAclRestricted;
  } else {
    s.flags &= ~Session::kAclRestricted;
  }
}

bool acl_session_keeps(const Session& s, const AclUser* u) {
  bool live = false;
  for (const auto& p : state().users) live = live || p.get() == u;
  if (!live) return false;
  if (u->root.allchannels || (pubsub_session_count(s, PubSubKind::kChannel) == 0 &&
                              pubsub_session_count(s, PubSubKind::kPattern) == 0 &&
                              pubsub_session_count(s, PubSubKind::kShard) == 0)) {
    return true;
  }
  auto allowed = [&](std::string_view name, bool pattern) {
    if (channel_allowed(u->root, name, pattern)) return true;
    for (const AclSelector& sel : u->selectors) {
      if (channel_allowed(sel, name, pattern)) return true;
    }
    return false;
  };
  for (PubSubKind kind : {PubSubKind::kChannel, PubSubKind::kShard, PubSubKind::kPattern}) {
    for (const std::string& name : pubsub_session_names(s, kind)) {
      if (!allowed(name, kind == PubSubKind::kPattern)) return false;
    }
  }
  return true;
}

AclDeny acl_check(const AclUser& u, const CommandSpec& c, std::span<const std::string_view> args,
                  std::string* object) {
  AclDeny worst = check_selector(u.root, c, args, object);
  if (worst == AclDeny::kOk) return worst;
  std::string obj;
  for (const AclSelector& sel : u.selectors) {
    const AclDeny d = check_selector(sel, c, args, &obj);
    if (d == AclDeny::kOk) return d;
    if (d > worst) {
      worst = d;
      *object = obj;
    }
  }
  return worst;
}

bool acl_allows_slow(const Session& s, const CommandSpec& c, std::span<const std::string_view> args) {
  if (!s.user) return true;
  std::string object;  // written only on a denial
  return acl_check(*s.user, c, args, &object) == AclDeny::kOk;
}

std::string acl_deny_text(const AclUser& u, const CommandSpec& c, AclDeny why, const std::string&) {
  // Redis 7.2's texts (7.0: "this user has no permissions to run the '%s' command" ...).
  switch (why) {
    case AclDeny::kCommand:
      return "NOPERM User " + u.name + " has no permissions to run the '" + c.full_name + "' command";
    case AclDeny::kKey: return "NOPERM No permissions to access a key";
    case AclDeny::kChannel: return "NOPERM No permissions to access a channel";
    default: return "NOPERM";
  }
}

void acl_log(Session& s, AclDeny why, const char* context, const std::string& object,
             const std::string& username, ServerApi& api) {
  AclState& st = state();
  switch (why) {
    case AclDeny::kAuth: st.denied.auth++; break;
    case AclDeny::kCommand: st.denied.cmd++; break;
    case AclDeny::kKey: st.denied.key++; break;
    default: st.denied.channel++; break;
  }
  if (st.options.log_max_len <= 0) return;
  const char* reason = why == AclDeny::kCommand ? "command"
                       : why == AclDeny::kKey   ? "key"
                       : why == AclDeny::kAuth  ? "auth"
                                                : "channel";
  const int64_t now = mstime();
  std::string info = s.client ? api.client_info(s) : std::string();
  while (!info.empty() && (info.back() == '\n' || info.back() == '\r')) info.pop_back();
  // Redis groups a repeat of the same denial within 60 s into one entry and moves it first.
  for (size_t i = 0; i < st.log.size(); i++) {
    AclLogEntry& e = st.log[i];
    if (e.reason == reason && e.context == context && e.object == object && e.username == username &&
        now - e.created_ms < 60000) {
      e.count++;
      e.updated_ms = now;
      e.client_info = info;
      AclLogEntry moved = std::move(e);
      st.log.erase(st.log.begin() + static_cast<std::ptrdiff_t>(i));
      st.log.insert(st.log.begin(), std::move(moved));
      return;
    }
  }
  AclLogEntry e;
  e.count = 1;
  e.reason = reason;
  e.context = context;
  e.object = object;
  e.username = username;
  e.client_info = info;
  e.created_ms = e.updated_ms = now;
  e.entry_id = st.next_entry_id++;
  st.log.insert(st.log.begin(), std::move(e));
  while (st.log.size() > static_cast<size_t>(st.options.log_max_len)) st.log.pop_back();
}

std::vector<AclLogEntry>& acl_log_entries() { return state().log; }

const AclDeniedCounts& acl_denied_counts() { return state().denied; }

bool acl_admit(Session& s, const CommandSpec& c, std::span<const std::string_view> args,
               ServerApi& api, const char* context, std::string* err) {
  if (!s.user) return true;
  std::string object;
  const AclDeny why = acl_check(*s.user, c, args, &object);
  if (why == AclDeny::kOk) return true;
  acl_log(s, why, context, object, s.user->name, api);
  *err = acl_deny_text(*s.user, c, why, object);
  return false;
}

bool acl_exec_recheck(Session& s, const CommandSpec& c, std::span<const std::string_view> args,
                      ServerApi& api, std::string* reason) {
  if (!s.user) return true;
  std::string object;
  const AclDeny why = acl_check(*s.user, c, args, &object);
  if (why == AclDeny::kOk) return true;
  acl_log(s, why, "multi", object, s.user->name, api);
  switch (why) {
    case AclDeny::kCommand: *reason = "no permission to execute the command or subcommand"; break;
    case AclDeny::kKey: *reason = "no permission to touch the specified keys"; break;
    case AclDeny::kChannel: *reason = "no permission to access one of the channels used as arguments"; break;
    default: *reason = "no permission"; break;
  }
  return false;
}

// ---- Description -----------------------------------------------------------------------------

std::string AclSelector::describe_keys() const {
  if (allkeys) return "~*";
  std::vector<std::string> parts;
  for (const AclKeyPattern& k : keys) {
    const char* prefix = k.perm == kAclKeyAll ? "~" : k.perm == kAclKeyRead ? "%R~" : "%W~";
    parts.push_back(prefix + k.pattern);
  }
  return join(parts);
}

std::string AclSelector::describe_channels() const {
  if (allchannels) return "&*";
  std::vector<std::string> parts;
  for (const std::string& c : channels) parts.push_back("&" + c);
  return join(parts);
}

std::string AclSelector::describe_commands() const {
  if (cmd_rules.empty()) return "-@all";
  std::vector<std::string> parts = cmd_rules;
  // A rule list that does not start from +@all / -@all starts from nothing allowed.
  if (parts[0] != "+@all" && parts[0] != "-@all") parts.insert(parts.begin(), "-@all");
  return join(parts);
}

std::string AclSelector::describe(bool) const {
  std::vector<std::string> parts;
  parts.push_back(describe_keys());
  if (!allchannels) parts.push_back("resetchannels");
  parts.push_back(describe_channels());
  parts.push_back(describe_commands());
  return join(parts);
}

std::string AclUser::describe() const {
  std::vector<std::string> parts;
  parts.push_back(enabled ? "on" : "off");
  if (nopass) parts.push_back("nopass");
  if (sanitize == 1) parts.push_back("sanitize-payload");
  if (sanitize == 2) parts.push_back("skip-sanitize-payload");
  for (const std::string& p : passwords) parts.push_back("#" + p);
  parts.push_back(root.describe(true));
  for (const AclSelector& s : selectors) parts.push_back("(" + s.describe(false) + ")");
  return join(parts);
}

// ---- Files -----------------------------------------------------------------------------------

namespace {
// Splits a line as Redis's sdssplitargs does for the cases an ACL file holds (quotes allowed).
bool split_line(const std::string& line, std::vector<std::string>* out) {
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && isspace(static_cast<unsigned char>(line[i]))) i++;
    if (i >= line.size()) break;
    std::string word;
    if (line[i] == '"' || line[i] == '\'') {
      const char q = line[i++];
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '\\' && q == '"' && i + 1 < line.size()) {
          word += line[i + 1];
          i += 2;
          continue;
        }
        if (line[i] == q) {
          closed = true;
          i++;
          break;
        }
        word += line[i++];
      }
      if (!closed) return false;
    } else {
      while (i < line.size() && !isspace(static_cast<unsigned char>(line[i]))) word += line[i++];
    }
    out->push_back(std::move(word));
  }
  return true;
}

// Builds the users of `lines` (each "user <name> <rules...>") into a fresh user list. On error
// returns the text and leaves the current users as they are.
std::string build_users(const std::vector<std::string>& lines, const std::string& file,
                        std::vector<std::unique_ptr<AclUser>>* out) {
  AclState& st = state();
  std::vector<std::unique_ptr<AclUser>> saved;
  saved.swap(st.users);
  // A fresh default user first (as Redis: "default" exists unless the file redefines it).
  auto def = std::make_unique<AclUser>(make_user("default"));
  const char* e = nullptr;
  for (const char* r : {"on", "nopass", "~*", "&*", "+@all"}) apply_user_rule(*def, r, &e);
  derive(*def);
  st.users.push_back(std::move(def));
  acl_set_requirepass(command_options().requirepass);  // unless the lines redefine default
  // Redis's texts: an ACL file names the file and line; a `user` line of the configuration
  // names the rule and the user.
  const bool from_file = !file.empty();
  std::string error;
  std::vector<std::string> seen;
  for (size_t n = 0; n < lines.size() && error.empty(); n++) {
    std::string line = lines[n];
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
    const std::string where = file + ":" + std::to_string(n + 1);
    if (line.find_first_not_of(" \t") == std::string::npos || line[line.find_first_not_of(" \t")] == '#') continue;
    std::vector<std::string> words;
    if (!split_line(line, &words)) {
      error = where + ": Syntax error. ";
      break;
    }
    if (words.size() < 2 || words[0] != "user") {
      error = where + " should start with user keyword followed by the username. ";
      break;
    }
    const std::string& name = words[1];
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      error = "WARNING: Duplicate user '" + name + "' found on line " + std::to_string(n + 1) + ". ";
      break;
    }
    seen.push_back(name);
    std::vector<std::string_view> rules;
    // Every user line starts from a new user, so a redefined default user has only its own
    // rules.
    if (AclUser* existing = acl_find_user(name)) *existing = make_user(name);
    for (size_t i = 2; i < words.size(); i++) rules.push_back(words[i]);
    std::string err, op, reason;
    if (!acl_setuser(name, rules, &err, &op, &reason)) {
      if (!from_file) {
        error = op.empty() ? reason : "Error loading ACL rule '" + op + "' for the user named '" + name + "': " + reason;
      } else if (op.empty()) {
        error = where + ": " + reason + " ";
      } else {
        error = where + ": Error in applying operation '" + op + "': " + reason + ". ";
      }
    }
  }
  if (from_file && !error.empty()) {
    error += "WARNING: ACL errors detected, no change to the previously active ACL rules was performed";
  }
  out->swap(st.users);
  st.users.swap(saved);
  return error;
}
}  // namespace

std::string acl_load_config_users() {
  AclState& st = state();
  if (st.options.config_users.empty()) return "";
  std::vector<std::string> lines;
  for (const std::string& u : st.options.config_users) lines.push_back("user " + u);
  std::vector<std::unique_ptr<AclUser>> fresh;
  std::string err = build_users(lines, "", &fresh);
  if (!err.empty()) return err;
  st.users.swap(fresh);
  for (auto& u : fresh) st.retired.push_back(std::move(u));
  return "";
}

std::string acl_load_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "Error loading ACLs, opening file '" + path + "': " + strerror(errno);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  std::vector<std::unique_ptr<AclUser>> fresh;
  std::string err = build_users(lines, path, &fresh);
  if (!err.empty()) {
    for (auto& u : fresh) state().retired.push_back(std::move(u));
    return err;
  }
  // The users keep their identity where a name survives, so sessions stay attached; the
  // caller closes the sessions of users that are gone.
  AclState& st = state();
  std::vector<std::unique_ptr<AclUser>> next;
  for (auto& f : fresh) {
    AclUser* old = acl_find_user(f->name);
    if (old) {
      *old = std::move(*f);
      for (auto& u : st.users) {
        if (u.get() == old) next.push_back(std::move(u));
      }
      st.retired.push_back(std::move(f));
    } else {
      next.push_back(std::move(f));
    }
  }
  for (auto& u : st.users) {
    if (u) st.retired.push_back(std::move(u));
  }
  st.users.swap(next);
  return "";
}

std::string acl_save_file(const std::string& path) {
  const std::string tmp = path + ".tmp-" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) return "Opening temp ACL file for ACL SAVE: " + std::string(strerror(errno));
    for (const auto& u : state().users) out << "user " << u->name << " " << u->describe() << "\n";
    out.flush();
    if (!out) return "Writing ACL file for ACL SAVE: " + std::string(strerror(errno));
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string e = strerror(errno);
    unlink(tmp.c_str());
    return "Renaming ACL file for ACL SAVE: " + e;
  }
  return "";
}

}  // namespace keel
