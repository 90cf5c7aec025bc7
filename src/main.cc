// keel-server entry point: argument conventions of redis-server, configuration, start-up.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/hash.h"
#include "base/log.h"
#include "base/memory.h"
#include "base/time.h"
#include "base/util_random.h"
#include "commands/acl.h"
#include "commands/cmd_scripting.h"
#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "commands/pubsub.h"
#include "keyspace/keyspace.h"
#include "persistence/aof.h"
#include "persistence/persistence.h"
#include "persistence/rdb_load.h"
#include "server/config.h"
#include "server/crash_report.h"
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
  // keel-check-rdb / keel-check-aof are this binary under other names, as redis-check-rdb and
  // redis-check-aof are redis-server.
  const char* base = strrchr(argv[0], '/');
  base = base ? base + 1 : argv[0];
  if (strcmp(base, "keel-check-rdb") == 0) return rdb_check_main(argc, argv);
  if (strcmp(base, "keel-check-aof") == 0) return aof_check_main(argc, argv);
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  executable_path() = n > 0 ? std::string(exe, size_t(n)) : argv[0];

  // redis-server's conventions: an optional config file first (any argument not starting with
  // '-'), "-" as the first or last argument reads more config from standard input, and every
  // "--name [value ...]" becomes the line "name value ..." appended after the file. The argument
  // right after a bare "--name" is always its value, even when it starts with '-' ("--bind
  // 127.0.0.1 -::1"); "--save" followed by another option or nothing means save "".
  std::string conf;
  std::string options;
  bool from_stdin = false;
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
    if (a1[0] != '-') {
      conf = a1;
      j = 2;
    }
  }
  bool value_pending = false;  // the previous argument was a bare "--name"
  for (; j < argc; j++) {
    const std::string a = argv[j];
    if (a == "-" && (j == 1 || j == argc - 1)) {
      from_stdin = true;
    } else if (!value_pending && a.size() >= 2 && a[0] == '-' && a[1] == '-') {
      if (!options.empty()) options += '\n';
      options += a.substr(2);
      options += ' ';
      std::vector<std::string> parts;
      const bool one_word = split_config_line(a, &parts) && parts.size() == 1;
      value_pending = one_word;
      const bool next_is_option =
          j != argc - 1 && argv[j + 1][0] == '-' && argv[j + 1][1] == '-';
      if (one_word && a == "--save" && (next_is_option || j == argc - 1)) {
        options += "\"\"";
        value_pending = false;
      }
    } else {
      options += quote_config_value(a);
      options += ' ';
      value_pending = false;
    }
  }

  if (!config().load(conf, from_stdin, options)) return 1;
  if (!log_reopen()) {
    fprintf(stderr, "Can't open the log file: %s\n", strerror(errno));
    return 1;
  }
  const ServerOptions& o = server_options();
  if (o.daemonize) daemonize();
  set_hash_seed(random_u64());
  keyspace().init(command_options().databases);
  init_command_table();
  acl_init();  // numbers the command rows for the ACL bitmaps; the default user
  if (!acl_options().aclfile.empty() && !acl_options().config_users.empty()) {
    LOG_WARNING("Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both.");
    return 1;
  }
  if (!acl_options().aclfile.empty()) {
    const std::string acl_err = acl_load_file(acl_options().aclfile);
    if (!acl_err.empty()) {
      LOG_WARNING("Aborting Redis startup because of ACL errors: %s", acl_err.c_str());
      return 1;
    }
  } else if (const std::string acl_err = acl_load_config_users(); !acl_err.empty()) {
    LOG_WARNING("%s", acl_err.c_str());
    LOG_WARNING("Critical error while loading ACLs. Exiting.");
    return 1;
  }
  install_persistence_hooks();  // the RDB code reaches FUNCTION libraries through these
  persistence_options().redis_ver = kRedisCompatVersion;
  pubsub_init();  // keyspace notifications publish through pub/sub
  Server srv;
  set_server_api(&srv);
  scripting_init();
  memory_mark_startup();  // MEMORY STATS startup.allocated: before any data is loaded
  crash_report_install(&srv);  // fatal signals and failed assertions write a bug report
  LOG_NOTICE("oO0OoO0OoO0Oo Keel is starting oO0OoO0OoO0Oo");
  LOG_NOTICE("Keel version=%s, redis_compat=%s, bits=64, pid=%d, just started", kKeelVersion,
             kRedisCompatVersion, int(getpid()));
  if (conf.empty()) {
    LOG_WARNING("Warning: no config file specified, using the default config. In order to specify a config file use %s /path/to/redis.conf", argv[0]);
  } else {
    LOG_NOTICE("Configuration loaded");
  }
  // A daemon always has a pidfile: Redis's default path when none is configured.
  if (o.daemonize && o.pidfile.empty()) server_options().pidfile = "/var/run/redis.pid";
  if (!o.pidfile.empty()) {
    if (FILE* f = fopen(o.pidfile.c_str(), "w")) {
      fprintf(f, "%d\n", int(getpid()));
      fclose(f);
    }
  }
  return srv.run();
}
