// ssm-chunk-time: functions whose long selective scan runs as a host loop over time chunks.
#include "dialect/SsmOps.h"
#include "passes/Passes.h"

namespace ssm {
#define GEN_PASS_DEF_SSMCHUNKTIME
#include "passes/Passes.h.inc"
} // namespace ssm

using namespace mlir;
using namespace ssm;

namespace {

struct SsmChunkTimePass : ssm::impl::SsmChunkTimeBase<SsmChunkTimePass> {
  using SsmChunkTimeBase::SsmChunkTimeBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (chunk < 1) {
      func.emitError() << "ssm-chunk-time: chunk must be positive, got " << chunk;
      return signalPassFailure();
    }
    if (func.isExternal() || func->hasAttr(kTimeChunkAttrName))
      return;
    Block &body = func.getBody().front();
    if (body.getOperations().size() != 2)
      return;
    auto scan = dyn_cast<SelectiveScanOp>(body.front());
    if (!scan)
      return;
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    if (!llvm::is_contained(ret.getOperands(), scan.getHLast()))
      return; // the final state is not returned: nothing to carry
    bool tm = scan.getLayout() == Layout::time_major;
    int64_t len = cast<RankedTensorType>(scan.getU().getType()).getDimSize(tm ? 1 : 2);
    int64_t c = std::max<int64_t>(32, chunk / 32 * 32);
    if (ShapedType::isDynamic(len) || len <= c)
      return;
    func->setAttr(kTimeChunkAttrName, IntegerAttr::get(IntegerType::get(&getContext(), 64), c));
  }
};

} // namespace
