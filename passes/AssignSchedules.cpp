// ssm-assign-schedules: heuristic #ssm.schedule per op from the target and the op's shapes.
#include "dialect/SsmOps.h"
#include "passes/Passes.h"
#include "passes/TargetInfo.h"

#include "llvm/ADT/TypeSwitch.h"

namespace ssm {
#define GEN_PASS_DEF_SSMASSIGNSCHEDULES
#include "passes/Passes.h.inc"
} // namespace ssm

using namespace mlir;
using namespace ssm;

namespace {

int64_t staticDim(Value v, int dim) {
  auto t = cast<RankedTensorType>(v.getType());
  int64_t d = t.getDimSize(dim < 0 ? t.getRank() + dim : dim);
  return ShapedType::isDynamic(d) ? 0 : d;
}

/// Channels per parallel task: at least two tasks per core on up to 16
/// cores when the op is wide enough, a multiple of the vector width, <= 256.
int64_t channelTile(int64_t channels, int64_t vw) {
  if (channels <= vw)
    return vw;
  int64_t tile = channels / 32;
  tile = std::max<int64_t>(vw, std::min<int64_t>(256, tile));
  return (tile / vw) * vw;
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
    int64_t vw = info->vectorWidth;
    getOperation().walk([&](Operation *op) {
      if (op->getDialect() != ctx->getLoadedDialect<SSMDialect>())
        return;
      if (op->hasAttr(kScheduleAttrName))
        return;
      int64_t channels = 0, len = 0, n = 0;
      llvm::TypeSwitch<Operation *>(op)
          .Case([&](SelectiveScanOp s) {
            bool tm = s.getLayout() == Layout::time_major;
            channels = staticDim(s.getU(), tm ? 2 : 1);
            len = staticDim(s.getU(), tm ? 1 : 2);
            n = staticDim(s.getA(), 1);
          })
          .Case([&](SelectiveUpdateOp s) {
            channels = 1;
            for (int i = 1; i < cast<RankedTensorType>(s.getX().getType()).getRank(); ++i)
              channels *= staticDim(s.getX(), i);
            n = staticDim(s.getState(), -1);
          })
          .Case([&](CausalConv1dOp s) {
            channels = staticDim(s.getX(), 1);
            len = staticDim(s.getX(), 2);
          })
          .Case([&](SsdScanOp s) {
            channels = staticDim(s.getX(), 2) * staticDim(s.getX(), 3);
            len = staticDim(s.getX(), 1);
            n = staticDim(s.getB(), 3);
          })
          .Case([&](LtiConvOp s) {
            channels = staticDim(s.getU(), 1);
            len = staticDim(s.getU(), 2);
          })
          .Default([&](Operation *) {});
      int64_t tile = channels ? channelTile(channels, vw) : 64;
      int64_t chunk = len ? std::min<int64_t>(len, 512) : 512;
      bool unroll = n == 0 || n <= 32;
      op->setAttr(kScheduleAttrName,
                  ScheduleAttr::get(ctx, vw, tile, chunk, /*parallel=*/true, unroll,
                                    info->gpu ? 128 : 0));
    });
  }
};

} // namespace
