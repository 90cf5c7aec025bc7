// Builds the lookup over all command families. Names are folded to lowercase; the probe array is
// sized to a power of two at least 4x the number of commands, so probes are short.
#include "commands/command_table.h"

#include <cstring>
#include <memory>
#include <string>

#include "base/assert.h"
#include "commands/command_rename.h"
#include "commands/key_specs.h"
#include "commands/latency.h"

namespace keel {
namespace {

// A name as the lookup sees it: lowercased, its first 16 bytes as two zero-padded words (every
// command name but a few fits), the rest compared bytewise.
struct FoldedName {
  uint64_t w[2] = {0, 0};
  char rest[48];  // bytes 16.. of the lowercased name
  size_t len = 0;
};

// Lowercases the ASCII letters of 8 bytes at once: a byte gets 0x20 when it is in 'A'..'Z'
// (bit 7 clear and both sums below carry into bit 7 exactly for 'A' <= b and b <= 'Z').
inline uint64_t lower8(uint64_t x) {
  constexpr uint64_t k01 = 0x0101010101010101ull, k80 = 0x8080808080808080ull;
  const uint64_t low7 = x & ~k80;
  const uint64_t ge_a = low7 + k01 * (0x80 - 'A');
  const uint64_t gt_z = low7 + k01 * (0x80 - 'Z' - 1);
  return x | ((ge_a & ~gt_z & ~x & k80) >> 2);
}

// False when too long to be a command name.
bool fold(std::string_view name, FoldedName* f) {
  const size_t n = name.size();
  if (n > 16 + sizeof(f->rest)) return false;
  f->len = n;
  std::memcpy(f->w, name.data(), n < 16 ? n : 16);  // w starts zeroed
  f->w[0] = lower8(f->w[0]);
  f->w[1] = lower8(f->w[1]);
  for (size_t i = 16; i < n; i++) {
    const char c = name[i];
    f->rest[i - 16] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  }
  return true;
}

uint64_t hash_folded(const FoldedName& f) {
  uint64_t h = (f.w[0] * 0x9E3779B97F4A7C15ull) ^ (f.w[1] * 0xC2B2AE3D27D4EB4Full) ^ f.len;
  return h ^ (h >> 29);
}

// Frees the latency histograms of the rows and their subcommands; `zero` also clears the
// counters (CONFIG RESETSTAT).
void release_stats(std::span<CommandSpec> rows, bool zero) {
  for (CommandSpec& c : rows) {
    latency_histogram_free(*c.stats);
    if (zero) *c.stats = CommandStats{};
    if (!c.subcommands.empty()) release_stats(c.subcommands, zero);
  }
}

struct Table {
  // The rows outlive the table (static arrays with trivial destructors); the histograms they
  // point at are freed with it, so that nothing is left unreachable at exit (LeakSanitizer).
  ~Table() {
    for (CommandSpec* c : commands) release_stats(std::span<CommandSpec>(c, 1), false);
  }
  std::vector<CommandSpec*> commands;
  struct Slot {
    const CommandSpec* cmd = nullptr;
    FoldedName name;
  };
  std::vector<Slot> slots;  // open addressing by hash_folded
  size_t mask = 0;
  std::vector<std::unique_ptr<CommandStats[]>> stats_blocks;
  std::vector<std::unique_ptr<std::string>> full_names;
};
Table g_table;

void add_stats(std::span<CommandSpec> rows, const CommandSpec* parent) {
  auto block = std::make_unique<CommandStats[]>(rows.size());
  for (size_t i = 0; i < rows.size(); i++) {
    CommandSpec& c = rows[i];
    c.stats = &block[i];
    init_key_specs(c);
    c.parent = parent;
    if (parent) {
      auto name = std::make_unique<std::string>(std::string(parent->name) + "|" + c.name);
      c.full_name = name->c_str();
      g_table.full_names.push_back(std::move(name));
    } else {
      c.full_name = c.name;
    }
    if (!c.subcommands.empty()) {
      c.flags |= kContainer;
      add_stats(c.subcommands, &c);
    }
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
           hll_commands(),
           config_commands(),
           pubsub_commands(),
           multi_commands(),
           list_commands(),
           hash_commands(),
           set_commands(),
           zset_commands(),
           geo_commands(),
           sort_commands(),
           stream_commands(),
           scripting_commands(),
           persistence_commands(),
           standalone_commands(),
           memory_commands(),
           latency_commands(),
           replication_commands(),
           acl_commands(),
       }) {
    add_stats(family, nullptr);
    for (CommandSpec& c : family) g_table.commands.push_back(&c);
  }
  size_t cap = 16;
  while (cap < g_table.commands.size() * 4) cap *= 2;
  g_table.slots.assign(cap, Table::Slot{});
  g_table.mask = cap - 1;
  for (CommandSpec* c : g_table.commands) {
    FoldedName f{};  // zeroed: the slot keeps all of it
    const bool fits = fold(c->name, &f);
    KEEL_ASSERT(fits);
    size_t i = hash_folded(f) & g_table.mask;
    while (g_table.slots[i].cmd) {
      KEEL_ASSERT(strcmp(g_table.slots[i].cmd->name, c->name) != 0);  // duplicate command row
      i = (i + 1) & g_table.mask;
    }
    g_table.slots[i] = {c, f};
  }
}

// rename-command: the slots are rebuilt from (name, row) pairs, the renamed row under its new
// name and a disabled one not at all. Start-up only, so the cost does not matter.
bool rename_command(std::string_view from, std::string_view to, std::string* err) {
  init_command_table();
  const CommandSpec* c = lookup_command(from);
  if (c == nullptr) {
    *err = "No such command in rename-command";
    return false;
  }
  if (equals_nocase(from, to)) return true;
  FoldedName target{};
  if (!to.empty() && (lookup_command(to) != nullptr || !fold(to, &target))) {
    *err = "Target command name already exists";
    return false;
  }
  std::vector<Table::Slot> entries;
  for (const Table::Slot& s : g_table.slots) {
    if (s.cmd == nullptr) continue;
    if (s.cmd != c) {
      entries.push_back(s);
    } else if (!to.empty()) {
      entries.push_back({c, target});
    }
  }
  g_table.slots.assign(g_table.slots.size(), Table::Slot{});
  for (const Table::Slot& e : entries) {
    size_t i = hash_folded(e.name) & g_table.mask;
    while (g_table.slots[i].cmd) i = (i + 1) & g_table.mask;
    g_table.slots[i] = e;
  }
  return true;
}

const CommandSpec* lookup_original_command(std::string_view name) {
  const CommandSpec* c = lookup_command(name);
  if (c != nullptr && equals_nocase(name, c->name)) return c;  // not renamed: the fast path
  for (const CommandSpec* row : g_table.commands) {
    if (equals_nocase(name, row->name)) return row;
  }
  return nullptr;
}

const CommandSpec* lookup_command(std::string_view name) {
  FoldedName f;
  if (!fold(name, &f)) return nullptr;
  size_t i = hash_folded(f) & g_table.mask;
  for (;;) {
    const Table::Slot& s = g_table.slots[i];
    if (s.cmd == nullptr) return nullptr;
    if (s.name.w[0] == f.w[0] && s.name.w[1] == f.w[1] && s.name.len == f.len &&
        (f.len <= 16 || std::memcmp(s.name.rest, f.rest, f.len - 16) == 0)) {
      return s.cmd;
    }
    i = (i + 1) & g_table.mask;
  }
}

const CommandSpec* lookup_subcommand(const CommandSpec& parent, std::string_view name) {
  for (const CommandSpec& c : parent.subcommands) {
    if (equals_nocase(name, c.name)) return &c;
  }
  return nullptr;
}

const std::vector<CommandSpec*>& all_commands() { return g_table.commands; }

void reset_command_stats() {
  for (CommandSpec* c : g_table.commands) release_stats(std::span<CommandSpec>(c, 1), true);
}

}  // namespace keel
