// Declarations and registration of the ssm passes (generated from Passes.td).
#ifndef SSM_PASSES_PASSES_H
#define SSM_PASSES_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace ssm {
#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"
} // namespace ssm

#endif
