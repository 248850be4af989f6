// Reference ssm.gated_delta_rule: Gated DeltaNet's (and KDA's) delta-rule state scan, sequential in f64.
#ifndef SSM_REFERENCE_KERNELS_GATEDDELTARULE_H
#define SSM_REFERENCE_KERNELS_GATEDDELTARULE_H

#include "reference/Array.h"

#include <string>

namespace ssm::ref {

struct GatedDeltaRuleArgs {
  const Array *q = nullptr;    // (b, L, hk, dk)
  const Array *k = nullptr;    // (b, L, hk, dk)
  const Array *v = nullptr;    // (b, L, hv, dv), hv a multiple of hk
  const Array *g = nullptr;    // (b, L, hv) or (b, L, hv, dk): log decay
  const Array *beta = nullptr; // (b, L, hv)
  const Array *initialState = nullptr; // optional (b, hv, dk, dv) [key i][value j]; zeros if absent
  double scale = 1.0;
};

/// out: (b, L, hv, dv); finalState: (b, hv, dk, dv). Per batch and value
/// head h, reading key head h / (hv / hk), for t = 0 .. L-1 (the recurrence
/// of Gated DeltaNet, Yang et al. ICLR 2025; fla's
/// fused_recurrent_gated_delta_rule):
///   S[i, j] *= exp(g_t)                     (exp(g_t[i]) with a per-channel g)
///   u_j = beta_t (v_t[j] - sum_i S[i, j] k_t[i])
///   S[i, j] += k_t[i] u_j
///   out_t[j] = scale * sum_i S[i, j] q_t[i]
/// Errors name the operand whose shape is wrong.
std::string gatedDeltaRule(const GatedDeltaRuleArgs &args, Array &out, Array &finalState);

} // namespace ssm::ref

#endif // SSM_REFERENCE_KERNELS_GATEDDELTARULE_H
