// Registration of the `ssm` dialect and the definitions of its enums.
#include "dialect/SsmDialect.h"
#include "dialect/SsmOps.h"
#include "dialect/SsmOpList.h"
#include "dialect/ScheduleDefaults.h"
#include "dialect/ScheduleSpace.h"

using namespace mlir;

#include "dialect/SsmDialect.cpp.inc"
#include "dialect/SsmEnums.cpp.inc"
#include "dialect/SsmInterfaces.cpp.inc"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#define GET_ATTRDEF_CLASSES
#include "dialect/SsmAttrs.cpp.inc"

namespace {

// The legal values come from the search-space table (dialect/ScheduleSpace.h),
// which the tuner reads too.
LogicalResult verifyField(function_ref<InFlightDiagnostic()> emitError, ssm::ScheduleFamily family,
                          const char *name, std::optional<int64_t> v, bool dot = false) {
  const ssm::ScheduleField *f = ssm::findScheduleField(family, name);
  if (!v || !f || ssm::isLegalValue(*f, *v, dot))
    return success();
  if (dot && f->dotHi)
    return emitError() << name << " must be in " << f->lo << ".." << f->dotHi << ", got " << *v;
  if (!f->values.empty()) {
    InFlightDiagnostic d = emitError();
    d << name << " must be one of ";
    llvm::interleave(f->values, [&](int64_t x) { d << x; }, [&] { d << ", "; });
    return d << ", got " << *v;
  }
  return emitError() << name << " must be in " << f->lo << ".." << f->hi << ", got " << *v;
}

/// A multiple of the vector width (explicit or `defaultVw`), or 1.
LogicalResult verifyMultiple(function_ref<InFlightDiagnostic()> emitError, const char *field,
                             std::optional<int64_t> v, std::optional<int64_t> vw) {
  if (v && vw && *v != 1 && *v % *vw != 0)
    return emitError() << field << " must be 1 or a multiple of vector_width (" << *vw
                       << "), got " << *v;
  return success();
}

} // namespace

LogicalResult ssm::ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                        std::optional<int64_t> vectorWidth,
                                        std::optional<int64_t> channelTile,
                                        std::optional<bool>, std::optional<bool>,
                                        std::optional<int64_t> chunk,
                                        std::optional<int64_t> gpuThreads) {
  constexpr auto F = ScheduleFamily::Ssm;
  if (failed(verifyField(emitError, F, "vector_width", vectorWidth)) ||
      failed(verifyField(emitError, F, "channel_tile", channelTile)) ||
      failed(verifyField(emitError, F, "chunk", chunk)) ||
      failed(verifyField(emitError, F, "gpu_threads", gpuThreads)) ||
      failed(verifyMultiple(emitError, "channel_tile", channelTile, vectorWidth)))
    return failure();
  return success();
}

LogicalResult ssm::MatmulScheduleAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, std::optional<MatmulAlgorithm> algorithm,
    std::optional<int64_t> vectorWidth, std::optional<int64_t> tileRows,
    std::optional<int64_t> tileCols, std::optional<int64_t> tileK,
    std::optional<int64_t> rowTiles, std::optional<int64_t> colTiles, std::optional<bool> packB,
    std::optional<bool>, std::optional<int64_t> gpuTile) {
  const bool dot = algorithm == MatmulAlgorithm::dot;
  constexpr auto F = ScheduleFamily::Matmul;
  if (failed(verifyField(emitError, F, "vector_width", vectorWidth)) ||
      failed(verifyField(emitError, F, "tile_rows", tileRows)) ||
      failed(verifyField(emitError, F, "tile_cols", tileCols, dot)) ||
      (!dot && failed(verifyMultiple(emitError, "tile_cols", tileCols, vectorWidth))) ||
      failed(verifyField(emitError, F, "tile_k", tileK)) ||
      failed(verifyField(emitError, F, "row_tiles", rowTiles)) ||
      failed(verifyField(emitError, F, "col_tiles", colTiles)) ||
      failed(verifyField(emitError, F, "gpu_tile", gpuTile)))
    return failure();
  if (dot) {
    if (packB)
      return emitError() << "'pack_b' applies to algorithm = tiled, not dot";
    // dot: tile_k counts K elements per cache block, whole partial-sum vectors.
    if (tileK && *tileK > 1 && vectorWidth && *tileK % *vectorWidth != 0)
      return emitError() << "tile_k must be 0, 1 or a multiple of vector_width (" << *vectorWidth
                         << ") with algorithm = dot, got " << *tileK;
  } else if (colTiles) {
    return emitError() << "'col_tiles' applies to algorithm = dot, not tiled";
  }
  return success();
}

