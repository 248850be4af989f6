// ssm-assign-schedules: a heuristic schedule on every op codegen lowers, from the target and the op's shapes.
#include "dialect/ScheduleDefaults.h"
#include "dialect/SsmOps.h"
#include "passes/Passes.h"
#include "passes/TargetInfo.h"


namespace ssm {
#define GEN_PASS_DEF_SSMASSIGNSCHEDULES
#include "passes/Passes.h.inc"
} // namespace ssm

using namespace mlir;
using namespace ssm;

namespace {

/// The #ssm.schedule of ssm op `op`, with the fields it accepts
/// (ScheduledOpInterface, dialect/OpScheduling.cpp).
ScheduleAttr ssmSchedule(ScheduledOpInterface op, const TargetInfo &info) {
  int64_t channels = op.getScheduleChannels();
  int64_t n = op.getScheduleStateSize();
  llvm::ArrayRef<llvm::StringRef> fields = op.getScheduleFields();
  auto has = [&](llvm::StringRef f) { return llvm::is_contained(fields, f); };
  MLIRContext *ctx = op->getContext();
  int64_t vw = info.vectorWidth;
  std::optional<int64_t> tile;
  if (has("channel_tile")) {
    int64_t tasks = isa<SelectiveUpdateOp>(op.getOperation()) ? kDecodeStepTasks : kChannelTileTasks;
    tile = channels ? defaultChannelTile(channels, vw, tasks) : 64 / vw * vw;
    // ssm.attention: queries per task, two vectors of them (the score and
    // weighted-sum tiles keep rows x unroll accumulators in registers).
    if (isa<AttentionOp>(op.getOperation()))
      tile = 2 * vw;
  }
  std::optional<bool> unroll;
  if (has("unroll_state"))
    unroll = n == 0 || n <= 32;
  std::optional<int64_t> chunk;
  if (auto gdr = dyn_cast<GatedDeltaRuleOp>(op.getOperation())) {
    auto q = cast<RankedTensorType>(gdr.getQ().getType());
    chunk = defaultDeltaRuleChunk(q.getDimSize(1),
                                  cast<RankedTensorType>(gdr.getG().getType()).getRank() == 4);
  }
  if (auto wkv = dyn_cast<Wkv7Op>(op.getOperation()))
    chunk = defaultWkv7Chunk(cast<RankedTensorType>(wkv.getR().getType()).getDimSize(1));
  return ScheduleAttr::get(ctx, vw, tile, /*parallel=*/true, unroll, chunk, std::nullopt);
}

MatmulScheduleAttr matmulSchedule(Operation *op, const TargetInfo &info) {
  auto c = cast<RankedTensorType>(op->getResult(0).getType());
  auto a = cast<RankedTensorType>(op->getOperand(0).getType());
  bool transA = op->getName().getStringRef() == "linalg.matmul_transpose_a";
  bool transB = op->getName().getStringRef() == "linalg.matmul_transpose_b";
  int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(transA ? 0 : 1);
  TargetTraits traits{info.vectorWidth, info.wideRegisterFile};
  MatmulParams d = defaultMatmulSchedule(m, n, k, transB, traits);
  MLIRContext *ctx = op->getContext();
  if (d.dot)
    return MatmulScheduleAttr::get(ctx, MatmulAlgorithm::dot, d.vectorWidth, d.tileRows,
                                   d.tileCols, d.tileK ? std::optional<int64_t>(d.tileK) : std::nullopt,
                                   d.rowTiles, d.colTiles,
                                   std::nullopt, d.parallel, std::nullopt);
  return MatmulScheduleAttr::get(ctx, MatmulAlgorithm::tiled, d.vectorWidth, d.tileRows,
                                 d.tileCols, d.tileK, d.rowTiles, std::nullopt, d.packB,
                                 d.parallel, std::nullopt);
}

StageScheduleAttr stageSchedule(Operation *op, const TargetInfo &info) {
  int64_t elements = 1, rank = 0;
  for (Type t : op->getResultTypes())
    if (auto rt = dyn_cast<RankedTensorType>(t)) {
      elements = 1;
      rank = rt.getRank();
      for (int64_t d : rt.getShape())
        elements *= ShapedType::isDynamic(d) ? kParallelStageElements : d;
      break;
    }
  bool parallel = rank >= 2 && elements >= kParallelStageElements;
  return StageScheduleAttr::get(op->getContext(), ComputeLevel::root, info.vectorWidth, parallel,
                                kStageTaskElements, std::nullopt);
}

/// The GPU schedule of `op` (target with a cuda or opencl feature): only
/// the gpu_* fields, at their defaults (dialect/ScheduleDefaults.h); the
/// matmul algorithm is tiled (one output element per thread).
Attribute gpuSchedule(Operation *op, bool isSsm, bool isMatmul) {
  MLIRContext *ctx = op->getContext();
  if (isSsm)
    return ScheduleAttr::get(ctx, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                             kGpuOpThreads);
  if (isMatmul)
    return MatmulScheduleAttr::get(ctx, MatmulAlgorithm::tiled, std::nullopt, std::nullopt,
                                   std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                                   std::nullopt, std::nullopt, kGpuMatmulTile);
  return StageScheduleAttr::get(ctx, ComputeLevel::root, std::nullopt, std::nullopt, std::nullopt,
                                kGpuStageThreads);
}

struct SsmAssignSchedulesPass
    : ssm::impl::SsmAssignSchedulesBase<SsmAssignSchedulesPass> {
  using SsmAssignSchedulesBase::SsmAssignSchedulesBase;

  void runOnOperation() override {
    std::optional<TargetInfo> info = parseTarget(target);
    if (!info) {
      getOperation().emitError() << "ssm-assign-schedules: unknown target '" << target
                                 << "' (" << kKnownTargetsHelp << ")";
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    Dialect *ssmDialect = ctx->getLoadedDialect<SSMDialect>();
    // Only the ops of the function body: ops inside linalg bodies are
    // scalars that codegen folds into their op's stage.
    for (Operation &op : getOperation().getBody().getOps()) {
      // A schedule under another name (`schedule = #ssm.schedule<...>`) would
      // be kept and silently ignored: codegen reads 'ssm.schedule' only.
      for (NamedAttribute a : op.getAttrs())
        if (a.getName() != kScheduleAttrName &&
            isa<ScheduleAttr, MatmulScheduleAttr, StageScheduleAttr>(a.getValue())) {
          op.emitError() << "schedule attribute '" << a.getName().getValue()
                         << "' is not read: name it '" << kScheduleAttrName << "'";
          return signalPassFailure();
        }
      bool isSsm = op.getDialect() == ssmDialect;
      bool isMatmul = isScheduledMatmul(op.getName().getStringRef());
      if (!isSsm && !isMatmul && !takesStageSchedule(&op))
        continue;
      if (isSsm && scheduleFieldsOf(op.getName().getStringRef()).empty())
        continue; // ssm.dequantize: read inside its users' loops, nothing to schedule
      if (info->gpu && !hasGpuSchedule(op.getName().getStringRef())) {
        op.emitError() << "ssm-assign-schedules: no GPU schedule for '" << op.getName()
                       << "' on target '" << target
                       << "' (a GPU target never gets CPU schedules; compile it for a CPU "
                          "target)";
        return signalPassFailure();
      }
      if (op.hasAttr(kScheduleAttrName))
        continue;
      if (info->gpu) {
        op.setAttr(kScheduleAttrName, gpuSchedule(&op, isSsm, isMatmul));
        continue;
      }
      Attribute s = isSsm      ? Attribute(ssmSchedule(cast<ScheduledOpInterface>(op), *info))
                    : isMatmul ? Attribute(matmulSchedule(&op, *info))
                               : Attribute(stageSchedule(&op, *info));
      op.setAttr(kScheduleAttrName, s);
    }
  }
};

} // namespace
