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
inline constexpr std::string_view kErrPositive = "ERR value is out of range, must be positive";

}  // namespace keel
