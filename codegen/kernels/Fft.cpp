// Radix-2 Stockham FFT as Halide stages: one Func per step, twiddles from f64.
#include "codegen/kernels/Fft.h"

namespace ssm::codegen {

using namespace Halide;

int nextPowerOfTwo(long long v) {
  long long p = 1;
  while (p < v) {
    p *= 2;
    if (p > (1LL << 30))
      return 0;
  }
  return static_cast<int>(p);
}

CExpr FftStages::at(const Expr &k, const std::vector<Expr> &outer) const {
  std::vector<Expr> args = {k % (n / 2), k / (n / 2), 0};
  args.insert(args.end(), outer.begin(), outer.end());
  FuncRef ref = stages.back()(args);
  return {ref[0], ref[1]};
}

FftStages buildFft(const std::string &name, int n, const std::vector<Var> &outer,
                   const std::function<CExpr(const Expr &, bool)> &input, bool upperHalfZero) {
  if (n < 2 || (n & (n - 1)) != 0)
    throw CompileError("FFT length " + std::to_string(n) + " is not a power of two >= 2");
  FftStages f;
  f.n = n;
  while ((1 << f.log2n) < n)
    ++f.log2n;
  Var jlow("jlow"), which("which"), jhigh("jhigh");
  f.jlow = jlow;
  f.which = which;
  f.jhigh = jhigh;
  std::vector<Expr> outerE(outer.begin(), outer.end());
  auto argsOf = [&](Expr a, Expr b, Expr c) {
    std::vector<Expr> args = {std::move(a), std::move(b), std::move(c)};
    args.insert(args.end(), outerE.begin(), outerE.end());
    return args;
  };
  std::vector<Var> pure = {jlow, which, jhigh};
  pure.insert(pure.end(), outer.begin(), outer.end());

  // Step 0 (Ns = 1): X0[which, jhigh] = x[jhigh] +- x[jhigh + n/2].
  Func s0(name + "_fft0");
  CExpr v0 = input(jhigh, false);
  if (upperHalfZero) {
    s0(pure) = Tuple(v0.re, v0.im);
  } else {
    CExpr v1 = input(jhigh, true);
    s0(pure) = Tuple(select(which == 0, v0.re + v1.re, v0.re - v1.re),
                     select(which == 0, v0.im + v1.im, v0.im - v1.im));
  }
  f.stages.push_back(s0);
  f.twiddles.push_back(Func());

  // Step s (Ns = 2^s, P = Ns / 2): jlow in [0, Ns) reads the previous step at
  // (jlow mod P, jlow / P) for jhigh and jhigh + n / (4P); t = w * v1 with
  // w = exp(-i pi jlow / Ns); outputs v0 + t (which 0) and v0 - t (which 1).
  for (int s = 1; s < f.log2n; ++s) {
    const int ns = 1 << s, p = ns / 2;
    Func tw(name + "_tw" + std::to_string(s));
    Var j("j");
    Expr ang = cast<double>(j) * Expr(-3.14159265358979323846 / ns);
    tw(j) = Tuple(cast<float>(cos(ang)), cast<float>(sin(ang)));
    const Func &prev = f.stages.back();
    FuncRef a = prev(argsOf(jlow % p, jlow / p, jhigh));
    FuncRef b = prev(argsOf(jlow % p, jlow / p, jhigh + n / (4 * p)));
    Expr wr = tw(jlow)[0], wi = tw(jlow)[1];
    Expr br = b[0], bi = b[1];
    Expr tr = wr * br - wi * bi, ti = wr * bi + wi * br;
    Func st(name + "_fft" + std::to_string(s));
    st(pure) = Tuple(select(which == 0, a[0] + tr, a[0] - tr),
                     select(which == 0, a[1] + ti, a[1] - ti));
    f.stages.push_back(st);
    f.twiddles.push_back(tw);
  }
  return f;
}

} // namespace ssm::codegen
