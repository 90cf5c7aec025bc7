// Access control lists (Redis 7 ACL v2): users, their rules and selectors, the permission check
// admission runs for a restricted user, and the ACL LOG. The ACL command is in cmd_acl.cc.
//
// Cost model: a user whose root selector allows every command, every key (read and write) and
// every channel is "unrestricted"; its sessions never set Session::kAclRestricted and keep the
// one-test admission path. A restricted user's sessions carry the flag; when it is the only
// reason for the full admission, execute_command's fast path calls acl_allows() and goes on
// to call() (a denial takes execute_command_slow, which replies and logs it): one bitmap test
// per command (indexed by CommandSpec::acl_id), key patterns only when the selector has
// restricted keys ("prefix*" patterns by one compare), channel patterns only for pub/sub
// commands.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/assert.h"
#include "commands/command.h"
#include "commands/session.h"
#include "protocol/reply_writer.h"

namespace keel {

class ServerApi;

// Key pattern permissions (%R~, %W~, ~ is both).
enum AclKeyPerm : uint8_t { kAclKeyRead = 1, kAclKeyWrite = 2, kAclKeyAll = 3 };

struct AclKeyPattern {
  std::string pattern;
  uint8_t perm = kAclKeyAll;
  // The shape most rules have, a literal prefix and one trailing '*' ("app:*"): its length,
  // matched with one compare instead of glob_match. -1 for any other pattern.
  int32_t literal_prefix = -1;
};

// One set of permissions: the root selector of a user, or one of its "(...)" selectors.
struct AclSelector {
  std::vector<uint64_t> allowed;        // bit per CommandSpec::acl_id
  std::vector<std::string> cmd_rules;   // the command rules as ACL LIST shows them
  bool allkeys = false;
  bool allchannels = false;
  std::vector<AclKeyPattern> keys;
  std::vector<std::string> channels;
  // Redis 7.0's first-argument rules (+select|0): command id -> allowed first arguments.
  std::vector<std::pair<uint16_t, std::string>> first_args;

  bool allows_command(uint16_t id) const { return (allowed[id >> 6] >> (id & 63)) & 1; }
  std::string describe(bool root) const;  // "~a %R~b resetchannels &c -@all +get"
  std::string describe_commands() const;
  std::string describe_keys() const;
  std::string describe_channels() const;
};

struct AclUser {
  std::string name;
  bool enabled = false;
  bool nopass = false;
  int sanitize = 0;  // 0 none, 1 sanitize-payload, 2 skip-sanitize-payload
  std::vector<std::string> passwords;  // SHA-256, lowercase hex
  AclSelector root;
  std::vector<AclSelector> selectors;
  bool unrestricted = false;  // derived: every command, key and channel (the fast path)
  // Derived for acl_allows's inline part, the root selector's common shapes: fast_allkeys, or
  // exactly one pattern, a "prefix*" of 1 to 8 bytes granting read and write, as a word and
  // byte mask (keys of 8 bytes or more match with one load and compare; any other key rule
  // has a word that never matches); fast_cmd_flags: the command flags that need the full
  // check (kPubSubCmd unless every channel is allowed).
  bool fast_allkeys = false;
  uint32_t fast_cmd_flags = 0;
  uint64_t fast_word = 0, fast_mask = 0;
  // The same folded per command (by CommandSpec::acl_id), so the inline check is one byte
  // load: kAclFastSlow (the full check: not allowed by the root selector, a pub/sub command
  // without every channel, a key rule of another shape or a key the arity does not
  // guarantee), kAclFastAny (allowed, no key to check), else the position of the one key,
  // which the arity guarantees is there, to test against fast_word / fast_mask.
  std::vector<uint8_t> fast_cmd;

