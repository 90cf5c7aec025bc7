// Loading the configuration: redis.conf and command-line directives as one text, `include`
// files, Redis's fatal start-up error block, and the quoting and memory-unit rules CONFIG SET
// and CONFIG REWRITE share with it.
#include <glob.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/args.h"
#include "base/log.h"
#include "commands/acl.h"
#include "commands/command_rename.h"
#include "server/config_internal.h"
#include "server/version.h"

namespace keel {
namespace config_detail {

bool read_whole_file(const std::string& path, std::string* out) {
  FILE* f = fopen(path.c_str(), "r");
  if (!f) return false;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) out->append(buf, n);
  fclose(f);
  return true;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  if (text.empty()) return lines;
  size_t start = 0;
  for (;;) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::string trim(std::string_view s) {
  const char* ws = " \t\r\n";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(ws);
  return std::string(s.substr(b, e - b + 1));
}

}  // namespace config_detail

using namespace config_detail;

namespace {

void fatal_config_error(int linenum, const std::string& line, const std::string& err) {
  fprintf(stderr, "\n*** FATAL CONFIG FILE ERROR (Keel %s) ***\n", kKeelVersion);
  if (linenum > 0) {
    fprintf(stderr, "Reading the configuration file, at line %d\n", linenum);
    fprintf(stderr, ">>> '%s'\n", line.c_str());
  }
  fprintf(stderr, "%s\n", err.c_str());
  fflush(stderr);
}

bool load_text(const std::string& text, int depth);

// `include path`: a glob pattern includes every match (none is fine); a plain path must open.
bool include_file(const std::string& path, int depth) {
  if (depth > 16) {
    fatal_config_error(0, "", "Too many nested include directives");
    return false;
  }
  std::vector<std::string> files;
  if (path.find_first_of("*?[") != std::string::npos) {
    glob_t g;
    if (glob(path.c_str(), 0, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; i++) files.push_back(g.gl_pathv[i]);
      globfree(&g);
    }
  } else {
    files.push_back(path);
  }
  for (const std::string& f : files) {
    std::string text;
    if (!read_whole_file(f, &text)) {
      log_raw(LogLevel::kWarning, "Fatal error, can't open config file '%s': %s", f.c_str(),
              strerror(errno));
      return false;
    }
    if (!load_text(text, depth + 1)) return false;
  }
  return true;
}

bool load_text(const std::string& text, int depth) {
  const std::vector<std::string> lines = split_lines(text);
  std::vector<std::string> argv;
  for (size_t i = 0; i < lines.size(); i++) {
    const int linenum = static_cast<int>(i) + 1;
    const std::string line = trim(lines[i]);
    if (line.empty() || line[0] == '#') continue;
    if (!split_config_line(line, &argv)) {
      fatal_config_error(linenum, line, "Unbalanced quotes in configuration line");
      return false;
    }
    if (argv.empty()) continue;
    argv[0] = lower(argv[0]);
    if (const Directive* d = lookup(argv[0])) {
      if (!(d->flags & kMultiArg) && argv.size() != 2) {
        fatal_config_error(linenum, line, "wrong number of arguments");
        return false;
      }
      std::string err;
      if (!set_value(*d, Args(argv.begin() + 1, argv.end()), &err)) {
        fatal_config_error(linenum, line, err);
        return false;
      }
      continue;
    }
    if (deprecated_directive(argv[0], argv.size())) continue;
    // `user <name> <rules...>`: ACL users, created at start-up after the whole configuration
    // is read (commands/acl.h; exclusive with aclfile, as in Redis).
    if (argv[0] == "user" && argv.size() >= 2) {
      std::string joined;
      for (size_t k = 1; k < argv.size(); k++) joined += (k > 1 ? " " : "") + argv[k];
      acl_options().config_users.push_back(joined);
      continue;
    }
    // rename-command <name> <new name | "">: applied to the command table at once (the file
    // only, as in Redis; CONFIG REWRITE keeps the line as it is).
    if (argv[0] == "rename-command" && argv.size() == 3) {
      std::string err;
      if (!rename_command(argv[1], argv[2], &err)) {
        fatal_config_error(linenum, line, err);
        return false;
      }
      continue;
    }
    if (argv[0] == "include" && argv.size() == 2) {
      if (!include_file(argv[1], depth)) return false;
      continue;
    }
    fatal_config_error(linenum, line, "Bad directive or wrong number of arguments");
    return false;
  }
  return true;
}

}  // namespace

// ---- Parsing helpers --------------------------------------------------------------------------

bool parse_memory(std::string_view s, uint64_t* out) {
  if (!s.empty() && s[0] == '-') return false;
  size_t digits = 0;
  while (digits < s.size() && isdigit(static_cast<unsigned char>(s[digits]))) digits++;
  const std::string_view unit = s.substr(digits);
  uint64_t mul;
  if (unit.empty() || iequals(unit, "b")) {
    mul = 1;
  } else if (iequals(unit, "k")) {
    mul = 1000;
  } else if (iequals(unit, "kb")) {
    mul = 1024;
  } else if (iequals(unit, "m")) {
    mul = 1000 * 1000;
  } else if (iequals(unit, "mb")) {
    mul = 1024 * 1024;
  } else if (iequals(unit, "g")) {
    mul = 1000ull * 1000 * 1000;
  } else if (iequals(unit, "gb")) {
    mul = 1024ull * 1024 * 1024;
  } else {
    return false;
  }
  uint64_t v = 0;
  for (size_t i = 0; i < digits; i++) {
    const uint64_t dgt = static_cast<uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - dgt) / 10) return false;
    v = v * 10 + dgt;
  }
  if (v > UINT64_MAX / mul) return false;
  *out = v * mul;
  return true;
}

bool split_config_line(std::string_view line, std::vector<std::string>* out) {
  return split_args(line, out);
}

std::string quote_config_value(std::string_view s) { return quote_repr(s); }

// ---- Config -----------------------------------------------------------------------------------

bool Config::load(const std::string& path, bool from_stdin, const std::string& options) {
  std::string text;
  if (!path.empty()) {
    if (path[0] == '/') {
      file_ = path;
    } else {
      char cwd[4096];
      file_ = getcwd(cwd, sizeof(cwd)) ? std::string(cwd) + "/" + path : path;
    }
    if (!read_whole_file(path, &text)) {
      log_raw(LogLevel::kWarning, "Fatal error, can't open config file '%s': %s", path.c_str(),
              strerror(errno));
      return false;
    }
  }
  if (from_stdin) {
    LOG_WARNING("Reading config from stdin");
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0) text.append(buf, n);
  }
  if (!options.empty()) {
    text += '\n';
    text += options;
  }
  g_reading_config_file = true;
  const bool loaded = load_text(text, 0);
  g_reading_config_file = false;
  if (!loaded) return false;
  if (!log_options().file.empty()) {
    // Fail now rather than lose the log later, as Redis does.
    FILE* f = fopen(log_options().file.c_str(), "a");
    if (!f) {
      fatal_config_error(0, "", std::string("Can't open the log file: ") + strerror(errno));
      return false;
    }
    fclose(f);
  }
  return true;
}

}  // namespace keel
