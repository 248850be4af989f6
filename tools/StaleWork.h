// Work folders left by killed runs: each tool names its temporaries with its
// process id (ssm-compile's "<dir>.tmp-<pid>" and "<model>/.ssm-compile.tmp-<pid>",
// ssm-tune's "$TMPDIR/ssm-tune-<pid>-XXXXXX"), and the next run removes those
// whose process no longer exists. A folder whose process is alive (another
// run at work, or a reused pid) is left alone.
#ifndef SSM_TOOLS_STALEWORK_H
#define SSM_TOOLS_STALEWORK_H

#include <sys/types.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace ssm::tools {

/// True when no process `pid` exists (kill(pid, 0) fails with ESRCH).
inline bool processIsGone(long pid) {
  if (pid <= 0 || pid == static_cast<long>(::getpid()))
    return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

/// The pid in `name` = <prefix><pid><rest>: with `separator` 0 `rest` is
/// empty, else it starts with `separator` (ssm-tune-<pid>-XXXXXX: a name of
/// the older ssm-tune-XXXXXX form is never taken for a pid); -1 when `name`
/// is not of that form.
inline long pidInName(const std::string &name, const std::string &prefix, char separator) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0)
    return -1;
  size_t i = prefix.size(), end = i;
  while (end < name.size() && name[end] >= '0' && name[end] <= '9')
    ++end;
  if (end == i || end - i > 9)
    return -1;
  if (separator == 0 ? end != name.size() : (end == name.size() || name[end] != separator))
    return -1;
  return std::strtol(name.substr(i, end - i).c_str(), nullptr, 10);
}

/// Removes the entries of `folder` named <prefix><pid>[<separator>...] (as
/// pidInName reads them) whose
/// process is gone; returns the paths removed. Errors are ignored (a folder
/// another cleaner removed first, a read-only parent).
inline std::vector<std::string> removeStaleWork(const std::string &folder, const std::string &prefix,
                                                char separator = 0) {
  namespace fs = std::filesystem;
  std::vector<std::string> removed;
  std::error_code ec;
  std::vector<fs::path> stale;
  for (const fs::directory_entry &e : fs::directory_iterator(folder.empty() ? "." : folder, ec)) {
    long pid = pidInName(e.path().filename().string(), prefix, separator);
    if (pid > 0 && processIsGone(pid))
      stale.push_back(e.path());
  }
  for (const fs::path &p : stale) {
    std::error_code rc;
    if (fs::remove_all(p, rc) != static_cast<std::uintmax_t>(-1) && !rc)
      removed.push_back(p.string());
  }
  return removed;
}

} // namespace ssm::tools

#endif
