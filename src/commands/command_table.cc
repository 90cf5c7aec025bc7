// Builds the lookup over all command families. Names are folded to lowercase; the probe array is
// sized to a power of two at least 4x the number of commands, so probes are short.
#include "commands/command_table.h"

#include <cstring>
#include <memory>
#include <string>

#include "base/assert.h"
#include "commands/batch_prefetch.h"

namespace keel {
namespace {

struct Table {
  std::vector<CommandSpec*> commands;
  std::vector<const CommandSpec*> slots;  // open addressing by name hash
  size_t mask = 0;
  std::vector<std::unique_ptr<CommandStats[]>> stats_blocks;
  std::vector<std::unique_ptr<std::string>> full_names;
};
Table g_table;

uint64_t name_hash(std::string_view s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over already-lowercased bytes
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

// Lowercases name into buf (cap bytes); returns false when too long to be a command name.
bool fold(std::string_view name, char* buf, size_t cap) {
  if (name.size() > cap) return false;
  for (size_t i = 0; i < name.size(); i++) {
    char c = name[i];
    buf[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  }
  return true;
}

void add_stats(std::span<CommandSpec> rows, const CommandSpec* parent) {
  auto block = std::make_unique<CommandStats[]>(rows.size());
  for (size_t i = 0; i < rows.size(); i++) {
    CommandSpec& c = rows[i];
    c.stats = &block[i];
    c.parent = parent;
    if (parent) {
      auto name = std::make_unique<std::string>(std::string(parent->name) + "|" + c.name);
      c.full_name = name->c_str();
      g_table.full_names.push_back(std::move(name));
    } else {
      c.full_name = c.name;
    }
    if (!c.subcommands.empty()) add_stats(c.subcommands, &c);
  }
  g_table.stats_blocks.push_back(std::move(block));
}

}  // namespace

bool equals_nocase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

void init_command_table() {
  if (!g_table.commands.empty()) return;
  for (auto family : {
           connection_commands(),
           server_commands(),
           keys_commands(),
           string_commands(),
           bitmap_commands(),
           config_commands(),
           pubsub_commands(),
           multi_commands(),
           list_commands(),
           hash_commands(),
           set_commands(),
           zset_commands(),
           scripting_commands(),
       }) {
    add_stats(family, nullptr);
    for (CommandSpec& c : family) g_table.commands.push_back(&c);
  }
  size_t cap = 16;
  while (cap < g_table.commands.size() * 4) cap *= 2;
  g_table.slots.assign(cap, nullptr);
  g_table.mask = cap - 1;
  for (CommandSpec* c : g_table.commands) {
    size_t i = name_hash(c->name) & g_table.mask;
    while (g_table.slots[i]) {
      KEEL_ASSERT(strcmp(g_table.slots[i]->name, c->name) != 0);  // duplicate command row
      i = (i + 1) & g_table.mask;
    }
    g_table.slots[i] = c;
  }
  init_member_positions();
}

const CommandSpec* lookup_command(std::string_view name) {
  char buf[64];
  if (!fold(name, buf, sizeof(buf))) return nullptr;
  std::string_view folded(buf, name.size());
  size_t i = name_hash(folded) & g_table.mask;
  while (const CommandSpec* c = g_table.slots[i]) {
    if (folded == c->name) return c;
    i = (i + 1) & g_table.mask;
  }
  return nullptr;
}

const CommandSpec* lookup_subcommand(const CommandSpec& parent, std::string_view name) {
  for (const CommandSpec& c : parent.subcommands) {
    if (equals_nocase(name, c.name)) return &c;
  }
  return nullptr;
}

const std::vector<CommandSpec*>& all_commands() { return g_table.commands; }

void reset_command_stats() {
  auto reset = [](auto& self, std::span<CommandSpec> rows) -> void {
    for (CommandSpec& c : rows) {
      *c.stats = CommandStats{};
      if (!c.subcommands.empty()) self(self, c.subcommands);
    }
  };
  for (CommandSpec* c : g_table.commands) reset(reset, std::span<CommandSpec>(c, 1));
}

}  // namespace keel
