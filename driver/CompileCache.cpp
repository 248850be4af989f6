// Content-addressed compile cache around a child ssm-compile process.
//
// Layout of the cache folder: `<key>/` is a published entry (ssm-compile's
// output: manifest.json, lib<name>.so, ...); `<key>.tmp-<pid>/` is the work
// folder of a process compiling that key; `<key>.broken-<pid>/` an entry
// found incomplete, being removed. An entry appears only by one rename of a
// finished folder, so readers see it whole or not at all; concurrent
// processes may compile the same key, and the first rename wins (the other
// result is discarded). Work folders of processes that no longer exist (a
// `kill -9` mid-compile) are removed by the next process that uses the
// cache; ssm-compile gets --parent-pid, so it dies with a killed caller.
//
// Pruning (pruneCompileCache, $SSM_CACHE_MAX_MB, ssm-run --cache-prune):
// a process using an entry holds a shared flock on its manifest.json until
// it exits (taken on the work folder's manifest before the publishing
// rename, or on a found entry, then checked to still be the file at the
// entry's path); the pruner takes an exclusive lock without waiting (in
// use: skipped), renames the entry to `<key>.pruned-<pid>` and deletes it.
// A process that finds its entry pruned under it compiles it again.
#include "driver/CompileCache.h"
#include "runtime/Checksum.h"
#include "runtime/Manifest.h"

#include "codegen/Compile.h"
#include "runtime/CpuFeatures.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ssm {

std::string compileCacheDir() {
  if (const char *d = std::getenv("SSM_CACHE_DIR"); d && *d)
    return d;
  if (const char *d = std::getenv("XDG_CACHE_HOME"); d && *d)
    return std::string(d) + "/ssm-opt";
  if (const char *d = std::getenv("HOME"); d && *d)
    return std::string(d) + "/.cache/ssm-opt";
  return "/tmp/ssm-opt-cache-" + std::to_string(getuid());
}

namespace {

/// "" when `entry` is a whole ssm-compile output: a manifest that parses and
/// names a shared library whose size is the one the manifest records.
std::string checkEntry(const std::string &entry) {
  std::string manifestPath = entry + "/manifest.json";
  // Only a file is read (a FIFO would block the open, a device never end).
  llvm::sys::fs::file_status st;
  if (llvm::sys::fs::status(manifestPath, st))
    return "no manifest.json";
  if (st.type() != llvm::sys::fs::file_type::regular_file)
    return "manifest.json is not a file";
  auto buffer = llvm::MemoryBuffer::getFile(manifestPath);
  if (!buffer)
    return "no manifest.json";
  rt::ModuleManifest m;
  std::string problem;
  if (!rt::manifestFromJson((*buffer)->getBuffer().str(), manifestPath, m, problem))
    return "manifest.json is not a valid manifest (" + problem + ")";
  if (!m.sharedLibrary || !m.sharedLibraryBytes)
    return "manifest.json names no shared library and size";
  const std::string &libName = *m.sharedLibrary;
  if (libName.empty() || libName.find('/') != std::string::npos)
    return "manifest.json names a shared library outside the entry";
  uint64_t size = 0;
  if (llvm::sys::fs::file_size(entry + "/" + libName, size))
    return libName + " is missing";
  if (size != *m.sharedLibraryBytes)
    return libName + " has " + std::to_string(size) + " bytes, the manifest says " +
           std::to_string(*m.sharedLibraryBytes);
  if (m.sharedLibraryXxh3) {
    std::string sum, error;
    if (!rt::fileChecksum(entry + "/" + libName, sum, error))
      return error;
    if (sum != *m.sharedLibraryXxh3)
      return libName + " does not match the manifest's checksum";
  }
  return "";
}

/// Moves a broken entry out of the way (one rename, so racing processes
/// agree on who removes it) and deletes it.
void discardEntry(const std::string &root, const std::string &key) {
  std::string aside = root + "/" + key + ".broken-" + std::to_string(getpid());
  if (!llvm::sys::fs::rename(root + "/" + key, aside))
    llvm::sys::fs::remove_directories(aside);
}

/// Descriptors holding this process's shared locks on entries it uses
/// (released when it exits).
std::mutex gLocksMutex;
std::vector<int> gHeldLocks;

/// Opens `path` and waits for a shared lock on it; -1 when it cannot.
int lockShared(const std::string &path) {
  // O_NONBLOCK: a FIFO in place of a manifest must not block the open.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return -1;
  while (::flock(fd, LOCK_SH) != 0)
    if (errno != EINTR) {
      ::close(fd);
      return -1;
    }
  return fd;
}

void keepLock(int fd) {
  std::lock_guard<std::mutex> lock(gLocksMutex);
  gHeldLocks.push_back(fd);
}

/// The entry's "last used" time is its folder's modification time.
void touch(const std::string &dir) { ::utimensat(AT_FDCWD, dir.c_str(), nullptr, 0); }

/// Marks the published `entry` in use by this process. False when it is
/// no longer there (pruned or replaced between the lookup and the lock).
bool holdEntry(const std::string &entry) {
  std::string manifest = entry + "/manifest.json";
  int fd = lockShared(manifest);
  if (fd < 0)
    return false;
  struct stat held, now;
  if (::fstat(fd, &held) != 0 || ::stat(manifest.c_str(), &now) != 0 ||
      held.st_dev != now.st_dev || held.st_ino != now.st_ino) {
    ::close(fd);
    return false;
  }
  keepLock(fd);
  touch(entry);
  return true;
}

/// A published entry's name: the 32 hex digits of its key.
bool isEntryName(llvm::StringRef name) {
  return name.size() == 32 && llvm::all_of(name, [](char c) { return llvm::isHexDigit(c); });
}

uint64_t folderBytes(const std::string &dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::sys::fs::file_status st;
    if (!llvm::sys::fs::status(it->path(), st, /*follow=*/false) &&
        st.type() == llvm::sys::fs::file_type::regular_file)
      total += st.getSize();
  }
  return total;
}

