// Reference ssm.selective_update: one decode step of the selective SSM, with or without heads.
#ifndef SSM_REFERENCE_KERNELS_SELECTIVEUPDATE_H
#define SSM_REFERENCE_KERNELS_SELECTIVEUPDATE_H

#include "reference/Array.h"

#include <string>

namespace ssm::ref {

/// Two forms, told apart by the rank of state:
///   no heads (Mamba-1): state (batch, dim, N); x, dt, z (batch, dim);
///                       A (dim, N); D, dt_bias (dim); B, C (batch, N)
///   heads   (Mamba-2):  state (batch, H, P, N); x, dt, z (batch, H, P);
///                       A (H, P, N); D, dt_bias (H, P);
///                       B, C (batch, N) or (batch, G, N), head h using
///                       group h / (H / G)
/// The no-heads form is the heads form with H = 1 and P = dim.
struct SelectiveUpdateArgs {
  const Array *state = nullptr;
  const Array *x = nullptr;
  const Array *dt = nullptr;
  const Array *A = nullptr;
  const Array *B = nullptr;
  const Array *C = nullptr;
  const Array *D = nullptr;      // optional
  const Array *z = nullptr;      // optional
  const Array *dtBias = nullptr; // optional
  bool dtSoftplus = false;
};

/// out: like x; newState: like state.
/// Follows state-spaces/mamba mamba_ssm/ops/triton/selective_state_update.py
/// selective_state_update_ref (which updates state in place; here newState is
/// a fresh array and the caller may alias it onto the donated buffer):
///   dt = softplus?(dt + dt_bias)
///   newState = state * exp(dt A) + B (dt x)
///   out = (sum_n newState C + D x) * silu(z)
std::string selectiveUpdate(const SelectiveUpdateArgs &args, Array &out,
                            Array &newState);

} // namespace ssm::ref

#endif // SSM_REFERENCE_KERNELS_SELECTIVEUPDATE_H
