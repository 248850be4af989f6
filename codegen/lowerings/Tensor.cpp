// Lowerings of tensor ops: empty, reshapes, slices, concat, as index remappings.
#include "codegen/Lowering.h"
#include "codegen/kernels/Kernel.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using Halide::Expr;

namespace ssm::codegen {
namespace {

LogicalResult lowerEmpty(Operation *op, LoweringState &state) {
  // Only ever read as the init of ops that overwrite it; zeros keep it defined.
  Type type = op->getResult(0).getType();
  std::optional<Halide::Type> et = halideType(getElementTypeOrSelf(type));
  if (!et)
    return op->emitError() << "cannot lower " << type << " to Halide";
  Expr zero = Halide::cast(*et, 0);
  state.set(op->getResult(0),
            state.define("empty", shapeExprs(type), [&](const auto &) { return zero; },
                         /*inlined=*/true));
  return success();
}

/// expand_shape / collapse_shape: each reassociation group of the expanded
/// side maps to one dim of the collapsed side (row-major within the group).
LogicalResult lowerReshape(Operation *op, LoweringState &state) {
  SmallVector<ReassociationIndices> groups;
  ArrayRef<int64_t> expanded;
  bool expanding;
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(op)) {
    groups = e.getReassociationIndices();
    expanded = e.getResultType().getShape();
    expanding = true;
  } else {
    auto c = cast<tensor::CollapseShapeOp>(op);
    groups = c.getReassociationIndices();
    expanded = c.getSrcType().getShape();
    expanding = false;
  }
  // Per group, its one dim of extent > 1 (-1: none, -2: several).
  std::vector<int64_t> soleDim;
  for (const ReassociationIndices &g : groups) {
    int64_t sole = -1;
    for (int64_t d : g)
      if (expanded[d] != 1)
        sole = sole == -1 ? d : -2;
    soleDim.push_back(sole);
  }
  const TensorFunc &src = state.get(op->getOperand(0));
  TensorFunc out = state.define(
      expanding ? "expand" : "collapse", shapeExprs(op->getResult(0).getType()),
      [&](const std::vector<Expr> &idx) {
        std::vector<Expr> srcIdx;
        if (expanding) {
          // result (expanded) index -> source (collapsed) index per group
          for (const ReassociationIndices &g : groups) {
            Expr flat = 0;
            for (int64_t d : g)
              flat = flat * static_cast<int>(expanded[d]) + idx[d];
            srcIdx.push_back(flat);
          }
        } else {
          srcIdx.resize(expanded.size());
          for (size_t gi = 0; gi < groups.size(); ++gi) {
            // At most one dim of extent > 1 among unit dims: its index is
            // the collapsed one as it is (no % and /, whose bounds Halide
            // takes as the whole extent).
            if (soleDim[gi] != -2) {
              for (int64_t d : groups[gi])
                srcIdx[d] = Expr(0);
              srcIdx[soleDim[gi] >= 0 ? soleDim[gi] : groups[gi].back()] = idx[gi];
              continue;
            }
            Expr rest = idx[gi];
            for (int64_t k = static_cast<int64_t>(groups[gi].size()) - 1; k >= 0; --k) {
              int64_t d = groups[gi][k];
              int ext = static_cast<int>(expanded[d]);
              srcIdx[d] = k == 0 ? rest : rest % ext;
              rest = rest / ext;
            }
          }
        }
        return at(src, srcIdx);
      });
  // A symbolic extent (an append argument's rows, Translate.cpp) passes
  // through a group whose other dims are all 1: (C) <-> (1, C).
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const int64_t d = soleDim[gi];
    if (d < 0)
      continue;
    if (expanding && !constInt(src.shape[gi]))
      out.shape[d] = src.shape[gi];
    else if (!expanding && !constInt(src.shape[d]))
      out.shape[gi] = src.shape[d];
  }
  state.set(op->getResult(0), out);
  return success();
}

