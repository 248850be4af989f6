// Halide kernel of ssm.lti_conv with algorithm = fft: causal convolution by zero-padded FFTs.
#ifndef SSM_CODEGEN_KERNELS_LTICONVFFTKERNEL_H
#define SSM_CODEGEN_KERNELS_LTICONVFFTKERNEL_H

#include "codegen/kernels/Fft.h"
#include "codegen/kernels/LtiConvKernel.h"

namespace ssm::codegen {

/// outputs = {y (batch, H, L)}, the same y as the direct kernel, computed per
/// (b, h) as S4's FFTConv does it (state-spaces/s4, src/models/sequence/
/// kernels/fftconv.py): both signals zero-padded to n = 2^ceil(log2(2L))
/// (n >= 2L, so the circular convolution has no wrap-around in [0, L)),
/// transformed, multiplied pointwise, transformed back. Both real signals
/// share one complex FFT, X = DFT(u + i K): U[k] = (X[k] + conj X[n-k]) / 2,
/// K^[k] = (X[k] - conj X[n-k]) / 2i. The product P = U K^ is the spectrum
/// of a real signal, so the inverse is one complex DFT of length n/2 (the
/// standard real-FFT packing z[m] = y[2m] + i y[2m+1]; Press et al.,
/// Numerical Recipes, 3rd ed., section 12.3), read from a forward DFT of
/// the conjugate. So each channel costs a complex FFT of length n and one
/// of length n/2: O(L log L), against O(L^2) direct.
///
/// The length L (u's time extent) must be static. Taps of K at k >= L are
/// unused, missing taps are 0.
///
/// Error (f32, twiddles from f64) of the convolution part, for every t:
///   |y_fft[t] - y[t]| <= log2(n) 2^-24 ||u[b, h, :]||_2 ||K[h, :L]||_2,
/// where ||u||_2 ||K||_2 also bounds |y[t]| (Cauchy-Schwarz); the skip
/// term D u adds its own f32 rounding. This is the radix-2 FFT's normwise
/// bound (Fft.h) carried through the three transforms, with the constant
/// set by measurement: the measured worst case is 0.1 to 0.5 2^-24
/// ||u|| ||K|| for L in {1, 2, 1000, 16384} (test/lit/Codegen/
/// lti-conv-fft.mlir checks the bound). Unlike the direct sum's, the error
/// does not shrink with |y[t]|: an output far below ||u|| ||K|| can have a
/// large relative error; for random data the FFT is the more accurate of
/// the two (the f32 direct sum's error grows like sqrt(L)).
struct LtiConvFftKernel {
  KernelResult result;
  FftStages forward; // DFT of u + i K over (jlow, which, jhigh, h, b)
  Halide::Func prod; // (jlow, which, h, b): 4 conj(U K^)[which n/2 + jlow] (inlined)
  Halide::Func halfSpectrum; // (k, h, b), k < n/2: conj of DFT_{n/2}(y[2m] + i y[2m+1]) 2/n
  FftStages inverse; // DFT of halfSpectrum (length n/2); its last stage is read by y
  Halide::Func y;    // (t, h, b)
  Halide::Var t, h, b;
  int n = 0; // the forward transform length, 2^ceil(log2 2L), at least 4
};
LtiConvFftKernel buildLtiConvFft(const LtiConvKernelInputs &in);

} // namespace ssm::codegen

#endif
