// Vectorisable transcendental functions accurate enough for the golden tolerances.
//
// Halide's `fast_exp` / `fast_log` are about 2e-2 off (DESIGN.md section 7).
// These are plain Halide Exprs (FMAs, a rounding, integer bit tricks), so they
// vectorise to the target's full width and keep the full f32 accuracy.
// Measured with JIT on the host (AVX2) against the f64 libm over 2^24 evenly
// spaced points of each range: accurateExp 1.0 ulp on [-87.3, 88.7],
// expNarrow 1.1 ulp on [-86.6, 88], accurateExp2 0.9 ulp on [-125, 127],
// accurateLog 0.5 ulp on [1e-30, 1e30] (also next to 1), log1pUnit 1.4 ulp
// on [0, 1], softplus 1.7 ulp and silu 2.4 ulp on [-40, 40].
// Polynomial degree matters beyond the ulp count: per state element the
// scan multiplies hundreds of factors exp(dt A), and 2^f = 1 + f q(f) with q
// of degree 4 (9e-8 relative) took the golden ss_mamba130m_layer from 0.29
// to 0.77 of its tolerance; the degree-5 q used here is 2e-9 off.
//
// Halide's simplifier treats floats as reals ((x - 1) * c + d becomes
// x * c + (d - c), (x - 1) + y becomes (x + y) - 1): every formula here is
// written so that no such rewrite loses digits, or wrapped in strict_float.
#ifndef SSM_CODEGEN_KERNELS_MATHEXT_H
#define SSM_CODEGEN_KERNELS_MATHEXT_H

#include "Halide.h"

