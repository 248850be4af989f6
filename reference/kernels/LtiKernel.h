// Reference ssm.lti_kernel: the S4/S4D convolution kernel K_l = C Abar^l Bbar of a diagonal LTI SSM.
#ifndef SSM_REFERENCE_KERNELS_LTIKERNEL_H
#define SSM_REFERENCE_KERNELS_LTIKERNEL_H

#include "reference/Array.h"
#include "reference/kernels/Discretize.h"

#include <optional>
#include <string>

namespace ssm::ref {

/// Real form: A, B, C (H, N). Complex form: A (H, N, 2) holding (re, im)
/// pairs, B and C each (H, N) real or (H, N, 2) complex; the N entries are
/// representatives of conjugate pairs, so the kernel is 2 Re(...) (S4D).
struct LtiKernelArgs {
  const Array *A = nullptr;
  const Array *B = nullptr; // optional; all ones if absent (S4D folds B into C)
  const Array *C = nullptr;
  const Array *delta = nullptr; // (H), the step, already exp(log_dt)
  Discretization method = Discretization::zoh; // for A (and B unless bMethod)
  std::optional<Discretization> bMethod;        // for B (Mamba: ZOH A, Euler B)
  int64_t length = 0;                          // L
};

/// K: (H, L), K[h, l] = sum_n C[h,n] Bbar[h,n] Abar[h,n]^l, times 2 Re for
/// the complex form.
/// Follows state-spaces/s4 models/s4/s4d.py S4DKernel.forward (zoh) and
/// src/models/sequence/kernels/ssm.py SSMKernelDiag (zoh | bilinear), with
/// Euler added for the worked example in DESIGN.md section 1.
std::string ltiKernel(const LtiKernelArgs &args, Array &K);

} // namespace ssm::ref

#endif // SSM_REFERENCE_KERNELS_LTIKERNEL_H