LogicalResult ssm::StageScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                             std::optional<ComputeLevel> compute,
                                             std::optional<int64_t> vectorWidth,
                                             std::optional<bool> parallel,
                                             std::optional<int64_t> taskElements,
                                             std::optional<int64_t> gpuThreads) {
  constexpr auto F = ScheduleFamily::Stage;
  if (failed(verifyField(emitError, F, "vector_width", vectorWidth)) ||
      failed(verifyField(emitError, F, "task_elements", taskElements)) ||
      failed(verifyField(emitError, F, "gpu_threads", gpuThreads)))
    return failure();
  if (compute == ComputeLevel::inline_ && (vectorWidth || parallel || taskElements || gpuThreads))
    return emitError() << "an inlined stage (compute = inline) takes no other field: it has "
                          "no loop nest of its own";
  return success();
}

llvm::ArrayRef<llvm::StringRef> ssm::scheduleFieldsOf(llvm::StringRef opName) {
  SsmOpScheduling facts;
  return lookupSsmOpScheduling(opName, facts) ? facts.fields : llvm::ArrayRef<llvm::StringRef>();
}

bool ssm::isScheduledMatmul(llvm::StringRef opName) {
  return opName == "linalg.matmul" || opName == "linalg.matmul_transpose_a" ||
         opName == "linalg.matmul_transpose_b";
}

namespace {

/// The fields written in a #ssm.schedule, by name.
llvm::SmallVector<llvm::StringRef> writtenFields(ssm::ScheduleAttr s) {
  llvm::SmallVector<llvm::StringRef> out;
  if (s.getVectorWidth())
    out.push_back("vector_width");
  if (s.getChannelTile())
    out.push_back("channel_tile");
  if (s.getParallel())
    out.push_back("parallel");
  if (s.getUnrollState())
    out.push_back("unroll_state");
  if (s.getChunk())
    out.push_back("chunk");
  if (s.getGpuThreads())
    out.push_back("gpu_threads");
  return out;
}

} // namespace

LogicalResult ssm::SSMDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() == kTimeChunkAttrName) {
    auto i = dyn_cast<IntegerAttr>(attr.getValue());
    if (!i || i.getInt() < 32 || i.getInt() % 32 != 0 || i.getInt() > (1 << 20))
      return op->emitOpError() << "attribute '" << kTimeChunkAttrName
                               << "' must be an integer multiple of 32 in 32..1048576 (time "
                                  "steps per kernel call), got "
                               << attr.getValue();
    if (op->getName().getStringRef() != "func.func")
      return op->emitOpError() << "attribute '" << kTimeChunkAttrName
                               << "' belongs on a func.func";
    return success();
  }
  if (attr.getName() != kScheduleAttrName) {
    // A misspelt name (ssm.schedules, ssm.sched) would be kept and ignored.
    if (isa<ScheduleAttr, MatmulScheduleAttr, StageScheduleAttr>(attr.getValue()))
      return op->emitOpError() << "schedule attribute '" << attr.getName().getValue()
                               << "' is not read: name it '" << kScheduleAttrName << "'";
    return success();
  }
  llvm::StringRef name = op->getName().getStringRef();
  Attribute value = attr.getValue();
  if (op->getDialect() == this) {
    auto s = dyn_cast<ScheduleAttr>(value);
    if (!s)
      return op->emitOpError() << "attribute '" << kScheduleAttrName
                               << "' of an ssm op must be a #ssm.schedule, got " << value;
    llvm::ArrayRef<llvm::StringRef> accepted = scheduleFieldsOf(name);
    for (llvm::StringRef f : writtenFields(s))
      if (!llvm::is_contained(accepted, f))
        return op->emitOpError() << "schedule field '" << f << "' does not apply to '" << name
                                 << "' (it accepts: " << llvm::join(accepted, ", ") << ")";
    return success();
  }
  if (isScheduledMatmul(name)) {
    auto m = dyn_cast<MatmulScheduleAttr>(value);
    if (!m)
      return op->emitOpError() << "attribute '" << kScheduleAttrName
                               << "' of a matmul must be a #ssm.matmul, got " << value;
    if (m.getAlgorithm() == MatmulAlgorithm::dot && name != "linalg.matmul_transpose_b")
      return op->emitOpError() << "algorithm = dot applies to linalg.matmul_transpose_b only";
    return success();
  }
  if (!takesStageSchedule(op))
    return op->emitOpError() << "has no stage of its own to schedule: remove '"
                             << kScheduleAttrName << "'";
  auto st = dyn_cast<StageScheduleAttr>(value);
  if (!st)
    return op->emitOpError() << "attribute '" << kScheduleAttrName << "' of '" << name
                             << "' must be a #ssm.stage, got " << value;
  if (st.getCompute() == ComputeLevel::inline_ && hasReductionLoop(op))
    return op->emitOpError() << "a reduction cannot be inlined (compute = inline): it has an "
                                "update loop of its own";
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
