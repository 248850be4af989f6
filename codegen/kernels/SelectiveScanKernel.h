// Halide kernel for ssm.selective_scan (Mamba-1 fused scan): builder and schedule.
#ifndef SSM_CODEGEN_KERNELS_SELECTIVESCANKERNEL_H
#define SSM_CODEGEN_KERNELS_SELECTIVESCANKERNEL_H

#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"

#include <optional>

namespace ssm::codegen {

/// The operands of ssm.selective_scan as TensorFuncs (shapes in MLIR order,
/// dialect/SsmOps.td): u, delta, z (batch, dim, L) channel-major or
/// (batch, L, dim) time-major; A (dim, N); B and C each (dim, N) constant,
/// per token (batch, N, L) / (batch, L, N), or grouped (batch, G, N, L) /
/// (batch, L, G, N); D, deltaBias (dim); h0 (batch, dim, N).
struct SelectiveScanKernelInputs {
  TensorFunc u, delta, A, B, C;
  std::optional<TensorFunc> D, z, deltaBias, h0;
  bool deltaSoftplus = false;
  bool timeMajor = false;
};

/// Builds {y, h_last}; see SelectiveScanKernel.cpp for the formulation.
KernelResult buildSelectiveScan(const SelectiveScanKernelInputs &in,
                                const CpuSchedule &s, const Halide::Target &t);

} // namespace ssm::codegen

#endif
