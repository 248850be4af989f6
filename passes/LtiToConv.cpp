// ssm-lti-to-conv: time-invariant scans -> ssm.lti_kernel + ssm.lti_conv, the form chosen by cost.
#include "dialect/SsmOps.h"
#include "passes/LtiCostModel.h"
#include "passes/Passes.h"
#include "passes/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace ssm {
#define GEN_PASS_DEF_SSMLTITOCONV
#include "passes/Passes.h.inc"
} // namespace ssm

using namespace mlir;
using namespace ssm;

namespace {

constexpr llvm::StringLiteral kAlgorithmAttr = "ssm.lti_algorithm";

RankedTensorType f32Tensor(MLIRContext *ctx, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, Float32Type::get(ctx));
}

Value splat(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, float v) {
  auto t = f32Tensor(b.getContext(), shape);
  return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(t, b.getF32FloatAttr(v)));
}

/// The per-channel step of a selective scan's delta (batch, dim, L) when it
/// does not depend on batch or time: the source of a linalg.broadcast from
/// (dim) over dims [0, 2], or a splat constant. Null otherwise.
Value perChannelDelta(OpBuilder &b, Location loc, Value delta, int64_t dim) {
  if (auto bc = delta.getDefiningOp<linalg::BroadcastOp>()) {
    auto in = cast<RankedTensorType>(bc.getInput().getType());
    if (in.getRank() == 1 && in.getDimSize(0) == dim &&
        bc.getDimensions() == ArrayRef<int64_t>{0, 2})
      return bc.getInput();
    return nullptr;
  }
  SplatElementsAttr attr;
  if (matchPattern(delta, m_Constant(&attr)))
    return splat(b, loc, {dim}, attr.getSplatValue<APFloat>().convertToFloat());
  return nullptr;
}

/// softplus(x) as torch computes it (threshold 20), elementwise on (dim).
Value softplus(OpBuilder &b, Location loc, Value x, int64_t dim) {
  Value e = b.create<math::ExpOp>(loc, x);
  Value l = b.create<math::Log1pOp>(loc, e);
  Value big = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, x,
                                      splat(b, loc, {dim}, 20.0f));
  return b.create<arith::SelectOp>(loc, big, x, l);
}

ConvAlgorithm convAlgorithm(LtiForm f) {
  return f == LtiForm::Fft ? ConvAlgorithm::fft : ConvAlgorithm::direct;
}

struct SsmLtiToConvPass : ssm::impl::SsmLtiToConvBase<SsmLtiToConvPass> {
  using SsmLtiToConvBase::SsmLtiToConvBase;

  /// The form for `op`: the pass option, else the op's ssm.lti_algorithm
  /// (a tuner's or a user's override), else the cost model.
  FailureOr<LtiForm> chooseForm(Operation *op, const LtiShape &shape, const TargetInfo &info) {
    std::string name = algorithm;
    if (name == "auto")
      if (auto a = op->getAttrOfType<StringAttr>(kAlgorithmAttr))
        name = a.getValue().str();
    if (name == "auto")
      return cheapestLtiForm(shape, info);
    if (name == "direct")
      return LtiForm::Direct;
    if (name == "fft")
      return LtiForm::Fft;
    if (name == "scan")
      return LtiForm::Scan;
    op->emitError() << "ssm-lti-to-conv: unknown algorithm '" << name
                    << "' (expected auto, direct, fft or scan)";
    return failure();
  }

  /// Records the choice of keeping the scan, so that ssm-opt shows it.
  void keepScan(Operation *op) {
    op->setAttr(kAlgorithmAttr, StringAttr::get(op->getContext(), "scan"));
  }

