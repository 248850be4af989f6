// The `ssm` dialect class and its enumerated attributes.
#ifndef SSM_DIALECT_SSMDIALECT_H
#define SSM_DIALECT_SSMDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "dialect/SsmDialect.h.inc"
#include "dialect/SsmEnums.h.inc"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/DialectImplementation.h"

#define GET_ATTRDEF_CLASSES
#include "dialect/SsmAttrs.h.inc"

namespace ssm {
/// The discardable attribute that carries an op's schedule.
constexpr const char *kScheduleAttrName = "ssm.schedule";
} // namespace ssm

#endif
