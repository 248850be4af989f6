// ssm-decompose: selective_scan -> discretize + affine_scan + readout.
#include "dialect/SsmOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace ssm {
#define GEN_PASS_DEF_SSMDECOMPOSE
#include "passes/Passes.h.inc"
} // namespace ssm

using namespace mlir;
using namespace ssm;

namespace {

using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// One linalg.generic with a single result; `body` maps the block arguments
/// (inputs, then the output's current value) to the yielded value.
Value buildGeneric(PatternRewriter &rw, Location loc, ValueRange ins,
                   ArrayRef<AffineMap> inMaps, RankedTensorType outType,
                   AffineMap outMap, ArrayRef<utils::IteratorType> iterators,
                   BodyFn body, bool zeroInit = false) {
  Value init = rw.create<tensor::EmptyOp>(loc, outType.getShape(),
                                          outType.getElementType());
  if (zeroInit) {
    Value zero = rw.create<arith::ConstantOp>(loc, rw.getF32FloatAttr(0.0f));
    init = rw.create<linalg::FillOp>(loc, zero, init).getResult(0);
  }
  SmallVector<AffineMap> maps(inMaps.begin(), inMaps.end());
  maps.push_back(outMap);
  auto generic = rw.create<linalg::GenericOp>(
      loc, TypeRange{outType}, ins, ValueRange{init}, maps, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        b.create<linalg::YieldOp>(l, body(b, l, args));
      });
  return generic.getResult(0);
}

