// ACL: SETUSER GETUSER DELUSER LIST USERS WHOAMI CAT GENPASS LOG SAVE LOAD DRYRUN HELP.
// Users, rules and the check live in acl.{h,cc}; this file is the command surface.
#include <openssl/rand.h>

#include <cstring>
#include <string>
#include <vector>

#include "base/time.h"
#include "commands/acl.h"
#include "commands/command.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "commands/server_api.h"

namespace keel {
namespace {

const AclUser& session_user(const Session& s) { return s.user ? *s.user : *acl_default_user(); }

void cmd_acl_setuser(CommandContext& cx) {
  std::vector<std::string_view> rules(cx.args().begin() + 3, cx.args().end());
  std::string err;
  if (!acl_setuser(cx.arg(2), rules, &err)) return cx.reply().error(err);
  // Sessions of the user follow its new permissions: re-derive their fast-path flag.
  cx.server().acl_sessions_update(cx.session(), {});
  cx.reply().ok();
}

void reply_selector_fields(ReplyWriter& w, const AclSelector& s) {
  w.bulk("commands");
  w.bulk(s.describe_commands());
  w.bulk("keys");
  w.bulk(s.describe_keys());
  w.bulk("channels");
  w.bulk(s.describe_channels());
}

void cmd_acl_getuser(CommandContext& cx) {
  const AclUser* u = acl_find_user(cx.arg(2));
  ReplyWriter& w = cx.reply();
  if (!u) return w.null();
  w.map(6);
  w.bulk("flags");
  std::vector<const char*> flags;
  flags.push_back(u->enabled ? "on" : "off");
  if (u->nopass) flags.push_back("nopass");
  if (u->sanitize == 1) flags.push_back("sanitize-payload");
  if (u->sanitize == 2) flags.push_back("skip-sanitize-payload");
  w.array(flags.size());
  for (const char* f : flags) w.bulk(f);
  w.bulk("passwords");
  w.array(u->passwords.size());
  for (const std::string& p : u->passwords) w.bulk(p);
  reply_selector_fields(w, u->root);
  w.bulk("selectors");
  w.array(u->selectors.size());
  for (const AclSelector& s : u->selectors) {
    w.map(3);
    reply_selector_fields(w, s);
  }
}

void cmd_acl_deluser(CommandContext& cx) {
  int64_t n = 0;
  for (size_t i = 2; i < cx.argc(); i++) {
    if (cx.arg(i) == "default") return cx.reply().error("ERR The 'default' user cannot be removed");
  }
  for (size_t i = 2; i < cx.argc(); i++) {
    const std::string name(cx.arg(i));
    if (!acl_find_user(name)) continue;
    acl_deluser(name);
    n++;
  }
  // The deleted users' connections are closed (the caller's own after this reply).
  if (n > 0) cx.server().acl_sessions_update(cx.session(), {});
  cx.reply().integer(n);
}

void cmd_acl_list(CommandContext& cx) {
  const auto& users = acl_users();
  cx.reply().array(users.size());
  for (const auto& u : users) cx.reply().bulk("user " + u->name + " " + u->describe());
}

void cmd_acl_users(CommandContext& cx) {
  const auto& users = acl_users();
  cx.reply().array(users.size());
  for (const auto& u : users) cx.reply().bulk(u->name);
}

void cmd_acl_whoami(CommandContext& cx) { cx.reply().bulk(session_user(cx.session()).name); }

void cmd_acl_cat(CommandContext& cx) {
  ReplyWriter& w = cx.reply();
  if (cx.argc() == 2) {
    auto names = acl_category_names();
    w.array(names.size());
    for (const char* n : names) w.bulk(n);
    return;
  }
  if (cx.argc() > 3) {
    return w.error("ERR unknown subcommand or wrong number of arguments for 'cat'. Try ACL HELP.");
  }
  bool known = false;
  for (const char* n : acl_category_names()) known = known || equals_nocase(cx.arg(2), n);
  if (!known) return w.error_fmt("ERR Unknown category '%.128s'", std::string(cx.arg(2)).c_str());
  std::vector<const char*> out;
  auto consider = [&](const CommandSpec& c) {
    for (const char* cat : acl_categories(c)) {
      if (equals_nocase(cx.arg(2), cat + 1)) out.push_back(c.full_name);
    }
  };
  // A container is listed when it has the category itself (@slow), then its subcommands.
  for (const CommandSpec* c : all_commands()) {
    consider(*c);
    for (const CommandSpec& sub : c->subcommands) consider(sub);
  }
  w.array(out.size());
  for (const char* n : out) w.bulk(n);
}

void cmd_acl_genpass(CommandContext& cx) {
  int64_t bits = 256;
  if (cx.argc() > 3) {
    return cx.reply().error("ERR unknown subcommand or wrong number of arguments for 'genpass'. Try ACL HELP.");
  }
  if (cx.argc() == 3 && !cx.int_arg(2, &bits)) return;
  if (bits <= 0 || bits > 4096) {
    return cx.reply().error(
        "ERR ACL GENPASS argument must be the number of bits for the output password, a positive "
        "number up to 4096");
  }
  const size_t chars = static_cast<size_t>((bits + 3) / 4);  // hex digits: 4 bits each
  std::vector<unsigned char> raw((chars + 1) / 2);
  RAND_bytes(raw.data(), static_cast<int>(raw.size()));
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : raw) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  out.resize(chars);
  cx.reply().bulk(out);
}

void cmd_acl_log(CommandContext& cx) {
  ReplyWriter& w = cx.reply();
  if (cx.argc() > 3) {
    return w.error("ERR unknown subcommand or wrong number of arguments for 'log'. Try ACL HELP.");
  }
  auto& entries = acl_log_entries();
  int64_t count = 10;
  if (cx.argc() == 3) {
    if (cx.is_arg(2, "reset")) {
      entries.clear();
      return w.ok();
    }
    if (!cx.int_arg(2, &count)) return;
    if (count < 0) count = 0;
  }
  const size_t n = std::min(entries.size(), static_cast<size_t>(count));
  const int64_t now = mstime();
  w.array(n);
  for (size_t i = 0; i < n; i++) {
    const AclLogEntry& e = entries[i];
    // The last three fields are Redis 7.2's; 7.0 has the first seven only.
    w.map(10);
    w.bulk("count");
    w.integer(static_cast<int64_t>(e.count));
    w.bulk("reason");
    w.bulk(e.reason);
    w.bulk("context");
    w.bulk(e.context);
    w.bulk("object");
    w.bulk(e.object);
    w.bulk("username");
    w.bulk(e.username);
    w.bulk("age-seconds");
    w.bulk_double(static_cast<double>(now - e.created_ms) / 1000.0);
    w.bulk("client-info");
    w.bulk(e.client_info);
    w.bulk("entry-id");
    w.integer(static_cast<int64_t>(e.entry_id));
    w.bulk("timestamp-created");
    w.integer(e.created_ms);
    w.bulk("timestamp-last-updated");
    w.integer(e.updated_ms);
  }
}

constexpr const char* kErrNoAclFile =
    "ERR This Redis instance is not configured to use an ACL file. You may want to specify users "
    "via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis "
    "configuration file set) in order to store users in the Redis configuration.";

void cmd_acl_save(CommandContext& cx) {
  if (acl_options().aclfile.empty()) return cx.reply().error(kErrNoAclFile);
  const std::string err = acl_save_file(acl_options().aclfile);
  if (!err.empty()) return cx.reply().error("ERR There was an error trying to save the ACLs. Please check the server logs for more information");
  cx.reply().ok();
}

void cmd_acl_load(CommandContext& cx) {
  if (acl_options().aclfile.empty()) return cx.reply().error(kErrNoAclFile);
  std::vector<std::pair<AclUser*, std::string>> before;
  for (const auto& u : acl_users()) before.emplace_back(u.get(), u->describe());
  const std::string err = acl_load_file(acl_options().aclfile);
  if (!err.empty()) return cx.reply().error("ERR " + err);
  // Redis 7.2+: only the connections of users deleted or changed by the file are closed (7.0
  // closed those of every user). A surviving user keeps its object, so compare in place.
  std::vector<AclUser*> changed;
  for (const auto& [u, desc] : before) {
    if (acl_find_user(u->name) == u && u->describe() != desc) changed.push_back(u);
  }
  cx.server().acl_sessions_update(cx.session(), changed);
  cx.reply().ok();
}

void cmd_acl_dryrun(CommandContext& cx) {
  const AclUser* u = acl_find_user(cx.arg(2));
  if (!u) return cx.reply().error_fmt("ERR User '%.128s' not found", std::string(cx.arg(2)).c_str());
  std::span<const std::string_view> args = cx.args().subspan(3);
  const CommandSpec* c = resolve_command(args);
  if (!c || (!c->parent && !c->subcommands.empty() && args.size() >= 2)) {
    return cx.reply().error_fmt("ERR Command '%.128s' not found", std::string(args[0]).c_str());
  }
  const int argc = static_cast<int>(args.size());
  if ((c->arity > 0 && argc != c->arity) || argc < -c->arity) {
    return cx.reply().error_fmt("ERR wrong number of arguments for '%s' command", c->full_name);
  }
  std::string object;
  const AclDeny why = acl_check(*u, *c, args, &object);
  // Redis 7.2's texts name the user (7.0: "This user has no permissions ...").
  switch (why) {
    case AclDeny::kOk: return cx.reply().ok();
    case AclDeny::kCommand:
      return cx.reply().bulk("User " + u->name + " has no permissions to run the '" + c->full_name + "' command");
    case AclDeny::kKey:
      return cx.reply().bulk("User " + u->name + " has no permissions to access the '" + object + "' key");
    default:
      return cx.reply().bulk("User " + u->name + " has no permissions to access the '" + object + "' channel");
  }
}

void cmd_acl_help(CommandContext& cx) {
  reply_help(cx, "ACL",
             {"CAT [<category>]",
              "    List all commands that belong to <category>, or all command categories",
              "    when no category is specified.",
              "DELUSER <username> [<username> ...]",
              "    Delete a list of users.",
              "DRYRUN <username> <command> [<arg> ...]",
              "    Returns whether the user can execute the given command without executing the command.",
              "GETUSER <username>",
              "    Get the user's details.",
              "GENPASS [<bits>]",
              "    Generate a secure 256-bit user password. The optional `bits` argument can",
              "    be used to specify a different size.",
              "LIST",
              "    Show users details in config file format.",
              "LOAD",
              "    Reload users from the ACL file.",
              "LOG [<count> | RESET]",
              "    Show the ACL log entries.",
              "SAVE",
              "    Save the current config to the ACL file.",
              "SETUSER <username> <attribute> [<attribute> ...]",
              "    Create or modify a user with the specified attributes.",
              "USERS",
              "    List all the registered usernames.",
              "WHOAMI",
              "    Return the current connection username."});
}

constexpr uint32_t kAclAdminFlags = kAdmin | kNoScript | kLoading | kStale;
constexpr uint32_t kAclPlainFlags = kNoScript | kLoading | kStale;

CommandSpec g_acl_subcommands[] = {
    {.name = "cat", .handler = cmd_acl_cat, .arity = -2, .flags = kAclPlainFlags, .group = "server",
     .summary = "List the ACL categories or the commands inside a category", .since = "6.0.0",
     .complexity = "O(1) since the categories and commands are a fixed set."},
    {.name = "deluser", .handler = cmd_acl_deluser, .arity = -3, .flags = kAclAdminFlags, .group = "server",
     .summary = "Remove the specified ACL users and the associated rules", .since = "6.0.0",
     .complexity = "O(1) amortized time considering the typical user."},
    {.name = "dryrun", .handler = cmd_acl_dryrun, .arity = -4, .flags = kAclAdminFlags, .group = "server",
     .summary = "Returns whether the user can execute the given command without executing the command.",
     .since = "7.0.0", .complexity = "O(1)."},
    {.name = "genpass", .handler = cmd_acl_genpass, .arity = -2, .flags = kAclPlainFlags, .group = "server",
     .summary = "Generate a pseudorandom secure password to use for ACL users", .since = "6.0.0",
     .complexity = "O(1)"},
    {.name = "getuser", .handler = cmd_acl_getuser, .arity = 3, .flags = kAclAdminFlags, .group = "server",
     .summary = "Get the rules for a specific ACL user", .since = "6.0.0",
     .complexity = "O(N). Where N is the number of password, command and pattern rules that the user has."},
    {.name = "help", .handler = cmd_acl_help, .arity = 2, .flags = kLoading | kStale, .group = "server",
     .summary = "Show helpful text about the different subcommands", .since = "6.0.0", .complexity = "O(1)"},
    {.name = "list", .handler = cmd_acl_list, .arity = 2, .flags = kAclAdminFlags, .group = "server",
     .summary = "List the current ACL rules in ACL config file format", .since = "6.0.0",
     .complexity = "O(N). Where N is the number of configured users."},
    {.name = "load", .handler = cmd_acl_load, .arity = 2, .flags = kAclAdminFlags, .group = "server",
     .summary = "Reload the ACLs from the configured ACL file", .since = "6.0.0",
     .complexity = "O(N). Where N is the number of configured users."},
    {.name = "log", .handler = cmd_acl_log, .arity = -2, .flags = kAclAdminFlags, .group = "server",
     .summary = "List latest events denied because of ACLs in place", .since = "6.0.0",
     .complexity = "O(N) with N being the number of entries shown."},
    {.name = "save", .handler = cmd_acl_save, .arity = 2, .flags = kAclAdminFlags, .group = "server",
     .summary = "Save the current ACL rules in the configured ACL file", .since = "6.0.0",
     .complexity = "O(N). Where N is the number of configured users."},
    {.name = "setuser", .handler = cmd_acl_setuser, .arity = -3, .flags = kAclAdminFlags, .group = "server",
     .summary = "Modify or create the rules for a specific ACL user", .since = "6.0.0",
     .complexity = "O(N). Where N is the number of rules provided."},
    {.name = "users", .handler = cmd_acl_users, .arity = 2, .flags = kAclAdminFlags, .group = "server",
     .summary = "List the username of all the configured ACL rules", .since = "6.0.0",
     .complexity = "O(N). Where N is the number of configured users."},
    {.name = "whoami", .handler = cmd_acl_whoami, .arity = 2, .flags = kAclPlainFlags, .group = "server",
     .summary = "Return the name of the user associated to the current connection", .since = "6.0.0",
     .complexity = "O(1)"},
};

CommandSpec g_acl_commands[] = {
    {.name = "acl", .arity = -2, .group = "server", .summary = "A container for Access List Control commands ",
     .since = "6.0.0", .complexity = "Depends on subcommand.", .subcommands = g_acl_subcommands},
};
}  // namespace

std::span<CommandSpec> acl_commands() { return g_acl_commands; }

}  // namespace keel
