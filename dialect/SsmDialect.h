// The `ssm` dialect class and its enumerated attributes.
#ifndef SSM_DIALECT_SSMDIALECT_H
#define SSM_DIALECT_SSMDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "dialect/SsmDialect.h.inc"
#include "dialect/SsmEnums.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/DialectImplementation.h"

#include <optional>

namespace mlir {
/// Parses an optional enum parameter of a struct-format attribute
/// (`algorithm = dot` in #ssm.matmul); absent fields never reach it.
template <typename EnumT>
struct FieldParser<std::optional<EnumT>,
                   std::enable_if_t<std::is_enum<EnumT>::value, std::optional<EnumT>>> {
  static FailureOr<std::optional<EnumT>> parse(AsmParser &parser) {
    FailureOr<EnumT> v = FieldParser<EnumT>::parse(parser);
    if (failed(v))
      return failure();
    return std::optional<EnumT>(*v);
  }
};
} // namespace mlir

#define GET_ATTRDEF_CLASSES
#include "dialect/SsmAttrs.h.inc"

namespace ssm {
/// The discardable attribute that carries an op's schedule: a
/// #ssm.schedule (ssm ops), #ssm.matmul (linalg matmuls) or #ssm.stage
/// (every other lowered op); see dialect/SsmAttrs.td.
constexpr const char *kScheduleAttrName = "ssm.schedule";
/// The function attribute set by ssm-chunk-time: time steps per kernel call
/// of a function that the runtime runs as a host loop over time chunks.
constexpr const char *kTimeChunkAttrName = "ssm.time_chunk";

/// The #ssm.schedule fields `opName` (an ssm op) accepts, in the order of
/// the attribute's parameters; empty for an op that takes no schedule.
llvm::ArrayRef<llvm::StringRef> scheduleFieldsOf(llvm::StringRef opName);
/// True for the linalg matmul ops that take a #ssm.matmul schedule.
bool isScheduledMatmul(llvm::StringRef opName);
} // namespace ssm

#endif
