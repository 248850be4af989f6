// Halide kernel for ssm.selective_update (one decode step): builder and schedule.
#ifndef SSM_CODEGEN_KERNELS_SELECTIVEUPDATEKERNEL_H
#define SSM_CODEGEN_KERNELS_SELECTIVEUPDATEKERNEL_H

#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"

#include <optional>

namespace ssm::codegen {

/// The operands of ssm.selective_update as TensorFuncs (shapes in MLIR
/// order, dialect/SsmOps.td). Without heads: state (batch, dim, N);
/// x, dt, z (batch, dim); A (dim, N); B, C (batch, N); D, dtBias (dim).
/// With heads (state of rank 4): state (batch, H, P, N); x, dt, z
/// (batch, H, P); A (H, P, N); B, C (batch, N) or (batch, G, N); D, dtBias
/// (H, P).
struct SelectiveUpdateKernelInputs {
  TensorFunc state, x, dt, A, B, C;
  std::optional<TensorFunc> D, z, dtBias;
  bool dtSoftplus = false;
};

/// Builds {y, new_state}.
KernelResult buildSelectiveUpdate(const SelectiveUpdateKernelInputs &in,
                                  const CpuSchedule &s, const Halide::Target &t);

} // namespace ssm::codegen

#endif
