// What every tool prints for --version: the package's version (one number,
// CMakeLists.txt's project(VERSION), through the generated ssm/Version.h),
// the C API's version and the versions of the file formats.
#ifndef SSM_TOOLS_VERSION_H
#define SSM_TOOLS_VERSION_H

#include "runtime/FormatVersions.h"
#include "runtime/ssm_runtime.h"
#include "ssm/Version.h"

#include <string>

namespace ssm::tools {

#define SSM_TOOLS_STR2(x) #x
#define SSM_TOOLS_STR(x) SSM_TOOLS_STR2(x)

/// "ssm-run (ssm-opt) 0.3.1\n  C API 0.7.0\n  formats: ...\n  built with MLIR 19, Halide 14\n".
inline std::string versionText(const std::string &tool) {
  return tool + " (ssm-opt) " SSM_OPT_VERSION "\n"
                "  C API (libssm_runtime) " SSM_TOOLS_STR(SSM_RUNTIME_VERSION_MAJOR) "." SSM_TOOLS_STR(
                    SSM_RUNTIME_VERSION_MINOR) "." SSM_TOOLS_STR(SSM_RUNTIME_VERSION_PATCH) "\n"
                "  formats: model.json " +
         std::to_string(kModelJsonVersion) + ", module manifest " +
         std::to_string(kManifestVersion) + ", state file " +
         std::to_string(kStateFileFormatVersion) + ", tuning database " +
         std::to_string(kTuningDbVersion) + "\n  built with MLIR 19, Halide 14\n";
}

#undef SSM_TOOLS_STR
#undef SSM_TOOLS_STR2

} // namespace ssm::tools

#endif
