// Halide kernel of ssm.lti_conv, algorithm = fft: one complex FFT of u + iK, product, a half-length real inverse.
#include "codegen/kernels/LtiConvFftKernel.h"

#include <algorithm>

namespace ssm::codegen {

using namespace Halide;

LtiConvFftKernel buildLtiConvFft(const LtiConvKernelInputs &in) {
  if (in.u.rank() != 3 || in.K.rank() != 2)
    throw CompileError("ssm.lti_conv kernel: u must be (batch, H, L), K (H, Lk)");
  const int64_t *lenPtr = as_const_int(simplify(in.u.shape[2]));
  if (!lenPtr)
    throw CompileError("ssm.lti_conv algorithm = fft needs a static sequence length");
  const int64_t len = *lenPtr;
  const int n = nextPowerOfTwo(std::max<int64_t>(4, 2 * len));
  if (n == 0)
    throw CompileError("ssm.lti_conv algorithm = fft: length " + std::to_string(len) +
                       " is too long (the FFT length 2L must fit in 2^30)");
  const int half = n / 2;
  const int l = static_cast<int>(len);
  Expr taps = min(in.K.shape[1], l);

  Var t("t"), h("h"), b("b");
  // x[j] = u[j] + i K[j], zero past L (and past the taps): n/2 >= L, so the
  // upper half is zero.
  auto signal = [&](const Expr &j, bool) -> CExpr {
    Expr re = select(j < l, in.u.func(clamp(j, 0, l - 1), h, b), 0.0f);
    Expr im = select(j < taps, in.K.func(clamp(j, 0, taps - 1), h), 0.0f);
    return {re, im};
  };
  FftStages fwd = buildFft("lti_conv_fwd", n, {h, b}, signal, /*upperHalfZero=*/true);

  // Spectrum index k = which n/2 + jlow; its partner n - k (k = 0 pairs
  // with itself) is (n/2 - jlow, 1 - which) for jlow > 0 and (0, which) for
  // jlow = 0. With a = X[k], c = conj X[n-k]: P = U K^ = -i (a^2 - c^2) / 4,
  // and q = 4 conj(P) = (Im(a^2 - c^2), Re(a^2 - c^2)).
  Var jl("jlow"), w("which");
  const Func &last = fwd.stages.back();
  FuncRef a = last(jl, w, 0, h, b);
  Expr pj = clamp(likely(half - jl), 0, half - 1);
  Expr pr = select(likely(jl > 0), last(pj, 1 - w, 0, h, b)[0], last(0, w, 0, h, b)[0]);
  Expr pi = select(likely(jl > 0), last(pj, 1 - w, 0, h, b)[1], last(0, w, 0, h, b)[1]);
  Expr ar = a[0], ai = a[1], cr = pr, ci = -pi;
  Expr dr = (ar * ar - ai * ai) - (cr * cr - ci * ci);
  Expr di = 2.0f * (ar * ai - cr * ci);
  Func prod("lti_conv_product");
  prod(jl, w, h, b) = Tuple(di, dr);

  // y is real, so its inverse is a complex DFT of half the length: with
  // z[m] = y[2m] + i y[2m+1] (m < n/2) and W = exp(-2 pi i / n),
  //   Z[k] = DFT_{n/2}(z)[k] = E[k] + i O[k],  E = (P[k] + P[k+n/2]) / 2,
  //   O = (P[k] - P[k+n/2]) W^-k / 2,
  // and z = conj(DFT_{n/2}(conj Z)) / (n/2). In q's terms (q0 at k, q1 at
  // k + n/2: the same jlow), conj Z (2/n) = ((q0 + q1) - i W^k (q0 - q1)) / (4n).
  // W^k for k < n/2 is the forward transform's last twiddle table.
  Var k("k");
  const Func &twk = fwd.twiddles.back();
  FuncRef q0 = prod(k, 0, h, b), q1 = prod(k, 1, h, b);
  Expr er = q0[0] - q1[0], ei = q0[1] - q1[1];
  Expr wr = twk(k)[0], wi = twk(k)[1];
  Expr gr = wr * er - wi * ei, gi = wr * ei + wi * er;
  const float scale = 0.25f / static_cast<float>(n);
  Func zspec("lti_conv_half_spectrum");
  zspec(k, h, b) = Tuple((q0[0] + q1[0] + gi) * scale, (q0[1] + q1[1] - gr) * scale);

  const int quarter = n / 4;
  auto spectrum = [&](const Expr &j, bool upper) -> CExpr {
    FuncRef p = zspec(upper ? j + quarter : j, h, b);
    return {p[0], p[1]};
  };
  FftStages inv = buildFft("lti_conv_inv", half, {h, b}, spectrum, /*upperHalfZero=*/false);

  // y[2m] = Re F[m], y[2m+1] = -Im F[m], F = DFT_{n/2}(conj Z (2/n)); t < L <= n/2,
  // so m < n/4: the last stage at which = 0.
  Func y("lti_conv_fft_y");
  FuncRef fm = inv.stages.back()(t / 2, 0, 0, h, b);
  Expr conv = select(t % 2 == 0, fm[0], -fm[1]);
  y(t, h, b) = in.D ? conv + in.D->func(h) * in.u.func(t, h, b) : conv;
  y.bound(t, 0, l);

  LtiConvFftKernel out;
  out.forward = fwd;
  out.prod = prod;
  out.halfSpectrum = zspec;
  out.inverse = inv;
  out.y = y;
  out.t = t;
  out.h = h;
  out.b = b;
  out.n = n;
  out.result = {{TensorFunc{y, in.u.shape}}};
  return out;
}

} // namespace ssm::codegen
