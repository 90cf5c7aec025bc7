// Error replies clients can see, spelled exactly as Redis spells them (without the leading '-'
// and the trailing CRLF; ReplyWriter::error adds both). Messages that need run-time text are
// formatted by the caller into a stack buffer; they are rare paths.
#pragma once
#include <string_view>

namespace keel {

inline constexpr std::string_view kErrWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kErrSyntax = "ERR syntax error";
inline constexpr std::string_view kErrNotInteger = "ERR value is not an integer or out of range";
inline constexpr std::string_view kErrNotFloat = "ERR value is not a valid float";
inline constexpr std::string_view kErrOverflow = "ERR increment or decrement would overflow";
inline constexpr std::string_view kErrNoSuchKey = "ERR no such key";
inline constexpr std::string_view kErrOutOfRange = "ERR index out of range";
inline constexpr std::string_view kErrDbIndex = "ERR DB index is out of range";
inline constexpr std::string_view kErrInvalidDb = "ERR invalid DB index";
inline constexpr std::string_view kErrInvalidExpire = "ERR invalid expire time in '%s' command";
inline constexpr std::string_view kErrBitOffset = "ERR bit offset is not an integer or out of range";
inline constexpr std::string_view kErrBitValue = "ERR bit is not an integer or out of range";
inline constexpr std::string_view kErrStringTooLong = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
inline constexpr std::string_view kErrNoAuth = "NOAUTH Authentication required.";
inline constexpr std::string_view kErrWrongPass =
    "WRONGPASS invalid username-password pair or user is disabled.";
inline constexpr std::string_view kErrCursor = "ERR invalid cursor";
inline constexpr std::string_view kErrTimeout = "ERR timeout is not a float or out of range";
inline constexpr std::string_view kErrSameObject = "ERR source and destination objects are the same";
inline constexpr std::string_view kErrNegativeTimeout = "ERR timeout is negative";
inline constexpr std::string_view kErrOom =
    "OOM command not allowed when used memory > 'maxmemory'.";
inline constexpr std::string_view kErrExecAbort =
    "EXECABORT Transaction discarded because of previous errors.";
// Redis's protected commands (commands/dispatch.cc refuses them at admission).
inline constexpr std::string_view kErrDebugNotAllowed =
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";
inline constexpr std::string_view kErrModuleNotAllowed =
    "ERR MODULE command not allowed. If the enable-module-command option is set to \"local\", "
    "you can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";
inline constexpr std::string_view kErrPositive = "ERR value is out of range, must be positive";
// Sent to a non-loopback connection in protected mode, then the connection is closed. Current
// Redis's text ("4) Set up an ..."); Debian's 7.0.15 still says "4) Setup a an ...".
inline constexpr std::string_view kErrDeniedProtectedMode =
    "DENIED Redis is running in protected mode because protected mode is enabled and no "
    "password is set for the default user. In this mode connections are only accepted from the "
    "loopback interface. If you want to connect from external computers to Redis you may adopt "
    "one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG "
    "SET protected-mode no' from the loopback interface by connecting to Redis from the same "
    "host the server is running, however MAKE SURE Redis is not publicly accessible from "
    "internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively "
    "you can just disable the protected mode by editing the Redis configuration file, and "
    "setting the protected mode option to 'no', and then restarting the server. 3) If you "
    "started the server manually just for testing, restart it with the '--protected-mode no' "
    "option. 4) Set up an authentication password for the default user. NOTE: You only need to "
    "do one of the above things in order for the server to start accepting connections from the "
    "outside.";

}  // namespace keel
