// CONFIG GET (glob over names and aliases), CONFIG SET (validate all, set all, apply once, roll
// back on failure) and CONFIG REWRITE (in-place update of the file that keeps comments and line
// order), and the helpers that read and write one directive's value. The rows live in
// config_table.cc and config_ignored.cc, file loading in config_parse.cc (config_internal.h).
// Not here: the CONFIG command rows (commands/cmd_config.cc) and what each option does once set
// (its owning layer).
#include "server/config.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <algorithm>

#include "base/glob.h"
#include "base/log.h"
#include "base/numbers.h"
#include "commands/acl.h"
#include "server/config_internal.h"

namespace keel {

ServerOptions& server_options_slow() {
  static ServerOptions o;
  g_server_options = &o;
  return o;
}

Config& config() {
  static Config c;
  return c;
}

namespace config_detail {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (tolower(static_cast<unsigned char>(a[i])) != tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  return out;
}

// CONFIG REWRITE's memory form: the largest of gb/mb/kb that divides the value, else bytes.
std::string format_memory(uint64_t v) {
  constexpr uint64_t kKb = 1024, kMb = kKb * 1024, kGb = kMb * 1024;
  if (v && v % kGb == 0) return std::to_string(v / kGb) + "gb";
  if (v && v % kMb == 0) return std::to_string(v / kMb) + "mb";
  if (v && v % kKb == 0) return std::to_string(v / kKb) + "kb";
  return std::to_string(v);
}

int64_t read_num(const Directive& d) {
  void* p = d.target();
  switch (d.num) {
    case Num::kInt: return *static_cast<int*>(p);
    case Num::kI64: return *static_cast<int64_t*>(p);
    case Num::kU64: return static_cast<int64_t>(*static_cast<uint64_t*>(p));
    case Num::kSize: return static_cast<int64_t>(*static_cast<size_t*>(p));
  }
  return 0;
}

void write_num(const Directive& d, int64_t v) {
  void* p = d.target();
  switch (d.num) {
    case Num::kInt: *static_cast<int*>(p) = static_cast<int>(v); break;
    case Num::kI64: *static_cast<int64_t*>(p) = v; break;
    case Num::kU64: *static_cast<uint64_t*>(p) = static_cast<uint64_t>(v); break;
    case Num::kSize: *static_cast<size_t*>(p) = static_cast<size_t>(v); break;
  }
}

std::string enum_names(const EnumItem* items) {
  std::string out;
  for (const EnumItem* e = items; e->name; e++) {
    if (!out.empty()) out += ", ";
    out += e->name;
  }
  return out;
}

const EnumItem* find_enum(const EnumItem* items, std::string_view v) {
  for (const EnumItem* e = items; e->name; e++) {
    if (iequals(e->name, v)) return e;
  }
  return nullptr;
}

std::string get_value(const Directive& d) {
  switch (d.kind) {
    case Kind::kBool: return *static_cast<bool*>(d.target()) ? "yes" : "no";
    case Kind::kNum:
      if (d.flags & kUnsigned) return std::to_string(*static_cast<uint64_t*>(d.target()));
      // A percentage is stored negated (maxmemory-clients 10% is -10), as Redis stores it.
      if ((d.flags & kPercent) && read_num(d) < 0) return std::to_string(-read_num(d)) + "%";
      return std::to_string(read_num(d));
    case Kind::kEnumInt: {
      const int v = *static_cast<int*>(d.target());
      for (const EnumItem* e = d.items; e->name; e++) {
        if (e->value == v) return e->name;
      }
      return "unknown";
    }
    case Kind::kEnumStr:
    case Kind::kString: return *static_cast<std::string*>(d.target());
    case Kind::kSpecial: return d.get(d);
  }
  return {};
}

namespace {

// A numeric directive: a plain integer, a memory value (1mb, 2gb ...) or, with kPercent, also a
// percentage "N%" (stored as -N). Redis's order of checks and texts: the syntax first, then the
// bounds; a negative (percentage) value is only checked against the lower bound. A memory value
// above INT64_MAX reads as negative there too, so 18446744073709551615 is accepted as 1%.
bool set_number(const Directive& d, const std::string& v, std::string* err) {
  int64_t val = 0;
  if ((d.flags & kPercent) && v.size() > 1 && v.back() == '%' &&
      parse_int64(std::string_view(v).substr(0, v.size() - 1), &val) && val >= 0) {
    val = -val;
  } else if (d.flags & kMemory) {
    uint64_t u;
    if (!parse_memory(v, &u)) {
      *err = (d.flags & kPercent) ? "argument must be a memory or percent value"
                                  : "argument must be a memory value";
      return false;
    }
    if (d.flags & kUnsigned) {
      *static_cast<uint64_t*>(d.target()) = u;
      return true;
    }
    val = static_cast<int64_t>(u);
  } else if (!parse_int64(v, &val)) {
    *err = "argument couldn't be parsed into an integer";
    return false;
  }
  if ((d.flags & kPercent) && val < 0) {
    if (val < d.min) {
      *err = "percentage argument must be less or equal to " + std::to_string(-d.min);
      return false;
    }
  } else if (val < d.min || val > d.max) {
    *err = "argument must be between " + std::to_string(d.min) + " and " +
           std::to_string(d.max) + " inclusive";
    return false;
  }
  write_num(d, val);
  return true;
}

}  // namespace

// Sets one directive from its arguments (already split). False with *err on a bad value; the
// stored value is then unchanged.
bool set_value(const Directive& d, const Args& args, std::string* err) {
  if (d.kind == Kind::kSpecial) return d.set(d, args, err);
  const std::string& v = args[0];
  switch (d.kind) {
    case Kind::kBool: {
      bool val;
      if (iequals(v, "yes")) {
        val = true;
      } else if (iequals(v, "no")) {
        val = false;
      } else {
        *err = "argument must be 'yes' or 'no'";
        return false;
      }
      if (d.set && !d.set(d, args, err)) return false;
      *static_cast<bool*>(d.target()) = val;
      break;
    }
    case Kind::kNum:
      if (!set_number(d, v, err)) return false;
      break;
    case Kind::kEnumInt:
    case Kind::kEnumStr: {
      const EnumItem* e = find_enum(d.items, v);
      if (!e) {
        *err = "argument(s) must be one of the following: " + enum_names(d.items);
        return false;
      }
      if (d.kind == Kind::kEnumInt) {
        *static_cast<int*>(d.target()) = e->value;
      } else {
        *static_cast<std::string*>(d.target()) = e->name;
      }
      break;
    }
    case Kind::kString:
      if (d.set && !d.set(d, args, err)) return false;
      *static_cast<std::string*>(d.target()) = v;
      break;
    case Kind::kSpecial: break;
  }
  if (d.post) d.post();
  return true;
}

const Directive* lookup(std::string_view name) {
  for (const Directive& d : table()) {
    if (iequals(d.name, name) || (d.alias && iequals(d.alias, name))) return &d;
  }
  return nullptr;
}


// The lines of one directive as CONFIG REWRITE writes them, each with its "force" bit.
void rewrite_lines(const Directive& d, std::vector<std::pair<std::string, bool>>* out) {
  if (d.rewrite) return d.rewrite(d, out);
  const std::string v = get_value(d);
  const bool force = v != d.def;
  std::string text;
  switch (d.kind) {
    case Kind::kNum:
      if ((d.flags & kPercent) && read_num(d) < 0) {
        text = v;  // "10%"
      } else if (d.flags & kMemory) {
        text = format_memory(d.flags & kUnsigned ? *static_cast<uint64_t*>(d.target())
                                                 : static_cast<uint64_t>(read_num(d)));
      } else {
        text = v;
      }
      break;
    case Kind::kString: text = quote_config_value(v); break;
    default: text = v; break;
  }
  out->push_back({std::string(d.name) + " " + text, force});
}

}  // namespace config_detail

using namespace config_detail;

namespace {

bool is_glob(std::string_view p) { return p.find_first_of("[*?") != std::string_view::npos; }

// The file's text; runs of blank lines collapse into one, as Redis writes them.
std::string join_lines(const std::vector<std::string>& lines) {
  std::string content;
  bool was_empty = false;
  for (const std::string& l : lines) {
    if (l.empty()) {
      if (was_empty) continue;
      was_empty = true;
    } else {
      was_empty = false;
    }
    content += l;
    content += '\n';
  }
  return content;
}

// Writes a temporary file next to `path` and renames it over, so a crash never leaves a
// half-written config. "" on success, else strerror's text.
std::string replace_file(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp-XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd == -1) return strerror(errno);
  size_t off = 0;
  while (off < content.size()) {
    ssize_t w = write(fd, content.data() + off, content.size() - off);
    if (w <= 0) {
      const int saved = errno;
      close(fd);
      unlink(tmp.c_str());
      return strerror(saved);
    }
    off += static_cast<size_t>(w);
  }
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0644 & ~mask);
  fsync(fd);
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) == -1) {
    const int saved = errno;
    unlink(tmp.c_str());
    return strerror(saved);
  }
  return "";
}

