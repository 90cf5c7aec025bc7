// Configuration: the directive table (Redis names, aliases and defaults), redis.conf and
// command-line parsing with Redis's start-up error format, and CONFIG GET/SET/REWRITE. Each
// directive writes into the options struct of the layer that owns it (ProtocolLimits,
// CommandOptions, KeyspaceClock, ServerOptions, LogOptions, NotifyState ...).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace keel {

// Options owned by the server layer itself.
struct ServerOptions {
  std::vector<std::string> bind = {"127.0.0.1", "-::1"};
  int port = 6379;
  bool protected_mode = true;
  int64_t timeout = 0;          // seconds; 0 = never close idle clients
  int64_t tcp_keepalive = 300;  // seconds
  int64_t tcp_backlog = 511;
  bool daemonize = false;
  std::string pidfile;
  std::string dir;              // applied with chdir at start-up and on CONFIG SET
  int64_t hz = 10;
  int64_t maxclients = 10000;
  bool prefetch = true;         // batch key prefetch (prefetch-batch-max-size > 0)
  int64_t prefetch_batch_max_size = 16;
  std::string save;             // "" only, until persistence lands
  bool appendonly = false;
  int64_t maxmemory = 0;
};
ServerOptions& server_options();

class Config {
 public:
  // Reads `path` (may be empty; "-" = standard input) and then the command-line directives
  // (`--name value ...` already split into lines). On error prints Redis's FATAL CONFIG FILE
  // ERROR block to stderr and returns false.
  bool load(const std::string& path, const std::vector<std::vector<std::string>>& argv_lines);
  const std::string& file() const { return file_; }

  std::vector<std::pair<std::string, std::string>> get(std::span<const std::string_view> patterns);
  std::string set(std::span<const std::string_view> pairs);  // "" on success, else error text
  std::string rewrite();                                      // "" on success, else error text

 private:
  std::string file_;
};
Config& config();

// Splits a config line into arguments with redis.conf's quoting rules; false on bad quotes.
bool split_config_line(std::string_view line, std::vector<std::string>* out);

}  // namespace keel
