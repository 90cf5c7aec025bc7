// Session: the per-client state that commands read and change (selected db, protocol version,
// authentication, name, reply mode). The connection itself (socket, buffers) lives in server/;
// `client` is its opaque back-pointer so server hooks can find it.
#pragma once
#include <cstdint>
#include <string>

namespace keel {

class Db;
struct AclUser;
struct MultiState;
struct TrackingState;

struct Session {
  static constexpr uint32_t kCloseAfterReply = 1u << 0;  // QUIT, protocol error
  static constexpr uint32_t kReplyOff = 1u << 1;         // CLIENT REPLY OFF
  static constexpr uint32_t kReplySkipNext = 1u << 2;    // CLIENT REPLY SKIP: drop the next reply
  static constexpr uint32_t kReplySkip = 1u << 3;        // the running command's reply is dropped
  static constexpr uint32_t kNoEvict = 1u << 4;          // CLIENT NO-EVICT ON
  static constexpr uint32_t kMonitor = 1u << 5;          // MONITOR
  static constexpr uint32_t kPubSub = 1u << 6;           // has subscriptions (RESP2 restricts)
  static constexpr uint32_t kNoTouch = 1u << 7;          // CLIENT NO-TOUCH ON
  static constexpr uint32_t kMulti = 1u << 8;            // inside MULTI
  static constexpr uint32_t kReplica = 1u << 9;          // a replica after PSYNC/SYNC (flag S)
  static constexpr uint32_t kMaster = 1u << 10;          // our master's stream (flag M): no -READONLY
  // The session's user has restricted permissions (commands/acl.h): full admission.
  static constexpr uint32_t kAclRestricted = 1u << 11;
  // Transactions (commands/multi.h). kMultiError: a command was rejected while queueing, EXEC
  // answers EXECABORT. kDirtyCas: a watched key changed, EXEC answers a null array.
  static constexpr uint32_t kMultiError = 1u << 16;
  static constexpr uint32_t kDirtyCas = 1u << 17;
  // Blocked by a blocking command (commands/blocking.h): the server runs none of the session's
  // further input until the block ends and ServerApi::resume_session is called.
  static constexpr uint32_t kBlocked = 1u << 20;
  // Held back by CLIENT PAUSE (commands/pause.h), with kBlocked: the held command runs again
  // when the pause ends.
  static constexpr uint32_t kPaused = 1u << 21;
  // CLIENT TRACKING (commands/tracking.h): on, and its modes. kTrackingCaching: CLIENT CACHING
  // YES (OPTIN) / NO (OPTOUT) given for the next command. kTrackingBrokenRedir: the redirect
  // client went away (CLIENT LIST flag R).
  static constexpr uint32_t kTracking = 1u << 22;
  static constexpr uint32_t kTrackingBcast = 1u << 23;
  static constexpr uint32_t kTrackingOptin = 1u << 24;
  static constexpr uint32_t kTrackingOptout = 1u << 25;
  static constexpr uint32_t kTrackingNoloop = 1u << 26;
  static constexpr uint32_t kTrackingCaching = 1u << 27;
  static constexpr uint32_t kTrackingBrokenRedir = 1u << 28;

  uint64_t id = 0;
  int db_index = 0;
  Db* db = nullptr;
  int resp = 2;
  bool authenticated = true;
  AclUser* user = nullptr;  // the authenticated user (commands/acl.h); null: the default user
  uint32_t flags = 0;
  std::string name;      // CLIENT SETNAME
  std::string lib_name;  // CLIENT SETINFO LIB-NAME
  std::string lib_ver;   // CLIENT SETINFO LIB-VER
  const char* last_cmd_name = nullptr;  // full_name of the last command run (CLIENT LIST cmd=)
  // The bytes the client sent for the command it is running straight from its input, when it
  // sent a multibulk (RequestParser::command_start; set by the server around each command of
  // a batch, empty otherwise): a command propagated unchanged is streamed as these bytes when
  // they are its canonical encoding (propagation_add_own), not encoded again.
  std::string_view raw_request;
  std::string addr;      // "ip:port" of the peer, set by the server at accept
  void* client = nullptr;
  MultiState* multi = nullptr;  // MULTI queue + watched keys (multi.h), lazily created
  TrackingState* tracking = nullptr;  // CLIENT TRACKING redirect and prefixes (tracking.h)
  int64_t blocked_us = 0;  // blocked command: time its runs took so far (commandstats, SLOWLOG)
};

}  // namespace keel