  std::string describe() const;  // one ACL LIST line without "user <name> "
};

// Start-up: numbers every command row (CommandSpec::acl_id) and creates the default user
// ("on nopass ~* &* +@all", with requirepass as its password when set).
void acl_init();

AclUser* acl_find_user(std::string_view name);
AclUser* acl_default_user();
const std::vector<std::unique_ptr<AclUser>>& acl_users();

// The SHA-256 of `s` in lowercase hex.
std::string acl_hash_password(std::string_view s);

// Applies `rules` (ACL SETUSER's arguments, selectors already joined) to a copy of the user
// named `name` (a new user when there is none); nothing is changed unless every rule applies.
// On failure *err is the full error text ("ERR Error in ACL SETUSER modifier ...").
// *bad_op / *reason (optional): the failing rule and the reason alone (ACL files, `user` lines).
bool acl_setuser(std::string_view name, std::span<const std::string_view> rules, std::string* err,
                 std::string* bad_op = nullptr, std::string* reason = nullptr);
// Joins selector arguments "(~a" "+get)" into one; false (and *err) on an unmatched '('.
bool acl_merge_selectors(std::span<const std::string_view> in, std::vector<std::string>* out,
                         std::string* err);
// Deletes the user; sessions authenticated as it are closed by the caller.
bool acl_deluser(std::string_view name);

// requirepass changed (CONFIG SET / start-up): the default user's password becomes it.
void acl_set_requirepass(const std::string& pass);

// AUTH / HELLO AUTH: the user when the password is right and the user is on, else null (and
// the failure is logged in ACL LOG with reason auth).
// `cmd` ("auth" / "hello") is the log entry's object, as in Redis.
AclUser* acl_authenticate(Session& s, std::string_view user, std::string_view pass, const char* cmd);
// A new connection (or RESET): the default user, authenticated when it is on and nopass.
void acl_session_init(Session& s);
// Whether a session of `u` may stay connected: the user still exists and allows every
// channel, shard channel and pattern the session is subscribed to (Redis closes the others
// when a user's channel rules change).
bool acl_session_keeps(const Session& s, const AclUser* u);
// Points the session at the user and sets or clears Session::kAclRestricted.
void acl_attach(Session& s, AclUser* u);

// Denial reasons, in Redis's order of relevance (the highest of all selectors is reported).
enum class AclDeny : uint8_t { kOk = 0, kCommand, kKey, kAuth, kChannel };

// The check of one command for the session's user: kOk, or the reason with *object (the
// command, key or channel denied).
AclDeny acl_check(const AclUser& u, const CommandSpec& c, std::span<const std::string_view> args,
                  std::string* object);
// CommandSpec::acl_key_pos of a command with no keys.
inline constexpr uint8_t kAclNoKeys = 255;
// AclUser::fast_cmd's two verdicts that are not a key position.
inline constexpr uint8_t kAclFastSlow = 0;
inline constexpr uint8_t kAclFastAny = 255;
// acl_check's verdict alone, without the denial's details: execute_command's fast path. The
// usual case (a root selector that allows the command and has all keys or a single short
// "prefix*" pattern, a command with no key or one at a fixed position) is answered inline in
// a few loads; anything else, and every denial (another selector may overturn it), takes
// acl_allows_slow, the full check.
bool acl_allows_slow(const Session& s, const CommandSpec& c, std::span<const std::string_view> args);
// Called only for a session with kAclRestricted (so s.user is set) whose command passed the
// arity check (so a key position of fast_cmd is within args).
inline bool acl_allows(const Session& s, const CommandSpec& c, std::span<const std::string_view> args) {
  const AclUser* u = s.user;
  const uint8_t f = u->fast_cmd.data()[c.acl_id];
  if (KEEL_LIKELY(f == kAclFastAny)) return true;
  if (f != kAclFastSlow) {
    // A command whose key flags depend on its arguments (SET with GET) still has its key at
    // the spec's position; only its flags vary, which a read-and-write pattern ignores.
    const std::string_view k = args[f];
    if (k.size() >= 8) {
      uint64_t w;
      memcpy(&w, k.data(), 8);
      if ((w & u->fast_mask) == u->fast_word) return true;
    }
  }
  return acl_allows_slow(s, c, args);
}

// The -NOPERM text for a denial.
std::string acl_deny_text(const AclUser& u, const CommandSpec& c, AclDeny why,
                          const std::string& object);
// Adds (or updates) an ACL LOG entry. context: "toplevel", "multi", "lua".
void acl_log(Session& s, AclDeny why, const char* context, const std::string& object,
             const std::string& username, ServerApi& api);
// Admission's check for a session of a restricted user: true when allowed; else replies the
// -NOPERM error text in *err and logs the denial.
bool acl_admit(Session& s, const CommandSpec& c, std::span<const std::string_view> args,
               ServerApi& api, const char* context, std::string* err);

// EXEC's check of a queued command: true when allowed; else logs it (context multi) and sets
// *reason to Redis's EXEC reason text.
bool acl_exec_recheck(Session& s, const CommandSpec& c, std::span<const std::string_view> args,
                      ServerApi& api, std::string* reason);

// Options (config): acllog-max-len, acl-pubsub-default (true: allchannels), aclfile.
struct AclOptions {
  int64_t log_max_len = 128;
  int pubsub_default = 0;  // acl-pubsub-default: 1 allchannels, 0 resetchannels
  std::string aclfile;
  std::vector<std::string> config_users;  // "user" directives of redis.conf, in order
};
AclOptions& acl_options();

// Loads the `user` directives of the configuration (start-up). Returns "" or the error.
std::string acl_load_config_users();
// ACL LOAD / start-up with aclfile: all or nothing. Returns "" or the error text.
std::string acl_load_file(const std::string& path);
// ACL SAVE. Returns "" or the error text.
std::string acl_save_file(const std::string& path);

// ACL LOG entries (cmd_acl.cc replies them).
struct AclLogEntry {
  uint64_t count = 0;
  std::string reason, context, object, username, client_info;
  int64_t created_ms = 0, updated_ms = 0;
  uint64_t entry_id = 0;
};
std::vector<AclLogEntry>& acl_log_entries();  // newest first
// INFO stats' acl_access_denied_{auth,cmd,key,channel} (Redis 7.2+), counted by acl_log.
struct AclDeniedCounts {
  uint64_t auth = 0, cmd = 0, key = 0, channel = 0;
};
const AclDeniedCounts& acl_denied_counts();

// COMMAND INFO's categories (cmd_server.cc), the one source of the ACL categories.
std::vector<const char*> acl_categories(const CommandSpec& c);
// ACL CAT's list of category names, in Redis's order.
std::span<const char* const> acl_category_names();

}  // namespace keel
