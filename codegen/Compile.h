// Ahead-of-time compilation of a module's functions into a kernel library and manifest.
#ifndef SSM_CODEGEN_COMPILE_H
#define SSM_CODEGEN_COMPILE_H

#include "mlir/IR/BuiltinOps.h"
#include "ssm/Version.h"

#include <functional>
#include <string>

namespace ssm::codegen {

/// The compiler identity recorded in manifests and compile-cache keys.
constexpr const char *kCompilerVersion = "ssm-opt " SSM_OPT_VERSION " (MLIR 19, Halide 14)";

struct CompileOptions {
  std::string target = "host"; // a Halide target string
  std::string outDir;          // created by the caller, empty
  std::string libName = "ssm_module";
  /// Exported C symbols are <symbolPrefix>_<function> (ssm-compile --name),
  /// so that modules compiled with different prefixes link into one program.
  std::string symbolPrefix = "ssm";
  bool emitStmt = false; // also write <symbol>.stmt, Halide's lowered statement
  /// Empty: apply each op's schedule attribute. Else "adams2019", "li2018"
  /// or "mullapudi2016": Halide 14's autoscheduler plugin of that name
  /// schedules every pipeline instead (attributes ignored).
  std::string autoscheduler;
  /// Called as each stage of the compilation starts, with its 1-based
  /// index, the number of stages and what it is ("kernel @forward_step",
  /// "runtime and static library", "shared library"): one stage per kernel
  /// (public functions without calls, then the callees and segments of
  /// those with calls), then the libraries. Unset: silent.
  std::function<void(int stage, int stages, const std::string &what)> progress;
};

/// The autoschedulers `--autoschedule` accepts, for messages.
constexpr const char *kAutoschedulers = "adams2019, li2018, mullapudi2016";

/// True when `target` is a Halide target string this Halide accepts
/// ("host" included).
bool isValidTarget(const std::string &target);

/// The full Halide target string `target` names, as manifests record it:
/// "host" (and "host-<features>") resolved to this machine's features.
/// `target` must be valid (isValidTarget).
std::string resolveTarget(const std::string &target);

/// Compiles every public func.func of `module` for `options.target` into
/// `options.outDir`:
///   <lib>.a        static library (kernels + Halide runtime)
///   lib<lib>.so    shared library (the same, for dlopen by the runtime),
///                  only for targets this machine can link and load (its
///                  own architecture and OS); the manifest's
///                  "shared_library" is null otherwise (cross targets)
///   <lib>.h        C header declaring every function (Halide's buffer ABI)
///   manifest.json  functions, argument and result names, shapes, dtypes,
///                  parameter names, symbols, target, compiler version
///   HalideRuntime.h, HalideBuffer.h  Halide 14's runtime headers, which <lib>.h
///                  includes (the folder needs nothing else to be compiled against)
/// Each function `@f` becomes `int <prefix>_f(halide_buffer_t *args..., halide_buffer_t *results...)`
/// plus Halide's `ssm_f_argv` and `ssm_f_metadata`. Diagnostics go to the
/// module's context; `error` holds a message for failures outside the IR
/// (file system, linker).
mlir::LogicalResult compileModule(mlir::ModuleOp module, const CompileOptions &options,
                                  std::string &error);

} // namespace ssm::codegen

#endif
