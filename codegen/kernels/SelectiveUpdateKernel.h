// Halide kernel for ssm.selective_update (one decode step): the algorithm (schedule in codegen/schedules/).
//
// Formulation. Per channel tile, an internal Func S(n, c) holds the new
// state (state * exp(dt A) + B dt x, with exp(dt A) = accurateExp2((dt log2 e)
// * A), MathExt.h); new_state copies S and the readout y = (sum_n S C + D x)
// * silu(z) reduces it while the tile is in L1. dt (bias, softplus) is
// computed once per channel, vectorised over channels. Both outputs share
// one parallel loop over channel tiles (y.compute_with(new_state)).
//
// Loop nest, without heads, dim 1536, N 16 (Pipeline::print_loop_nest()):
//   for b:
//     parallel cO in [0, dim/tile):               new_state and y fused
//       su_dt(c) = softplus(dt + bias)             vectorized over 8 channels
//       su_pre(c) = (dt log2 e, dt x)              vectorized over 8 channels
//       for c in tile: S(n, c)                     n vectorized (2 x 8 lanes)
//       for c in tile: new_state(n, c) = S(n, c)   n vectorized
//       acc(c) = D x; acc(c) += S(n, c) C(n)       8 channels x 8 n per vector,
//                                                  one 64-to-8 lane reduction
//       for c in tile: y(c) = acc(c) silu(z(c))    vectorized over 8 channels
// With heads the channel dims are (P, H); the parallel loop is over H and
// head h reads B/C group h / (H / G).
//
// Schedule (codegen/schedules/SelectiveUpdateSchedule.cpp; CpuSchedule fields honoured):
//   vectorWidth  lanes over n (state rows are contiguous in n) and over
//                channels for the per-channel work; a power of two >= 1,
//                clamped to the largest power of two <= N (resp. dim / P)
//                when those are static.
//   channelTile  channels (P with heads) per task, >= 1, rounded down to a
//                multiple of vectorWidth, clamped to dim (P).
//   parallel     parallel loop over channel tiles (without heads) or heads.
//   unrollState  unroll the n vectors (static N).
//
// For the translator:
// * Compute both outputs at root and realize them in one Pipeline (y is
//   compute_with(new_state); new_state alone is fine, y alone is not).
// * The state buffer can be donated (new_state written in place over
//   state): each tile reads its rows of state before writing the same rows
//   of new_state, and no other tile touches them. Tested with the AOT
//   driver passing one buffer for both.
// * Static N and dim / P give constant-size stack scratch (bounds are set
//   on the outputs); symbolic extents work but allocate per tile.
// * Inputs: any Funcs, dense innermost dimension; no estimates needed.
//
// Measured on the 2-core AVX2 host (x86-64-linux-avx-avx2-f16c-fma-sse41),
// batch 1, dim 1536, N 16, D, z, dt_bias, softplus, AOT, median of 5000
// calls: see the report (1 thread vs 2 threads).
#ifndef SSM_CODEGEN_KERNELS_SELECTIVEUPDATEKERNEL_H
#define SSM_CODEGEN_KERNELS_SELECTIVEUPDATEKERNEL_H

#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"

#include <optional>

namespace ssm::codegen {

/// The operands of ssm.selective_update as TensorFuncs (shapes in MLIR
/// order, dialect/SsmOps.td). Without heads: state (batch, dim, N);
/// x, dt, z (batch, dim); A (dim, N); B, C (batch, N); D, dtBias (dim).
/// With heads (state of rank 4): state (batch, H, P, N); x, dt, z
/// (batch, H, P); A (H, P, N); B, C (batch, N) or (batch, G, N), head h
/// reading group h / (H / G); D, dtBias (H, P).
struct SelectiveUpdateKernelInputs {
  TensorFunc state, x, dt, A, B, C;
  std::optional<TensorFunc> D, z, dtBias;
  bool dtSoftplus = false;
};

/// The stages of the decode step: dt (per channel: bias and softplus
/// applied), pre (per channel: dt log2 e, dt x), state
/// (the new state S), newState (copies S), acc (the readout over `readout`),
/// y; Funcs' vars are (n, c[, h], b) and (c[, h], b).
struct SelectiveUpdateKernel {
  KernelResult result; // {y, new_state}
  Halide::Func dt, pre, state, newState, acc, y;
  Halide::RDom readout;
  bool heads = false;
  std::optional<int64_t> n, channels; // static N and dim (P with heads)
};

/// Builds {y (x's shape), new_state (state's shape)} with the semantics of
/// ssm.selective_update, unscheduled. Throws Halide::CompileError naming the
/// operand when a rank is wrong.
SelectiveUpdateKernel buildSelectiveUpdate(const SelectiveUpdateKernelInputs &in);

} // namespace ssm::codegen

#endif
