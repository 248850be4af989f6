// What schedules need to know of a Halide target string, without linking Halide.
#ifndef SSM_PASSES_TARGETINFO_H
#define SSM_PASSES_TARGETINFO_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace ssm {

struct TargetInfo {
  int64_t vectorWidth = 8; // f32 lanes
  bool gpu = false;        // cuda or opencl
  bool wideRegisterFile = false; // 32 vector registers (AVX-512, Arm NEON)
};

constexpr const char *kKnownTargetsHelp =
    "expected a Halide target such as host, x86-64-linux-avx2, "
    "x86-64-linux-avx512_skylake, arm-64-linux, host-cuda-cuda_capability_80, host-opencl";

/// Reads the architecture and vector features of a Halide target string
/// (arch-bits-os-features...); "host" means the CPU this runs on. None for a
/// string that names no known architecture.
std::optional<TargetInfo> parseTarget(llvm::StringRef target);

} // namespace ssm

#endif
