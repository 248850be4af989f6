// File checksums (runtime/Checksum.h).
#include "runtime/Checksum.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace ssm::rt {

bool fileChecksum(const std::string &path, std::string &hex, std::string &error) {
  std::unique_ptr<FILE, int (*)(FILE *)> f(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!f) {
    error = path + ": cannot be read (" + std::strerror(errno) + ")";
    return false;
  }
  std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t *)> state(XXH3_createState(),
                                                                         XXH3_freeState);
  if (!state || XXH3_64bits_reset(state.get()) != XXH_OK) {
    error = "cannot allocate a checksum state";
    return false;
  }
  std::vector<unsigned char> buf(1 << 20);
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f.get())) > 0)
    XXH3_64bits_update(state.get(), buf.data(), n);
  if (std::ferror(f.get())) {
    error = path + ": read error (" + std::strerror(errno) + ")";
    return false;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx",
                static_cast<unsigned long long>(XXH3_64bits_digest(state.get())));
  hex = out;
  return true;
}

bool isChecksum(const std::string &text) {
  if (text.size() != 16)
    return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  return true;
}

} // namespace ssm::rt
