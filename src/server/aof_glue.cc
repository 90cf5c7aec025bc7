// The AOF's connections to the layers above persistence/: the PropagationSink that encodes the
// change stream into the AOF buffer (SELECT inserted by StreamEncoder, `#TS:` annotations with
// aof-timestamp-enabled), and the fake session through which a loaded file's commands run.
#include "server/aof_glue.h"

#include <ctime>

#include "commands/command_table.h"
#include "commands/dispatch.h"
#include "commands/propagate.h"
#include "commands/session.h"
#include "keyspace/keyspace.h"
#include "persistence/aof.h"
#include "protocol/reply_writer.h"

namespace keel {
namespace {

class AofSink final : public PropagationSink {
 public:
  void feed(int dbid, std::span<const std::string_view> argv, uint8_t targets) override {
    if (!(targets & kPropagateAof)) return;
    enc_.append(start_command(), dbid, argv);
  }
  // A command as its client sent it (its canonical encoding): copied, not encoded again.
  void feed_encoded(int dbid, std::span<const std::string_view>, std::string_view raw,
                    uint8_t targets) override {
    if (!(targets & kPropagateAof)) return;
    Buffer& out = start_command();
    enc_.select(out, dbid);
    out.append(raw.data(), raw.size());
  }

 private:
  // The AOF buffer, after what goes before the next command: a new file's SELECT reset, the
  // `#TS:` annotation.
  Buffer& start_command() {
    AofState& a = aof_state();
    if (epoch_ != a.epoch) {  // a new file (rewrite, switched on): start with a SELECT again
      epoch_ = a.epoch;
      enc_.reset();
      a.last_ts = 0;
    }
    if (aof_options().timestamp_enabled) {
      const int64_t now = time(nullptr);
      if (now > a.last_ts) {
        char ts[32];
        const int n = snprintf(ts, sizeof(ts), "#TS:%lld\r\n", static_cast<long long>(now));
        a.buf.append(ts, static_cast<size_t>(n));
        a.last_ts = now;
      }
    }
    return a.buf;
  }

  StreamEncoder enc_;
  uint64_t epoch_ = ~uint64_t{0};
};

AofSink g_sink;

// The loader's client: no connection, no reply (what it writes is dropped), its own db.
Session& load_session() {
  static Session s;
  return s;
}

bool known(const std::vector<std::string_view>& argv) {
  return resolve_command(std::span<const std::string_view>(argv.data(), argv.size())) != nullptr;
}

void exec(const std::vector<std::string_view>& argv) {
  static Buffer out;
  static ReplyWriter w;
  const std::span<const std::string_view> args(argv.data(), argv.size());
  const CommandSpec* c = resolve_command(args);
  if (c == nullptr) return;
  Session& s = load_session();
  if (s.db == nullptr) s.db = &keyspace().db(0);
  w.reset(&out, 2);
  call(s, args, nullptr, w, server_api(), *c);
  out.clear();
}

}  // namespace

void aof_install_hooks() {
  g_aof_hooks.attach = [] { propagation_add_sink(&g_sink); };
  g_aof_hooks.detach = [] { propagation_remove_sink(&g_sink); };
  g_aof_hooks.known = known;
  g_aof_hooks.exec = exec;
}

}  // namespace keel