namespace ssm::codegen {

/// 2^k for an Int(32) k in [-126, 127], built in the exponent bits.
inline Halide::Expr pow2i(Halide::Expr k) {
  using namespace Halide;
  return reinterpret<float>((k + 127) << 23);
}

/// 1.5 * 2^23: for |x| < 2^22, x + kRoundingShift rounds x to an integer k
/// (the f32 ulp there is 1; ties to even, the default rounding mode) and
/// holds k in its low mantissa bits, so (bits << 23) is k << 23 (the
/// constant's own bits shift out). Two adds instead of a round and a
/// convert: Halide 14 lowers a 16-lane round to two 8-lane vroundps plus an
/// extract and an insert on AVX-512 (no vrndscaleps), and the convert is
/// one more instruction. Results are the same bits as round() and cast.
constexpr float kRoundingShift = 12582912.0f;

/// x + kRoundingShift, kept from the simplifier and from FMA contraction.
inline Halide::Expr roundingShift(Halide::Expr x) {
  return Halide::strict_float(x + kRoundingShift);
}

/// exp(x) for f32 within about 2 ulp over the normal range: Cody-Waite
/// range reduction x = k ln2 + r, |r| <= ln2/2, a degree-5 minimax polynomial
/// for e^r (the coefficients of Cephes' expf), and 2^k built in the exponent
/// bits. Inputs are clamped to [-87.33, 88.72], so results never become
/// denormal or infinite (2^k is applied as two factors, so k = 128 at the top
/// of the range stays finite). About 20 vector instructions; the kernels use
/// it per (token, channel), never per state element (see accurateExp2).
inline Halide::Expr accurateExp(Halide::Expr x) {
  using namespace Halide;
  Expr xc = clamp(x, -87.33f, 88.72f);
  Expr k = floor(xc * 1.44269504088896341f + 0.5f);
  Expr r = strict_float(xc - k * 0.693359375f); // exact; see expNarrow
  r = r + k * 2.12194440e-4f;
  Expr p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  Expr ki = cast<int>(k);
  Expr k1 = ki >> 1; // floor(k / 2): both factors stay in [-63, 64]
  return p * pow2i(k1) * pow2i(ki - k1);
}

/// exp(x) for f32 on the range the scan kernels need per state element,
/// within 1 ulp: x is clamped to [-86.6, 88.0] (results from 2.2e-38 to
/// 1.65e38, always normal and finite), reduced Cody-Waite style to
/// x = k ln2 + r with |r| <= ln2/2 (r exact), e^r = 1 + r q(r) with q of
/// degree 5 (Lawson minimax fit, relative error 2e-9 before f32 rounding,
/// exact at r = 0), and 2^k added to the exponent bits. 16 vector
/// instructions: min, max, mul, add, sub (the round by kRoundingShift), mul,
/// sub, FMA, 6 FMA, shl, add.
/// The kernels use it per (token, channel) (softplus, silu); per state
/// element they use accurateExp2, which is two instructions shorter.
inline Halide::Expr expNarrow(Halide::Expr x) {
  using namespace Halide;
  Expr xc = clamp(x, -86.6f, 88.0f);
  Expr t = roundingShift(strict_float(xc * 1.44269504088896341f));
  Expr k = strict_float(t - kRoundingShift); // round(xc log2 e), ties to even
  // k * 0.693359375 is exact and so is the difference (|k| < 2^8, the
  // constant has 9 bits). strict_float keeps the two steps apart: Halide's
  // simplifier otherwise folds them into x - k * fl(ln 2) in some contexts.
  Expr r = strict_float(xc - k * 0.693359375f);
  r = r + k * 2.12194440e-4f;
  Expr q = 1.3843652858e-03f;
  q = q * r + 8.3741554689e-03f;
  q = q * r + 4.1668002057e-02f;
  q = q * r + 1.6666431260e-01f;
  q = q * r + 4.9999994209e-01f;
  q = q * r + 1.0000000322e+00f;
  Expr p = q * r + 1.0f;
  return reinterpret<float>(reinterpret<int>(p) + (reinterpret<int>(t) << 23));
}

/// 2^x for f32 within 1 ulp: x = k + f with k = round(x), |f| <= 1/2, and
/// 2^f = 1 + f q(f) with q of degree 5 (Lawson minimax fit, relative error
/// 2e-9 before f32 rounding, exact at f = 0 so that a product of many
/// factors near 1 does not drift); 2^k is added to the exponent bits. x is
/// clamped to [-125, 127]: results stay normal and finite (2^-125 stands in
/// for anything smaller). 13 vector instructions: min, max, add, sub, sub,
/// 6 FMA, shl, add (the round by kRoundingShift). With x = (dt log2 e) * A, one multiply more gives
/// exp(dt A); that rounds the argument twice (once more than a plain
/// dt * A), see expNarrow for the single-rounding form.
inline Halide::Expr accurateExp2(Halide::Expr x) {
  using namespace Halide;
  Expr xc = clamp(x, -125.0f, 127.0f);
  Expr t = roundingShift(xc);
  Expr k = strict_float(t - kRoundingShift); // round(xc), ties to even
  Expr f = xc - k;
  Expr q = 1.5353360629e-04f;
  q = q * f + 1.3398874867e-03f;
  q = q * f + 9.6184373664e-03f;
  q = q * f + 5.5503324697e-02f;
  q = q * f + 2.4022647913e-01f;
  q = q * f + 6.9314720286e-01f;
  Expr p = q * f + 1.0f;
  return reinterpret<float>(reinterpret<int>(p) + (reinterpret<int>(t) << 23));
}

/// log(1 + v) + e ln2 for v in [sqrt(1/2) - 1, sqrt(2) - 1] and e a small
/// integer-valued float: the core of Cephes' logf (a degree-8 polynomial,
/// ln2 added in two parts so e ln2 is exact to f32).
inline Halide::Expr log1pReduced(Halide::Expr v, Halide::Expr e) {
  using namespace Halide;
  Expr z = v * v;
  Expr p = 7.0376836292e-2f;
  p = p * v - 1.1514610310e-1f;
  p = p * v + 1.1676998740e-1f;
  p = p * v - 1.2420140846e-1f;
  p = p * v + 1.4249322787e-1f;
  p = p * v - 1.6668057665e-1f;
  p = p * v + 2.0000714765e-1f;
  p = p * v - 2.4999993993e-1f;
  p = p * v + 3.3333331174e-1f;
  Expr y = v * z * p + e * -2.12194440e-4f - 0.5f * z;
  return v + y + e * 0.693359375f;
}

/// log(x) for f32 x > 0 within about 1 ulp (Cephes' logf: x = m 2^e with
/// m in [sqrt(1/2), sqrt(2)), then log1pReduced(m - 1, e)). x <= 0, denormal
/// and infinite x are outside the contract. Wrapped in strict_float:
/// Halide's simplifier treats floats as reals and would otherwise rewrite
/// (m - 1) + y as (m + y) - 1, losing every digit of log(x) near x = 1. The
/// strict_float covers only this Expr; the rest of the pipeline keeps its
/// FMA contraction (Halide switches to per-instruction fast-math flags).
inline Halide::Expr accurateLog(Halide::Expr x) {
  using namespace Halide;
  Expr bits = reinterpret<int>(x);
  Expr e = (bits >> 23) - 126; // x = m 2^e with m in [0.5, 1)
  Expr m = reinterpret<float>((bits & 0x007fffff) | 0x3f000000);
  Expr small = m < 0.707106781186547524f;
  Expr ef = cast<float>(select(small, e - 1, e));
  Expr v = select(small, m + m, m) - 1.0f;
  return strict_float(log1pReduced(v, ef));
}

/// log(1 + y) for y in [0, 1], to about 1 ulp also for tiny y, with no
/// cancellation for the simplifier to expose: below sqrt(2) - 1 the reduced
/// argument is y itself, above it (y - 1) / 2 (and e = 1), both exact or
/// nearly so in f32. This is what softplus needs (y = exp(-|x|)).
inline Halide::Expr log1pUnit(Halide::Expr y) {
  using namespace Halide;
  Expr big = y > 0.41421356237f;
  Expr v = select(big, y * 0.5f - 0.5f, y);
  return log1pReduced(v, select(big, 1.0f, 0.0f));
}

/// softplus(x) = log(1 + exp(x)) as torch.nn.functional.softplus (beta 1,
/// threshold 20), computed as max(x, 0) + log1p(exp(-|x|)): the same value
/// to f32 precision on both sides of the threshold, accurate for very
/// negative x (where it is exp(x), as the f64 reference's std::log1p gives),
/// and free of overflow.
inline Halide::Expr softplus(Halide::Expr x) {
  using namespace Halide;
  return max(x, 0.0f) + log1pUnit(expNarrow(-abs(x)));
}

/// silu(x) = x / (1 + exp(-x)).
inline Halide::Expr silu(Halide::Expr x) {
  return x / (1.0f + expNarrow(-x));
}

/// exp(x) for the chunked scans' decay factors (x <= 0: exps of differences
/// of cumulative log decays), exactly 0 below -30 (9.4e-14). Products of
/// those factors with each other and with the chunk's other small terms
/// would otherwise reach f32 denormals (a chunk of strong decay sums far
/// below -87), whose arithmetic runs two orders of magnitude slower on x86;
/// a flushed term is below f32 precision of every sum it enters.
inline Halide::Expr decayExp(Halide::Expr x) {
  return Halide::select(x < -30.0f, 0.0f, accurateExp(x));
}

} // namespace ssm::codegen

#endif
