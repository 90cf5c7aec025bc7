// Process identity shown by INFO server.
#include "server/version.h"

namespace keel {
std::string& executable_path() {
  static std::string path;
  return path;
}
}  // namespace keel
