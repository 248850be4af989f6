// ssm-chunk-scan: an affine scan as chunk-local scans, a carry scan over the chunk summaries and a fix-up.
//
// h_t = a_t h_{t-1} + b_t composes affine maps, (a2, b2) . (a1, b1) =
// (a2 a1, a2 b1 + b2), associatively with identity (1, 0), so a scan of
// length L splits into ceil(L / C) chunks of C steps that run in parallel:
//   1. pad L to a multiple of C with identity steps (a = 1, b = 0, no reset),
//      which carry the state through unchanged, and view the scanned dim
//      as (chunks, C);
//   2. chunk-local scans from a zero state: hl (and its last step, the chunk's
//      offset B_c); and the cumulative decays from the chunk start, P_t =
//      a_t ... a_start (the chunk's own products, so always |P| <= 1 for
//      decays, never a division by a cumulative decay and no exponent that
//      can overflow; its last step is the chunk's decay A_c);
//   3. the carry scan over chunks, H_c = A_c H_{c-1} + B_c from h0, whose
//      last value is h_last;
//   4. the fix-up h_t = hl_t + P_t H_{c-1} with the previous chunk's carry
//      (h0 for the first chunk), then the padding dropped.
// Resets (packed sequences) act in both local scans: after a reset inside a
// chunk P is 0, so no carry crosses it, and A_c = 0 for a chunk holding one.
// Reverse scans chunk the same way with the chunk order reversed.
#include "dialect/SsmOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace ssm {
#define GEN_PASS_DEF_SSMCHUNKSCAN
#include "passes/Passes.h.inc"
} // namespace ssm

using namespace mlir;
using namespace ssm;

namespace {

RankedTensorType withShape(RankedTensorType t, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, t.getElementType());
}

/// A splat constant of `type` (f32 value or i1 false).
Value splat(OpBuilder &b, Location loc, RankedTensorType type, double v) {
  Attribute elem = type.getElementType().isInteger(1)
                       ? Attribute(b.getBoolAttr(v != 0))
                       : Attribute(b.getF32FloatAttr(static_cast<float>(v)));
  return b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(type, elem));
}

