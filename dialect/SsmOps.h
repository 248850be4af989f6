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

#endif
