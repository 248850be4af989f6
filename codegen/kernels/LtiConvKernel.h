// Halide kernel of ssm.lti_conv: causal long convolution y = K * u + D u per channel.
#ifndef SSM_CODEGEN_KERNELS_LTICONVKERNEL_H
#define SSM_CODEGEN_KERNELS_LTICONVKERNEL_H

#include "dialect/SsmEnums.h"
#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"

#include <optional>

namespace ssm::codegen {

/// The op's `algorithm` values; every one computes the same result.

struct LtiConvKernelInputs {
  TensorFunc u; // (batch, H, L)
  TensorFunc K; // (H, Lk): taps past L are unused, missing taps are 0
  std::optional<TensorFunc> D; // (H)
  ConvAlgorithm algorithm = ConvAlgorithm::direct;
};

/// outputs = {y (batch, H, L)},
///   y[b, h, t] = sum_{k=0}^{min(t, Lk-1)} K[h, k] u[b, h, t-k] + D[h] u[b, h, t].
/// Evaluated directly: O(L min(L, Lk)) per channel, blocked along time in
/// blocks of `timeBlock` outputs (register accumulators, the schedule
/// vectorises them), causal triangle skipped. `fft` has a builder of its
/// own (LtiConvFftKernel.h); this one throws CompileError for `fft` and
/// `scan` (a convolution given only K has no recurrence to run: the scan
/// form is the scan that ssm-lti-to-conv leaves in place).
struct LtiConvKernel {
  KernelResult result;
  Halide::Func upad, acc, y;
  Halide::RDom taps;
  Halide::Var t, h, b, ti, to;
  int timeBlock = 32;
};
/// `timeBlock`: outputs per register block (the schedule's vector width x 4).
LtiConvKernel buildLtiConv(const LtiConvKernelInputs &in, int timeBlock);

} // namespace ssm::codegen

#endif
