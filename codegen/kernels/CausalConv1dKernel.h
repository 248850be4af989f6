// Halide kernel of ssm.causal_conv1d: Mamba's short depthwise causal convolution with carried state.
#ifndef SSM_CODEGEN_KERNELS_CAUSALCONV1DKERNEL_H
#define SSM_CODEGEN_KERNELS_CAUSALCONV1DKERNEL_H

#include "dialect/SsmEnums.h"
#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"

#include <optional>

namespace ssm::codegen {

struct CausalConv1dKernelInputs {
  TensorFunc x;      // (batch, dim, L); L may be symbolic and smaller than W-1
  TensorFunc weight; // (dim, W): W must be a constant extent (the op keeps it in 2..4)
  std::optional<TensorFunc> bias;          // (dim)
  std::optional<TensorFunc> initialStates; // (batch, dim, W-1); zeros when absent
  Activation activation = Activation::identity;
};

/// outputs = {out (batch, dim, L), final_states (batch, dim, W-1)}. With
/// xx = concat(initial_states or zeros, x) along time:
///   out[b, d, t] = act(bias[d] + sum_{k<W} weight[d, k] * xx[b, d, t + k])
///   final_states[b, d, k] = xx[b, d, L + k]
/// The taps are unrolled in the algorithm. Both outputs read only the
/// inputs, so neither needs the other.
struct CausalConv1dKernel {
  KernelResult result;
  Halide::Func out;         // (t, d, b)
  Halide::Func finalStates; // (k, d, b)
};
CausalConv1dKernel buildCausalConv1d(const CausalConv1dKernelInputs &in);

} // namespace ssm::codegen

#endif
