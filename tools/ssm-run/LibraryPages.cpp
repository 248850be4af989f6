// Releasing the resident code pages of shared libraries (LibraryPages.h).
#include "tools/ssm-run/LibraryPages.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ssm {

namespace {
struct Mapping {
  uintptr_t begin = 0, end = 0;
  std::string perms, path;
  int64_t rssKib = 0, ownKib = 0; // Rss; Anonymous (pages copied on write)
};
} // namespace

int64_t releaseLibraryCode(const std::vector<std::string> &names) {
#if defined(__linux__)
  std::ifstream smaps("/proc/self/smaps");
  if (!smaps)
    return 0;
  std::vector<Mapping> maps;
  std::string line;
  while (std::getline(smaps, line)) {
    unsigned long long b = 0, e = 0;
    char perms[8] = {0};
    // A mapping's header: "begin-end perms offset dev inode [path]"; the
    // field lines that follow ("Rss:       12 kB") never parse as a range.
    if (std::sscanf(line.c_str(), "%llx-%llx %7s", &b, &e, perms) == 3) {
      Mapping m;
      m.begin = static_cast<uintptr_t>(b);
      m.end = static_cast<uintptr_t>(e);
      m.perms = perms;
      std::istringstream fields(line);
      std::string skip;
      for (int i = 0; i < 5; ++i)
        fields >> skip;
      std::getline(fields >> std::ws, m.path);
      maps.push_back(std::move(m));
      continue;
    }
    if (maps.empty())
      continue;
    long long kib = 0;
    if (std::sscanf(line.c_str(), "Rss: %lld kB", &kib) == 1)
      maps.back().rssKib = kib;
    else if (std::sscanf(line.c_str(), "Anonymous: %lld kB", &kib) == 1)
      maps.back().ownKib = kib;
  }
  int64_t released = 0;
  for (const Mapping &m : maps) {
    if (m.perms != "r-xp" || m.path.empty() || m.path[0] != '/' || m.rssKib == 0 || m.ownKib != 0)
      continue;
    bool named = false;
    for (const std::string &n : names)
      named = named || (!n.empty() && m.path.find(n) != std::string::npos);
    if (named && madvise(reinterpret_cast<void *>(m.begin), m.end - m.begin, MADV_DONTNEED) == 0)
      released += m.rssKib;
  }
  return released;
#else
  (void)names;
  return 0;
#endif
}

} // namespace ssm
