// Halide's runtime object, compiled once per target and kept in a per-user cache.
#include "codegen/RuntimeCache.h"

#include "codegen/Compile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace ssm::codegen {
namespace {

/// What the runtime's bytes depend on: the target, the Halide library that
/// compiles it (a rebuilt libHalide of the same version changes size or
/// mtime) and our compiler.
std::string runtimeKey(const Halide::Target &target) {
  std::string key = target.to_string() + "\n" + kCompilerVersion + "\nHalide " SSM_HALIDE_VERSION_STRING;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&Halide::get_host_target), &info) &&
      info.dli_fname) {
    struct stat st{};
    if (::stat(info.dli_fname, &st) == 0)
      key += std::string("\n") + info.dli_fname + " " + std::to_string(st.st_size) + " " +
             std::to_string(st.st_mtime);
  }
  llvm::SHA256 sha;
  sha.update(key);
  std::array<uint8_t, 32> digest = sha.final();
  return llvm::toHex(llvm::ArrayRef<uint8_t>(digest.data(), 12), /*LowerCase=*/true);
}

template <typename T> T readAt(const char *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// A whole ELF object: the header is there and the section header table,
/// which an object file keeps at its end, lies inside the file.
bool wholeElfObject(llvm::StringRef bytes) {
  if (bytes.size() < 64 || !bytes.starts_with("\x7f"
                                               "ELF"))
    return false;
  const char *p = bytes.data();
  uint64_t shoff, shentsize, shnum;
  if (p[4] == 2) { // ELFCLASS64
    shoff = readAt<uint64_t>(p + 0x28);
    shentsize = readAt<uint16_t>(p + 0x3A);
    shnum = readAt<uint16_t>(p + 0x3C);
  } else if (p[4] == 1) { // ELFCLASS32
    shoff = readAt<uint32_t>(p + 0x20);
    shentsize = readAt<uint16_t>(p + 0x2E);
    shnum = readAt<uint16_t>(p + 0x30);
  } else {
    return false;
  }
  return shnum > 0 && shoff <= bytes.size() && shentsize * shnum <= bytes.size() - shoff;
}

bool isElfTarget(const Halide::Target &target) {
  return target.os == Halide::Target::Linux || target.os == Halide::Target::Android;
}

} // namespace

std::string halideRuntimeCacheDir() {
  if (const char *d = std::getenv("SSM_HALIDE_RUNTIME_CACHE"); d && *d)
    return std::strcmp(d, "off") == 0 ? "" : d;
  if (const char *d = std::getenv("XDG_CACHE_HOME"); d && *d)
    return std::string(d) + "/ssm-opt-runtime";
  if (const char *d = std::getenv("HOME"); d && *d)
    return std::string(d) + "/.cache/ssm-opt-runtime";
  return "";
}

void writeHalideRuntime(const Halide::Target &target, const std::string &path) {
  std::string dir = isElfTarget(target) ? halideRuntimeCacheDir() : "";
  if (dir.empty()) {
    Halide::compile_standalone_runtime(path, target);
    return;
  }
  llvm::SmallString<256> entry(dir);
  llvm::sys::path::append(entry, "runtime-" + runtimeKey(target) + ".o");
  if (auto cached = llvm::MemoryBuffer::getFile(entry, /*IsText=*/false,
                                                /*RequiresNullTerminator=*/false)) {
    if (wholeElfObject((*cached)->getBuffer()) &&
        !llvm::sys::fs::copy_file(entry, path))
      return;
  }
  Halide::compile_standalone_runtime(path, target);
  // Publish: a copy beside the entry, renamed over it (atomic on one file
  // system); a failure only means the next compile compiles it again.
  if (llvm::sys::fs::create_directories(dir))
    return;
  std::string tmp = std::string(entry) + ".tmp-" + std::to_string(::getpid());
  if (llvm::sys::fs::copy_file(path, tmp)) {
    llvm::sys::fs::remove(tmp);
    return;
  }
  if (llvm::sys::fs::rename(tmp, entry))
    llvm::sys::fs::remove(tmp);
}

} // namespace ssm::codegen
