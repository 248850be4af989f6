// Radix-2 Stockham FFT of a static power-of-two length as Halide stages.
#ifndef SSM_CODEGEN_KERNELS_FFT_H
#define SSM_CODEGEN_KERNELS_FFT_H

#include "Halide.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ssm::codegen {

/// A complex value as two f32 Exprs.
struct CExpr {
  Halide::Expr re, im;
};

/// The stages of one forward DFT, X[k] = sum_j x[j] exp(-2 pi i j k / n),
/// of length n = 2^m (m >= 1), evaluated by m radix-2 Stockham (autosort)
/// steps (Govindaraju et al., "High performance discrete Fourier transforms
/// on graphics processors", SC 2008): no bit-reversal pass, each step reads
/// two halves of the previous one and writes its butterflies in natural
/// order. Every stage is defined over (jlow, which, jhigh, outer...):
///
///   stage s (s = 0 .. m-1, Ns = 2^s): jlow in [0, Ns), which in {0, 1},
///   jhigh in [0, n / 2^(s+1)); a Tuple (re, im) of f32.
///
/// Its memory order (jlow contiguous, then which, then jhigh) is the flat
/// index jhigh * 2 Ns + which * Ns + jlow, so the last stage holds X[k] at
/// jlow = k mod n/2, which = k / (n/2), jhigh = 0. `twiddles[s]` holds
/// exp(-i pi j / Ns) for j in [0, Ns), computed in f64 and rounded to f32
/// (stage 0 needs none and has an undefined Func).
///
/// Error: with twiddles correct to f32 rounding, a radix-2 FFT has
/// ||fl(X) - X||_2 <= c log2(n) eps ||X||_2 with a small constant c
/// (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
/// section 24.1), eps = 2^-24.
struct FftStages {
  int n = 0, log2n = 0;
  std::vector<Halide::Func> stages;
  std::vector<Halide::Func> twiddles;
  Halide::Var jlow, which, jhigh;
  /// X[k] for an Expr k in [0, n) (reads the last stage).
  CExpr at(const Halide::Expr &k, const std::vector<Halide::Expr> &outer) const;
};

/// Builds the stages of the DFT of x, where `input(j, upper)` is
/// x[j + (upper ? n/2 : 0)] for j in [0, n/2), as Exprs over the `outer`
/// Vars. With `upperHalfZero`, x[j] = 0 for j >= n/2 and the first step
/// reads only the lower half (the zero-padded signals of a linear
/// convolution). No schedule is applied (LtiConvFftSchedule.cpp).
FftStages buildFft(const std::string &name, int n, const std::vector<Halide::Var> &outer,
                   const std::function<CExpr(const Halide::Expr &, bool)> &input,
                   bool upperHalfZero);

/// The smallest power of two >= v (v >= 1), or 0 when it does not fit in an int.
int nextPowerOfTwo(long long v);

} // namespace ssm::codegen

#endif
