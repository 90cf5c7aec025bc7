// The Lua 5.1 engine behind EVAL and FUNCTION: one sandboxed lua_State per LuaEngine, the
// script cache (EVAL bodies keyed by their SHA1) or the function libraries, and the conversions
// between Lua values and RESP. It knows nothing about commands: redis.call goes through the
// ScriptHost it is given for each run, which executes the command and hands back RESP bytes.
// Layer L4: includes only base/, protocol/ and scripting/.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/buffer.h"
#include "protocol/reply_writer.h"

struct lua_State;

namespace keel {

// Options other layers fill in (server/config_table.cc points busy-reply-threshold here).
struct ScriptingOptions {
  int64_t busy_reply_threshold = 5000;  // ms; alias lua-time-limit
  // Bytes a script (or a library's load-time code) may add to its Lua state's heap; past it
  // an allocation fails with Lua's "not enough memory" error. 0: no limit. Redis has no such
  // limit; Keel keeps a script from taking the machine's memory (README "Hardening").
  int64_t lua_heap_limit = int64_t{1} << 30;
};
ScriptingOptions& scripting_options();

// Script flags, from an EVAL shebang (#!lua flags=...) or register_function's flags list.
enum ScriptFlag : uint32_t {
  kScriptNoWrites = 1u << 0,
  kScriptAllowOom = 1u << 1,
  kScriptAllowStale = 1u << 2,
  kScriptNoCluster = 1u << 3,
  kScriptAllowCrossSlot = 1u << 4,
  kScriptEvalCompat = 1u << 5,  // EVAL body without a shebang (Redis's compatibility mode)
};
// Flag names in the order FUNCTION LIST prints them.
struct ScriptFlagName {
  uint32_t flag;
  const char* name;
};
extern const ScriptFlagName kScriptFlagNames[5];

// What a running script needs from the command layer.
class ScriptHost {
 public:
  virtual ~ScriptHost() = default;
  // Runs args as a command for the script, replying in RESP version `resp`: appends exactly one
  // complete reply (possibly an error reply) to out. Never raises a Lua error.
  virtual void call(std::span<const std::string_view> args, int resp, Buffer& out) = 0;
  // Called every few thousand Lua instructions. Returns null to go on, or the error text
  // (e.g. "ERR Script killed by user with SCRIPT KILL...") to abort the script with.
  virtual const char* poll() = 0;
  // redis.acl_check_cmd: 1 when the script's user may run args, 0 when not, -1 when the
  // command is unknown.
  virtual int acl_check(std::span<const std::string_view> /*args*/) { return 1; }
};

// The lazyfree thread's counters (base/lazyfree.h, shared with the keyspace's lazy frees), as
// the Lua unit tests know them: Lua states closed there (LuaEngine::reset with async).
struct LuaLazyfreeStats {
  uint64_t pending = 0;
  uint64_t freed = 0;
};
LuaLazyfreeStats lua_lazyfree_stats();
void lua_lazyfree_reset_stats();  // CONFIG RESETSTAT: freed back to 0
void lua_lazyfree_drain();        // waits until every state handed over is closed

// SHA1 of data as 40 lowercase hex digits plus a terminating NUL.
void sha1_hex(std::string_view data, char out[41]);

class LuaEngine {
 public:
  enum class Kind { kEval, kFunction };
  explicit LuaEngine(Kind kind);
  ~LuaEngine();
  LuaEngine(const LuaEngine&) = delete;
  LuaEngine& operator=(const LuaEngine&) = delete;

  using Sha = std::array<char, 40>;
  struct Script {
    int ref = 0;         // compiled function in the registry
    uint32_t flags = 0;  // ScriptFlag bits
    std::string body;
  };

