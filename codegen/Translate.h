// Translation of a func.func of ssm and upstream ops into one Halide pipeline.
#ifndef SSM_CODEGEN_TRANSLATE_H
#define SSM_CODEGEN_TRANSLATE_H

#include "Halide.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace ssm::codegen {

/// One argument or result as the manifest and the runtime see it.
struct TensorSignature {
  std::string name;           // C identifier used in the generated header
  std::string param;          // the `ssm.param` weight name, if any
  std::vector<int64_t> shape; // MLIR order, static
  std::string dtype = "float32";
};

struct TranslatedFunction {
  std::string name;   // the MLIR symbol
  std::string symbol; // the C symbol of the compiled function
  Halide::Pipeline pipeline;
  std::vector<Halide::Argument> arguments; // inputs, in order
  std::vector<TensorSignature> inputs, results;
};

/// Builds the pipeline of `func` for `target`: every value lowered by the op's
/// entry in the lowering table, kernels scheduled by their builders, other
/// stages computed at root, vectorised and parallelised. Emits a diagnostic on
/// the offending op and returns failure for an unsupported op, type or shape.
mlir::FailureOr<TranslatedFunction> translateFunction(mlir::func::FuncOp func,
                                                      const Halide::Target &target);

} // namespace ssm::codegen

#endif
