// Round to the nearest integer, ties to even (or, for math.round, away from zero), on every Halide target.
//
// Halide::round is documented as ties-to-even and is on the CPU (LLVM
// nearbyint / roundps) and CUDA (libdevice __nv_nearbyintf), but Halide 14's
// OpenCL C backend defines round_f32 as OpenCL's round(), which rounds ties
// away from zero (0.5 -> 1, 2.5 -> 3, -0.5 -> -1): measured on PoCL, see
// test/lit/Gpu/quantize-activations.mlir. The other C-source backends
// (Metal, D3D12, OpenGL compute; not run here) take the portable form too.
#ifndef SSM_CODEGEN_KERNELS_ROUNDEVEN_H
#define SSM_CODEGEN_KERNELS_ROUNDEVEN_H

#include "Halide.h"

namespace ssm::codegen {

/// Whether Halide::round rounds ties to even on `t`'s device code (true for
/// CPU-only and CUDA targets).
inline bool halideRoundIsTiesToEven(const Halide::Target &t) {
  using Halide::Target;
  return !(t.has_feature(Target::OpenCL) || t.has_feature(Target::Metal) ||
           t.has_feature(Target::D3D12Compute) || t.has_feature(Target::OpenGLCompute));
}

/// x (f32) rounded to the nearest integer, ties to even (IEEE
/// roundToIntegralTiesToEven, C's rint in the default mode, NumPy's rint),
/// on every target: Halide::round where that is what it does (the same
/// instructions and bits as before on CPU targets), elsewhere from floor and
/// a parity test: r = floor(x), f = x - r (exact, 0 <= f < 1), r + 1 where
/// f > 1/2 or f = 1/2 and r is odd (r / 2 not an integer, exact below
/// 2^24), the sign of x kept on a zero result (-0.5 -> -0, as rint).
/// Infinities and NaN pass through.
inline Halide::Expr roundTiesToEven(Halide::Expr x, const Halide::Target &t) {
  using namespace Halide;
  if (halideRoundIsTiesToEven(t))
    return round(x);
  Expr r = floor(x);
  Expr f = x - r;
  Expr half = r * 0.5f;
  Expr up = f > 0.5f || (f == 0.5f && half != floor(half));
  Expr q = select(up, r + 1.0f, r);
  auto u32 = [](uint64_t c) { return Internal::make_const(UInt(32), c); };
  return reinterpret(Float(32), reinterpret(UInt(32), q) | (reinterpret(UInt(32), x) & u32(0x80000000u)));
}

/// x (f32) rounded to the nearest integer, ties away from zero (C's round,
/// MLIR's math.round: 0.5 -> 1, -2.5 -> -3), the same on every target (Halide
/// has no such op): t = trunc(x), d = x - t (exact, |d| < 1, the sign of x),
/// t + 1 where d >= 1/2, t - 1 where d <= -1/2, else t (which keeps the sign
/// of a zero result: -0.3 -> -0). Not floor(x + 0.5): that rounds
/// 0.49999997 up, as x + 0.5 rounds to 1. Infinities and NaN pass through
/// (d is NaN and both tests fail).
inline Halide::Expr roundTiesAwayFromZero(Halide::Expr x) {
  using namespace Halide;
  Expr t = trunc(x);
  Expr d = x - t;
  return select(d >= 0.5f, t + 1.0f, d <= -0.5f, t - 1.0f, t);
}

} // namespace ssm::codegen

#endif
