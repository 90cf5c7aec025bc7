// Version strings. Keel reports a Redis version for clients that feature-detect by it.
#pragma once
#include <string>

namespace keel {
inline constexpr const char* kKeelVersion = "0.1.0";
inline constexpr const char* kRedisCompatVersion = "7.4.0";
std::string& executable_path();
}  // namespace keel