std::string megabytes(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", bytes / 1048576.0);
  return buf;
}

bool processAlive(long pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

/// Removes `<key>.tmp-<pid>` and `<key>.broken-<pid>` folders whose process
/// is gone (killed mid-compile).
void removeOrphans(const std::string &root) {
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(root, ec), end; it != end && !ec; it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    size_t dot = name.rfind('.');
    if (dot == llvm::StringRef::npos)
      continue;
    llvm::StringRef suffix = name.substr(dot + 1);
    long pid = 0;
    if (!(suffix.consume_front("tmp-") || suffix.consume_front("broken-") ||
          suffix.consume_front("pruned-")) ||
        suffix.getAsInteger(10, pid))
      continue;
    if (pid != getpid() && !processAlive(pid))
      llvm::sys::fs::remove_directories(it->path());
  }
}

} // namespace

std::string compileWithCache(const std::string &mlirText, const std::string &target,
                             const char *argv0, std::string &error, int &exitCode,
                             const std::vector<std::string> &compileArgs,
                             bool compileIfMissing) {
  exitCode = 2;
  std::optional<uint64_t> cap = cacheCapFromEnv(error);
  if (!error.empty())
    return "";
  std::string self = llvm::sys::fs::getMainExecutable(argv0, (void *)&compileCacheDir);
  llvm::SmallString<256> compiler(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(compiler, "ssm-compile");
  llvm::sys::fs::file_status st;
  if (llvm::sys::fs::status(compiler, st) || !llvm::sys::fs::exists(st)) {
    error = "cannot find ssm-compile next to ssm-run (" + std::string(compiler) + ")";
    return "";
  }
  // Each field as name=value followed by a NUL (explicit lengths: a string
  // literal starting with "\0" would hash as empty), so no two different
  // (text, target, compiler) triples share a key.
  llvm::SHA256 hash;
  auto field = [&](llvm::StringRef name, llvm::StringRef value) {
    hash.update(name);
    hash.update("=");
    hash.update(value);
    hash.update(llvm::StringRef("\0", 1));
  };
  field("ir", mlirText);
  field("target", target);
  // "host" names this CPU's features: machines sharing a cache folder with
  // different CPUs must not share its entries (runtime/CpuFeatures.h).
  if (target == "host" || llvm::StringRef(target).starts_with("host-"))
    field("host-cpu", rt::runnableFeatures());
  field("compiler", codegen::kCompilerVersion);
  for (const std::string &a : compileArgs)
    field("arg", a);
  field("binary", std::to_string(st.getSize()) + ":" +
                      std::to_string(st.getLastModificationTime().time_since_epoch().count()));
  std::string key = llvm::toHex(hash.final(), /*LowerCase=*/true).substr(0, 32);

  std::string root = compileCacheDir();
  std::string entry = root + "/" + key;
  removeOrphans(root);
  if (llvm::sys::fs::is_directory(entry)) {
    std::string why = checkEntry(entry);
    if (why.empty() && holdEntry(entry))
      return entry;
    // (Whole but not held: pruned between the check and the lock, so it
    // is compiled again below.)
    if (!why.empty()) {
      llvm::errs() << "ssm-run: note: the compile cache entry " << entry << " is incomplete ("
                   << why << "); compiling it again\n";
      discardEntry(root, key);
    }
  } else if (llvm::sys::fs::exists(entry)) {
    llvm::errs() << "ssm-run: note: the compile cache entry " << entry
                 << " is not a folder; replacing it\n";
    llvm::sys::fs::remove(entry);
  }
  if (!compileIfMissing)
    return "";

  if (std::error_code ec = llvm::sys::fs::create_directories(root)) {
    error = "cannot create the compile cache folder " + root + ": " + ec.message();
    return "";
  }
  std::string work = entry + ".tmp-" + std::to_string(getpid());
  llvm::sys::fs::remove_directories(work);
  if (std::error_code ec = llvm::sys::fs::create_directories(work)) {
    error = "cannot create the compile cache folder " + work + ": " + ec.message();
    return "";
  }
  std::string input = work + "/input.mlir";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(input, ec);
    if (ec) {
      error = "cannot write " + input + ": " + ec.message();
      return "";
    }
    os << mlirText;
    os.close();
    if (os.has_error()) { // a full disk: an error, not LLVM's abort in the destructor
      error = "cannot write " + input + ": " + os.error().message();
      os.clear_error();
      llvm::sys::fs::remove_directories(work);
      return "";
    }
  }
  std::string out = work + "/module";
  std::string parent = "--parent-pid=" + std::to_string(getpid());
  llvm::SmallVector<llvm::StringRef> args = {compiler, input, "--target", target,
                                             "-o",     out,   parent};
  for (const std::string &a : compileArgs)
    args.push_back(a);
  std::string msg;
  int rc = llvm::sys::ExecuteAndWait(compiler, args, std::nullopt, {}, 0, 0, &msg);
  if (rc != 0) {
    exitCode = rc == 1 ? 1 : 2;
    // The input is kept for the bug report, out of the cache's way.
    std::string kept = root + "/failed-" + key + ".mlir";
    if (llvm::sys::fs::rename(input, kept))
      kept = input;
    llvm::sys::fs::remove_directories(work);
    error = "ssm-compile failed (" + (msg.empty() ? "exit " + std::to_string(rc) : msg) +
            "); its input is kept in " + kept;
    return "";
  }
  if (std::string why = checkEntry(out); !why.empty()) {
    llvm::sys::fs::remove_directories(work);
    error = "ssm-compile wrote an incomplete module (" + why + ")";
    return "";
  }
  // Publish: one rename, our entry locked in use before it appears. When
  // another process published the key meanwhile, its entry is as good as
  // ours; a broken one is replaced.
  int lockFd = lockShared(out + "/manifest.json");
  bool ours = false;
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::error_code ec = llvm::sys::fs::rename(out, entry);
    if (!ec) {
      ours = true;
      break;
    }
    if (checkEntry(entry).empty() && holdEntry(entry))
      break;
    if (attempt == 1) {
      if (lockFd >= 0)
        ::close(lockFd);
      llvm::sys::fs::remove_directories(work);
      error = "cannot move the compiled module into " + entry + ": " + ec.message();
      return "";
    }
    discardEntry(root, key);
  }
  if (ours && lockFd >= 0) {
    keepLock(lockFd);
    touch(entry);
  } else if (lockFd >= 0) {
    ::close(lockFd);
  }
  llvm::sys::fs::remove_directories(work);
  if (ours && cap) {
    PruneReport r = pruneCompileCache(root, *cap);
    if (!r.removed.empty()) {
      llvm::errs() << "ssm-run: note: the compile cache " << root << " is over SSM_CACHE_MAX_MB ("
                   << megabytes(*cap) << "): " << describePrune(r) << "; removed, least recently used first:";
      for (const PrunedEntry &e : r.removed)
        llvm::errs() << " " << e.key << " (" << megabytes(e.bytes) << ")";
      llvm::errs() << "\n";
    }
  }
  return entry;
}

