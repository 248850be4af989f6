// Halide kernel of ssm.affine_scan: h_t = a_t * h_{t-1} + b_t along one dim, as an RDom update.
#ifndef SSM_CODEGEN_KERNELS_AFFINESCANKERNEL_H
#define SSM_CODEGEN_KERNELS_AFFINESCANKERNEL_H

#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"

#include <optional>

namespace ssm::codegen {

struct AffineScanKernelInputs {
  /// Rank of b; each extent equals b's or is 1 (broadcast). A broadcast
  /// extent must be the constant 1 in `a.shape` (it selects index 0).
  TensorFunc a;
  TensorFunc b; // shape S, scanned along `dim`
  /// Optional: S without `dim`; zeros when absent.
  std::optional<TensorFunc> h0;
  /// Optional: shape S, the op's i1 operand as a Func of uint8 (0/1) or
  /// bool; nonzero starts a new sequence (h[t-1] taken as 0, not h0).
  std::optional<TensorFunc> reset;
  int dim = 0;          // MLIR dim of b; negative counts from the end
  bool reverse = false; // scan from the last index towards 0
};

/// outputs = {h (shape S), h_last (S without dim)}. h_last is the state after
/// the last step in scan order (index 0 when reversed); the scanned extent
/// must be at least 1.
///
/// h is the RDom update (the translator must compute it at root, as it does
/// every result; h_last reads it).
struct AffineScanKernel {
  KernelResult result;
  Halide::Func h, hLast;
  Halide::RDom time;
  std::vector<Halide::Var> vars; // h's vars, Halide order
  int scannedDim = 0;            // Halide index of the scanned dim
};
AffineScanKernel buildAffineScan(const AffineScanKernelInputs &in);

} // namespace ssm::codegen

#endif
