// Lowerings of arith and math ops: scalar expressions, applied elementwise to tensors.
#include "codegen/Lowering.h"
#include "codegen/kernels/MathExt.h"
#include "codegen/kernels/RoundEven.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using Halide::Expr;

namespace ssm::codegen {

namespace {

Expr cmpF(arith::CmpFPredicate p, Expr a, Expr b) {
  using P = arith::CmpFPredicate;
  Expr unordered = Halide::is_nan(a) || Halide::is_nan(b);
  switch (p) {
  case P::AlwaysFalse: return Halide::Internal::const_false();
  case P::OEQ: return a == b;
  case P::OGT: return a > b;
  case P::OGE: return a >= b;
  case P::OLT: return a < b;
  case P::OLE: return a <= b;
  case P::ONE: return !unordered && a != b;
  case P::ORD: return !unordered;
  case P::UEQ: return unordered || a == b;
  case P::UGT: return unordered || a > b;
  case P::UGE: return unordered || a >= b;
  case P::ULT: return unordered || a < b;
  case P::ULE: return unordered || a <= b;
  case P::UNE: return a != b;
  case P::UNO: return unordered;
  case P::AlwaysTrue: return Halide::Internal::const_true();
  }
  return Expr();
}

Expr cmpI(arith::CmpIPredicate p, Expr a, Expr b) {
  using P = arith::CmpIPredicate;
  switch (p) {
  case P::eq: return a == b;
  case P::ne: return a != b;
  case P::slt: case P::ult: return a < b;
  case P::sle: case P::ule: return a <= b;
  case P::sgt: case P::ugt: return a > b;
  case P::sge: case P::uge: return a >= b;
  }
  return Expr();
}

Expr floorDiv(Expr a, Expr b) { return Halide::div_round_to_zero(a, b) - Halide::select((a % b != 0) && ((a < 0) != (b < 0)), 1, 0); }

} // namespace

Expr scalarExpr(Operation *op, const std::vector<Expr> &x, const Halide::Target &target) {
  if (auto cmp = dyn_cast<arith::CmpFOp>(op))
    return cmpF(cmp.getPredicate(), x[0], x[1]);
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    return cmpI(cmp.getPredicate(), x[0], x[1]);
  llvm::StringRef name = op->getName().getStringRef();
  Type resultElem = getElementTypeOrSelf(op->getResult(0).getType());
  std::optional<Halide::Type> rt = halideType(resultElem);
  if (!rt)
    return Expr();
  auto f = [&](int i) { return Halide::cast(Halide::Float(32), x[i]); };
  return llvm::StringSwitch<std::function<Expr()>>(name)
      .Cases("arith.addf", "arith.addi", [&] { return x[0] + x[1]; })
      .Cases("arith.subf", "arith.subi", [&] { return x[0] - x[1]; })
      .Cases("arith.mulf", "arith.muli", [&] { return x[0] * x[1]; })
      .Case("arith.divf", [&] { return x[0] / x[1]; })
      .Cases("arith.divsi", "arith.divui", [&] { return Halide::div_round_to_zero(x[0], x[1]); })
      .Case("arith.floordivsi", [&] { return floorDiv(x[0], x[1]); })
      .Case("arith.remf", [&] { return x[0] - x[1] * Halide::trunc(x[0] / x[1]); })
      .Cases("arith.remsi", "arith.remui", [&] { return Halide::mod_round_to_zero(x[0], x[1]); })
      .Case("arith.negf", [&] { return -x[0]; })
      .Cases("arith.maximumf", "arith.maxnumf", "arith.maxsi", "arith.maxui",
             [&] { return Halide::max(x[0], x[1]); })
      .Cases("arith.minimumf", "arith.minnumf", "arith.minsi", "arith.minui",
             [&] { return Halide::min(x[0], x[1]); })
      .Case("arith.select", [&] { return Halide::select(x[0], x[1], x[2]); })
      .Cases("arith.extf", "arith.truncf", [&] { return x[0]; })
      .Cases("arith.sitofp", "arith.uitofp", [&] { return Halide::cast(Halide::Float(32), x[0]); })
      .Cases("arith.fptosi", "arith.fptoui", [&] { return Halide::cast(*rt, x[0]); })
      .Cases("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui",
             "arith.trunci", [&] { return Halide::cast(*rt, x[0]); })
      .Case("arith.andi", [&] { return rt->is_bool() ? (x[0] && x[1]) : (x[0] & x[1]); })
      .Case("arith.ori", [&] { return rt->is_bool() ? (x[0] || x[1]) : (x[0] | x[1]); })
      .Case("arith.xori", [&] { return rt->is_bool() ? (x[0] != x[1]) : (x[0] ^ x[1]); })
      .Case("math.exp", [&] { return accurateExp(f(0)); })
      .Case("math.exp2", [&] { return accurateExp(f(0) * 0.693147180559945f); })
      .Case("math.expm1", [&] { return accurateExp(f(0)) - 1.0f; })
      .Case("math.log", [&] { return Halide::log(f(0)); })
      .Case("math.log1p", [&] { return Halide::log(1.0f + f(0)); })
      .Case("math.log2", [&] { return Halide::log(f(0)) * 1.44269504088896f; })
      .Case("math.tanh", [&] { return Halide::tanh(f(0)); })
      .Case("math.sqrt", [&] { return Halide::sqrt(f(0)); })
      .Case("math.rsqrt", [&] { return 1.0f / Halide::sqrt(f(0)); })
      .Case("math.absf", [&] { return Halide::abs(x[0]); })
      .Case("math.sin", [&] { return Halide::sin(f(0)); })
      .Case("math.cos", [&] { return Halide::cos(f(0)); })
      .Case("math.powf", [&] { return Halide::pow(f(0), f(1)); })
      .Case("math.floor", [&] { return Halide::floor(f(0)); })
      .Case("math.ceil", [&] { return Halide::ceil(f(0)); })
      .Case("math.round", [&] { return roundTiesAwayFromZero(f(0)); })
      .Case("math.roundeven", [&] { return roundTiesToEven(f(0), target); })
      .Case("math.fma", [&] { return x[0] * x[1] + x[2]; })
      .Default([] { return Expr(); })();
}

namespace {

/// An arith/math op on tensors (or scalars): the scalar op at every index.
LogicalResult lowerElementwise(Operation *op, LoweringState &state) {
  Type type = op->getResult(0).getType();
  std::vector<Halide::Expr> shape = shapeExprs(type);
  std::vector<TensorFunc> ins;
  for (Value v : op->getOperands())
    ins.push_back(state.get(v));
  bool ok = true;
  TensorFunc out = state.define(op->getName().stripDialect(), shape,
                                [&](const std::vector<Expr> &idx) {
                                  std::vector<Expr> xs;
                                  for (const TensorFunc &in : ins)
                                    // A scalar condition of select broadcasts.
                                    xs.push_back(in.rank() == 0 ? in.func() : at(in, idx));
                                  Expr e = scalarExpr(op, xs, state.target);
                                  ok = e.defined();
                                  return ok ? e : Expr(0.0f);
                                });
  if (!ok)
    return op->emitError() << "cannot lower '" << op->getName() << "' to Halide";
  state.set(op->getResult(0), out);
  return success();
}

/// Constants: splats become expressions, other dense values embedded buffers.
LogicalResult lowerConstant(Operation *op, LoweringState &state) {
  auto c = cast<arith::ConstantOp>(op);
  Type type = c.getType();
  std::vector<Halide::Expr> shape = shapeExprs(type);
  std::optional<Halide::Type> et = halideType(getElementTypeOrSelf(type));
  if (!et)
    return op->emitError() << "cannot lower a constant of type " << type << " to Halide";
  auto scalar = [&](Attribute a) -> Expr {
    if (auto f = dyn_cast<FloatAttr>(a))
      return Halide::cast(*et, Expr(static_cast<float>(f.getValueAsDouble())));
    if (auto i = dyn_cast<IntegerAttr>(a))
      return et->is_bool() ? Expr(i.getValue().getBoolValue())
                           : Halide::cast(*et, Expr(static_cast<int>(i.getValue().getSExtValue())));
    return Expr();
  };
  Attribute value = c.getValue();
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense || dense.isSplat()) {
    Expr e = scalar(dense ? dense.getSplatValue<Attribute>() : value);
    if (!e.defined())
      return op->emitError() << "unsupported constant " << value;
    state.set(c.getResult(),
              state.define("const", shape, [&](const auto &) { return e; }, /*inlined=*/true));
    return success();
  }
  const bool f32 = dense.getElementType().isF32(), i32 = dense.getElementType().isInteger(32);
  if (!f32 && !i32)
    return op->emitError() << "only f32 and i32 dense constants are supported, got " << type;
  auto t = cast<RankedTensorType>(type);
  std::vector<int> extents(t.getShape().rbegin(), t.getShape().rend());
  Halide::Buffer<> buf(f32 ? Halide::Float(32) : Halide::Int(32), extents,
                       state.uniqueName("const_data"));
  int64_t i = 0;
  if (f32)
    for (float v : dense.getValues<float>())
      static_cast<float *>(buf.data())[i++] = v;
  else
    for (int32_t v : dense.getValues<int32_t>())
      static_cast<int32_t *>(buf.data())[i++] = v;
  TensorFunc out{Halide::Func(state.uniqueName("const")), shape};
  std::vector<Halide::Var> vars(shape.size());
  std::vector<Halide::Expr> args(vars.begin(), vars.end());
  out.func(vars) = buf(args);
  state.addGenericStage(out);
  state.set(c.getResult(), out);
  return success();
}

} // namespace

