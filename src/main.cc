// keel-server entry point: argument conventions of redis-server, configuration, start-up.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/hash.h"
#include "base/log.h"
#include "base/time.h"
#include "base/util_random.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "keyspace/keyspace.h"
#include "server/config.h"
#include "server/server.h"
#include "server/version.h"

namespace keel {

namespace {

void usage() {
  fprintf(stderr,
          "Usage: ./keel-server [/path/to/redis.conf] [options] [-]\n"
          "       ./keel-server - (read config from stdin)\n"
          "       ./keel-server -v or --version\n"
          "       ./keel-server -h or --help\n\n"
          "Examples:\n"
          "       ./keel-server (run the server with default conf)\n"
          "       ./keel-server /etc/redis/6379.conf\n"
          "       ./keel-server --port 7777\n"
          "       ./keel-server /etc/myredis.conf --loglevel verbose -\n");
}

void daemonize() {
  if (fork() != 0) exit(0);
  setsid();
  int fd = open("/dev/null", O_RDWR, 0);
  if (fd != -1) {
    dup2(fd, STDIN_FILENO);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    if (fd > STDERR_FILENO) close(fd);
  }
}

}  // namespace
}  // namespace keel

int main(int argc, char** argv) {
  using namespace keel;
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  executable_path() = n > 0 ? std::string(exe, size_t(n)) : argv[0];

  std::string conf;
  std::vector<std::vector<std::string>> lines;
  int j = 1;
  if (argc >= 2) {
    std::string a1 = argv[1];
    if (a1 == "-v" || a1 == "--version") {
      printf("Keel server v=%s redis_compat=%s bits=64\n", kKeelVersion, kRedisCompatVersion);
      return 0;
    }
    if (a1 == "-h" || a1 == "--help") {
      usage();
      return 0;
    }
    if (a1.rfind("--", 0) != 0) {
      conf = a1;
      j = 2;
    }
  }
  for (; j < argc; j++) {
    std::string a = argv[j];
    if (a == "-" ) {
      conf = conf.empty() ? "-" : conf;  // stdin config is read after the file
      continue;
    }
    if (a.rfind("--", 0) == 0 && a.size() > 2) {
      lines.push_back({a.substr(2)});
    } else if (!lines.empty()) {
      lines.back().push_back(a);
    } else {
      fprintf(stderr, "Unexpected argument '%s'\n", a.c_str());
      usage();
      return 1;
    }
  }

  if (!config().load(conf, lines)) return 1;
  if (!log_reopen()) {
    fprintf(stderr, "Can't open the log file: %s\n", strerror(errno));
    return 1;
  }
  const ServerOptions& o = server_options();
  if (o.daemonize) daemonize();
  set_hash_seed(random_u64());
  keyspace().init(command_options().databases);
  init_command_table();
  Server srv;
  set_server_api(&srv);
  LOG_NOTICE("oO0OoO0OoO0Oo Keel is starting oO0OoO0OoO0Oo");
  LOG_NOTICE("Keel version=%s, redis_compat=%s, bits=64, pid=%d, just started", kKeelVersion,
             kRedisCompatVersion, int(getpid()));
  if (conf.empty()) {
    LOG_WARNING("Warning: no config file specified, using the default config. In order to specify a config file use %s /path/to/redis.conf", argv[0]);
  } else {
    LOG_NOTICE("Configuration loaded");
  }
  if (!o.pidfile.empty()) {
    if (FILE* f = fopen(o.pidfile.c_str(), "w")) {
      fprintf(f, "%d\n", int(getpid()));
      fclose(f);
    }
  }
  return srv.run();
}
