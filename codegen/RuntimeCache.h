// Halide's runtime object, compiled once per target and kept in a per-user cache.
//
// Every module ssm-compile writes links Halide's runtime (thread pool, buffer
// and device helpers): about a second of LLVM work per compile, the same bytes
// for every graph of a target, which was most of the time of compiling a small
// graph (1.3 s for the examples' short scan: 0.9 s of it the runtime) and so of
// every ssm-tune candidate and first ssm-run of a graph.
#ifndef SSM_CODEGEN_RUNTIMECACHE_H
#define SSM_CODEGEN_RUNTIMECACHE_H

#include "Halide.h"

#include <string>

namespace ssm::codegen {

/// Writes Halide's standalone runtime for `target` to the object file `path`,
/// as Halide::compile_standalone_runtime does (and throws its Halide::Error).
/// Copied from the runtime cache when it holds a whole object for this exact
/// target string, this libHalide (its version, file size and mtime) and this
/// ssm-opt; otherwise compiled, then published to the cache (written beside it
/// and renamed in, so a reader never sees a partial file). An entry that is not
/// a whole ELF object (a truncated file) is ignored and replaced. The cache is
/// only used for ELF targets (Linux, Android); any error of the cache itself is
/// ignored (the runtime is then compiled as before).
///
/// The cache folder: $SSM_HALIDE_RUNTIME_CACHE ("off" disables the cache), else
/// $XDG_CACHE_HOME/ssm-opt-runtime, else $HOME/.cache/ssm-opt-runtime.
void writeHalideRuntime(const Halide::Target &target, const std::string &path);

/// The cache folder writeHalideRuntime uses ("" when disabled or unknown).
std::string halideRuntimeCacheDir();

} // namespace ssm::codegen

#endif
