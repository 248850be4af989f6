// Content-addressed compile cache around a child ssm-compile process.
#include "tools/ssm-run/CompileCache.h"

#include "codegen/Compile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
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

std::string compileWithCache(const std::string &mlirText, const std::string &target,
                             const char *argv0, std::string &error, int &exitCode) {
  exitCode = 2;
  std::string self = llvm::sys::fs::getMainExecutable(argv0, (void *)&compileCacheDir);
  llvm::SmallString<256> compiler(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(compiler, "ssm-compile");
  llvm::sys::fs::file_status st;
  if (llvm::sys::fs::status(compiler, st) || !llvm::sys::fs::exists(st)) {
    error = "cannot find ssm-compile next to ssm-run (" + std::string(compiler) + ")";
    return "";
  }
  llvm::SHA256 hash;
  hash.update(mlirText);
  hash.update("\0target=" + target);
  hash.update(std::string("\0compiler=") + codegen::kCompilerVersion);
  hash.update("\0binary=" + std::to_string(st.getSize()) + ":" +
              std::to_string(st.getLastModificationTime().time_since_epoch().count()));
  std::string key = llvm::toHex(hash.final(), /*LowerCase=*/true).substr(0, 32);

  std::string root = compileCacheDir();
  std::string entry = root + "/" + key;
  if (llvm::sys::fs::exists(entry + "/manifest.json"))
    return entry;

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
  }
  std::string out = work + "/module";
  llvm::SmallVector<llvm::StringRef> args = {compiler, input, "--target", target, "-o", out};
  std::string msg;
  int rc = llvm::sys::ExecuteAndWait(compiler, args, std::nullopt, {}, 0, 0, &msg);
  if (rc != 0) {
    exitCode = rc == 1 ? 1 : 2;
    error = "ssm-compile failed (" + (msg.empty() ? "exit " + std::to_string(rc) : msg) +
            "); its input is kept in " + input;
    return "";
  }
  // Another process may have filled the entry meanwhile: either copy is good.
  if (std::error_code ec = llvm::sys::fs::rename(out, entry)) {
    if (!llvm::sys::fs::exists(entry + "/manifest.json")) {
      error = "cannot move the compiled module into " + entry + ": " + ec.message();
      return "";
    }
  }
  llvm::sys::fs::remove_directories(work);
  return entry;
}

} // namespace ssm
