// The `ssm` dialect class and its enumerated attributes.
#ifndef SSM_DIALECT_SSMDIALECT_H
#define SSM_DIALECT_SSMDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "dialect/SsmDialect.h.inc"
#include "dialect/SsmEnums.h.inc"

#endif
