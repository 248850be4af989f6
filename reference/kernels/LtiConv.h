// Reference ssm.lti_conv: causal long convolution y = K * u + D u.
#ifndef SSM_REFERENCE_KERNELS_LTICONV_H
#define SSM_REFERENCE_KERNELS_LTICONV_H

#include "reference/Array.h"

#include <string>

namespace ssm::ref {

struct LtiConvArgs {
  const Array *u = nullptr; // (batch, H, L)
  const Array *K = nullptr; // (H, Lk); taps past L are unused, missing taps are 0
  const Array *D = nullptr; // optional (H)
};

/// y: (batch, H, L), y[b,h,t] = sum_{k=0}^{min(t, Lk-1)} K[h,k] u[b,h,t-k] + D[h] u[b,h,t].
/// Direct summation: the op's algorithm (direct | fft | scan) only changes
/// how compiled code gets there. S4 (state-spaces/s4 models/s4/s4d.py
/// S4D.forward) computes the same with an FFT of length 2L.
std::string ltiConv(const LtiConvArgs &args, Array &y);

} // namespace ssm::ref

#endif // SSM_REFERENCE_KERNELS_LTICONV_H
