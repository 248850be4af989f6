// Halide kernel of ssm.lti_kernel: per-mode coefficients in f64, then the powers Abar^l in polar form.
#include "codegen/kernels/LtiKernel.h"
#include "codegen/kernels/MathExt.h"

namespace ssm::codegen {

using namespace Halide;

namespace {

struct ComplexExpr {
  Expr re, im;
};

ComplexExpr mul(ComplexExpr a, ComplexExpr b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

/// An f64 constant (Halide refuses Expr op double to keep f64 deliberate).
Expr f64(double v) { return Expr(v); }

ComplexExpr div(ComplexExpr a, ComplexExpr b) {
  Expr den = b.re * b.re + b.im * b.im;
  return {(a.re * b.re + a.im * b.im) / den, (a.im * b.re - a.re * b.im) / den};
}

} // namespace

LtiKernelKernel buildLtiKernel(const LtiKernelKernelInputs &in) {
  bool cplx = in.A.rank() == 3;
  if (in.A.rank() != 2 && !cplx)
    throw CompileError("ssm.lti_kernel kernel: A must be (H, N) or (H, N, 2)");
  if (in.length < 0)
    throw CompileError("ssm.lti_kernel kernel: negative length");
  Expr nModes = in.A.shape[1];
  Var n("n"), h("h"), l("l");

  // Element (h, n) of a real (H, N) or complex (H, N, 2) operand, in f64.
  auto elem = [&](const TensorFunc &f) -> ComplexExpr {
    if (f.rank() == 3)
      return {cast<double>(f.func(0, n, h)), cast<double>(f.func(1, n, h))};
    return {cast<double>(f.func(n, h)), Expr(0.0)};
  };
  ComplexExpr a = elem(in.A);
  ComplexExpr bIn = in.B ? elem(*in.B) : ComplexExpr{Expr(1.0), Expr(0.0)};
  ComplexExpr c = elem(in.C);
  if (!cplx) { // a real kernel ignores imaginary parts (there are none)
    bIn.im = Expr(0.0);
    c.im = Expr(0.0);
  }
  Expr dt = cast<double>(in.delta.func(h));
  ComplexExpr dA{dt * a.re, dt * a.im};

  // log|Abar| and arg(Abar) per mode by A's method, Bbar by B's, in f64.
  Expr logMag, ang;
  switch (in.method) {
  case Discretization::zoh:
    logMag = dA.re;
    ang = dA.im;
    break;
  case Discretization::bilinear: {
    ComplexExpr den{f64(1.0) - dA.re * f64(0.5), -dA.im * f64(0.5)};
    ComplexExpr aBar = div(ComplexExpr{f64(1.0) + dA.re * f64(0.5), dA.im * f64(0.5)}, den);
    logMag = f64(0.5) * log(aBar.re * aBar.re + aBar.im * aBar.im);
    ang = atan2(aBar.im, aBar.re);
    break;
  }
  case Discretization::euler: {
    ComplexExpr aBar{f64(1.0) + dA.re, dA.im};
    logMag = f64(0.5) * log(aBar.re * aBar.re + aBar.im * aBar.im);
    ang = atan2(aBar.im, aBar.re);
    break;
  }
  }
  ComplexExpr bBar;
  switch (in.bMethod) {
  case Discretization::zoh: {
    Expr e = exp(dA.re);
    ComplexExpr em1{e * cos(dA.im) - f64(1.0), e * sin(dA.im)};
    ComplexExpr q = mul(div(em1, a), bIn);
    Expr aZero = a.re == f64(0.0) && a.im == f64(0.0);
    bBar = {select(aZero, dt * bIn.re, q.re), select(aZero, dt * bIn.im, q.im)};
    break;
  }
  case Discretization::bilinear: {
    ComplexExpr den{f64(1.0) - dA.re * f64(0.5), -dA.im * f64(0.5)};
    bBar = div(ComplexExpr{dt * bIn.re, dt * bIn.im}, den);
    break;
  }
  case Discretization::euler:
    bBar = {dt * bIn.re, dt * bIn.im};
    break;
  }
  ComplexExpr w = mul(c, bBar);
  Func coef("lti_kernel_coef");
  // Abar == 0 gives log 0 = -inf; -1e300 keeps l = 0 at Abar^0 = 1.
  coef(n, h) = Tuple(max(logMag, f64(-1.0e300)), ang, cast<float>(w.re), cast<float>(w.im));

  // Per (l, h, n): phase l * arg reduced mod pi/2 in f64 (error about
  // 2^-52 |phase|, 2e-10 rad at a phase of 1e6: a two-part pi/2 would not
  // survive Halide's simplifier, which folds float constants), sin/cos by
  // Cephes' minimax polynomials on [-pi/4, pi/4], quadrant by q mod 4.
  RDom rn(0, nModes, "n");
  Expr ld = cast<double>(l);
  Expr phi = ld * coef(rn, h)[1];
  // q = nearest integer to phi / (pi/2) by floor(x + 1/2) (vector floor; f64
  // round is a per-lane libm call on x86), its quadrant from the low bits of
  // an int32: exact while |phi| < 2^31 pi/2 (l below 6.8e8 at arg pi).
  Expr q = floor(phi * f64(0.63661977236758134308) + f64(0.5));
  Expr r = phi - q * f64(1.57079632679489661923);
  Expr quad = cast<int>(q) & 3;
  Expr rf = cast<float>(r);
  Expr z = rf * rf;
  Expr sinP = rf + rf * z * (-1.6666654611e-1f + z * (8.3321608736e-3f + z * -1.9515295891e-4f));
  Expr cosP = 1.0f - 0.5f * z +
              z * z * (4.166664568298827e-2f + z * (-1.388731625493765e-3f + z * 2.443315711809948e-5f));
  Expr cosL = select(quad == 0, cosP, quad == 1, -sinP, quad == 2, -cosP, sinP);
  Expr sinL = select(quad == 0, sinP, quad == 1, cosP, quad == 2, -sinP, -cosP);
  // A mode decayed below e^-60 of its first tap (|Abar|^l < 8.8e-27) is
  // dropped (0, 2^-86 relative, far below f32 rounding): its tail would
  // otherwise be subnormal floats, whose products cost a microcode assist
  // each on x86 (a real-A layer's direct convolution at L 16384 ran 12x
  // slower than on normal taps).
  Expr logMagL = ld * coef(rn, h)[0];
  Expr mag = select(logMagL < f64(-60.0), 0.0f, accurateExp(cast<float>(logMagL)));
  Expr term = mag * (coef(rn, h)[2] * cosL - coef(rn, h)[3] * sinL);

  Func K("lti_kernel_K");
  K(l, h) = 0.0f;
  K(l, h) += (cplx ? 2.0f : 1.0f) * term;

  std::vector<Expr> shape = {in.A.shape[0], Expr(static_cast<int>(in.length))};
  LtiKernelKernel k;
  k.coef = coef;
  k.K = K;
  k.modes = rn;
  k.result = {{TensorFunc{K, shape}}};
  return k;
}

} // namespace ssm::codegen