PruneReport pruneCompileCache(const std::string &root, uint64_t maxBytes) {
  PruneReport r;
  if (!llvm::sys::fs::is_directory(root))
    return r;
  removeOrphans(root);
  struct Entry {
    std::string key;
    uint64_t bytes;
    int64_t lastUsed;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(root, ec), end; it != end && !ec; it.increment(ec)) {
    std::string key = llvm::sys::path::filename(it->path()).str();
    struct stat st;
    if (!isEntryName(key) || ::stat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      continue;
    entries.push_back({key, folderBytes(it->path()), static_cast<int64_t>(st.st_mtime)});
    total += entries.back().bytes;
  }
  std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
    return a.lastUsed != b.lastUsed ? a.lastUsed < b.lastUsed : a.key < b.key;
  });
  for (const Entry &e : entries) {
    auto keep = [&](bool inUse) {
      ++r.kept;
      r.inUse += inUse;
      r.keptBytes += e.bytes;
    };
    if (total <= maxBytes) {
      keep(false);
      continue;
    }
    std::string path = root + "/" + e.key;
    // No manifest: a broken entry nobody can be using.
    int fd = ::open((path + "/manifest.json").c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      keep(true);
      continue;
    }
    std::string aside = root + "/" + e.key + ".pruned-" + std::to_string(getpid());
    bool moved = !llvm::sys::fs::rename(path, aside);
    if (moved)
      llvm::sys::fs::remove_directories(aside);
    if (fd >= 0)
      ::close(fd);
    if (!moved) {
      keep(false);
      continue;
    }
    r.removed.push_back({e.key, e.bytes, e.lastUsed});
    r.removedBytes += e.bytes;
    total -= e.bytes;
  }
  return r;
}

std::optional<uint64_t> cacheCapFromEnv(std::string &error) {
  error.clear();
  const char *v = std::getenv("SSM_CACHE_MAX_MB");
  if (!v || !*v)
    return std::nullopt;
  char *end = nullptr;
  double mb = std::strtod(v, &end);
  if (end == v || *end || !std::isfinite(mb) || mb < 0 || mb > 1e12) {
    error = "SSM_CACHE_MAX_MB must be a non-negative number of megabytes (2^20 bytes), got '" +
            std::string(v) + "'";
    return std::nullopt;
  }
  return static_cast<uint64_t>(mb * 1048576.0);
}

std::string describePrune(const PruneReport &r) {
  std::string s = "removed " + std::to_string(r.removed.size()) +
                  (r.removed.size() == 1 ? " entry (" : " entries (") + megabytes(r.removedBytes) +
                  "), kept " + std::to_string(r.kept) + " (" + megabytes(r.keptBytes);
  if (r.inUse)
    s += ", " + std::to_string(r.inUse) + " in use";
  return s + ")";
}

} // namespace ssm
