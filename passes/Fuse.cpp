// ssm-fuse: the fusion groups, as compute = inline on the producers codegen folds into their consumer.
#include "dialect/ScheduleDefaults.h"
#include "dialect/SsmOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace ssm {
#define GEN_PASS_DEF_SSMFUSE
#include "passes/Passes.h.inc"
} // namespace ssm

using namespace mlir;
using namespace ssm;

namespace {

/// ssm ops whose kernels take any Func for an operand (codegen/kernels/) and
/// read each of its elements once: selective_update's A at batch 1 (the new
/// state reads A(d, n) once per batch row). A decode step's A = -exp(A_log)
/// then costs no stage of its own (a parallel loop and a 1536 x 16 buffer per
/// layer and token).
bool ssmReadsOnce(OpOperand &use) {
  if (auto su = dyn_cast<SelectiveUpdateOp>(use.getOwner())) {
    auto state = dyn_cast<RankedTensorType>(su.getState().getType());
    return use.get() == su.getA() && state && state.hasStaticShape() && state.getDimSize(0) == 1;
  }
  return false;
}

/// A user that reads each element of its operand once: inlining the
/// producer into it costs no recomputation.
bool readsOnce(OpOperand &use) {
  Operation *user = use.getOwner();
  if (ssmReadsOnce(use))
    return true;
  llvm::StringRef n = user->getName().getStringRef();
  if (n.starts_with("func.") || n.starts_with("ssm.") || isScheduledMatmul(n))
    return false;
  if (auto lop = dyn_cast<linalg::LinalgOp>(user))
    return lop.getNumReductionLoops() == 0;
  return takesStageSchedule(user); // elementwise arith/math, tensor reshapes and slices
}

/// Ops that only re-index their source (a slice or a reshape): inlined over
/// a materialised buffer they cost nothing, while as root stages they copy.
bool isView(Operation *op) {
  return isa<tensor::ExtractSliceOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op);
}

/// Whether `v` is a buffer codegen materialises (a function argument, a root
/// stage, an ssm op's or a matmul's result), or a view of one.
bool isMaterialized(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return true;
  auto st = def->getAttrOfType<StageScheduleAttr>(kScheduleAttrName);
  if (st && st.getCompute() == ComputeLevel::inline_)
    return isView(def) && isMaterialized(def->getOperand(0));
  return true;
}

struct SsmFusePass : ssm::impl::SsmFuseBase<SsmFusePass> {
  using SsmFuseBase::SsmFuseBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto inlineAttr = StageScheduleAttr::get(ctx, ComputeLevel::inline_, std::nullopt,
                                             std::nullopt, std::nullopt, std::nullopt);
    for (Operation &op : getOperation().getBody().getOps()) {
      // A view of a materialised buffer is free: inline it whatever reads
      // it (not a returned value, which must be written out).
      if (isView(&op) && !op.hasAttr(kScheduleAttrName) && isMaterialized(op.getOperand(0)) &&
          llvm::none_of(op.getUsers(), [](Operation *u) { return u->hasTrait<OpTrait::IsTerminator>(); })) {
        op.setAttr(kScheduleAttrName, inlineAttr);
        continue;
      }
      if (!takesStageSchedule(&op) || hasReductionLoop(&op) || op.hasAttr(kScheduleAttrName) ||
          op.getNumResults() != 1)
        continue;
      Value v = op.getResult(0);
      if (!v.hasOneUse() || !readsOnce(*v.getUses().begin()))
        continue;
      op.setAttr(kScheduleAttrName, inlineAttr);
    }
  }
};

} // namespace
