// TEMPORARY minimal configuration (port/bind only); the full directive table replaces this.
#include "server/config.h"

#include <cstdlib>

namespace keel {

ServerOptions& server_options() {
  static ServerOptions o;
  return o;
}

Config& config() {
  static Config c;
  return c;
}

bool split_config_line(std::string_view line, std::vector<std::string>* out) {
  out->clear();
  std::string cur;
  bool in = false;
  for (char c : line) {
    if (c == ' ' || c == '\t') {
      if (in) out->push_back(cur), cur.clear(), in = false;
    } else {
      cur += c, in = true;
    }
  }
  if (in) out->push_back(cur);
  return true;
}

bool Config::load(const std::string& path, const std::vector<std::vector<std::string>>& lines) {
  file_ = path;
  for (auto& l : lines) {
    if (l.size() >= 2 && l[0] == "port") server_options().port = atoi(l[1].c_str());
    if (l.size() >= 2 && l[0] == "bind") server_options().bind.assign(l.begin() + 1, l.end());
  }
  return true;
}

std::vector<std::pair<std::string, std::string>> Config::get(std::span<const std::string_view>) {
  return {};
}
std::string Config::set(std::span<const std::string_view>) { return "ERR not implemented"; }
std::string Config::rewrite() { return "ERR not implemented"; }

}  // namespace keel
