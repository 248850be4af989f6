// Halide kernel of ssm.discretize: continuous (A, B, Delta) to discrete (Abar, Bbar), elementwise.
#ifndef SSM_CODEGEN_KERNELS_DISCRETIZEKERNEL_H
#define SSM_CODEGEN_KERNELS_DISCRETIZEKERNEL_H

#include "dialect/SsmEnums.h"
#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/KernelResult.h"

namespace ssm::codegen {

/// The op's `#ssm.discretization` values (DESIGN.md section 1).

/// expm1(x) = exp(x) - 1 in f32 without the cancellation of exp(x) - 1 near 0:
/// a degree-9 Taylor polynomial for |x| < 0.35 (truncation below 1e-11
/// relative), accurateExp(x) - 1 elsewhere (relative error below 4e-7 there).
Halide::Expr accurateExpm1(Halide::Expr x);

/// The scalar rules of ssm.discretize on f32 Exprs (reference/kernels/Discretize.cpp):
///   zoh:      Abar = exp(dA),               Bbar = expm1(dA) / A * B  (delta*B where A == 0)
///   bilinear: Abar = (1 + dA/2)/(1 - dA/2), Bbar = delta*B / (1 - dA/2)
///   euler:    Abar = 1 + dA,                Bbar = delta*B
Halide::Expr discretizeAExpr(Discretization method, Halide::Expr A, Halide::Expr delta);
Halide::Expr discretizeBExpr(Discretization method, Halide::Expr A, Halide::Expr B,
                             Halide::Expr delta);

struct DiscretizeKernelInputs {
  TensorFunc A;     // any shape S
  TensorFunc B;     // S
  TensorFunc delta; // S
  Discretization aMethod = Discretization::zoh;
  Discretization bMethod = Discretization::zoh;
};

/// outputs = {Abar, Bbar}, both of shape S, one elementwise Func each.
struct DiscretizeKernel {
  KernelResult result;
  Halide::Func abar, bbar;
  int rank = 0;
};
DiscretizeKernel buildDiscretize(const DiscretizeKernelInputs &in);

} // namespace ssm::codegen

#endif