// CONFIG SET's first pass: the directive of every name, or the first problem in argument order
// (unknown name, immutable or protected directive, a directive given twice) as the error text.
std::string resolve_names(std::span<const std::string_view> pairs,
                          std::vector<const Directive*>* dirs) {
  for (size_t i = 0; i < dirs->size(); i++) {
    std::string_view name = pairs[2 * i];
    const Directive* d = lookup(name);
    if (!d) {
      return "ERR Unknown option or number of arguments for CONFIG SET - '" + std::string(name) +
             "'";
    }
    const char* problem = nullptr;
    if (d->flags & kImmutable) {
      problem = "can't set immutable config";
    } else if ((d->flags & config_detail::kProtected) && g_enable_protected_configs == 0) {
      problem = "can't set protected config";
    } else {
      // Redis registers an alias as its own table entry, so only the same name given twice is
      // a duplicate ("hash-max-ziplist-entries 4 hash-max-listpack-entries 4" is accepted).
      for (size_t j = 0; j < i && !problem; j++) {
        if (iequals(pairs[2 * j], name)) problem = "duplicate parameter";
      }
    }
    if (problem) {
      return "ERR CONFIG SET failed (possibly related to argument '" + std::string(name) +
             "') - " + problem;
    }
    (*dirs)[i] = d;
  }
  return "";
}

