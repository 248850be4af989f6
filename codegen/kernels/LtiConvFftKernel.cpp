// Halide kernel of ssm.lti_conv, algorithm = fft: one complex FFT of u + iK, product, one inverse.
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
  const int n = nextPowerOfTwo(std::max<int64_t>(2, 2 * len));
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
  // jlow = 0. With a = X[k], c = conj X[n-k]: U K^ = -i (a^2 - c^2) / 4, and
  // prod = conj(U K^) / n = (Im(a^2 - c^2), Re(a^2 - c^2)) / (4n).
  Var jl("jlow"), w("which");
  const Func &last = fwd.stages.back();
  FuncRef a = last(jl, w, 0, h, b);
  Expr pj = clamp(likely(half - jl), 0, half - 1);
  Expr pr = select(likely(jl > 0), last(pj, 1 - w, 0, h, b)[0], last(0, w, 0, h, b)[0]);
  Expr pi = select(likely(jl > 0), last(pj, 1 - w, 0, h, b)[1], last(0, w, 0, h, b)[1]);
  Expr ar = a[0], ai = a[1], cr = pr, ci = -pi;
  Expr dr = (ar * ar - ai * ai) - (cr * cr - ci * ci);
  Expr di = 2.0f * (ar * ai - cr * ci);
  const float scale = 0.25f / static_cast<float>(n);
  Func prod("lti_conv_product");
  prod(jl, w, h, b) = Tuple(di * scale, dr * scale);

  auto spectrum = [&](const Expr &j, bool upper) -> CExpr {
    FuncRef p = prod(j, upper ? 1 : 0, h, b);
    return {p[0], p[1]};
  };
  FftStages inv = buildFft("lti_conv_inv", n, {h, b}, spectrum, /*upperHalfZero=*/false);

  // y[t] = Re DFT(prod)[t], t < L <= n/2: the last stage at which = 0.
  Func y("lti_conv_fft_y");
  Expr conv = inv.stages.back()(t, 0, 0, h, b)[0];
  y(t, h, b) = in.D ? conv + in.D->func(h) * in.u.func(t, h, b) : conv;
  y.bound(t, 0, l);

  LtiConvFftKernel k;
  k.forward = fwd;
  k.prod = prod;
  k.inverse = inv;
  k.y = y;
  k.t = t;
  k.h = h;
  k.b = b;
  k.n = n;
  k.result = {{TensorFunc{y, in.u.shape}}};
  return k;
}

} // namespace ssm::codegen
