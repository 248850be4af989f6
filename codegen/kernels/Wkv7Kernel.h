// Halide kernel of ssm.wkv7: RWKV-7's delta-rule state scan, one row of the state per lane.
#ifndef SSM_CODEGEN_KERNELS_WKV7KERNEL_H
#define SSM_CODEGEN_KERNELS_WKV7KERNEL_H

#include "codegen/kernels/ChunkedPass.h"
#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"

#include <optional>

namespace ssm::codegen {

struct Wkv7KernelInputs {
  /// (batch, L, H, N) each: receptance, log decay, key, value, a, b; L may be symbolic.
  TensorFunc r, w, k, v, a, b;
  /// (batch, H, N, N) [value i][key j]; zeros when absent.
  std::optional<TensorFunc> initialState;
  /// Tokens per chunk of the chunked form; 0: token by token.
  int chunk = 0;
};

/// outputs (`result`) = {y (batch, L, H, N), final_state (batch, H, N, N)}:
/// the semantics of reference/kernels/Wkv7.h in f32 (exp: accurateExp). N
/// must be a constant extent. The builder defines Funcs only; scheduleWkv7
/// (codegen/schedules/Wkv7Schedule.h) schedules them.
///
/// The rows i of a head's state are independent (S[i, :] <- S[i, :] (.)
/// exp(w) + (S[i, :] . a) b + v_i k), so `scan` holds, per value index i,
/// N state slots, then one slot per token for y. Its update walks (x, t)
/// with x = 0..N: for x < N it updates S[i, x] and extends two running
/// sums along x, S_t[i, :] . a_{t+1} (next step's rank-one coefficient,
/// complete at x = N-1) and S_t[i, :] . r_t (y_t[i]); at x = N it stores
/// y_t[i] in slot N + 1 + t. One pass over the state per token, vectors
/// along i, no (L, N, N) trajectory.
///
/// Chunked (chunk C > 0): chunk n holds tokens nC .. nC+C-1 (r the position
/// in the chunk; tokens past L padded with w = r = k = v = a = b = 0, the
/// identity step). With G_r the cumulative log decay of key channel j from
/// the chunk's start (G_{-1} = 0), S the state entering the chunk and
/// u_r = S_{r-1} a_r (the rank-one term's column), unrolling the rule gives
///   S_r = S diag(e^{G_r}) + sum_{s<=r} (u_s b_s^T + v_s k_s^T) diag(e^{G_r - G_s})
///   u_r = S (a_r e^{G_{r-1}}) + sum_{s<r} Aab[r,s] u_s + Aak[r,s] v_s
/// with Aab[r,s] = sum_j a_r[j] b_s[j] e^{G_{r-1}[j] - G_s[j]} (Aak: k_s
/// for b_s), so U = T (A~ S^T + Aak V), T = (I - Aab)^-1 (unit lower
/// triangular, a forward substitution per chunk): U = W S^T + U~ with
/// W = T A~, U~ = T Aak V (the WY / UT form). Then
///   Y = (R~ + Prb W) S^T + (Prb U~ + Prk V)   (R~ = R e^{G_r}; Prb, Prk the
///       s <= r sums of r_r[j] b_s[j] e^{G_r - G_s} and with k_s)
///   S_{n+1}^T = e^{G_last} S^T + sum_r b_r e^{G_last - G_r} u_r^T + k_r e^{G_last - G_r} v_r^T
/// Every exponent is a difference G_r - G_s with s <= r (<= 0: no overflow
/// whatever the decay; decayExp flushes factors below e^-30 to 0).
/// Stages (per head and chunk, all but `states` independent across chunks):
///   gcum (key j, r)             G_r
///   decRows (s, j, r)           e^{G_r - G_s} for s <= r, else 0 (a running
///                               product of e^{w_r} along r; below e^-30: 0)
///   gramAB, gramAK, gramRB, gramRK (s, r)  the four key sums above
///   tinv (c, r)                 T
///   rhsU (value i, r)           (Aak V)_r;  xu: U~ = T rhsU
///   at (key j, r)               a_r e^{G_{r-1}};  xw: W = T A~
///   coef (key j, row q < 2C)    [W ; R~ + Prb W]: what the pass multiplies S by
///   oloc (value i, r)           Prb U~ + Prk V
///   kt (key j, r' < 2C)         b_r' e^{G_last - G_r'} (r' < C), k e^{..} (r' >= C)
///   glast (key j)               e^{G_last}
///   pass (ChunkedPass.h)        sequential over chunks per (head, stream),
///          K = N state rows S_n^T, W = 2C work rows [U ; V], Y of token t:
///          per chunk the rows' first values (U~, V, Oloc, e^{G_last} S_n),
///          then the 2C rows of U and Y += coef S_n, then the N rows of
///          S_{n+1} += kt [U ; V]; 4 C N^2 multiply-adds per chunk, in
///          register tiles of R rows by the value columns.
struct Wkv7Kernel {
  KernelResult result;
  int chunk = 0;
  int n = 0; // the head size
  Halide::Func decay;      // (key j, h, t, batch): exp(w)
  Halide::Func sa0;        // (value i, h, batch): S_0 a_0, the first step's rank-one term
  Halide::Func scan;       // (value i, slot, h, batch) Tuple (S, running S.a_next, running S.r)
  Halide::RDom steps;      // (slot x in 0..N, time t) of scan's update
  Halide::Func y;          // (i, h, t, batch)
  Halide::Func finalState; // (key j, value i, h, batch)
  // Chunked (see above; h the head, n the chunk).
  Halide::Func gcum, decRows;                        // (j, r, h, n, b); (s, j, r, h, n, b)
  Halide::Func ew;                                    // (j, r, h, n, b): e^{w_r}, at least e^-57
  Halide::RDom decRowsScan;                           // decRows' running product along r (C > 1)
  Halide::Func aC, bC, kC, rC, vC, bRows, kRows;      // the chunk's inputs (0 past L); rows innermost
  Halide::Func gramAB, gramAK, gramRB, gramRK;        // (s, r, h, n, b)
  Halide::RDom keys;                                  // their reduction over the key channels
  Halide::Func aab, tinv;                             // strictly lower Aab; T
  Halide::RDom solve;                                 // (r, s), s < r
  Halide::Func rhsU, xu, at, xw;                      // (value i | key j, r, h, n, b)
  Halide::RDom rowsBelow, rowsUpTo;                   // s < r; s <= r
  Halide::Func coef, oloc, kt, glast;
  Halide::RDom rowsCoef;                              // coef's reduction (s <= q - C)
  ChunkedPass pass;                                   // the inter-chunk pass (its Func `states`)
};
Wkv7Kernel buildWkv7(const Wkv7KernelInputs &in);

} // namespace ssm::codegen

#endif // SSM_CODEGEN_KERNELS_WKV7KERNEL_H