  /// selective_scan (channel_major, A/B/C (dim, N), no h0, no z, final state
  /// unused, delta constant in batch and time) -> lti_kernel zoh, euler +
  /// lti_conv. Returns false when the op does not match.
  LogicalResult rewriteSelective(SelectiveScanOp op, const TargetInfo &info, bool &changed) {
    auto uType = cast<RankedTensorType>(op.getU().getType());
    auto aType = cast<RankedTensorType>(op.getA().getType());
    if (op.getLayout() != Layout::channel_major || !uType.hasStaticShape() ||
        !aType.hasStaticShape() || aType.getRank() != 2 || op.getH0() || op.getZ() ||
        !op.getHLast().use_empty() || cast<RankedTensorType>(op.getB().getType()).getRank() != 2 ||
        cast<RankedTensorType>(op.getC().getType()).getRank() != 2)
      return success();
    int64_t batch = uType.getDimSize(0), dim = uType.getDimSize(1), len = uType.getDimSize(2);
    OpBuilder b(op);
    Location loc = op.getLoc();
    // Look before building anything: only a delta constant in time matches.
    if (!op.getDelta().getDefiningOp<linalg::BroadcastOp>() &&
        !matchPattern(op.getDelta(), m_Constant()))
      return success();
    if (auto bc = op.getDelta().getDefiningOp<linalg::BroadcastOp>())
      if (bc.getDimensions() != ArrayRef<int64_t>{0, 2})
        return success();
    SplatElementsAttr splatAttr;
    if (!op.getDelta().getDefiningOp<linalg::BroadcastOp>() &&
        !matchPattern(op.getDelta(), m_Constant(&splatAttr)))
      return success();
    LtiShape shape{batch, dim, aType.getDimSize(1), len, /*readout=*/true};
    FailureOr<LtiForm> form = chooseForm(op, shape, info);
    if (failed(form))
      return failure();
    if (*form == LtiForm::Scan) {
      keepScan(op);
      return success();
    }
    Value dt = perChannelDelta(b, loc, op.getDelta(), dim);
    if (!dt)
      return success();
    if (op.getDeltaBias())
      dt = b.create<arith::AddFOp>(loc, dt, op.getDeltaBias());
    if (op.getDeltaSoftplus())
      dt = softplus(b, loc, dt, dim);
    auto kType = f32Tensor(op.getContext(), {dim, len});
    auto kernel = b.create<LtiKernelOp>(loc, kType, op.getA(), op.getB(), op.getC(), dt,
                                        Discretization::zoh,
                                        DiscretizationAttr::get(op.getContext(), Discretization::euler));
    auto conv = b.create<LtiConvOp>(loc, uType, op.getU(), kernel.getK(), op.getD(),
                                    convAlgorithm(*form));
    op.getY().replaceAllUsesWith(conv.getY());
    op.erase();
    changed = true;
    return success();
  }

