// Halide kernel of ssm.discretize: one elementwise Func per result.
#include "codegen/kernels/DiscretizeKernel.h"
#include "codegen/kernels/MathExt.h"

#include <string>

namespace ssm::codegen {

using namespace Halide;

Expr accurateExpm1(Expr x) {
  // Horner form of x + x^2/2! + ... + x^9/9!.
  Expr p = 1.0f / 362880.0f;
  p = p * x + 1.0f / 40320.0f;
  p = p * x + 1.0f / 5040.0f;
  p = p * x + 1.0f / 720.0f;
  p = p * x + 1.0f / 120.0f;
  p = p * x + 1.0f / 24.0f;
  p = p * x + 1.0f / 6.0f;
  p = p * x + 0.5f;
  p = p * (x * x) + x;
  return select(abs(x) < 0.35f, p, accurateExp(x) - 1.0f);
}

Expr discretizeAExpr(Discretization method, Expr A, Expr delta) {
  Expr dA = delta * A;
  switch (method) {
  case Discretization::zoh:
    return accurateExp(dA);
  case Discretization::bilinear:
    return (1.0f + dA * 0.5f) / (1.0f - dA * 0.5f);
  case Discretization::euler:
    return 1.0f + dA;
  }
  return Expr();
}

Expr discretizeBExpr(Discretization method, Expr A, Expr B, Expr delta) {
  Expr dA = delta * A;
  switch (method) {
  case Discretization::zoh:
    // A == 0 is the limit delta * B; the other branch is then 0/0, not selected.
    return select(A == 0.0f, delta * B, accurateExpm1(dA) / A * B);
  case Discretization::bilinear:
    return delta * B / (1.0f - dA * 0.5f);
  case Discretization::euler:
    return delta * B;
  }
  return Expr();
}

DiscretizeKernel buildDiscretize(const DiscretizeKernelInputs &in) {
  int rank = in.A.rank();
  if (in.B.rank() != rank || in.delta.rank() != rank)
    throw CompileError("ssm.discretize kernel: A, B and delta must have the same rank");
  std::vector<Var> v;
  for (int i = 0; i < rank; ++i)
    v.push_back(Var("d" + std::to_string(i)));
  std::vector<Expr> args(v.begin(), v.end());
  Expr a = in.A.func(args), b = in.B.func(args), d = in.delta.func(args);
  Func abar("discretize_Abar"), bbar("discretize_Bbar");
  abar(v) = discretizeAExpr(in.aMethod, a, d);
  bbar(v) = discretizeBExpr(in.bMethod, a, b, d);
  DiscretizeKernel k;
  k.abar = abar;
  k.bbar = bbar;
  k.rank = rank;
  k.result = {{TensorFunc{abar, in.A.shape}, TensorFunc{bbar, in.A.shape}}};
  return k;
}

} // namespace ssm::codegen
