// Declarative definitions of the ssm passes (ssm-opt --help lists them).
#ifndef SSM_PASSES_TD
#define SSM_PASSES_TD

include "mlir/Pass/PassBase.td"

def SsmDecompose : Pass<"ssm-decompose", "mlir::func::FuncOp"> {
  let summary = "Rewrite composite ssm ops into their parts";
  let description = [{
    Rewrites `ssm.selective_scan` into `ssm.discretize` (zoh A, euler B) +
    `ssm.affine_scan` over time + a readout (`linalg.generic` contracting the
    state with C, the D skip and the silu(z) gate), all on a canonical
    (batch, L, dim, N) iteration space. The result materialises the full
    state trajectory: it is the form for analysis and for checking the fused
    kernel, not for speed. The reference interpreter gives the same result for
    both forms (test/lit/Passes/decompose-run.mlir).
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect", "mlir::tensor::TensorDialect"];
}

#endif // SSM_PASSES_TD
