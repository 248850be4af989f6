// One refusal of an unknown --target for every tool: ssm-compile's.
//
// ssm-compile validates a target with Halide (Target::validate_target_string);
// the tools that do not load libHalide (ssm-run, ssm-import) ask it through
// `ssm-compile --print-target --target T`, as ssm-tune does, so a target
// string is accepted or refused alike everywhere, with the same message:
// "unknown target 'T' (expected a Halide target such as host, ...)".
#ifndef SSM_TOOLS_TARGETCHECK_H
#define SSM_TOOLS_TARGETCHECK_H

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <optional>
#include <string>

namespace ssm::tools {

/// "" when `compiler` (an ssm-compile) accepts `target`; otherwise its
/// message without the "ssm-compile: error: " prefix, or why it could not run.
inline std::string targetProblem(const std::string &compiler, const std::string &target) {
  llvm::SmallString<128> out, err;
  if (llvm::sys::fs::createTemporaryFile("ssm-target", "txt", out) ||
      llvm::sys::fs::createTemporaryFile("ssm-target", "err", err))
    return "cannot create a temporary file to check the target '" + target + "'";
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(out),
                                                llvm::StringRef(err)};
  std::string msg;
  int rc = llvm::sys::ExecuteAndWait(compiler, {compiler, "--print-target", "--target", target},
                                     std::nullopt, redirects, 60, 0, &msg);
  auto e = llvm::MemoryBuffer::getFile(err);
  std::string text = e ? (*e)->getBuffer().trim().str() : "";
  llvm::sys::fs::remove(out);
  llvm::sys::fs::remove(err);
  if (rc == 0)
    return "";
  if (rc < 0)
    return "cannot run " + compiler + " to check the target '" + target + "': " + msg;
  llvm::StringRef t(text);
  t.consume_front("ssm-compile: error: ");
  return t.empty() ? "ssm-compile refused the target '" + target + "'" : t.str();
}

} // namespace ssm::tools

#endif
