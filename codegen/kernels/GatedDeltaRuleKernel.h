// Halide kernel of ssm.gated_delta_rule: the delta-rule state scan token by token, one value column of the state per lane.
#ifndef SSM_CODEGEN_KERNELS_GATEDDELTARULEKERNEL_H
#define SSM_CODEGEN_KERNELS_GATEDDELTARULEKERNEL_H

#include "codegen/kernels/ChunkedPass.h"
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
/// The token-by-token scan keeps `lanes` value columns together: a column
/// j lives at (j % lanes, slot, j / lanes), so one task's slots are
/// contiguous. The chunked pass keeps all Dv columns of a slot together.
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
///   tinv   T = (I + A)^-1 by forward substitution on the identity
///   rhsU, rhsW, xu, xw   U~ = T diag(beta) V, W = T diag(beta) (K (.) exp G)
///   eg, egl         exp(G_r), exp(G_last - G_r) (per row; per channel too with a per-channel gate)
///   kt, qg, glast   k_r exp(G_last - G_r), q_r exp(G_r), exp(G_last)
///   oloc, coef      the outputs as a map of the entering state S:
///          O = (Q (.) exp G) S + P V' with V' = U~ - W S (the WY form's
///          corrected values), so O = Qeff S + Oloc with
///          Qeff = (Q (.) exp G) - P W, Oloc = P U~ (P = pqk)
///          coefQ: Qeff; coef: the (2C x Dk) rows [-W ; Qeff] the pass
///          multiplies S by
///   pass   (ChunkedPass.h) sequential over chunks per (value head,
///          stream), all value columns together (the WY form, as fla's
///          chunk_gated_delta_rule_fwd_h):
///            V' = U~ - W S_n;  O_n = Oloc + Qeff S_n;
///            S_{n+1} = exp(G_last) (.) S_n + K~^T V'
///          2 C Dk Dv + C Dk Dv multiply-adds per chunk, in register tiles
///          of R rows by the value columns; K = Dk state rows, W = C work
///          rows V', the outputs before `scale`
/// The chunk-local stages (gcum .. coef) depend only on the inputs of
/// their chunk: the CPU schedule computes them per (head, chunk) inside
/// the pass, right before the chunk's step.
struct GatedDeltaRuleKernel {
  KernelResult result;
  int chunk = 0;
  bool perChannel = false; // g has a key channel dim (KDA)
  int dk = 0, dv = 0;      // the head sizes
  // Token by token.
  Halide::Func decay;      // exp(g): (h, t, batch), or (key i, h, t, batch) per channel
  Halide::Func kv0;        // (value j, h, batch): k_0 . (d_0 (.) S_0[:, j]), the first token's k . S
  Halide::Func scan;       // (lane, slot, block, h, batch) Tuple (S, running k.S next, running q.S); j = block lanes + lane
  Halide::RDom steps;      // (slot x in 0..Dk, time t) of scan's update
  // Chunked: (r, h, n, batch) and (i, r, h, n, batch) per channel for gcum;
  // (s, r, head, n, batch) for the C x C matrices.
  Halide::Func gcum, gramKK, gramQK, akk, pqk;
  Halide::Func kC, qC;     // (key i, r, key head, n, batch): the chunk's k and q, 0 past L
  Halide::Func kRows, gRows; // (s, key i, head, n, batch): k and (per channel) G, rows innermost
  Halide::Func tinv;       // (c, r, h, n, batch): T[r][c], T = (I + A)^-1
  Halide::RDom solve;      // (r, s), s < r: row s of T subtracted from row r
  Halide::Func rhsU, rhsW; // beta_r v_r (value j, r, ...), beta_r k_r exp(G_r) (key i, r, ...)
  Halide::Func xu, xw;     // U~ = T rhsU, W = T rhsW
  Halide::RDom rowsX;      // their reduction: the C rows s (T is 0 for s > r)
  Halide::Func kt, qg;     // (key i, r, h, n, batch)
  Halide::Func glast;      // (key i, h, n, batch)
  Halide::Func ratioC;     // (s, r, h, n, batch): exp(G_r - G_s) for s <= r, else 0 (scalar gate only)
  Halide::Func eg, egl;    // exp(G_r), exp(G_last - G_r): (r, h, n, batch), per channel (key i, r, h, n, batch)
  Halide::Func oloc;       // (value j, r, h, n, batch)
  Halide::Func coefQ;      // (key i, r, h, n, batch): Qeff
  Halide::Func coef;       // (key i, row a < 2C, h, n, batch): [-W ; Qeff]
  Halide::RDom rowsA;      // coefQ's reduction: the C rows s (P is 0 for s > r)
  ChunkedPass pass;        // the inter-chunk pass (its Func `states`)
  Halide::RDom keys, rows; // the Dk key channels; the C rows of a chunk (oloc; P is 0 for s > r)
  // Both forms.
  Halide::Func out;        // (j, h, t, batch)
  Halide::Func finalState; // (value j, key i, h, batch)
};
GatedDeltaRuleKernel buildGatedDeltaRule(const GatedDeltaRuleKernelInputs &in);

} // namespace ssm::codegen

#endif // SSM_CODEGEN_KERNELS_GATEDDELTARULEKERNEL_H
