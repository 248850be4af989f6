// ssm-fuse: the fusion groups, as compute = inline on the producers codegen folds into their consumer.
#include "dialect/ScheduleDefaults.h"
#include "dialect/SsmOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace ssm {
#define GEN_PASS_DEF_SSMFUSE
#include "passes/Passes.h.inc"
} // namespace ssm

using namespace mlir;
using namespace ssm;

namespace {

/// A user that reads each element of its operand once: inlining the
/// producer into it costs no recomputation.
bool readsOnce(Operation *user) {
  llvm::StringRef n = user->getName().getStringRef();
  if (n.starts_with("func.") || n.starts_with("ssm.") || isScheduledMatmul(n))
    return false;
  if (auto lop = dyn_cast<linalg::LinalgOp>(user))
    return lop.getNumReductionLoops() == 0;
  return takesStageSchedule(user); // elementwise arith/math, tensor reshapes and slices
}

struct SsmFusePass : ssm::impl::SsmFuseBase<SsmFusePass> {
  using SsmFuseBase::SsmFuseBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    for (Operation &op : getOperation().getBody().getOps()) {
      if (!takesStageSchedule(&op) || hasReductionLoop(&op) || op.hasAttr(kScheduleAttrName) ||
          op.getNumResults() != 1)
        continue;
      Value v = op.getResult(0);
      if (!v.hasOneUse() || !readsOnce(*v.getUsers().begin()))
        continue;
      op.setAttr(kScheduleAttrName,
                 StageScheduleAttr::get(ctx, ComputeLevel::inline_, std::nullopt, std::nullopt,
                                        std::nullopt));
    }
  }
};

} // namespace