  /// affine_scan along its last dim with a constant in time (extent 1
  /// there), no h0, reset or reversal, final state unused -> every element
  /// a channel: lti_kernel euler (A = a - 1, C = 1, delta = 1, so Abar = a,
  /// Bbar = 1) + lti_conv of b.
  LogicalResult rewriteAffine(AffineScanOp op, const TargetInfo &info, bool &changed) {
    auto bType = cast<RankedTensorType>(op.getB().getType());
    auto aType = cast<RankedTensorType>(op.getA().getType());
    int64_t rank = bType.getRank();
    int64_t d = op.getDim() < 0 ? op.getDim() + rank : op.getDim();
    if (!bType.hasStaticShape() || !aType.hasStaticShape() || d != rank - 1 || op.getH0() ||
        op.getReset() || op.getReverse() || !op.getHLast().use_empty() ||
        aType.getDimSize(d) != 1)
      return success();
    int64_t len = bType.getDimSize(d), channels = 1;
    for (int64_t i = 0; i + 1 < rank; ++i)
      channels *= bType.getDimSize(i);
    LtiShape shape{1, channels, 1, len, /*readout=*/false};
    FailureOr<LtiForm> form = chooseForm(op, shape, info);
    if (failed(form))
      return failure();
    if (*form == LtiForm::Scan) {
      keepScan(op);
      return success();
    }
    OpBuilder b(op);
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    // Reassociation grouping dims [0, rank - 1) and keeping the last.
    SmallVector<ReassociationIndices> outerLast(2);
    for (int64_t i = 0; i + 1 < rank; ++i)
      outerLast[0].push_back(i);
    outerLast[1].push_back(rank - 1);
    // a over (outer..., 1): broadcast the extent-1 dims of a where b has more.
    SmallVector<int64_t> aFull(bType.getShape());
    aFull.back() = 1;
    Value a = op.getA();
    if (aType.getShape() != ArrayRef<int64_t>(aFull)) {
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < rank; ++i)
        exprs.push_back(aType.getDimSize(i) == 1 ? getAffineConstantExpr(0, ctx)
                                                 : getAffineDimExpr(i, ctx));
      auto inMap = AffineMap::get(rank, 0, exprs, ctx);
      auto outMap = AffineMap::getMultiDimIdentityMap(rank, ctx);
      Value init = b.create<tensor::EmptyOp>(loc, aFull, b.getF32Type());
      SmallVector<utils::IteratorType> its(rank, utils::IteratorType::parallel);
      a = b.create<linalg::GenericOp>(loc, TypeRange{init.getType()}, ValueRange{a},
                                      ValueRange{init}, ArrayRef<AffineMap>{inMap, outMap}, its,
                                      [](OpBuilder &nb, Location l, ValueRange args) {
                                        nb.create<linalg::YieldOp>(l, args[0]);
                                      })
              .getResult(0);
    }
    // a: (outer..., 1) -> (channels, 1); b: (outer..., L) -> (channels, L).
    Value a2 = a, b2 = op.getB();
    if (rank == 1) {
      a2 = b.create<tensor::ExpandShapeOp>(loc, f32Tensor(ctx, {1, 1}), a,
                                           ArrayRef<ReassociationIndices>{{0, 1}});
      b2 = b.create<tensor::ExpandShapeOp>(loc, f32Tensor(ctx, {1, len}), b2,
                                           ArrayRef<ReassociationIndices>{{0, 1}});
    } else if (rank > 2) {
      a2 = b.create<tensor::CollapseShapeOp>(loc, f32Tensor(ctx, {channels, 1}), a, outerLast);
      b2 = b.create<tensor::CollapseShapeOp>(loc, f32Tensor(ctx, {channels, len}), b2, outerLast);
    }
    Value am1 = b.create<arith::SubFOp>(loc, a2, splat(b, loc, {channels, 1}, 1.0f));
    Value ones = splat(b, loc, {channels, 1}, 1.0f);
    Value unitStep = splat(b, loc, {channels}, 1.0f);
    auto kernel = b.create<LtiKernelOp>(loc, f32Tensor(ctx, {channels, len}), am1, Value(), ones,
                                        unitStep, Discretization::euler, DiscretizationAttr());
    SmallVector<ReassociationIndices> addBatch = {{0, 1}, {2}};
    Value u3 = b.create<tensor::ExpandShapeOp>(loc, f32Tensor(ctx, {1, channels, len}), b2,
                                               addBatch);
    auto conv = b.create<LtiConvOp>(loc, u3.getType(), u3, kernel.getK(), Value(),
                                    convAlgorithm(*form));
    Value y2 = b.create<tensor::CollapseShapeOp>(loc, f32Tensor(ctx, {channels, len}),
                                                 conv.getY(), addBatch);
    Value back = y2;
    if (rank == 1)
      back = b.create<tensor::CollapseShapeOp>(loc, bType, y2,
                                               ArrayRef<ReassociationIndices>{{0, 1}});
    else if (rank > 2)
      back = b.create<tensor::ExpandShapeOp>(loc, bType, y2, outerLast);
    op.getH().replaceAllUsesWith(back);
    op.erase();
    changed = true;
    return success();
  }

  void runOnOperation() override {
    std::optional<TargetInfo> info = parseTarget(target);
    if (!info) {
      getOperation().emitError() << "ssm-lti-to-conv: unknown target '" << target << "' ("
                                 << kKnownTargetsHelp << ")";
      return signalPassFailure();
    }
    SmallVector<Operation *> scans;
    getOperation().walk([&](Operation *op) {
      if (isa<SelectiveScanOp, AffineScanOp>(op))
        scans.push_back(op);
    });
    for (Operation *op : scans) {
      bool changed = false;
      LogicalResult r = isa<SelectiveScanOp>(op)
                            ? rewriteSelective(cast<SelectiveScanOp>(op), *info, changed)
                            : rewriteAffine(cast<AffineScanOp>(op), *info, changed);
      if (failed(r))
        return signalPassFailure();
    }
  }
};

} // namespace
