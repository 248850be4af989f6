// Registration of the `ssm` dialect and the definitions of its enums.
#include "dialect/SsmDialect.h"
#include "dialect/SsmOps.h"

using namespace mlir;

#include "dialect/SsmDialect.cpp.inc"
#include "dialect/SsmEnums.cpp.inc"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"
#define GET_ATTRDEF_CLASSES
#include "dialect/SsmAttrs.cpp.inc"

LogicalResult ssm::ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                        int64_t vectorWidth, int64_t channelTile,
                                        int64_t timeChunk, bool parallel, bool unrollState,
                                        int64_t gpuBlock) {
  if (!llvm::is_contained({1, 2, 4, 8, 16, 32}, vectorWidth))
    return emitError() << "vector_width must be one of 1, 2, 4, 8, 16, 32, got " << vectorWidth;
  if (channelTile < 1 || channelTile > 65536 ||
      (channelTile != 1 && channelTile % vectorWidth != 0))
    return emitError() << "channel_tile must be in 1..65536 and a multiple of vector_width ("
                       << vectorWidth << "), got " << channelTile;
  if (timeChunk < 1 || timeChunk > (1 << 20))
    return emitError() << "time_chunk must be in 1..1048576, got " << timeChunk;
  if (gpuBlock != 0 && (gpuBlock < 32 || gpuBlock > 1024 || gpuBlock % 32 != 0))
    return emitError() << "gpu_block must be 0 or a multiple of 32 in 32..1024, got " << gpuBlock;
  return success();
}

LogicalResult ssm::SSMDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() == kScheduleAttrName && !isa<ScheduleAttr>(attr.getValue()))
    return op->emitOpError() << "attribute '" << kScheduleAttrName
                             << "' must be a #ssm.schedule, got " << attr.getValue();
  return success();
}

void ssm::SSMDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/SsmOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/SsmAttrs.cpp.inc"
      >();
}
