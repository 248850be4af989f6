// Lowering of every structured linalg op (named ops and linalg.generic) to a Halide Func.
//
// The iteration space becomes Vars (parallel dims, the output's indices) and
// an RDom (reduction dims); each indexing map becomes index expressions; the
// body becomes one Halide expression per yielded value.
#include "codegen/Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using Halide::Expr;

namespace ssm::codegen {
namespace {

Expr affineExpr(AffineExpr e, const std::vector<Expr> &dims) {
  switch (e.getKind()) {
  case AffineExprKind::DimId:
    return dims[cast<AffineDimExpr>(e).getPosition()];
  case AffineExprKind::Constant:
    return Expr(static_cast<int>(cast<AffineConstantExpr>(e).getValue()));
  case AffineExprKind::SymbolId:
    return Expr();
  default:
    break;
  }
  auto bin = cast<AffineBinaryOpExpr>(e);
  Expr l = affineExpr(bin.getLHS(), dims), r = affineExpr(bin.getRHS(), dims);
  if (!l.defined() || !r.defined())
    return Expr();
  switch (e.getKind()) {
  case AffineExprKind::Add: return l + r;
  case AffineExprKind::Mul: return l * r;
  case AffineExprKind::Mod: return l % r;          // Halide's % is Euclidean, as affine mod
  case AffineExprKind::FloorDiv: return l / r;     // Halide's / rounds down, as floordiv
  case AffineExprKind::CeilDiv: return (l + r - 1) / r;
  default: return Expr();
  }
}

LogicalResult lowerLinalg(Operation *op, LoweringState &state) {
  auto lop = cast<linalg::LinalgOp>(op);
  if (op->getNumResults() != 1)
    return op->emitError() << "Halide lowering supports linalg ops with one result";
  SmallVector<int64_t> ranges = lop.getStaticLoopRanges();
  for (int64_t r : ranges)
    if (ShapedType::isDynamic(r))
      return op->emitError() << "Halide lowering needs static loop ranges";
  SmallVector<AffineMap> maps = lop.getIndexingMapsArray();
  unsigned numIns = lop.getNumDpsInputs();
  AffineMap outMap = maps[numIns];
  SmallVector<utils::IteratorType> iters = lop.getIteratorTypesArray();

  // Loop dim -> expression: an output Var for dims the output map names,
  // an RDom component for reduction dims.
  unsigned numLoops = ranges.size();
  std::vector<Expr> dimExpr(numLoops);
  Type resultType = op->getResult(0).getType();
  std::vector<Expr> shape = shapeExprs(resultType);
  unsigned rank = shape.size();
  std::vector<Halide::Var> vars;
  for (unsigned i = 0; i < rank; ++i)
    vars.emplace_back("d" + std::to_string(i));
  std::vector<Expr> outIdx(rank); // MLIR order
  for (unsigned r = 0; r < rank; ++r) {
    auto d = dyn_cast<AffineDimExpr>(outMap.getResult(r));
    if (!d)
      return op->emitError() << "Halide lowering needs an output indexing map of plain dims";
    dimExpr[d.getPosition()] = vars[rank - 1 - r];
  }
  std::vector<std::pair<Expr, Expr>> rdomRanges;
  std::vector<unsigned> reductionDims;
  for (unsigned i = 0; i < numLoops; ++i)
    if (!dimExpr[i].defined()) {
      if (iters[i] != utils::IteratorType::reduction)
        return op->emitError() << "parallel loop dim " << i << " is not an output dim";
      reductionDims.push_back(i);
      rdomRanges.push_back({Expr(0), Expr(static_cast<int>(ranges[i]))});
    }
  Halide::RDom rdom;
  if (!rdomRanges.empty()) {
    std::vector<Halide::Range> rs;
    for (auto &[mn, ext] : rdomRanges)
      rs.emplace_back(mn, ext);
    rdom = Halide::RDom(rs, state.uniqueName("r"));
    for (size_t k = 0; k < reductionDims.size(); ++k)
      dimExpr[reductionDims[k]] = rdom[k];
  }

  auto operandAt = [&](unsigned i) -> Expr {
    const TensorFunc &t = state.get(op->getOperand(i));
    if (t.rank() == 0)
      return t.func();
    std::vector<Expr> idx;
    for (AffineExpr e : maps[i].getResults()) {
      Expr x = affineExpr(e, dimExpr);
      if (!x.defined())
        return Expr();
      idx.push_back(x);
    }
    return at(t, idx);
  };

  TensorFunc out{Halide::Func(state.uniqueName(op->getName().stripDialect())), shape};
  // Evaluates the body with the output block argument bound to `acc`.
  Block *body = lop.getBlock();
  auto evalBody = [&](Expr acc, std::string &err) -> Expr {
    llvm::DenseMap<Value, Expr> env;
    unsigned numArgs = body->getNumArguments();
    for (unsigned i = 0; i < numArgs; ++i) {
      if (i < numIns) {
        env[body->getArgument(i)] = operandAt(i);
        if (!env[body->getArgument(i)].defined()) {
          err = "unsupported indexing map";
          return Expr();
        }
      } else {
        env[body->getArgument(i)] = acc;
      }
    }
    for (Operation &bop : *body) {
      if (auto y = dyn_cast<linalg::YieldOp>(bop))
        return env.lookup(y.getOperand(0));
      if (auto idx = dyn_cast<linalg::IndexOp>(bop)) {
        env[idx.getResult()] = dimExpr[idx.getDim()];
        continue;
      }
      std::vector<Expr> xs;
      for (Value v : bop.getOperands()) {
        if (isa<tensor::ExtractOp>(bop) && v == bop.getOperand(0)) {
          xs.push_back(Expr()); // the table, read below
          continue;
        }
        if (env.count(v)) {
          xs.push_back(env.lookup(v));
        } else if (state.has(v) && state.get(v).rank() == 0) {
          xs.push_back(state.get(v).func());
        } else {
          err = "a body operand defined outside the op is not a scalar";
          return Expr();
        }
      }
      Expr e;
      if (auto ex = dyn_cast<tensor::ExtractOp>(bop)) {
        // A gather (an embedding lookup): indices computed in the body,
        // clamped into the table so that a bad token cannot read outside it.
        if (!state.has(ex.getTensor())) {
          err = "tensor.extract from a tensor defined inside the body";
          return Expr();
        }
        const TensorFunc &table = state.get(ex.getTensor());
        std::vector<Expr> idx;
        for (size_t k = 1; k < xs.size(); ++k)
          idx.push_back(Halide::clamp(Halide::cast(Halide::Int(32), xs[k]), 0, table.shape[k - 1] - 1));
        env[ex.getResult()] = at(table, idx);
        continue;
      }
      if (auto c = dyn_cast<arith::ConstantOp>(bop)) {
        if (auto f = dyn_cast<FloatAttr>(c.getValue()))
          e = Expr(static_cast<float>(f.getValueAsDouble()));
        else if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
          e = Expr(static_cast<int>(i.getValue().getSExtValue()));
      } else {
        e = scalarExpr(&bop, xs, state.target);
      }
      if (!e.defined()) {
        err = "unsupported op '" + bop.getName().getStringRef().str() + "' in the body";
        return Expr();
      }
      env[bop.getResult(0)] = e;
    }
    err = "the body has no linalg.yield";
    return Expr();
  };

  std::string err;
  // Linalg.map's body reads only inputs; its output is never read.
  bool readsInit = body->getNumArguments() > numIns;
  Expr init = readsInit ? operandAt(numIns) : Expr();
  if (rdomRanges.empty()) {
    Expr e = evalBody(init, err);
    if (!e.defined())
      return op->emitError() << "cannot lower to Halide: " << err;
    out.func(vars) = e;
  } else {
    // Pure definition: the init tensor; update: the body over the RDom.
    std::vector<Expr> pureIdx(rank);
    for (unsigned r = 0; r < rank; ++r)
      pureIdx[r] = vars[rank - 1 - r];
    out.func(vars) = at(state.get(op->getOperand(numIns)), pureIdx);
    std::vector<Expr> args(vars.begin(), vars.end());
    Expr e = evalBody(out.func(args), err);
    if (!e.defined())
      return op->emitError() << "cannot lower to Halide: " << err;
    out.func(args) = e;
  }
  state.addGenericStage(out);
  state.set(op->getResult(0), out);
  return success();
}

} // namespace

void registerLinalgLowerings(llvm::StringMap<LowerFn> &table) {
  for (const char *name :
       {"linalg.generic", "linalg.map", "linalg.fill", "linalg.matmul", "linalg.matmul_transpose_a",
        "linalg.matmul_transpose_b", "linalg.batch_matmul", "linalg.batch_matmul_transpose_b",
        "linalg.matvec", "linalg.vecmat", "linalg.dot", "linalg.transpose", "linalg.broadcast",
        "linalg.reduce", "linalg.add", "linalg.sub", "linalg.mul", "linalg.div", "linalg.exp",
        "linalg.log", "linalg.abs", "linalg.max", "linalg.min", "linalg.negf", "linalg.copy"})
    table[name] = lowerLinalg;
}

} // namespace ssm::codegen
