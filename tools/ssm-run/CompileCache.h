// The compile cache of ssm-run: ssm-compile runs in a child process, results are kept by content hash.
#ifndef SSM_TOOLS_SSMRUN_COMPILECACHE_H
#define SSM_TOOLS_SSMRUN_COMPILECACHE_H

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
std::string compileWithCache(const std::string &mlirText, const std::string &target,
                             const char *argv0, std::string &error, int &exitCode,
                             const std::vector<std::string> &compileArgs = {});

} // namespace ssm

#endif