  // ---- EVAL scripts ------------------------------------------------------------------------
  // Parses the shebang and compiles body under sha (40 lowercase hex). Returns the cached
  // script, or null with *error set to the full error reply text.
  const Script* load_script(std::string_view body, const Sha& sha, std::string* error);
  // The flags an EVAL body's shebang declares, without compiling it: kScriptEvalCompat without
  // a shebang or with one that does not parse (that error comes when the script is loaded).
  static uint32_t shebang_flags(std::string_view body);
  // Case-insensitive lookup of a 40-character sha; null when unknown or malformed.
  const Script* find_script(std::string_view sha) const;
  size_t script_count() const { return scripts_.size(); }
  size_t scripts_memory() const;
  // SCRIPT FLUSH / FUNCTION FLUSH: drops every script or library and starts a fresh Lua state.
  // With async (FLUSH ASYNC) the old state is collected and closed by a background thread, and
  // `lazyfree_objects` (what Redis would count: the scripts or functions, when over its
  // threshold) go to lua_lazyfree_stats(): pending until the thread is done, then freed.
  void reset(bool async = false, uint64_t lazyfree_objects = 0);

  // ---- FUNCTION libraries ------------------------------------------------------------------
  struct Function {
    std::string name;
    std::string description;  // empty with has_description false -> nil
    bool has_description = false;
    uint32_t flags = 0;
    int ref = 0;
    std::string library;
  };
  struct Library {
    std::string name;
    std::string code;
    std::vector<std::string> functions;  // names, in registration order
  };
  // FUNCTION LOAD [REPLACE] code: on success returns true and sets *name to the library name;
  // else *error holds the error reply text.
  bool load_library(std::string_view code, bool replace, std::string* name, std::string* error);
  bool delete_library(std::string_view name);
  const Function* find_function(std::string_view name) const;
  const std::unordered_map<std::string, Library>& libraries() const { return libraries_; }
  size_t function_count() const { return functions_.size(); }

  // ---- Running -----------------------------------------------------------------------------
  // Runs a script (EVAL: KEYS/ARGV globals) or a function (FCALL: keys and args as arguments)
  // and writes its result, or its error, as exactly one reply through w. `name` is the sha or
  // the function name used in error texts. Only one run at a time (scripts are atomic).
  void run(int ref, std::span<const std::string_view> keys, std::span<const std::string_view> args,
           std::string_view name, ScriptHost& host, ReplyWriter& w);
  bool running() const { return host_ != nullptr; }
  size_t memory() const;

 private:
  struct Protected;  // the static Lua C functions, friends of this class

  void open();
  void close();
  void build_sandbox();
  std::string compile_error(const char* what);
  size_t heap_cap_for_run() const;  // heap_bytes_ + lua_heap_limit, or 0 without a limit

  Kind kind_;
  lua_State* L_ = nullptr;
  // Hashes std::string and string_view alike, so EVALSHA looks up without a temporary key.
  struct ShaHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // key: sha (40 lowercase hex)
  std::unordered_map<std::string, Script, ShaHash, std::equal_to<>> scripts_;
  std::unordered_map<std::string, Library> libraries_;
  std::unordered_map<std::string, Function> functions_;  // key: the name in lower case

  // State of the current run, used by the C functions Lua calls.
  ScriptHost* host_ = nullptr;
  int resp_ = 2;                        // redis.setresp()
  std::vector<std::string_view> call_args_;
  std::string call_numbers_;            // storage for number arguments converted to text
  Buffer call_reply_;
  // FUNCTION LOAD in progress: functions registered so far.
  std::vector<Function>* loading_ = nullptr;
  int64_t load_deadline_us_ = 0;
  size_t heap_bytes_ = 0;      // what the Lua state holds (its allocator counts)
  size_t heap_cap_ = 0;        // during a run: heap_bytes_ may not grow past it (0: no cap)
  int globals_index_ref_ = 0;  // the C closure behind _G's __index (backing table switched)
  int runtime_globals_ref_ = 0;
  int load_globals_ref_ = 0;
};

}  // namespace keel
