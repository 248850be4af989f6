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
  /// Tokens per chunk of the chunked form; 0: token by token.
  int chunk = 0;
  /// Value columns stored together in the state buffers (the schedule's
  /// vector width): a task's state is contiguous, not every lanes-th line.
  int lanes = 8;
};

/// outputs (`result`) = {out (batch, L, Hv, Dv), final_state (batch, Hv,
/// Dk, Dv)}: the semantics of reference/kernels/GatedDeltaRule.h in f32
/// (exp: accurateExp, of log decays and of their differences only; in the
/// chunked form a factor below exp(-30) is 0, which keeps the chunk's
/// products out of f32 denormals). The
/// builder defines Funcs only; scheduleGatedDeltaRule
/// (codegen/schedules/Schedules.h) schedules them. Two forms (`chunk`):
///
/// The state buffers (scan, states) keep `lanes` value columns together:
/// a column j lives at (j % lanes, slot, j / lanes), so one task's slots are
/// contiguous.
///
/// Token by token (chunk 0): the value columns j of a head's state never
/// mix (S[:, j] <- d (.) S[:, j] + k u_j with u_j = beta (v_j - k . (d (.)
/// S[:, j]))), so `scan` holds, per column j, Dk state slots, then one slot
/// per token for the output. Its update walks (x, t) with x = 0..Dk: for
/// x < Dk it writes S_t[x, j] and extends two running sums along x,
/// (k_{t+1} (.) d_{t+1}) . S_t[:, j] (the next token's k . S, complete at
/// x = Dk-1) and q_t . S_t[:, j] (the output before `scale`); at x = Dk it
/// stores the output in slot Dk + t. One pass over the state per token,
/// vectors along j, no (L, Dk, Dv) trajectory.
///
/// Chunked (chunk C > 0), chunk n holding tokens nC .. nC+C-1 (r the
/// position in the chunk; tokens past L padded with g = beta = k = v = 0),
/// all stages but `states` independent across chunks:
///   gcum   G_r: the cumulative log decay from the chunk's start
///   kRows, gRows    k and (per channel) G with the chunk's rows innermost
///   gramKK, gramQK  k_r . k_s, q_r . k_s (per key head; with a gate per
///          key channel, per value head with exp(G_r - G_s) inside the sum)
///   akk    A[r, s] = beta_r exp(G_r - G_s) k_r . k_s for s < r, else 0
///   pqk    exp(G_r - G_s) q_r . k_s for s <= r, else 0
///   x      the forward substitution through (I + A): columns c < Dv are
///          U~ = T diag(beta) V, columns Dv + i are W = T diag(beta) (K (.) exp G)
///   kt, qg, glast   k_r exp(G_last - G_r), q_r exp(G_r), exp(G_last)
///   m, bm  the chunk's map of the state, S' = M S + B:
///          M = diag(exp G_last) - K~^T W, B = K~^T U~
///   states S entering chunk n in slots nDk .. nDk+Dk-1 of each value
///          column (slot NC Dk + i: the final state), from one sequential
///          matrix-vector pass per chunk (RDom `pass`)
///   u      U = U~ - W S (the chunk's corrected values)
///   oc     (Q (.) exp G) S + pqk U; out = scale oc
struct GatedDeltaRuleKernel {
  KernelResult result;
  int chunk = 0;
  bool perChannel = false; // g has a key channel dim (KDA)
  // Token by token.
  Halide::Func decay;      // exp(g): (h, t, batch), or (key i, h, t, batch) per channel
  Halide::Func kv0;        // (value j, h, batch): k_0 . (d_0 (.) S_0[:, j]), the first token's k . S
  Halide::Func scan;       // (lane, slot, block, h, batch) Tuple (S, running k.S next, running q.S); j = block lanes + lane
  Halide::RDom steps;      // (slot x in 0..Dk, time t) of scan's update
  // Chunked: (r, h, n, batch) and (i, r, h, n, batch) per channel for gcum;
  // (s, r, head, n, batch) for the C x C matrices.
  Halide::Func gcum, gramKK, gramQK, akk, pqk;
  Halide::Func kRows, gRows; // (s, key i, head, n, batch): k and (per channel) G, rows innermost
  Halide::Func x;          // (c, r, h, n, batch), c < Dv + Dk
  Halide::RDom solve;      // (s, r), s < r
  Halide::Func kt, qg;     // (key i, r, h, n, batch)
  Halide::Func glast;      // (key i, h, n, batch)
  Halide::Func m;          // (key i, key i2, h, n, batch): M[i][i2]
  Halide::Func bm;         // (value j, key i, h, n, batch)
  Halide::Func states;     // (lane, slot n Dk + i, block, h, batch); j = block lanes + lane
  Halide::RDom pass;       // (i, i2, n) of states' update: row i of the next state, row i2 it reads
  Halide::RDom keys, rows; // the Dk key channels and the C rows of a chunk (reductions)
  Halide::Func u, oc;      // (value j, r, h, n, batch)
  // Both forms.
  Halide::Func out;        // (j, h, t, batch)
  Halide::Func finalState; // (value j, key i, h, batch)
};
GatedDeltaRuleKernel buildGatedDeltaRule(const GatedDeltaRuleKernelInputs &in);

} // namespace ssm::codegen

#endif // SSM_CODEGEN_KERNELS_GATEDDELTARULEKERNEL_H
