// Vector width and device kind from a Halide target string.
#include "passes/TargetInfo.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

std::optional<ssm::TargetInfo> ssm::parseTarget(llvm::StringRef target) {
  llvm::SmallVector<llvm::StringRef> parts;
  target.split(parts, '-');
  if (parts.empty())
    return std::nullopt;
  TargetInfo info;
  auto has = [&](llvm::StringRef f) {
    for (llvm::StringRef p : parts)
      if (p.starts_with(f))
        return true;
    return false;
  };
  if (parts[0] == "host") {
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    if (features.lookup("avx512f"))
      info.vectorWidth = 16;
    else if (features.lookup("avx2") || features.lookup("avx"))
      info.vectorWidth = 8;
    else
      info.vectorWidth = 4;
  } else if (parts[0] == "x86") {
    info.vectorWidth = has("avx512") ? 16 : (has("avx") ? 8 : 4);
  } else if (parts[0] == "arm" || parts[0] == "riscv" || parts[0] == "powerpc" ||
             parts[0] == "wasm") {
    info.vectorWidth = 4;
  } else {
    return std::nullopt;
  }
  info.wideRegisterFile = info.vectorWidth >= 16 || parts[0] == "arm";
  info.gpu = has("cuda") || has("opencl") || has("vulkan") || has("metal");
  return info;
}