/// `x` broadcast to `shape` (its dims of size 1 where shape's are larger).
Value broadcastTo(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> shape) {
  auto t = cast<RankedTensorType>(x.getType());
  if (t.getShape() == shape)
    return x;
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> in;
  for (int64_t i = 0; i < t.getRank(); ++i)
    in.push_back(t.getDimSize(i) == 1 && shape[i] != 1 ? getAffineConstantExpr(0, ctx)
                                                        : getAffineDimExpr(i, ctx));
  auto outType = withShape(t, shape);
  Value init = b.create<tensor::EmptyOp>(loc, shape, t.getElementType());
  SmallVector<AffineMap> maps = {AffineMap::get(shape.size(), 0, in, ctx),
                                 AffineMap::getMultiDimIdentityMap(shape.size(), ctx)};
  SmallVector<utils::IteratorType> its(shape.size(), utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(loc, TypeRange{outType}, ValueRange{x}, ValueRange{init}, maps,
                                 its,
                                 [](OpBuilder &bb, Location l, ValueRange args) {
                                   bb.create<linalg::YieldOp>(l, args[0]);
                                 })
      .getResult(0);
}

/// `x` padded along `dim` to `len` with `value`, then viewed with `dim`
/// split into (len / chunk, chunk).
Value padAndSplit(OpBuilder &b, Location loc, Value x, int64_t dim, int64_t len, int64_t chunk,
                  double value) {
  auto t = cast<RankedTensorType>(x.getType());
  int64_t have = t.getDimSize(dim);
  if (have < len) {
    SmallVector<int64_t> padShape(t.getShape());
    padShape[dim] = len - have;
    Value pad = splat(b, loc, withShape(t, padShape), value);
    x = b.create<tensor::ConcatOp>(loc, dim, ValueRange{x, pad});
  }
  SmallVector<int64_t> shape(t.getShape());
  shape[dim] = len / chunk;
  shape.insert(shape.begin() + dim + 1, chunk);
  SmallVector<ReassociationIndices> re;
  for (int64_t i = 0, j = 0; i < t.getRank(); ++i) {
    if (i == dim) {
      re.push_back({j, j + 1});
      j += 2;
    } else {
      re.push_back({j++});
    }
  }
  return b.create<tensor::ExpandShapeOp>(loc, withShape(t, shape), x, re);
}

/// Rewrites one scan (see the top of the file); fails for dynamic shapes.
LogicalResult chunkScan(AffineScanOp op, int64_t chunk, RewriterBase &rw) {
  {
    auto bType = cast<RankedTensorType>(op.getB().getType());
    if (!bType.hasStaticShape() || !cast<RankedTensorType>(op.getA().getType()).hasStaticShape())
      return failure();
    const int64_t rank = bType.getRank();
    const int64_t dim = op.getDim() < 0 ? op.getDim() + rank : op.getDim();
    const int64_t len = bType.getDimSize(dim);
    const bool rev = op.getReverse();
    if (len == 0)
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rw.getContext();
    const int64_t c = std::min(chunk, len);
    const int64_t chunks = (len + c - 1) / c, padded = chunks * c;

    // 1. Identity padding, (chunks, c) views.
    Value a = broadcastTo(rw, loc, op.getA(), bType.getShape());
    Value as = padAndSplit(rw, loc, a, dim, padded, c, 1.0);
    Value bs = padAndSplit(rw, loc, op.getB(), dim, padded, c, 0.0);
    Value rs = op.getReset() ? padAndSplit(rw, loc, op.getReset(), dim, padded, c, 0.0) : Value();
    auto split = cast<RankedTensorType>(as.getType());
    SmallVector<int64_t> sumShape(split.getShape()); // (.., chunks, ..): the c dim removed
    sumShape.erase(sumShape.begin() + dim + 1);
    auto sumType = withShape(bType, sumShape);
    UnitAttr revAttr = rev ? rw.getUnitAttr() : UnitAttr();
    IntegerAttr inner = rw.getI64IntegerAttr(dim + 1), outer = rw.getI64IntegerAttr(dim);

    // 2. Chunk-local scans: hl from zero; P from one with b = 0 (the product
    // of the decays since the chunk start, 0 after a reset).
    auto local = rw.create<AffineScanOp>(loc, split, sumType, as, bs, Value(), rs, inner, revAttr);
    Value zeros = splat(rw, loc, split, 0.0), ones = splat(rw, loc, sumType, 1.0);
    auto decay = rw.create<AffineScanOp>(loc, split, sumType, as, zeros, ones, rs, inner, revAttr);
    // 3. The carry over chunks: H_c = A_c H_{c-1} + B_c from h0.
    auto carry = rw.create<AffineScanOp>(loc, sumType, op.getHLast().getType(), decay.getHLast(),
                                         local.getHLast(), op.getH0(), Value(), outer, revAttr);
    // The carry into each chunk: the previous chunk's H (the next one's when
    // reversed), h0 or zeros at the first.
    SmallVector<int64_t> oneShape(sumShape);
    oneShape[dim] = 1;
    auto oneType = withShape(bType, oneShape);
    Value first;
    if (op.getH0()) {
      // h0 (b's shape without dim) with a unit dim at `dim`, grouped with
      // its neighbour (rank 0: no groups).
      SmallVector<ReassociationIndices> re;
      for (int64_t i = 0, j = 0; i < rank - 1; ++i) {
        if (i == std::max<int64_t>(dim - 1, 0)) {
          re.push_back({j, j + 1});
          j += 2;
        } else {
          re.push_back({j++});
        }
      }
      first = rw.create<tensor::ExpandShapeOp>(loc, oneType, op.getH0(), re);
    } else {
      first = splat(rw, loc, oneType, 0.0);
    }
    Value carryIn = carry.getH();
    if (chunks > 1) {
      SmallVector<OpFoldResult> offs(rank, rw.getIndexAttr(0)), sizes, strides(rank, rw.getIndexAttr(1));
      for (int64_t d : sumShape)
        sizes.push_back(rw.getIndexAttr(d));
      sizes[dim] = rw.getIndexAttr(chunks - 1);
      if (rev)
        offs[dim] = rw.getIndexAttr(1);
      Value kept = rw.create<tensor::ExtractSliceOp>(loc, carry.getH(), offs, sizes, strides);
      carryIn = rw.create<tensor::ConcatOp>(loc, dim, rev ? ValueRange{kept, first}
                                                          : ValueRange{first, kept});
    } else {
      carryIn = first;
    }
    // 4. Fix-up: h = hl + P * carryIn (broadcast over the chunk's steps).
    SmallVector<AffineExpr> sumExprs;
    for (int64_t i = 0; i < rank + 1; ++i)
      if (i != dim + 1)
        sumExprs.push_back(getAffineDimExpr(i, ctx));
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank + 1, ctx);
    AffineMap sumMap = AffineMap::get(rank + 1, 0, sumExprs, ctx);
    Value init = rw.create<tensor::EmptyOp>(loc, split.getShape(), split.getElementType());
    SmallVector<utils::IteratorType> its(rank + 1, utils::IteratorType::parallel);
    Value fixed =
        rw.create<linalg::GenericOp>(
              loc, TypeRange{split}, ValueRange{local.getH(), decay.getH(), carryIn},
              ValueRange{init}, ArrayRef<AffineMap>{id, id, sumMap, id}, its,
              [](OpBuilder &b, Location l, ValueRange args) {
                Value p = b.create<arith::MulFOp>(l, args[1], args[2]);
                b.create<linalg::YieldOp>(l, ValueRange{b.create<arith::AddFOp>(l, args[0], p)});
              })
            .getResult(0);
    SmallVector<ReassociationIndices> re;
    for (int64_t i = 0, j = 0; i < rank; ++i) {
      if (i == dim) {
        re.push_back({j, j + 1});
        j += 2;
      } else {
        re.push_back({j++});
      }
    }
    Value h = rw.create<tensor::CollapseShapeOp>(loc, fixed, re);
    if (padded != len) {
      SmallVector<OpFoldResult> offs(rank, rw.getIndexAttr(0)), sizes, strides(rank, rw.getIndexAttr(1));
      for (int64_t d : bType.getShape())
        sizes.push_back(rw.getIndexAttr(d));
      h = rw.create<tensor::ExtractSliceOp>(loc, h, offs, sizes, strides);
    }
    rw.replaceOp(op, ValueRange{h, carry.getHLast()});
    return success();
  }
}

struct SsmChunkScanPass : ssm::impl::SsmChunkScanBase<SsmChunkScanPass> {
  using SsmChunkScanBase::SsmChunkScanBase;

  void runOnOperation() override {
    if (chunk < 1) {
      getOperation().emitError() << "ssm-chunk-scan: chunk must be positive, got " << static_cast<int64_t>(chunk);
      return signalPassFailure();
    }
    // The scans present before the rewrite (the new ones are chunk-local).
    SmallVector<AffineScanOp> scans;
    getOperation().walk([&](AffineScanOp op) { scans.push_back(op); });
    IRRewriter rw(&getContext());
    for (AffineScanOp op : scans) {
      rw.setInsertionPoint(op);
      if (failed(chunkScan(op, chunk, rw))) {
        op.emitError() << "ssm-chunk-scan: cannot chunk this scan (it needs static shapes)";
        return signalPassFailure();
      }
    }
  }
};

} // namespace
