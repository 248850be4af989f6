// The operations of the `ssm` dialect (generated from SsmOps.td).
#ifndef SSM_DIALECT_SSMOPS_H
#define SSM_DIALECT_SSMOPS_H

#include "dialect/SsmDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

// ScheduledOpInterface (dialect/SsmInterfaces.td), which every ssm op implements.
#include "dialect/SsmInterfaces.h.inc"

#define GET_OP_CLASSES
#include "dialect/SsmOps.h.inc"

namespace ssm {

/// The block along K of an ssm.quantize_activations `format`: 32 for
/// "q8_0" and "q8_1", 256 for "q8_K", 0 for the unblocked "f16" and
/// "bf16", -1 for any other string.
inline int64_t activationQuantBlock(llvm::StringRef format) {
  if (format == "q8_0" || format == "q8_1")
    return 32;
  if (format == "q8_K")
    return 256;
  if (format == "f16" || format == "bf16")
    return 0;
  return -1;
}

} // namespace ssm

#endif
