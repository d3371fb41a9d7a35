#include "prefixroute/base/temp_file.h"

#include <stdlib.h>  // mkstemp
#include <unistd.h>  // unlink

#include <cerrno>
#include <cstring>

namespace prefixroute {

int open_unlinked_temp_file(const char* stem, std::string& error) {
  const char* dir = std::getenv("TMPDIR");
  const std::string folder = dir != nullptr && *dir != '\0' ? dir : "/tmp";
  std::string name = folder + "/" + stem + "-XXXXXX";
  const int fd = mkstemp(name.data());
  if (fd < 0) {
    error = "cannot create a temporary file in " + folder + ": " + std::strerror(errno);
    return -1;
  }
  unlink(name.data());  // the descriptor keeps the data until it closes
  return fd;
}

}  // namespace prefixroute
