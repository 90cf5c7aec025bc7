// Shared by the config*.cc files only (not part of the server's interface): the Directive row
// type, the row builders, and the helpers that read, write and look up a directive. config.h is
// the interface the rest of the server uses.
//   config.cc          CONFIG GET / SET / REWRITE over the table, value get/set helpers
//   config_table.cc    the directives that have behaviour behind them, with their special setters
//   config_ignored.cc  directives accepted and reported for compatibility but not acted on, and
//                      the deprecated ones a config file may still contain
//   config_parse.cc    redis.conf / command-line loading, quoting and memory-unit parsing
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/config.h"

namespace keel::config_detail {

enum DirectiveFlag : uint32_t {
  kImmutable = 1u << 0,  // start-up only: CONFIG SET says "can't set immutable config"
  kProtected = 1u << 1,  // CONFIG SET only with enable-protected-configs yes/local
  kSensitive = 1u << 2,  // a secret (kept out of logs)
  kMultiArg = 1u << 3,   // takes any number of arguments (CONFIG SET splits the value on ' ')
  kMemory = 1u << 4,     // numeric with memory units (1mb, 2gb ...)
  kUnsigned = 1u << 5,   // numeric stored as uint64 (upper bound UINT64_MAX)
  kPercent = 1u << 6,    // numeric that also takes "N%" (stored as -N; bounds min..max, min < 0)
  kHidden = 1u << 7,     // not listed by CONFIG GET patterns; answers when asked for by name
};

enum class Kind : uint8_t { kBool, kNum, kEnumInt, kEnumStr, kString, kSpecial };
enum class Num : uint8_t { kInt, kI64, kU64, kSize };

struct EnumItem {
  const char* name;
  int value;
};

struct Directive;
using Args = std::vector<std::string>;
using SetFn = bool (*)(const Directive&, const Args&, std::string* err);
using GetFn = std::string (*)(const Directive&);
using ApplyFn = bool (*)(std::string* err);
// (line, force): force = write the line even when the file has no line for this directive.
using RewriteFn = void (*)(const Directive&, std::vector<std::pair<std::string, bool>>* out);

struct Directive {
  const char* name;
  const char* alias = nullptr;
  Kind kind = Kind::kSpecial;
  uint32_t flags = 0;
  void* (*target)() = nullptr;     // where the value lives (per kind: bool*, int*, std::string*...)
  Num num = Num::kI64;
  int64_t min = 0, max = 0;
  const EnumItem* items = nullptr;  // null-name terminated
  const char* def = "";             // the default as CONFIG GET prints it (rewrite "force" test)
  SetFn set = nullptr;              // kSpecial, or a validity check for the generic kinds
  GetFn get = nullptr;              // kSpecial
  ApplyFn apply = nullptr;          // CONFIG SET only: run once after every value is set
  RewriteFn rewrite = nullptr;      // kSpecial lines; null = "name <get value>"
  void (*post)() = nullptr;         // after a successful generic set (clamping, derived flags)
};

constexpr int64_t kIntMax = std::numeric_limits<int>::max();
constexpr int64_t kIntMin = std::numeric_limits<int>::min();
constexpr int64_t kLongMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kUIntMax = std::numeric_limits<uint32_t>::max();

#define KEEL_REF(expr) []() -> void* { return static_cast<void*>(&(expr)); }

inline Directive b(const char* name, const char* alias, uint32_t flags, void* (*t)(), bool def) {
  Directive d{name};
  d.alias = alias, d.kind = Kind::kBool, d.flags = flags, d.target = t, d.def = def ? "yes" : "no";
  return d;
}
inline Directive n(const char* name, const char* alias, uint32_t flags, void* (*t)(), Num num,
            int64_t min, int64_t max, const char* def) {
  Directive d{name};
  d.alias = alias, d.kind = Kind::kNum, d.flags = flags, d.target = t, d.num = num;
  d.min = min, d.max = max, d.def = def;
  return d;
}
inline Directive ei(const char* name, uint32_t flags, void* (*t)(), const EnumItem* items,
             const char* def) {
  Directive d{name};
  d.kind = Kind::kEnumInt, d.flags = flags, d.target = t, d.items = items, d.def = def;
  return d;
}
inline Directive es(const char* name, uint32_t flags, void* (*t)(), const EnumItem* items,
             const char* def) {
  Directive d{name};
  d.kind = Kind::kEnumStr, d.flags = flags, d.target = t, d.items = items, d.def = def;
  return d;
}
inline Directive s(const char* name, const char* alias, uint32_t flags, void* (*t)(), const char* def,
            SetFn check = nullptr) {
  Directive d{name};
  d.alias = alias, d.kind = Kind::kString, d.flags = flags, d.target = t, d.def = def;
  d.set = check;
  return d;
}
inline Directive sp(const char* name, uint32_t flags, SetFn set, GetFn get, const char* def,
             RewriteFn rw = nullptr, ApplyFn apply = nullptr) {
  Directive d{name};
  d.kind = Kind::kSpecial, d.flags = flags, d.set = set, d.get = get, d.def = def;
  d.rewrite = rw, d.apply = apply;
  return d;
}

// ---- Helpers (config.cc) ----------------------------------------------------------------------
bool iequals(std::string_view a, std::string_view b);
std::string lower(std::string_view s);
// CONFIG REWRITE's memory form: the largest of gb/mb/kb that divides the value, else bytes.
std::string format_memory(uint64_t v);
std::string enum_names(const EnumItem* items);
const EnumItem* find_enum(const EnumItem* items, std::string_view v);
std::string get_value(const Directive& d);
// Sets one directive from its arguments (already split). False with *err on a bad value; the
// stored value is then unchanged.
bool set_value(const Directive& d, const Args& args, std::string* err);
const Directive* lookup(std::string_view name);
// The lines of one directive as CONFIG REWRITE writes them, each with its "force" bit.
void rewrite_lines(const Directive& d, std::vector<std::pair<std::string, bool>>* out);

// ---- The table (config_table.cc, config_repl.cc, config_ignored.cc) -------------------------------------------
const std::vector<Directive>& table();
// Appends the rows of the directives Keel accepts and reports without acting on them.
void add_ignored_directives(std::vector<Directive>* v);
// Appends the rows of the replication directives (config_repl.cc).
void add_repl_directives(std::vector<Directive>* v);
// Directives accepted in a file for compatibility and ignored (name, exact argc with the name).
bool deprecated_directive(std::string_view name, size_t argc);
// enable-protected-configs: 0 no, 1 yes, 2 local.
extern int g_enable_protected_configs;
// True while a config file loads (save lines accumulate then, see set_save).
extern bool g_reading_config_file;

// ---- Files (config_parse.cc) ------------------------------------------------------------------
bool read_whole_file(const std::string& path, std::string* out);
std::vector<std::string> split_lines(const std::string& text);
std::string trim(std::string_view s);

}  // namespace keel::config_detail
