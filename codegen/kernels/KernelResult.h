// What a kernel builder returns: its results, in the op's result order.
#ifndef SSM_CODEGEN_KERNELS_KERNELRESULT_H
#define SSM_CODEGEN_KERNELS_KERNELRESULT_H

#include "codegen/kernels/Kernel.h"

#include <vector>

namespace ssm::codegen {

/// The results of one op as TensorFuncs, in the order of the op's results
/// (e.g. {y, h_last} for ssm.selective_scan). The translator computes each
/// at root (Kernel.h); a builder may have fused the loop nests of its
/// results with compute_with, which compute_root keeps.
struct KernelResult {
  std::vector<TensorFunc> outputs;
};

} // namespace ssm::codegen

#endif