struct DecomposeSelectiveScan : OpRewritePattern<SelectiveScanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SelectiveScanOp op,
                                PatternRewriter &rw) const override {
    auto uType = cast<RankedTensorType>(op.getU().getType());
    auto aType = cast<RankedTensorType>(op.getA().getType());
    if (!uType.hasStaticShape() || !aType.hasStaticShape())
      return rw.notifyMatchFailure(op, "needs static shapes");
    Location loc = op.getLoc();
    MLIRContext *ctx = rw.getContext();
    bool tm = op.getLayout() == Layout::time_major;
    int64_t batch = uType.getDimSize(0);
    int64_t len = uType.getDimSize(tm ? 1 : 2);
    int64_t dim = uType.getDimSize(tm ? 2 : 1);
    int64_t n = aType.getDimSize(1);
    // No steps: an affine_scan of length 0 does not verify (no compiled
    // kernel handles one); the selective_scan, which both engines run at
    // L = 0, stays.
    if (len == 0)
      return rw.notifyMatchFailure(op, "a sequence of length 0");
    Type f32 = rw.getF32Type();

    // Canonical iteration space (b, l, d, n); the scan runs along l.
    AffineExpr eb = getAffineDimExpr(0, ctx), el = getAffineDimExpr(1, ctx),
               ed = getAffineDimExpr(2, ctx), en = getAffineDimExpr(3, ctx);
    auto map4 = [&](ArrayRef<AffineExpr> r) { return AffineMap::get(4, 0, r, ctx); };
    AffineMap seqMap = tm ? map4({eb, el, ed}) : map4({eb, ed, el});
    AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
    auto bcMap = [&](Value v) {
      auto s = cast<RankedTensorType>(v.getType()).getShape();
      if (s.size() == 2)
        return map4({ed, en});
      if (s.size() == 3)
        return tm ? map4({eb, el, en}) : map4({eb, en, el});
      int64_t groups = tm ? s[2] : s[1];
      AffineExpr g = ed.floorDiv(dim / groups);
      return tm ? map4({eb, el, g, en}) : map4({eb, g, en, el});
    };
    auto full = RankedTensorType::get({batch, len, dim, n}, f32);
    SmallVector<utils::IteratorType> par4(4, utils::IteratorType::parallel);

    // delta + delta_bias, softplus: torch's threshold of 20 keeps exp finite.
    SmallVector<Value> dtIns{op.getDelta()};
    SmallVector<AffineMap> dtMaps{seqMap};
    if (op.getDeltaBias()) {
      dtIns.push_back(op.getDeltaBias());
      dtMaps.push_back(map4({ed}));
    }
    bool softplus = op.getDeltaSoftplus();
    bool hasBias = static_cast<bool>(op.getDeltaBias());
    Value dt = buildGeneric(rw, loc, dtIns, dtMaps, full, id4, par4,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value x = args[0];
          if (hasBias)
            x = b.create<arith::AddFOp>(l, x, args[1]);
          if (!softplus)
            return x;
          Value twenty = b.create<arith::ConstantOp>(l, b.getF32FloatAttr(20.0f));
          Value big = b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, x, twenty);
          Value sp = b.create<math::Log1pOp>(l, b.create<math::ExpOp>(l, x));
          return b.create<arith::SelectOp>(l, big, x, sp);
        });
    auto copyBody = [](OpBuilder &, Location, ValueRange args) -> Value { return args[0]; };
    Value aFull = buildGeneric(rw, loc, op.getA(), map4({ed, en}), full, id4, par4, copyBody);
    Value bFull = buildGeneric(rw, loc, op.getB(), bcMap(op.getB()), full, id4, par4, copyBody);

    auto disc = rw.create<DiscretizeOp>(loc, full, full, aFull, bFull, dt,
                                        Discretization::zoh, Discretization::euler);
    Value bx = buildGeneric(rw, loc, ValueRange{disc.getBbar(), op.getU()},
                            {id4, seqMap}, full, id4, par4,
                            [](OpBuilder &b, Location l, ValueRange args) -> Value {
                              return b.create<arith::MulFOp>(l, args[0], args[1]);
                            });
    auto lastType = RankedTensorType::get({batch, dim, n}, f32);
    auto scan = rw.create<AffineScanOp>(loc, full, lastType, disc.getAbar(), bx,
                                        op.getH0(), /*reset=*/Value(),
                                        rw.getI64IntegerAttr(1), UnitAttr());

    // Readout: y = sum_n h * C, reduced over n straight into u's layout.
    SmallVector<utils::IteratorType> red4(par4);
    red4[3] = utils::IteratorType::reduction;
    Value y = buildGeneric(rw, loc, ValueRange{scan.getH(), op.getC()},
                           {id4, bcMap(op.getC())}, uType, seqMap, red4,
                           [](OpBuilder &b, Location l, ValueRange args) -> Value {
                             Value prod = b.create<arith::MulFOp>(l, args[0], args[1]);
                             return b.create<arith::AddFOp>(l, args[2], prod);
                           },
                           /*zeroInit=*/true);

    if (op.getD() || op.getZ()) {
      AffineExpr e0 = getAffineDimExpr(0, ctx), e1 = getAffineDimExpr(1, ctx),
                 e2 = getAffineDimExpr(2, ctx);
      AffineMap id3 = AffineMap::getMultiDimIdentityMap(3, ctx);
      AffineExpr chan = tm ? e2 : e1;
      SmallVector<Value> ins{y, op.getU()};
      SmallVector<AffineMap> maps{id3, id3};
      if (op.getD()) {
        ins.push_back(op.getD());
        maps.push_back(AffineMap::get(3, 0, {chan}, ctx));
      }
      if (op.getZ()) {
        ins.push_back(op.getZ());
        maps.push_back(id3);
      }
      bool hasD = static_cast<bool>(op.getD()), hasZ = static_cast<bool>(op.getZ());
      SmallVector<utils::IteratorType> par3(3, utils::IteratorType::parallel);
      y = buildGeneric(rw, loc, ins, maps, uType, id3, par3,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            Value acc = args[0];
            unsigned next = 2;
            if (hasD)
              acc = b.create<arith::AddFOp>(
                  l, acc, b.create<arith::MulFOp>(l, args[next++], args[1]));
            if (hasZ) {
              // silu(z) = z / (1 + exp(-z))
              Value z = args[next];
              Value one = b.create<arith::ConstantOp>(l, b.getF32FloatAttr(1.0f));
              Value e = b.create<math::ExpOp>(l, b.create<arith::NegFOp>(l, z));
              Value silu = b.create<arith::DivFOp>(l, z, b.create<arith::AddFOp>(l, one, e));
              acc = b.create<arith::MulFOp>(l, acc, silu);
            }
            return acc;
          });
    }
    rw.replaceOp(op, {y, scan.getHLast()});
    return success();
  }
};

struct SsmDecomposePass : ssm::impl::SsmDecomposeBase<SsmDecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeSelectiveScan>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