// A CONFIG SET value as the directive's arguments: a multi-argument directive splits it on
// spaces ("" is no argument at all).
Args args_of(const Directive& d, std::string_view value) {
  Args a;
  if (!(d.flags & kMultiArg)) {
    a.emplace_back(value);
    return a;
  }
  if (value.empty()) return a;
  size_t start = 0;
  for (;;) {
    size_t sp = value.find(' ', start);
    a.emplace_back(value.substr(start, sp == std::string_view::npos ? sp : sp - start));
    if (sp == std::string_view::npos) break;
    start = sp + 1;
  }
  return a;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> Config::get(
    std::span<const std::string_view> patterns) {
  std::vector<std::pair<std::string, std::string>> out;
  auto seen = [&](std::string_view name) {
    for (const auto& [k, v] : out) {
      if (iequals(k, name)) return true;
    }
    return false;
  };
  for (std::string_view p : patterns) {
    if (!is_glob(p)) {
      // A literal name is looked up directly and reported as the client spelled it.
      if (seen(p)) continue;
      if (const Directive* d = lookup(p)) out.emplace_back(std::string(p), get_value(*d));
      continue;
    }
    for (const Directive& d : table()) {
      if (d.flags & kHidden) continue;  // answered only when asked for by name, as Redis
      for (const char* name : {d.name, d.alias}) {
        if (!name || seen(name) || !glob_match(p, name, true)) continue;
        out.emplace_back(name, get_value(d));
      }
    }
  }
  return out;
}

std::string Config::set(std::span<const std::string_view> pairs) {
  if (pairs.size() % 2 != 0) return "ERR syntax error";
  const size_t count = pairs.size() / 2;
  std::vector<const Directive*> dirs(count, nullptr);
  // 1. Resolve every name (nothing is read or set on an error).
  if (std::string err = resolve_names(pairs, &dirs); !err.empty()) return err;

  // 2. Back up, then set every value; a bad value restores what was set so far.
  std::vector<std::string> old(count);
  for (size_t i = 0; i < count; i++) old[i] = get_value(*dirs[i]);
  auto restore = [&](size_t upto) {
    for (size_t j = 0; j < upto; j++) {
      std::string e;
      if (!set_value(*dirs[j], args_of(*dirs[j], old[j]), &e)) {
        LOG_WARNING("Failed restoring failed CONFIG SET command. Error setting %s to '%s': %s",
                    dirs[j]->name, old[j].c_str(), e.c_str());
      }
    }
  };
  for (size_t i = 0; i < count; i++) {
    std::string e;
    if (!set_value(*dirs[i], args_of(*dirs[i], pairs[2 * i + 1]), &e)) {
      restore(i + 1);
      // Redis names the table entry that matched: an alias ("zset-max-ziplist-value") when the
      // alias was given. Names are matched without case and registered in lower case.
      std::string given(pairs[2 * i]);
      for (char& ch : given) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
      return "ERR CONFIG SET failed (possibly related to argument '" + given + "') - " + e;
    }
  }
  // 3. Apply once per distinct apply function; a failure restores every value and re-applies.
  std::vector<std::pair<ApplyFn, size_t>> applies;
  for (size_t i = 0; i < count; i++) {
    if (!dirs[i]->apply) continue;
    bool dup = false;
    for (auto& [fn, idx] : applies) dup |= fn == dirs[i]->apply;
    if (!dup) applies.emplace_back(dirs[i]->apply, i);
  }
  for (auto& [fn, idx] : applies) {
    std::string e;
    if (!fn(&e)) {
      LOG_WARNING(
          "Failed applying new configuration. Possibly related to new %s setting. Restoring "
          "previous settings.",
          dirs[idx]->name);
      restore(count);
      for (auto& [fn2, idx2] : applies) {
        std::string e2;
        if (!fn2(&e2)) LOG_WARNING("Failed applying restored failed CONFIG SET command: %s", e2.c_str());
      }
      return "ERR CONFIG SET failed (possibly related to argument '" +
             std::string(dirs[idx]->name) + "') - " + e;
    }
  }
  return "";
}

bool Config::sensitive(std::string_view name) const {
  const Directive* d = lookup(name);
  return d && (d->flags & kSensitive);
}

std::string Config::rewrite() {
  if (file_.empty()) return "ERR The server is running without a config file";
  static const std::string kSignature = "# Generated by CONFIG REWRITE";
  std::string text;
  if (!read_whole_file(file_, &text) && errno != ENOENT) {
    return std::string("ERR Rewriting config file: ") + strerror(errno);
  }
  // Old lines, with the line numbers of each directive (canonical name) still to be rewritten.
  std::vector<std::string> lines;
  std::vector<std::pair<const Directive*, std::vector<size_t>>> where;
  bool needs_signature = true;
  std::vector<std::string> argv;
  std::vector<size_t> user_lines;  // `user` directives (ACL users)
  for (const std::string& raw : split_lines(text)) {
    std::string line = trim(raw);
    if (line.empty() || line[0] == '#') {
      if (line == kSignature) needs_signature = false;
      lines.push_back(line);
      continue;
    }
    const Directive* d = nullptr;
    if (split_config_line(line, &argv) && !argv.empty()) d = lookup(argv[0]);
    if (!d && !argv.empty() && lower(argv[0]) == "user") {
      user_lines.push_back(lines.size());
      lines.push_back(line);
      continue;
    }
    if (!d) {
      // include, deprecated directives and anything else we do not manage stay as they are.
      lines.push_back(line);
      continue;
    }
    auto it = std::find_if(where.begin(), where.end(), [&](auto& w) { return w.first == d; });
    if (it == where.end()) {
      where.push_back({d, {}});
      it = where.end() - 1;
    }
    it->second.push_back(lines.size());
    lines.push_back(line);
  }
  std::vector<std::pair<std::string, bool>> out;
  for (const Directive& d : table()) {
    out.clear();
    rewrite_lines(d, &out);
    auto it = std::find_if(where.begin(), where.end(), [&](auto& w) { return w.first == &d; });
    size_t used = 0;
    for (const auto& [line, force] : out) {
      if (it != where.end() && used < it->second.size()) {
        lines[it->second[used++]] = line;  // update in place
      } else if (force) {
        if (needs_signature) {
          lines.push_back(kSignature);
          needs_signature = false;
        }
        lines.push_back(line);
      }
    }
    if (it != where.end()) {
      for (; used < it->second.size(); used++) lines[it->second[used]].clear();  // orphans
    }
  }
  // ACL users, as Redis: without an aclfile every user is written as a `user` line (in place
  // of the old ones first); with an aclfile the users live there and the lines stay.
  if (acl_options().aclfile.empty()) {
    size_t used = 0;
    for (const auto& u : acl_users()) {
      std::string line = "user " + u->name + " " + u->describe();
      if (used < user_lines.size()) {
        lines[user_lines[used++]] = line;
      } else {
        if (needs_signature) {
          lines.push_back(kSignature);
          needs_signature = false;
        }
        lines.push_back(line);
      }
    }
    for (; used < user_lines.size(); used++) lines[user_lines[used]].clear();
  }
  const std::string err = replace_file(file_, join_lines(lines));
  if (!err.empty()) return "ERR Rewriting config file: " + err;
  LOG_NOTICE("CONFIG REWRITE executed with success.");
  return "";
}

}  // namespace keel
