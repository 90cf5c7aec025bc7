// ServerApi: what command handlers need from the process layer above them (INFO, CONFIG,
// CLIENT, SHUTDOWN, MONITOR). server/ implements it and installs it at start-up, so commands/
// never includes server/ headers (src/README.md, the layer table).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace keel {

struct AclUser;

struct Session;
class Buffer;

// True while any MONITOR client may exist: the server sets it whenever its monitor list
// changes; call() and the script commands test it before feed_monitors() (a plain load on
// every command, not a virtual call).
inline constinit bool g_monitors_present = false;

class ServerApi {
 public:
  virtual ~ServerApi() = default;

  // INFO [section ...]: the reply text (already with "# Section" headers and CRLF lines).
  virtual std::string info(std::span<const std::string_view> sections) = 0;

  // CONFIG. get(): (name, value) pairs for every directive matching any pattern.
  virtual std::vector<std::pair<std::string, std::string>> config_get(
      std::span<const std::string_view> patterns) = 0;
  // set(): all pairs applied atomically; on failure returns the full error text (no '-').
  virtual std::string config_set(std::span<const std::string_view> name_value_pairs) = 0;
  virtual void config_resetstat() = 0;
  virtual std::string config_rewrite() = 0;  // empty on success, else the error text
  // A secret (requirepass, masterauth ...): CONFIG SET shows its value as "(redacted)" in
  // SLOWLOG, as Redis does.
  virtual bool config_sensitive(std::string_view /*name*/) { return false; }

  // CLIENT. The text of CLIENT LIST (optionally only ids / a type), CLIENT INFO for a session.
  virtual std::string client_list(std::span<const uint64_t> ids, std::string_view type) = 0;
  virtual std::string client_info(const Session& s) = 0;
  // CLIENT KILL: filters as given on the command line (after "KILL"); returns the number of
  // clients killed, or -1 with `error` set. `old_style` = CLIENT KILL ip:port (error when none).
  virtual int64_t client_kill(const Session& self, std::span<const std::string_view> filters,
                              std::string* error) = 0;
  virtual bool client_exists(uint64_t id) = 0;
  // After ACL SETUSER / DELUSER / LOAD: every session re-derives its admission path
  // (acl_attach); sessions whose user is gone or in `changed` are closed, and so are those
  // subscribed to a channel their user no longer allows (acl_session_keeps). `self` (the
  // session running the ACL command) is closed after its reply.
  virtual void acl_sessions_update(const Session& /*self*/, std::span<AclUser* const> /*changed*/) {}
  // The session of a connected client (not one being closed), or null: tracking redirection.
  virtual Session* find_session(uint64_t /*id*/) { return nullptr; }

  // MONITOR: this session starts receiving the command feed.
  virtual void add_monitor(Session& s) = 0;
  // Called for every executed command while any monitor exists.
  virtual void feed_monitors(const Session& s, std::span<const std::string_view> args) = 0;

  // SHUTDOWN. Returns only on failure (error text).
  virtual std::string shutdown(bool nosave, bool save, bool now, bool force, bool abort) = 0;
  virtual int64_t lastsave() const = 0;
  virtual bool debug_command_allowed(const Session& s) const = 0;

  // Pub/sub delivery to another client: its output buffer to append a message to (nullptr when
  // it is closing or already scheduled to close), then output_ready() once appended: queues the
  // flush and enforces client-output-buffer-limit (scheduling an asynchronous close).
  virtual Buffer* session_output(Session&) { return nullptr; }
  virtual void session_output_ready(Session&) {}

  // Scripting (commands/cmd_scripting.cc): a script running past busy-reply-threshold calls
  // this every few milliseconds. The server polls its sockets once without blocking while every
  // command without allow_busy is answered -BUSY (dispatch's busy_state()); `caller` (the
  // client running the script) is not read from nor flushed until script_done(). Returns true
  // when the server is shutting down (the script must stop).
  virtual bool process_events_while_busy(Session&) { return false; }
  virtual void script_done(Session&) {}

  // Blocking commands (commands/blocking.h): a blocked session was served, timed out or
  // unblocked; the server runs the commands it had pipelined behind the blocking one (later,
  // never from inside the caller's stack).
  virtual void resume_session(Session&) {}

  // MEMORY STATS / DOCTOR: bytes held by the client connections (structures, query and output
  // buffers), the way Redis's clients.normal counts them; replicas included.
  virtual size_t clients_memory() const { return 0; }
  // The buffers Redis reports apart: the replicas' connections (part of clients_memory()), the
  // stream bytes waiting for them, the replication backlog and the AOF buffer (INFO mem_*,
  // MEMORY STATS).
  struct BufferMemory {
    size_t replica_clients = 0;
    size_t replica_streams = 0;
    size_t replication_backlog = 0;
    size_t aof_buffer = 0;
  };
  virtual BufferMemory buffers_memory() const { return {}; }
  virtual size_t client_count() const { return 0; }
};

}  // namespace keel