LogicalResult lowerExtractSlice(Operation *op, LoweringState &state) {
  auto s = cast<tensor::ExtractSliceOp>(op);
  if (!s.getOffsets().empty() || !s.getSizes().empty() || !s.getStrides().empty())
    return op->emitError() << "Halide lowering needs static slice offsets, sizes and strides";
  ArrayRef<int64_t> offsets = s.getStaticOffsets(), sizes = s.getStaticSizes(),
                    strides = s.getStaticStrides();
  const TensorFunc &src = state.get(s.getSource());
  // Rank-reducing slices drop unit dims of the source.
  llvm::SmallBitVector dropped = s.getDroppedDims();
  TensorFunc out = state.define("slice", shapeExprs(s.getType()), [&](const std::vector<Expr> &idx) {
    std::vector<Expr> srcIdx;
    size_t r = 0;
    for (size_t d = 0; d < sizes.size(); ++d) {
      Expr i = dropped.test(d) ? Expr(0) : idx[r++];
      srcIdx.push_back(static_cast<int>(offsets[d]) + i * static_cast<int>(strides[d]));
    }
    return at(src, srcIdx);
  });
  state.set(s.getResult(), out);
  return success();
}

LogicalResult lowerInsertSlice(Operation *op, LoweringState &state) {
  auto s = cast<tensor::InsertSliceOp>(op);
  if (!s.getOffsets().empty() || !s.getSizes().empty() || !s.getStrides().empty() ||
      s.getSourceType().getRank() != s.getDestType().getRank())
    return op->emitError() << "Halide lowering needs a static, non-rank-reducing insert_slice";
  ArrayRef<int64_t> offsets = s.getStaticOffsets(), sizes = s.getStaticSizes(),
                    strides = s.getStaticStrides();
  const TensorFunc &src = state.get(s.getSource());
  const TensorFunc &dst = state.get(s.getDest());
  TensorFunc out = state.define("insert", shapeExprs(s.getType()), [&](const std::vector<Expr> &idx) {
    Expr inside = Halide::Internal::const_true();
    std::vector<Expr> srcIdx;
    for (size_t d = 0; d < sizes.size(); ++d) {
      Expr rel = idx[d] - static_cast<int>(offsets[d]);
      int st = static_cast<int>(strides[d]);
      inside = inside && rel >= 0 && rel < static_cast<int>(sizes[d]) * st && rel % st == 0;
      srcIdx.push_back(Halide::clamp(rel / st, 0, static_cast<int>(sizes[d]) - 1));
    }
    return Halide::select(inside, at(src, srcIdx), at(dst, idx));
  });
  state.set(s.getResult(), out);
  return success();
}

LogicalResult lowerConcat(Operation *op, LoweringState &state) {
  auto c = cast<tensor::ConcatOp>(op);
  int64_t dim = c.getDim();
  std::vector<std::pair<TensorFunc, int>> parts;
  int start = 0;
  for (Value v : c.getInputs()) {
    parts.push_back({state.get(v), start});
    start += static_cast<int>(cast<RankedTensorType>(v.getType()).getDimSize(dim));
  }
  TensorFunc out = state.define("concat", shapeExprs(c.getType()), [&](const std::vector<Expr> &idx) {
    Expr e;
    // Later parts take over from their start on.
    for (int k = 0; k < static_cast<int>(parts.size()); ++k) {
      std::vector<Expr> local = idx;
      int len = static_cast<int>(cast<RankedTensorType>(c.getInputs()[k].getType()).getDimSize(dim));
      local[dim] = Halide::clamp(idx[dim] - parts[k].second, 0, len - 1);
      Expr v = at(parts[k].first, local);
      e = e.defined() ? Halide::select(idx[dim] >= parts[k].second, v, e) : v;
    }
    return e;
  });
  state.set(c.getResult(), out);
  return success();
}

LogicalResult lowerCast(Operation *op, LoweringState &state) {
  state.set(op->getResult(0), state.get(op->getOperand(0)));
  return success();
}

} // namespace

void registerTensorLowerings(llvm::StringMap<LowerFn> &table) {
  table["tensor.empty"] = lowerEmpty;
  table["tensor.expand_shape"] = lowerReshape;
  table["tensor.collapse_shape"] = lowerReshape;
  table["tensor.extract_slice"] = lowerExtractSlice;
  table["tensor.insert_slice"] = lowerInsertSlice;
  table["tensor.concat"] = lowerConcat;
  table["tensor.cast"] = lowerCast;
}

} // namespace ssm::codegen
