// Helpers shared by the libFuzzer harnesses: a private scratch folder, file writes.
#ifndef SSM_FUZZ_FUZZUTIL_H
#define SSM_FUZZ_FUZZUTIL_H

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace ssm::fuzz {

/// A folder of this process, created once (harnesses that exercise readers
/// of folders write the fuzzed bytes there). Under $TMPDIR or /tmp.
inline const std::string &scratchDir() {
  static const std::string dir = [] {
    const char *t = std::getenv("TMPDIR");
    std::string d = std::string(t && *t ? t : "/tmp") + "/ssm-fuzz-" + std::to_string(getpid());
    std::string cmd = "mkdir -p '" + d + "'";
    if (std::system(cmd.c_str()) != 0)
      std::abort();
    return d;
  }();
  return dir;
}

inline void writeFile(const std::string &path, const uint8_t *data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
}

} // namespace ssm::fuzz

#endif
