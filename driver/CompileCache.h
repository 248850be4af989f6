// The compile cache the tools share (ssm-run today; the tuner and a server can): ssm-compile runs in a child process, results are kept by content hash.
#ifndef SSM_DRIVER_COMPILECACHE_H
#define SSM_DRIVER_COMPILECACHE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ssm {

/// The cache folder: $SSM_CACHE_DIR, else $XDG_CACHE_HOME/ssm-opt, else
/// $HOME/.cache/ssm-opt, else /tmp/ssm-opt-cache-<uid>.
std::string compileCacheDir();

/// Returns the folder of a compiled module for `mlirText` and `target`,
/// compiling it with the ssm-compile next to this executable when the cache
/// has no entry. The key hashes the IR text, the target, the compiler
/// version and the ssm-compile binary (size and modification time), so a
/// rebuilt compiler never serves stale kernels. Entries are published by
/// one rename of a finished folder; an entry without a manifest, or whose
/// shared library's size differs from the manifest's, is reported on stderr
/// ("ssm-run: note: ... is incomplete (...); compiling it again") and
/// rebuilt; work folders of dead processes are removed. Safe to call from
/// several processes at once. On failure returns "" and sets
/// `error`; `exitCode` is ssm-compile's (2: unsupported op or target, 1: the IR
/// did not verify), its diagnostics having gone to stderr.
/// `compileArgs` are passed on to ssm-compile (e.g. {"--autoschedule",
/// "li2018"}) and are part of the key.
/// A process that uses an entry holds a shared lock (flock) on its
/// manifest.json from the moment the entry is published or found until it
/// exits, so that pruning never removes a module a running process may
/// still load; each use also sets the entry folder's modification time,
/// which is its "last used" time. When $SSM_CACHE_MAX_MB is set, every
/// entry this process publishes is followed by pruneCompileCache to that
/// cap, with a note on stderr naming what was removed.
/// With `compileIfMissing` false, a missing (or incomplete) entry is not
/// compiled: "" is returned with `error` empty.
std::string compileWithCache(const std::string &mlirText, const std::string &target,
                             const char *argv0, std::string &error, int &exitCode,
                             const std::vector<std::string> &compileArgs = {},
                             bool compileIfMissing = true);

/// One entry removed by pruneCompileCache.
struct PrunedEntry {
  std::string key;
  uint64_t bytes = 0;
  int64_t lastUsed = 0; // seconds since the epoch (the folder's mtime)
};

/// What pruneCompileCache did.
struct PruneReport {
  std::vector<PrunedEntry> removed;
  uint64_t removedBytes = 0;
  unsigned kept = 0, inUse = 0; // entries left, and of those the ones in use
  uint64_t keptBytes = 0;
};

/// Removes published entries of the cache folder `root`, least recently
/// used first, until the entries hold at most `maxBytes` (0: every entry
/// not in use). An entry in use (its manifest locked by a process:
/// compileWithCache) is never removed, nor is a work folder being
/// published; each removal is one rename out of the way (to
/// `<key>.pruned-<pid>`) under an exclusive lock, then a delete. Work
/// folders of dead processes are removed too. A missing folder is an empty
/// cache.
PruneReport pruneCompileCache(const std::string &root, uint64_t maxBytes);

/// $SSM_CACHE_MAX_MB in bytes (MB = 2^20 bytes; decimals allowed), or
/// nullopt when unset or empty; `error` is set (and nullopt returned) when
/// it is not a non-negative number.
std::optional<uint64_t> cacheCapFromEnv(std::string &error);

/// "removed N entries (X MB), kept M (Y MB, K in use)".
std::string describePrune(const PruneReport &report);

} // namespace ssm

#endif
