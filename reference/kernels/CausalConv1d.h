// Reference ssm.causal_conv1d: Mamba's short depthwise causal convolution with carried state.
#ifndef SSM_REFERENCE_KERNELS_CAUSALCONV1D_H
#define SSM_REFERENCE_KERNELS_CAUSALCONV1D_H

#include "dialect/SsmEnums.h"
#include "reference/Array.h"

#include <string>

namespace ssm::ref {

struct CausalConv1dArgs {
  const Array *x = nullptr;      // (batch, dim, L)
  const Array *weight = nullptr; // (dim, W); the op verifier keeps W in 2..4
  const Array *bias = nullptr;   // optional (dim)
  const Array *initialStates = nullptr; // optional (batch, dim, W-1); zeros if absent
  Activation activation = Activation::identity;
};

/// out: (batch, dim, L); finalStates: (batch, dim, W-1).
/// Follows Dao-AILab/causal-conv1d causal_conv1d/causal_conv1d_interface.py
/// causal_conv1d_ref. With xx = concat(initial_states or zeros, x) along time:
///   out[t] = act(bias + sum_{k<W} weight[k] * xx[t + k])
/// so the last tap multiplies the current sample, and finalStates holds the
/// last W-1 samples of xx (zero-padded on the left when xx is shorter).
std::string causalConv1d(const CausalConv1dArgs &args, Array &out,
                         Array &finalStates);

} // namespace ssm::ref

#endif // SSM_REFERENCE_KERNELS_CAUSALCONV1D_H
