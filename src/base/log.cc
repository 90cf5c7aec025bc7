// Logging.
#include "base/log.h"

#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace keel {
namespace {
FILE* g_out = nullptr;

FILE* out() { return g_out ? g_out : stdout; }
}  // namespace

LogOptions& log_options() {
  static LogOptions opts;
  return opts;
}

bool log_reopen() {
  if (g_out && g_out != stdout) fclose(g_out);
  g_out = nullptr;
  if (log_options().file.empty()) return true;
  g_out = fopen(log_options().file.c_str(), "a");
  return g_out != nullptr;
}

bool log_enabled(LogLevel level) { return level >= log_options().level; }

namespace {
char g_role = 'M';
}
void log_set_role(char role) { g_role = role; }

void log_raw(LogLevel level, const char* fmt, ...) {
  static const char kMarks[] = ".-*#";
  char msg[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  timeval tv;
  gettimeofday(&tv, nullptr);
  tm tmv;
  localtime_r(&tv.tv_sec, &tmv);
  char when[64];
  size_t off = strftime(when, sizeof(when), "%d %b %Y %H:%M:%S.", &tmv);
  snprintf(when + off, sizeof(when) - off, "%03d", static_cast<int>(tv.tv_usec / 1000));
  FILE* f = out();
  fprintf(f, "%d:%c %s %c %s\n", static_cast<int>(getpid()), g_role, when,
          kMarks[static_cast<int>(level) & 3], msg);
  fflush(f);
}

int log_fd() { return fileno(out()); }

}  // namespace keel
