// Fuzzes what ssm-opt does with user IR: the pre-parse check and MLIR's parser
// (frontend/SafeParse.h), the verifiers, the static limits, then the ssm passes
// and canonicalize/cse, and the verifier again. Any input must end in a
// diagnostic or a module that verifies after the passes; a crash, a sanitizer
// report or a pass that leaves invalid IR is a finding.
#include "frontend/SafeParse.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <cstdlib>

#include "fuzz/MlirFuzzContext.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext *ctx = ssm::fuzz::mlirFuzzContext().ctx.get();
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module = ssm::parseModuleChecked(text, "fuzz.mlir", ctx);
  if (!module)
    return 0;
  mlir::PassManager pm(ctx);
  if (mlir::failed(mlir::parsePassPipeline(
          "builtin.module(func.func(ssm-decompose,ssm-assign-schedules),canonicalize,cse)", pm)))
    std::abort();
  pm.enableVerifier(true);
  if (mlir::failed(pm.run(*module)))
    return 0; // a pass may refuse (e.g. an unsupported op) with a diagnostic
  if (mlir::failed(mlir::verify(*module)))
    std::abort(); // passes succeeded but left invalid IR
  return 0;
}
