// An MLIRContext for the harnesses that parse IR: every ssm dialect loaded,
// diagnostics swallowed (printing them would dominate the run time).
#ifndef SSM_FUZZ_MLIRFUZZCONTEXT_H
#define SSM_FUZZ_MLIRFUZZCONTEXT_H

#include "passes/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <memory>

namespace ssm::fuzz {

struct MlirFuzzContext {
  mlir::DialectRegistry registry;
  std::unique_ptr<mlir::MLIRContext> ctx;
  std::unique_ptr<mlir::ScopedDiagnosticHandler> quiet;

  MlirFuzzContext() {
    ssm::registerAllDialects(registry);
    ssm::registerAllPasses();
    ctx = std::make_unique<mlir::MLIRContext>(registry, mlir::MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    quiet = std::make_unique<mlir::ScopedDiagnosticHandler>(
        ctx.get(), [](mlir::Diagnostic &) { return mlir::success(); });
  }
};

/// One context per process: parsing is what is fuzzed, not context setup.
inline MlirFuzzContext &mlirFuzzContext() {
  static MlirFuzzContext c;
  return c;
}

} // namespace ssm::fuzz

#endif
