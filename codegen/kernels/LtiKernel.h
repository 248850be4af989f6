// Halide kernel of ssm.lti_kernel: the S4/S4D convolution kernel K_l = C Abar^l Bbar.
#ifndef SSM_CODEGEN_KERNELS_LTIKERNEL_H
#define SSM_CODEGEN_KERNELS_LTIKERNEL_H

#include "codegen/kernels/DiscretizeKernel.h"
#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"

#include <cstdint>
#include <optional>

namespace ssm::codegen {

struct LtiKernelKernelInputs {
  /// (H, N) real, or (H, N, 2) complex (re, im): N representatives of
  /// conjugate pairs, K = 2 Re(...). The rank decides.
  TensorFunc A;
  /// Optional (all ones when absent); (H, N) or, with complex A, (H, N, 2).
  /// A rank-2 B or C with complex A is complex with zero imaginary part.
  std::optional<TensorFunc> B;
  TensorFunc C;     // like B
  TensorFunc delta; // (H), the step (already exp(log_dt))
  Discretization method = Discretization::zoh;  // for A
  Discretization bMethod = Discretization::zoh; // for B (Mamba: Zoh A, Euler B)
  int64_t length = 0; // L, the static time extent of K
};

/// outputs = {K (H, length)}, K[h, l] = sum_n Re(C Bbar Abar^l) (2 Re for
/// complex A).
///
/// Accuracy: Abar^l is evaluated in polar form, never by repeated
/// multiplication: per (h, n) in f64, log|Abar| and arg(Abar) (zoh: exactly
/// delta Re A and delta Im A) and C Bbar; per (l, h, n) the phase l arg(Abar)
/// is formed and reduced mod pi/2 in f64, then sin/cos are minimax
/// polynomials on [-pi/4, pi/4] and the magnitude is accurateExp in f32. So
/// the error stays at f32 rounding level for any l (the f64 phase error,
/// about 2^-52 l |arg|, is far below it). The f64 work is per element, so the
/// kernel wants a target with f64 (every CPU target).
struct LtiKernelKernel {
  KernelResult result;
  Halide::Func coef; // per (n, h): log|Abar|, arg Abar, C Bbar (Tuple)
  Halide::Func K;    // (l, h): pure 0, update summing the modes
  Halide::RDom modes;
};
LtiKernelKernel buildLtiKernel(const LtiKernelKernelInputs &in);

} // namespace ssm::codegen

#endif
