// One registration point for the dialects and passes every ssm tool loads.
#ifndef SSM_PASSES_INITALL_H
#define SSM_PASSES_INITALL_H

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace ssm {
/// ssm plus the upstream dialects model graphs use: func, arith, math,
/// tensor, linalg, scf.
void registerAllDialects(mlir::DialectRegistry &registry);
/// Our passes and pipelines, plus the upstream canonicalize/cse family.
void registerAllPasses();
} // namespace ssm

#endif
