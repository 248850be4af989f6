// Halide kernel for ssm.selective_scan (Mamba-1 fused scan): the algorithm (schedule in codegen/schedules/).
//
// Formulation. One scratch Func per channel tile, st(d, j, b): slots
// j < N hold the state of channel d, slot N + t holds the readout of token t
// (before the z gate). A single update over RDom (k in [0, N], t in [0, L)),
// k innermost, advances state k to token t for k < N and writes the readout
// sum_n C[n] h[n] + D u at k = N, so y is produced in the same step as the
// state and the state is never stored per token: scratch per tile is
// tile x (N + L) floats (the state and y), plus tile x N for A, plus
// 8 x 64 floats of per-(token, channel) values (Delta log2 e, Delta u, D u)
// computed 64 tokens ahead so that their softplus latency overlaps the scan.
// No (batch, L, dim, N) or (tile, N, L) buffer exists
// (compile_to_lowered_stmt shows the allocations: ss_state[tile * (N + L)],
// ss_A[tile * N], ss_dt / ss_pre[8 * 64]).
//   y(d, t) = st(d, N + t) * silu(z);   h_last(n, d) = st(d, n)
// exp(Delta A) is computed per state element as accurateExp2((Delta log2 e) * A)
// (MathExt.h, 14 vector instructions, 1 ulp); softplus and silu per
// (token, channel) only.
//
// Loop nest, time-major, dim 1536, N 16 (Pipeline::print_loop_nest()):
//   for b:
//     parallel dO in [0, dim/tile):              y and h_last fused (compute_with)
//       ss_A(d, n) = A(n, d)                      tile x N, gathered once
//       ss_state pure: zeros / h0                 tile x (N + L)
//       for dv in [0, tile/8):
//         for rto (64-token chunks):
//           ss_dt, ss_pre for 64 tokens x 8 channels (vectorized over channels)
//           for rti in [0, 64):
//             unrolled k in [0, N]:               N state updates, then the readout
//               vectorized d in [0, 8): ss_state(...) = ...
//       for t: for dv: vectorized d: y = ss_state(d, N + t) * silu(z)
//       for d, n: h_last = ss_state(d, n)
// Channel-major is the same nest with Delta, u read as 8-channel gathers
// (stride L) when ss_pre is computed, and y written vectorized over t.
//
// Schedule (codegen/schedules/SelectiveScanSchedule.cpp; CpuSchedule fields honoured):
//   vectorWidth  lanes over channels: 4 (SSE/NEON), 8 (AVX2), 16 (AVX-512),
//                any power of two >= 1; clamped to the largest power of two
//                <= dim when dim is static.
//   channelTile  channels per parallel task, >= 1; rounded down to a
//                multiple of vectorWidth and clamped to dim. 64 is best on
//                the 2-core AVX2 host (24 tasks for dim 1536); 32..192
//                measured within noise.
//   parallel     parallel loop over channel tiles.
//   unrollState  unroll k (needs a static N; a symbolic N uses a 2N + 1
//                step RDom instead, correct but slower).
// The kernel takes any L (a symbolic extent): with ssm.time_chunk on the
// function the runtime loops over chunks and passes h0 = previous h_last.
//
// For the translator:
// * Compute both outputs at root (Kernel.h) and realize them in ONE
//   Pipeline: h_last is compute_with(y) (compute_root keeps that); y alone
//   is fine, h_last alone is not (Halide rejects the dangling compute_with).
// * Inputs: any Funcs (ImageParams wrapped as Funcs are what was tested);
//   no estimates are needed. Halide's default dense innermost dimension
//   (stride 1) is all that is assumed; no alignment is required. Static
//   shapes except L give the best code (constant-size stack scratch, bounds
//   on the outputs); a symbolic dim or N is supported.
// * h0 and h_last are both (batch, dim, N); pass distinct buffers (swap two
//   per chunk): Halide assumes outputs do not alias inputs.
// * B and C: rank 2 = constant (dim, N), rank 3 = per token, rank 4 =
//   grouped, independently. Grouped lanes load B/C per lane unless each
//   8-channel vector stays inside one group (dim / G a multiple of 8).
//
// Measured on the 2-core AVX2 host (AMD EPYC, x86-64-linux-avx-avx2-f16c-
// fma-sse41), batch 1, dim 1536, N 16, L 512, D, z, delta_bias, softplus,
// per-token B/C, AOT (compile_to_static_library), median of 50 calls,
// machine otherwise idle (another engineer's builds share these 2 cores
// and can add 2x):
//   time-major     2 threads 3.4-3.9 ms, 1 thread 6.6-6.9 ms
//   channel-major  2 threads see the report, 1 thread ~ +10% over time-major
// (ggml: 43.6 ms, PyTorch eager: 243 ms). Compute floor: 12.6 M state
// elements = 1.57 M 8-lane vectors x 17 vector ops (14 for exp, mul, FMA,
// FMA) / 2 FMA-capable pipes ... see the report for the fraction.
#ifndef SSM_CODEGEN_KERNELS_SELECTIVESCANKERNEL_H
#define SSM_CODEGEN_KERNELS_SELECTIVESCANKERNEL_H

#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"

#include <optional>

namespace ssm::codegen {

/// The operands of ssm.selective_scan as TensorFuncs (shapes in MLIR order,
/// dialect/SsmOps.td): u, delta, z (batch, dim, L) channel-major or
/// (batch, L, dim) time-major; A (dim, N); B and C each (dim, N) constant,
/// per token (batch, N, L) / (batch, L, N), or grouped (batch, G, N, L) /
/// (batch, L, G, N), channel d reading group d / (dim / G); D, deltaBias
/// (dim); h0 (batch, dim, N), zeros when absent.
struct SelectiveScanKernelInputs {
  TensorFunc u, delta, A, B, C;
  std::optional<TensorFunc> D, z, deltaBias, h0;
  bool deltaSoftplus = false;
  bool timeMajor = false;
};

/// The stages of the fused scan (see the formulation above); Funcs' vars
/// are d (channel), t (token), b (batch), n, j (scratch slot).
struct SelectiveScanKernel {
  KernelResult result; // {y, h_last}
  Halide::Func dt, pre, A, state, y, hLast;
  std::vector<Halide::Func> perTile; // (d, n) copies of constant B / C
  Halide::RDom scan;                 // (k in [0, N], t in [0, L))
  bool timeMajor = false;
  std::optional<int64_t> n, dim; // static N and dim
};

/// Builds {y (u's shape), h_last (batch, dim, N)} with the semantics of
/// ssm.selective_scan, unscheduled. Throws Halide::CompileError naming the
/// operand when a rank is wrong (shapes are the verifier's job).
SelectiveScanKernel buildSelectiveScan(const SelectiveScanKernelInputs &in);

} // namespace ssm::codegen

#endif
