// The inter-chunk state pass of the chunked (WY form) delta-rule kernels,
// ssm.gated_delta_rule and ssm.wkv7: one Halide Func walking the chunks of a
// (head, stream), its rows kept in blocks so that each step is a small
// register-tiled matrix product.
#ifndef SSM_CODEGEN_KERNELS_CHUNKEDPASS_H
#define SSM_CODEGEN_KERNELS_CHUNKEDPASS_H

#include "Halide.h"

#include <functional>
#include <string>

namespace ssm::codegen {

/// What the pass multiplies, per chunk n (h, b and the value column `col`
/// are the states' pure vars; every callback is read at `col`, h, b):
///   K state rows (key channels) S_n[e], e < K, each a row of value columns;
///   W work rows, C output rows (the chunk's tokens).
///   phase 0 (first values): work[r] = workInit(r, n) for r < W,
///           out[nC + r] = outInit(r, n) for r < C,
///           S_{n+1}[e] = decay(e, n) * S_n[e] for e < K;
///   phase 1, rows a < 2C: work[a] (a < C) or out[nC + a - C] (a >= C)
///           += sum_{e < K} coef(e, a, n) S_n[e];
///   phase 2, rows e < K: S_{n+1}[e] += sum_{r < W} kt(e, r, n) work[r].
/// The gated delta rule has W = C (work = V' = U~ - W S); wkv7 W = 2C (the
/// rank-one columns U, then V, which phase 2 reads as well).
struct ChunkedPassSpec {
  std::string name;  // the states Func's name
  int rows = 0;      // K
  int chunk = 0;     // C
  int work = 0;      // W, a multiple of C
  int cols = 0;      // the value columns (the schedule's tile width)
  Halide::Var col, h, b;
  Halide::Expr chunks; // the number of chunks (symbolic)
  /// S_0[e] at col (undefined: zeros).
  std::function<Halide::Expr(Halide::Expr e)> initState;
  std::function<Halide::Expr(Halide::Expr r, Halide::Expr n)> workInit, outInit, decay;
  std::function<Halide::Expr(Halide::Expr e, Halide::Expr a, Halide::Expr n)> coef, kt;
};

/// The pass as a Func `states` (col, slot block, h, b) of `rowsPerSlot` (R)
/// rows per block: a Tuple of R values when R > 1, element k holding row
/// block R + k, so that one update step reads and writes R rows together.
/// Blocks: S_n at (n % 2) K / R (two alternating states), work rows at
/// 2K / R, the output of token t at (2K + W + t) / R. Update 0 writes S_0;
/// update 1 walks `pass` = (block y, step x, phase z, chunk n): each step
/// adds `terms` (E, per phase) products to the R rows of one block, an
/// expression with R accumulators and E loads of state or work rows, each
/// shared by the R rows: a register tile of R rows by the vectorised value
/// columns. R divides K and C; E divides the summed extent, a multiple of
/// R, at most 16.
struct ChunkedPass {
  Halide::Func states;
  Halide::RDom pass;
  int rowsPerSlot = 1;
  int terms1 = 1, terms2 = 1; // E of phases 1 and 2
  int rows = 0, chunk = 0, work = 0, cols = 0;
  Halide::Expr chunks;

  /// Element k of block `block` (R == 1: the plain value).
  Halide::Expr at(Halide::Expr col, Halide::Expr block, int k, Halide::Expr h,
                  Halide::Expr b) const;
  /// The output slot of token t (before any scale), at col.
  Halide::Expr out(Halide::Expr col, Halide::Expr t, Halide::Expr h, Halide::Expr b) const;
  /// The final state's row `key` at col.
  Halide::Expr finalState(Halide::Expr key, Halide::Expr col, Halide::Expr h,
                          Halide::Expr b) const;
};

/// Builds the pass (algorithm only; scheduleChunkedPass in
/// codegen/schedules/ChunkedSchedule.h schedules it).
ChunkedPass buildChunkedPass(const ChunkedPassSpec &spec);

} // namespace ssm::codegen

#endif // SSM_CODEGEN_KERNELS_CHUNKEDPASS_H
