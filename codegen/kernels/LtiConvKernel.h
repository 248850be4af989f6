// Halide kernel of ssm.lti_conv: causal long convolution y = K * u + D u per channel.
#ifndef SSM_CODEGEN_KERNELS_LTICONVKERNEL_H
#define SSM_CODEGEN_KERNELS_LTICONVKERNEL_H

#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"

#include <optional>

namespace ssm::codegen {

/// The op's `algorithm` values; every one computes the same result.
enum class ConvAlgorithm { Direct, Fft, Scan };

struct LtiConvKernelInputs {
  TensorFunc u; // (batch, H, L)
  TensorFunc K; // (H, Lk): taps past L are unused, missing taps are 0
  std::optional<TensorFunc> D; // (H)
  ConvAlgorithm algorithm = ConvAlgorithm::Direct;
};

/// outputs = {y (batch, H, L)},
///   y[b, h, t] = sum_{k=0}^{min(t, Lk-1)} K[h, k] u[b, h, t-k] + D[h] u[b, h, t].
/// Every algorithm is evaluated directly: O(L min(L, Lk)) per channel, blocked
/// along time (register accumulators, vectorised), causal triangle skipped,
/// parallel over batch x H. (fft and scan fall back to direct.)
KernelResult buildLtiConv(const LtiConvKernelInputs &in, const CpuSchedule &s,
                          const Halide::Target &t);

} // namespace ssm::codegen

#endif
