// The enums of the ssm dialect's ops (Discretization, Layout, Activation,
// ConvAlgorithm, MatmulAlgorithm, ComputeLevel), defined once as I32EnumAttr
// in dialect/SsmDialect.td and dialect/SsmAttrs.td.
//
// For code outside the dialect that needs only the values: the reference
// kernels (reference/kernels/) and the Halide kernel builders
// (codegen/kernels/). It includes MLIR headers but uses no MLIR library
// symbol: the generated stringify/symbolize functions and the *Attr classes
// are declared, not called, so a target using only the values needs no link
// to MLIR. Code that names an enum value in IR text uses the generated
// stringify*/symbolize* (in the SSMDialect library).
#ifndef SSM_DIALECT_SSMENUMS_H
#define SSM_DIALECT_SSMENUMS_H

// The reference kernels and their unit tests use these values without
// linking LLVM: LLVM's headers otherwise reference a symbol of libLLVM
// (llvm::EnableABIBreakingChecks) from every translation unit that includes
// them, as a link-time check of its build options. A translation unit that
// includes another LLVM header first keeps the check.
#ifndef LLVM_DISABLE_ABI_BREAKING_CHECKS_ENFORCING
#define LLVM_DISABLE_ABI_BREAKING_CHECKS_ENFORCING 1
#endif

#include "mlir/IR/BuiltinAttributes.h"

#include <cstdint>
#include <optional>

#include "dialect/SsmEnums.h.inc"

#endif