void registerArithMathLowerings(llvm::StringMap<LowerFn> &table) {
  for (const char *name :
       {"arith.addf", "arith.addi", "arith.subf", "arith.subi", "arith.mulf", "arith.muli",
        "arith.divf", "arith.divsi", "arith.divui", "arith.floordivsi", "arith.remf",
        "arith.remsi", "arith.remui", "arith.negf", "arith.maximumf", "arith.maxnumf",
        "arith.maxsi", "arith.maxui", "arith.minimumf", "arith.minnumf", "arith.minsi",
        "arith.minui", "arith.select", "arith.extf", "arith.truncf", "arith.sitofp",
        "arith.uitofp", "arith.fptosi", "arith.fptoui", "arith.index_cast",
        "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci", "arith.andi",
        "arith.ori", "arith.xori", "arith.cmpf", "arith.cmpi", "math.exp", "math.exp2",
        "math.expm1", "math.log", "math.log1p", "math.log2", "math.tanh", "math.sqrt",
        "math.rsqrt", "math.absf", "math.sin", "math.cos", "math.powf", "math.floor",
        "math.ceil", "math.round", "math.roundeven", "math.fma"})
    table[name] = lowerElementwise;
  table["arith.constant"] = lowerConstant;
}

} // namespace ssm::codegen
