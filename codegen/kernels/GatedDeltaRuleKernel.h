// Halide kernel of ssm.gated_delta_rule: the delta-rule state scan token by token, one value column of the state per lane.
#ifndef SSM_CODEGEN_KERNELS_GATEDDELTARULEKERNEL_H
#define SSM_CODEGEN_KERNELS_GATEDDELTARULEKERNEL_H

#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"

#include <optional>

namespace ssm::codegen {

struct GatedDeltaRuleKernelInputs {
  /// (batch, L, Hk, Dk) each; L may be symbolic, Dk must be constant.
  TensorFunc q, k;
  /// (batch, L, Hv, Dv), Hv a multiple of Hk.
  TensorFunc v;
  /// Log decay: (batch, L, Hv) (one per value head) or (batch, L, Hv, Dk) (per key channel).
  TensorFunc g;
  /// (batch, L, Hv).
  TensorFunc beta;
  /// (batch, Hv, Dk, Dv) [key i][value j]; zeros when absent.
  std::optional<TensorFunc> initialState;
  double scale = 1.0;
};

/// outputs (`result`) = {out (batch, L, Hv, Dv), final_state (batch, Hv,
/// Dk, Dv)}: the semantics of reference/kernels/GatedDeltaRule.h in f32
/// (exp: accurateExp, once per decay value). The builder defines Funcs
/// only; scheduleGatedDeltaRule (codegen/schedules/Schedules.h) schedules
/// them.
///
/// The value columns j of a head's state never mix (S[:, j] <- d (.) S[:, j]
/// + k u_j with u_j = beta (v_j - k . (d (.) S[:, j]))), so `scan` holds,
/// per column j, Dk state slots, then one slot per token for the output.
/// Its update walks (x, t) with x = 0..Dk: for x < Dk it writes S_t[x, j]
/// and extends two running sums along x, (k_{t+1} (.) d_{t+1}) . S_t[:, j]
/// (the next token's k . S, complete at x = Dk-1) and q_t . S_t[:, j] (the
/// output before `scale`); at x = Dk it stores the output in slot Dk + t.
/// One pass over the state per token, vectors along j, no (L, Dk, Dv)
/// trajectory.
struct GatedDeltaRuleKernel {
  KernelResult result;
  Halide::Func decay;      // exp(g): (h, t, batch), or (key i, h, t, batch) per channel
  Halide::Func kv0;        // (value j, h, batch): k_0 . (d_0 (.) S_0[:, j]), the first token's k . S
  Halide::Func scan;       // (value j, slot, h, batch) Tuple (S, running k.S next, running q.S)
  Halide::RDom steps;      // (slot x in 0..Dk, time t) of scan's update
  Halide::Func out;        // (j, h, t, batch)
  Halide::Func finalState; // (value j, key i, h, batch)
  bool perChannel = false; // g has a key channel dim (KDA)
};
GatedDeltaRuleKernel buildGatedDeltaRule(const GatedDeltaRuleKernelInputs &in);

} // namespace ssm::codegen

#endif // SSM_CODEGEN_KERNELS_GATEDDELTARULEKERNEL_H
