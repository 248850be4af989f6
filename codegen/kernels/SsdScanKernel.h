// Halide kernel of ssm.ssd_scan: the chunked (SSD) form of the outer-product state scan.
#ifndef SSM_CODEGEN_KERNELS_SSDSCANKERNEL_H
#define SSM_CODEGEN_KERNELS_SSDSCANKERNEL_H

#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"

#include <optional>

namespace ssm::codegen {

struct SsdScanKernelInputs {
  TensorFunc X; // (batch, L, H, P); L may be symbolic, P must be a constant
  /// Log decay per step: (batch, L, H) one per head (Mamba-2), or
  /// (batch, L, H, N) one per key dim (RWKV-5/6, gated linear attention).
  TensorFunc A;
  TensorFunc B; // (batch, L, G, N), head h reads group h / (H / G); N a constant
  TensorFunc C; // like B
  std::optional<TensorFunc> initialState; // (batch, H, P, N); zeros when absent
  std::optional<TensorFunc> bonus;        // (H, N): selects the RWKV-5 output form
  int chunkSize = 64; // the op's chunk_size: the result does not depend on it
};

/// outputs = {Y (batch, L, H, P), final_state (batch, H, P, N)}:
///   S_t = exp(A_t) (.) S_{t-1} + X_t B_t^T
///   Y_t = S_t C_t                                    (no bonus)
///   Y_t = S_{t-1} C_t + X_t (B_t . (bonus (.) C_t))  (bonus)
///
/// Chunked evaluation with Q = chunkSize; the last chunk is padded with the
/// identity (log decay 0, X 0). Per (batch, head, chunk):
///   * state passing: S_c = exp(sum A over the chunk) S_{c-1}
///                          + X^T (B scaled by the decay to the chunk end),
///     a (P x Q) x (Q x N) product, sequential over chunks only;
///   * output: Y = (C B^T masked by the segment-sum decay) X + (C scaled by
///     the decay from the chunk start) S_{c-1}, a (Q x Q) x (Q x P) and a
///     (Q x N) x (N x P) product. C B^T is per group (shared by the heads of a
///     group) for a per-head decay; with a per-key decay the decay sits inside
///     the N sum (exp per term: numerically safe, but Q^2 N exps per chunk).
/// All products are register-blocked and vectorised along P; parallel over
/// batch x heads.
///
/// Scratch (computed at root inside the pipeline): the chunk-boundary states
/// (batch, H, nChunks + 1, N, P), Q x Q per (batch, group, chunk), cumulative
/// log decays. Y covers exactly [0, L) in time (Func::bound), so realize it
/// over the tensor's full extent. P and N must be constant extents.
/// The stages of the chunked form (names as in SsdScanKernel.cpp) and the
/// register-block shape they were built for: the schedule applies it.
struct SsdScanKernel {
  KernelResult result; // {Y, final_state}
  Halide::Func ac;
  Halide::Func cum;
  Halide::Func wB;
  Halide::Func wC;
  Halide::Func dC;
  Halide::Func xcS;
  Halide::Func bd;
  Halide::Func accS;
  Halide::Func st;
  Halide::Func fin;
  Halide::Func gm;
  Halide::Func gg;
  Halide::Func ggAcc;
  Halide::Func bt;
  Halide::Func diag;
  Halide::Func cumT;
  Halide::Func gk;
  Halide::Func cd;
  Halide::Func xcY;
  Halide::Func accY;
  Halide::Func yc;
  Halide::Func y;
  Halide::RDom ri, rjS, rc, rn, rjY;
  bool perKey = false, hasBonus = false;
  int64_t P = 0, N = 0;
  int Q = 0, pV = 1, pT = 1, nT = 1, iT = 1, jV = 1, jT = 1, iTg = 1, nV = 1;
};
/// `vectorWidth`: the schedule's lanes; the register blocks (and so the
/// output-row blocks of the algorithm) are derived from it.
SsdScanKernel buildSsdScan(const SsdScanKernelInputs &in, int vectorWidth);

} // namespace ssm::codegen

#endif
