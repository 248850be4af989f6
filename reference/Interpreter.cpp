// The reference interpreter: executes ssm and upstream ops on host arrays in f64.
#include "reference/Interpreter.h"

#include "llvm/ADT/ScopeExit.h"

#include "dialect/SsmOpList.h"
#include "frontend/StaticLimits.h"
#include "reference/kernels/AffineScan.h"
#include "reference/kernels/CausalConv1d.h"
#include "reference/kernels/Discretize.h"
#include "reference/kernels/LtiConv.h"
#include "reference/kernels/LtiKernel.h"
#include "reference/kernels/SelectiveScan.h"
#include "reference/kernels/SelectiveUpdate.h"
#include "reference/kernels/SsdScan.h"
#include "reference/kernels/Wkv4.h"
#include "reference/kernels/Wkv7.h"
#include "reference/kernels/GatedDeltaRule.h"
#include "reference/kernels/Rope.h"
#include "reference/kernels/Attention.h"
#include "reference/kernels/Dequantize.h"
#include "reference/kernels/QuantizeActivations.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <memory>

using namespace mlir;
using ssm::ref::Array;

namespace {

using ArrayPtr = std::shared_ptr<const Array>;
using Env = llvm::DenseMap<Value, ArrayPtr>;

std::string locString(Location loc) {
  if (auto fl = dyn_cast<FileLineColLoc>(loc))
    return llvm::formatv("{0}:{1}:{2}", fl.getFilename().getValue(), fl.getLine(),
                         fl.getColumn());
  if (auto nl = dyn_cast<NameLoc>(loc))
    return locString(nl.getChildLoc());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return locString(fused.getLocations().front());
  return "<unknown>";
}

llvm::Error opError(Operation *op, const llvm::Twine &msg) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("{0}: '{1}': {2}", locString(op->getLoc()),
                    op->getName().getStringRef(), msg.str()));
}

std::vector<int64_t> staticShape(Type t) {
  if (auto rt = dyn_cast<RankedTensorType>(t))
    return std::vector<int64_t>(rt.getShape().begin(), rt.getShape().end());
  return {};
}

bool isStatic(Type t) {
  if (auto st = dyn_cast<ShapedType>(t))
    return st.hasStaticShape();
  return true;
}

//===----------------------------------------------------------------------===//
// Scalar semantics shared by elementwise tensor ops and linalg bodies.
//===----------------------------------------------------------------------===//

enum class SK {
  Add, Sub, Mul, Div, DivTrunc, DivFloor, DivCeil, Rem, Neg, Max, Min, MaxNum,
  MinNum, Exp, Exp2, Expm1, Log, Log1p, Log2, Log10, Tanh, Sqrt, Rsqrt, Abs,
  Sin, Cos, Erf, Pow, Floor, Ceil, Round, RoundEven, Fma, CmpF, CmpI, Select, Identity,
  ToInt, And, Or, Xor
};

struct ScalarOp {
  SK kind;
  int64_t predicate = 0;
};

std::optional<ScalarOp> classify(Operation *op) {
  if (auto cmp = dyn_cast<arith::CmpFOp>(op))
    return ScalarOp{SK::CmpF, static_cast<int64_t>(cmp.getPredicate())};
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    return ScalarOp{SK::CmpI, static_cast<int64_t>(cmp.getPredicate())};
  std::optional<SK> k =
      llvm::StringSwitch<std::optional<SK>>(op->getName().getStringRef())
          .Cases("arith.addf", "arith.addi", SK::Add)
          .Cases("arith.subf", "arith.subi", SK::Sub)
          .Cases("arith.mulf", "arith.muli", SK::Mul)
          .Case("arith.divf", SK::Div)
          .Cases("arith.divsi", "arith.divui", SK::DivTrunc)
          .Case("arith.floordivsi", SK::DivFloor)
          .Cases("arith.ceildivsi", "arith.ceildivui", SK::DivCeil)
          .Cases("arith.remf", "arith.remsi", "arith.remui", SK::Rem)
          .Case("arith.negf", SK::Neg)
          .Cases("arith.maximumf", "arith.maxsi", "arith.maxui", SK::Max)
          .Cases("arith.minimumf", "arith.minsi", "arith.minui", SK::Min)
          .Case("arith.maxnumf", SK::MaxNum)
          .Case("arith.minnumf", SK::MinNum)
          .Case("arith.select", SK::Select)
          .Cases("arith.extf", "arith.truncf", "arith.sitofp", "arith.uitofp",
                 "arith.index_cast", "arith.index_castui", "arith.extsi",
                 "arith.extui", SK::Identity)
          .Cases("arith.fptosi", "arith.fptoui", "arith.trunci", SK::ToInt)
          .Case("arith.andi", SK::And)
          .Case("arith.ori", SK::Or)
          .Case("arith.xori", SK::Xor)
          .Case("math.exp", SK::Exp)
          .Case("math.exp2", SK::Exp2)
          .Case("math.expm1", SK::Expm1)
          .Case("math.log", SK::Log)
          .Case("math.log1p", SK::Log1p)
          .Case("math.log2", SK::Log2)
          .Case("math.log10", SK::Log10)
          .Case("math.tanh", SK::Tanh)
          .Case("math.sqrt", SK::Sqrt)
          .Case("math.rsqrt", SK::Rsqrt)
          .Cases("math.absf", "math.absi", SK::Abs)
          .Case("math.sin", SK::Sin)
          .Case("math.cos", SK::Cos)
          .Case("math.erf", SK::Erf)
          .Cases("math.powf", "math.fpowi", "math.ipowi", SK::Pow)
          .Case("math.floor", SK::Floor)
          .Case("math.ceil", SK::Ceil)
          .Case("math.round", SK::Round)         // ties away from zero (MLIR's math.round)
          .Case("math.roundeven", SK::RoundEven) // ties to even
          .Case("math.fma", SK::Fma)
          .Default(std::nullopt);
  if (!k)
    return std::nullopt;
  return ScalarOp{*k};
}

bool cmpF(int64_t pred, double a, double b) {
  using P = arith::CmpFPredicate;
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (static_cast<P>(pred)) {
  case P::AlwaysFalse: return false;
  case P::OEQ: return !unordered && a == b;
  case P::OGT: return !unordered && a > b;
  case P::OGE: return !unordered && a >= b;
  case P::OLT: return !unordered && a < b;
  case P::OLE: return !unordered && a <= b;
  case P::ONE: return !unordered && a != b;
  case P::ORD: return !unordered;
  case P::UEQ: return unordered || a == b;
  case P::UGT: return unordered || a > b;
  case P::UGE: return unordered || a >= b;
  case P::ULT: return unordered || a < b;
  case P::ULE: return unordered || a <= b;
  case P::UNE: return unordered || a != b;
  case P::UNO: return unordered;
  case P::AlwaysTrue: return true;
  }
  return false;
}

bool cmpI(int64_t pred, double a, double b) {
  using P = arith::CmpIPredicate;
  switch (static_cast<P>(pred)) {
  case P::eq: return a == b;
  case P::ne: return a != b;
  case P::slt: case P::ult: return a < b;
  case P::sle: case P::ule: return a <= b;
  case P::sgt: case P::ugt: return a > b;
  case P::sge: case P::uge: return a >= b;
  }
  return false;
}

double evalScalar(const ScalarOp &s, const double *x) {
  switch (s.kind) {
  case SK::Add: return x[0] + x[1];
  case SK::Sub: return x[0] - x[1];
  case SK::Mul: return x[0] * x[1];
  case SK::Div: return x[0] / x[1];
  case SK::DivTrunc: return x[1] == 0 ? 0 : std::trunc(x[0] / x[1]);
  case SK::DivFloor: return x[1] == 0 ? 0 : std::floor(x[0] / x[1]);
  case SK::DivCeil: return x[1] == 0 ? 0 : std::ceil(x[0] / x[1]);
  case SK::Rem: return std::fmod(x[0], x[1]);
  case SK::Neg: return -x[0];
  case SK::Max:
    return (std::isnan(x[0]) || std::isnan(x[1])) ? NAN : std::max(x[0], x[1]);
  case SK::Min:
    return (std::isnan(x[0]) || std::isnan(x[1])) ? NAN : std::min(x[0], x[1]);
  case SK::MaxNum: return std::fmax(x[0], x[1]);
  case SK::MinNum: return std::fmin(x[0], x[1]);
  case SK::Exp: return std::exp(x[0]);
  case SK::Exp2: return std::exp2(x[0]);
  case SK::Expm1: return std::expm1(x[0]);
  case SK::Log: return std::log(x[0]);
  case SK::Log1p: return std::log1p(x[0]);
  case SK::Log2: return std::log2(x[0]);
  case SK::Log10: return std::log10(x[0]);
  case SK::Tanh: return std::tanh(x[0]);
  case SK::Sqrt: return std::sqrt(x[0]);
  case SK::Rsqrt: return 1.0 / std::sqrt(x[0]);
  case SK::Abs: return std::fabs(x[0]);
  case SK::Sin: return std::sin(x[0]);
  case SK::Cos: return std::cos(x[0]);
  case SK::Erf: return std::erf(x[0]);
  case SK::Pow: return std::pow(x[0], x[1]);
  case SK::Floor: return std::floor(x[0]);
  case SK::Ceil: return std::ceil(x[0]);
  case SK::Round: return std::round(x[0]);
  case SK::RoundEven: return std::nearbyint(x[0]);
  case SK::Fma: return x[0] * x[1] + x[2];
  case SK::CmpF: return cmpF(s.predicate, x[0], x[1]) ? 1.0 : 0.0;
  case SK::CmpI: return cmpI(s.predicate, x[0], x[1]) ? 1.0 : 0.0;
  case SK::Select: return x[0] != 0 ? x[1] : x[2];
  case SK::Identity: return x[0];
  case SK::ToInt: return std::trunc(x[0]);
  case SK::And: return double(int64_t(x[0]) & int64_t(x[1]));
  case SK::Or: return double(int64_t(x[0]) | int64_t(x[1]));
  case SK::Xor: return double(int64_t(x[0]) ^ int64_t(x[1]));
  }
  return NAN;
}

/// Reads a constant attribute (scalar or dense tensor) as doubles.
std::optional<Array> constantArray(Attribute attr, Type type) {
  if (auto f = dyn_cast<FloatAttr>(attr))
    return Array({}, {f.getValueAsDouble()});
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return Array({}, {double(i.getType().isInteger(1) ? i.getValue().getZExtValue()
                                                      : i.getValue().getSExtValue())});
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    Array a(staticShape(type));
    int64_t n = a.numel();
    if (dense.getElementType().isa<FloatType>()) {
      auto values = dense.getValues<APFloat>();
      for (int64_t i = 0; i < n; ++i)
        a.data[i] = (dense.isSplat() ? *values.begin() : values[i]).convertToDouble();
    } else {
      bool isBool = dense.getElementType().isInteger(1);
      auto values = dense.getValues<APInt>();
      for (int64_t i = 0; i < n; ++i) {
        APInt v = dense.isSplat() ? *values.begin() : values[i];
        a.data[i] = isBool ? double(v.getZExtValue()) : double(v.getSExtValue());
      }
    }
    return a;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Affine maps evaluated on integer points.
//===----------------------------------------------------------------------===//

int64_t evalAffine(AffineExpr e, ArrayRef<int64_t> dims) {
  switch (e.getKind()) {
  case AffineExprKind::DimId:
    return dims[cast<AffineDimExpr>(e).getPosition()];
  case AffineExprKind::Constant:
    return cast<AffineConstantExpr>(e).getValue();
  case AffineExprKind::SymbolId:
    return 0;
  default:
    break;
  }
  auto bin = cast<AffineBinaryOpExpr>(e);
  int64_t l = evalAffine(bin.getLHS(), dims), r = evalAffine(bin.getRHS(), dims);
  if (r == 0 && e.getKind() != AffineExprKind::Add && e.getKind() != AffineExprKind::Mul)
    return 0; // `mod 0` / `floordiv 0` verify in MLIR 19; never divide by zero here
  switch (e.getKind()) {
  case AffineExprKind::Add: return l + r;
  case AffineExprKind::Mul: return l * r;
  case AffineExprKind::Mod: return ((l % r) + r) % r;
  case AffineExprKind::FloorDiv: return l / r - ((l % r != 0) && ((l < 0) != (r < 0)));
  case AffineExprKind::CeilDiv: return l / r + ((l % r != 0) && ((l < 0) == (r < 0)));
  default: return 0;
  }
}

/// Offset of map(point) in a row-major array of `shape`; fast path for maps
/// whose results are plain dims (the common case).
struct OperandAccess {
  AffineMap map;
  std::vector<int64_t> shape;
  std::vector<std::pair<unsigned, int64_t>> dimStrides; // valid if simple
  bool simple = true;

  OperandAccess(AffineMap m, std::vector<int64_t> s) : map(m), shape(std::move(s)) {
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = int64_t(shape.size()) - 2; i >= 0; --i)
      strides[i] = strides[i + 1] * shape[i + 1];
    for (unsigned r = 0; r < map.getNumResults(); ++r) {
      if (auto d = dyn_cast<AffineDimExpr>(map.getResult(r)))
        dimStrides.push_back({d.getPosition(), strides[r]});
      else if (auto c = dyn_cast<AffineConstantExpr>(map.getResult(r));
               c && c.getValue() == 0)
        continue;
      else
        simple = false;
    }
  }

  int64_t offset(ArrayRef<int64_t> point) const {
    int64_t off = 0;
    if (simple) {
      for (auto [d, s] : dimStrides)
        off += point[d] * s;
      return off;
    }
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      off = off * shape[r] + evalAffine(map.getResult(r), point);
    return off;
  }
};

//===----------------------------------------------------------------------===//
// The interpreter proper.
//===----------------------------------------------------------------------===//

class Interpreter {
  std::vector<Operation *> callStack; // functions being run, outermost first

public:
  llvm::Expected<std::vector<Array>> call(func::FuncOp func,
                                          const std::vector<Array> &args) {
    if (func.isExternal())
      return opError(func, "function '" + func.getSymName() + "' has no body");
    // Recursion has no base case without control flow: refuse it rather
    // than overflow the stack.
    for (Operation *active : callStack)
      if (active == func.getOperation())
        return opError(func, "function '" + func.getSymName() +
                                 "' calls itself (directly or through other calls); recursion "
                                 "is not supported");
    callStack.push_back(func.getOperation());
    auto popped = llvm::make_scope_exit([&] { callStack.pop_back(); });
    FunctionType type = func.getFunctionType();
    if (args.size() != type.getNumInputs())
      return opError(func, llvm::formatv("function '{0}' takes {1} arguments, got {2}",
                                         func.getSymName(), type.getNumInputs(),
                                         args.size()));
    Env env;
    Block &entry = func.getBody().front();
    for (unsigned i = 0; i < args.size(); ++i) {
      if (std::string why = ssm::checkTensorSize(type.getInput(i)); !why.empty())
        return opError(func, llvm::formatv("argument {0}: {1}", i, why));
      std::vector<int64_t> want = staticShape(type.getInput(i));
      if (!isStatic(type.getInput(i)))
        return opError(func, llvm::formatv("argument {0} has a dynamic shape", i));
      if (args[i].shape != want)
        return opError(func, llvm::formatv(
                                 "argument {0} of '{1}' has shape {2} but the function "
                                 "expects {3}",
                                 i, func.getSymName(), ssm::ref::shapeToString(args[i].shape),
                                 ssm::ref::shapeToString(want)));
      env[entry.getArgument(i)] = std::make_shared<Array>(args[i]);
    }
    for (Operation &op : entry) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        std::vector<Array> results;
        for (Value v : ret.getOperands())
          results.push_back(*env.lookup(v));
        return results;
      }
      if (llvm::Error err = exec(&op, env))
        return std::move(err);
    }
    return opError(func, "function body has no func.return");
  }

private:
  const Array &get(Env &env, Value v) { return *env.lookup(v); }
  const Array *getOpt(Env &env, Value v) { return v ? env.lookup(v).get() : nullptr; }

  llvm::Error exec(Operation *op, Env &env) {
    for (Value r : op->getResults()) {
      if (!isStatic(r.getType()))
        return opError(op, "dynamic shapes are not supported by the reference interpreter");
      // Before anything is allocated: an element count beyond the limit (or
      // beyond int64) is refused with a message, not a length_error or OOM.
      if (std::string why = ssm::checkTensorSize(r.getType()); !why.empty())
        return opError(op, why);
    }
    // Static slices outside their tensor verify in MLIR 19; refuse them here.
    if (std::string why = ssm::checkSliceBounds(op); !why.empty())
      return opError(op, why);
    for (Value v : op->getOperands())
      if (!env.count(v))
        return opError(op, "operand defined outside the interpreted function");

    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      std::optional<Array> a = constantArray(c.getValue(), c.getType());
      if (!a)
        return opError(op, "unsupported constant attribute");
      env[c.getResult()] = std::make_shared<Array>(std::move(*a));
      return llvm::Error::success();
    }
    if (std::optional<ScalarOp> s = classify(op))
      return execElementwise(op, *s, env);
    if (isa<linalg::LinalgOp>(op))
      return execLinalg(cast<linalg::LinalgOp>(op), env);
    if (auto callOp = dyn_cast<func::CallOp>(op)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(op, callOp.getCalleeAttr());
      if (!callee)
        return opError(op, "unknown callee '" + callOp.getCallee() + "'");
      std::vector<Array> args;
      for (Value v : callOp.getOperands())
        args.push_back(get(env, v));
      auto results = call(callee, args);
      if (!results)
        return results.takeError();
      for (unsigned i = 0; i < results->size(); ++i)
        env[op->getResult(i)] = std::make_shared<Array>(std::move((*results)[i]));
      return llvm::Error::success();
    }
    if (op->getDialect() && op->getDialect()->getNamespace() == "tensor")
      return execTensor(op, env);
    if (op->getDialect() && op->getDialect()->getNamespace() == "ssm")
      return execSsm(op, env);
    return opError(op, "unsupported op in the reference interpreter");
  }

  void set(Env &env, Value v, Array a) { env[v] = std::make_shared<Array>(std::move(a)); }

  llvm::Error execElementwise(Operation *op, const ScalarOp &s, Env &env) {
    Array out(staticShape(op->getResult(0).getType()));
    int64_t n = out.numel();
    std::vector<const Array *> ins;
    for (Value v : op->getOperands())
      ins.push_back(env.lookup(v).get());
    double x[3] = {0, 0, 0};
    for (int64_t i = 0; i < n; ++i) {
      for (size_t k = 0; k < ins.size() && k < 3; ++k)
        x[k] = ins[k]->data[ins[k]->numel() == 1 ? 0 : i];
      out.data[i] = evalScalar(s, x);
    }
    set(env, op->getResult(0), std::move(out));
    return llvm::Error::success();
  }

  /// C += A B (or A B^T, A^T B): the named matmuls as direct loops. Their
  /// bodies are exactly multiply-accumulate, and a 1 GFLOP layer would take a
  /// minute through the generic per-point path below.
  bool execMatmul(Operation *op, Env &env) {
    bool transA = isa<linalg::MatmulTransposeAOp>(op);
    bool transB = isa<linalg::MatmulTransposeBOp>(op);
    if (!isa<linalg::MatmulOp>(op) && !transA && !transB)
      return false;
    const Array &a = get(env, op->getOperand(0));
    const Array &b = get(env, op->getOperand(1));
    Array c = get(env, op->getOperand(2));
    int64_t m = c.shape[0], n = c.shape[1];
    int64_t k = transA ? a.shape[0] : a.shape[1];
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = c.data[i * n + j];
        for (int64_t p = 0; p < k; ++p)
          acc += (transA ? a.data[p * m + i] : a.data[i * k + p]) *
                 (transB ? b.data[j * k + p] : b.data[p * n + j]);
        c.data[i * n + j] = acc;
      }
    set(env, op->getResult(0), std::move(c));
    return true;
  }

  /// Any structured linalg op: walk the iteration space, evaluate the body
  /// (a straight-line list of scalar ops) at each point.
  llvm::Error execLinalg(linalg::LinalgOp lop, Env &env) {
    Operation *op = lop.getOperation();
    if (execMatmul(op, env))
      return llvm::Error::success();
    SmallVector<int64_t> ranges = lop.getStaticLoopRanges();
    for (int64_t r : ranges)
      if (ShapedType::isDynamic(r))
        return opError(op, "dynamic loop range");
    SmallVector<AffineMap> maps = lop.getIndexingMapsArray();
    Block *body = lop.getBlock();
    unsigned numIns = lop.getNumDpsInputs(), numOuts = lop.getNumDpsInits();
    unsigned numOperands = numIns + numOuts;

    // Slots: block arguments, then one per body op result.
    llvm::DenseMap<Value, int> slotOf;
    std::vector<double> slots(body->getNumArguments(), 0.0);
    for (unsigned i = 0; i < body->getNumArguments(); ++i)
      slotOf[body->getArgument(i)] = i;
    struct Instr {
      ScalarOp op;
      SmallVector<int, 3> in;
      int out;
      const Array *table = nullptr; // tensor.extract: a gather from this array
    };
    std::vector<Instr> program;
    std::vector<std::pair<int, unsigned>> indexSlots;
    std::vector<int> yields;
    auto slotFor = [&](Value v) -> int {
      auto it = slotOf.find(v);
      if (it != slotOf.end())
        return it->second;
      // A scalar from outside the body: a constant of this op.
      const Array *outer = env.lookup(v).get();
      int s = slots.size();
      slots.push_back(outer && outer->numel() == 1 ? outer->data[0] : NAN);
      slotOf[v] = s;
      return outer && outer->numel() == 1 ? s : -1;
    };
    for (Operation &bop : *body) {
      if (auto y = dyn_cast<linalg::YieldOp>(bop)) {
        for (Value v : y.getOperands()) {
          int s = slotFor(v);
          if (s < 0)
            return opError(&bop, "yields a value that is not a scalar");
          yields.push_back(s);
        }
        continue;
      }
      int out = slots.size();
      slots.push_back(0.0);
      if (bop.getNumResults() != 1)
        return opError(&bop, "unsupported op in a linalg body");
      slotOf[bop.getResult(0)] = out;
      if (auto idx = dyn_cast<linalg::IndexOp>(bop)) {
        indexSlots.push_back({out, unsigned(idx.getDim())});
        continue;
      }
      if (auto c = dyn_cast<arith::ConstantOp>(bop)) {
        std::optional<Array> a = constantArray(c.getValue(), c.getType());
        if (!a || a->numel() != 1)
          return opError(&bop, "unsupported constant in a linalg body");
        slots[out] = a->data[0];
        continue;
      }
      if (auto ex = dyn_cast<tensor::ExtractOp>(bop)) {
        const Array *table = env.lookup(ex.getTensor()).get();
        if (!table)
          return opError(&bop, "tensor.extract from a tensor defined inside the body");
        Instr ins{ScalarOp{SK::Identity}, {}, out, table};
        for (Value v : ex.getIndices()) {
          int sl = slotFor(v);
          if (sl < 0)
            return opError(&bop, "index is not a scalar");
          ins.in.push_back(sl);
        }
        program.push_back(ins);
        continue;
      }
      std::optional<ScalarOp> s = classify(&bop);
      if (!s)
        return opError(&bop, "unsupported op in a linalg body");
      Instr ins{*s, {}, out};
      for (Value v : bop.getOperands()) {
        int sl = slotFor(v);
        if (sl < 0)
          return opError(&bop, "operand is not a scalar");
        ins.in.push_back(sl);
      }
      program.push_back(ins);
    }

    std::vector<const Array *> inputs;
    std::vector<Array> outputs;
    std::vector<OperandAccess> access;
    for (unsigned i = 0; i < numOperands; ++i) {
      Value v = op->getOperand(i);
      const Array *a = env.lookup(v).get();
      if (i < numIns)
        inputs.push_back(a);
      else
        outputs.push_back(*a);
      access.emplace_back(maps[i], a->shape);
    }
    // linalg.map's body takes only the inputs; every other op takes all operands.
    unsigned numArgs = body->getNumArguments();
    int64_t total = 1;
    for (int64_t r : ranges)
      total *= r;
    std::vector<int64_t> point(ranges.size(), 0);
    for (int64_t it = 0; it < total; ++it) {
      for (unsigned i = 0; i < numArgs && i < numOperands; ++i) {
        const Array &a = i < numIns ? *inputs[i] : outputs[i - numIns];
        slots[i] = a.data[access[i].offset(point)];
      }
      for (auto [slot, dim] : indexSlots)
        slots[slot] = double(point[dim]);
      for (const Instr &ins : program) {
        if (ins.table) {
          int64_t off = 0;
          for (size_t k = 0; k < ins.in.size(); ++k) {
            int64_t i = static_cast<int64_t>(slots[ins.in[k]]);
            if (i < 0 || i >= ins.table->shape[k])
              return opError(op, llvm::formatv("tensor.extract index {0} is out of range for "
                                                "dim {1} of size {2}",
                                                i, k, ins.table->shape[k]));
            off = off * ins.table->shape[k] + i;
          }
          slots[ins.out] = ins.table->data[off];
          continue;
        }
        double x[3] = {0, 0, 0};
        for (size_t k = 0; k < ins.in.size() && k < 3; ++k)
          x[k] = slots[ins.in[k]];
        slots[ins.out] = evalScalar(ins.op, x);
      }
      for (unsigned j = 0; j < numOuts; ++j)
        outputs[j].data[access[numIns + j].offset(point)] = slots[yields[j]];
      for (int64_t d = int64_t(point.size()) - 1; d >= 0; --d) {
        if (++point[d] < ranges[d])
          break;
        point[d] = 0;
      }
    }
    for (unsigned j = 0; j < op->getNumResults(); ++j)
      set(env, op->getResult(j), std::move(outputs[j]));
    return llvm::Error::success();
  }

  llvm::Error execTensor(Operation *op, Env &env) {
    if (auto e = dyn_cast<tensor::EmptyOp>(op)) {
      set(env, e.getResult(), Array(staticShape(e.getType())));
      return llvm::Error::success();
    }
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp,
            tensor::ReshapeOp>(op)) {
      Array a = get(env, op->getOperand(0));
      a.shape = staticShape(op->getResult(0).getType());
      set(env, op->getResult(0), std::move(a));
      return llvm::Error::success();
    }
    if (auto ex = dyn_cast<tensor::ExtractOp>(op)) {
      const Array &src = get(env, ex.getTensor());
      std::vector<int64_t> idx;
      for (Value v : ex.getIndices())
        idx.push_back(int64_t(get(env, v).data[0]));
      for (size_t i = 0; i < idx.size(); ++i)
        if (idx[i] < 0 || idx[i] >= src.shape[i])
          return opError(op, llvm::formatv("index {0} out of range for dim {1} of size {2}",
                                           idx[i], i, src.shape[i]));
      set(env, ex.getResult(), Array({}, {src.data[src.offset(idx)]}));
      return llvm::Error::success();
    }
    if (auto ins = dyn_cast<tensor::InsertOp>(op)) {
      Array dst = get(env, ins.getDest());
      std::vector<int64_t> idx;
      for (Value v : ins.getIndices())
        idx.push_back(int64_t(get(env, v).data[0]));
      for (size_t i = 0; i < idx.size(); ++i)
        if (idx[i] < 0 || idx[i] >= dst.shape[i])
          return opError(op, "index out of range");
      dst.data[dst.offset(idx)] = get(env, ins.getScalar()).data[0];
      set(env, ins.getResult(), std::move(dst));
      return llvm::Error::success();
    }
    if (auto sp = dyn_cast<tensor::SplatOp>(op)) {
      Array a(staticShape(sp.getType()));
      std::fill(a.data.begin(), a.data.end(), get(env, sp.getInput()).data[0]);
      set(env, sp.getResult(), std::move(a));
      return llvm::Error::success();
    }
    if (auto fe = dyn_cast<tensor::FromElementsOp>(op)) {
      Array a(staticShape(fe.getType()));
      for (unsigned i = 0; i < fe.getElements().size(); ++i)
        a.data[i] = get(env, fe.getElements()[i]).data[0];
      set(env, fe.getResult(), std::move(a));
      return llvm::Error::success();
    }
    if (auto cat = dyn_cast<tensor::ConcatOp>(op)) {
      Array out(staticShape(cat.getType()));
      int64_t dim = cat.getDim();
      int64_t outer = 1, inner = 1;
      for (int64_t i = 0; i < dim; ++i)
        outer *= out.shape[i];
      for (size_t i = dim + 1; i < out.shape.size(); ++i)
        inner *= out.shape[i];
      int64_t at = 0;
      for (Value v : cat.getInputs()) {
        const Array &a = get(env, v);
        int64_t len = a.shape[dim];
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t k = 0; k < len * inner; ++k)
            out.data[(o * out.shape[dim] + at) * inner + k] = a.data[o * len * inner + k];
        at += len;
      }
      set(env, cat.getResult(), std::move(out));
      return llvm::Error::success();
    }
    if (auto sl = dyn_cast<tensor::ExtractSliceOp>(op)) {
      if (!sl.getOffsets().empty() || !sl.getSizes().empty() || !sl.getStrides().empty())
        return opError(op, "dynamic offsets, sizes or strides");
      const Array &src = get(env, sl.getSource());
      Array out(std::vector<int64_t>(sl.getStaticSizes().begin(), sl.getStaticSizes().end()));
      copySlice(src, out, sl.getStaticOffsets(), sl.getStaticStrides(), /*toSlice=*/true);
      out.shape = staticShape(sl.getType()); // rank-reduced results drop unit dims
      set(env, sl.getResult(), std::move(out));
      return llvm::Error::success();
    }
    if (auto sl = dyn_cast<tensor::InsertSliceOp>(op)) {
      if (!sl.getOffsets().empty() || !sl.getSizes().empty() || !sl.getStrides().empty())
        return opError(op, "dynamic offsets, sizes or strides");
      Array dst = get(env, sl.getDest());
      Array src = get(env, sl.getSource());
      src.shape.assign(sl.getStaticSizes().begin(), sl.getStaticSizes().end());
      copySlice(dst, src, sl.getStaticOffsets(), sl.getStaticStrides(), /*toSlice=*/false);
      set(env, sl.getResult(), std::move(dst));
      return llvm::Error::success();
    }
    return opError(op, "unsupported tensor op in the reference interpreter");
  }

  /// Copies between `big` and the strided window `slice` (slice's shape).
  static void copySlice(const Array &big, Array &slice, ArrayRef<int64_t> offsets,
                        ArrayRef<int64_t> strides, bool toSlice) {
    std::vector<int64_t> idx(slice.shape.size(), 0), src(slice.shape.size());
    for (int64_t i = 0; i < slice.numel(); ++i) {
      for (size_t d = 0; d < idx.size(); ++d)
        src[d] = offsets[d] + idx[d] * strides[d];
      if (toSlice)
        slice.data[i] = big.data[big.offset(src)];
      else
        const_cast<Array &>(big).data[big.offset(src)] = slice.data[i];
      for (int64_t d = int64_t(idx.size()) - 1; d >= 0; --d) {
        if (++idx[d] < slice.shape[d])
          break;
        idx[d] = 0;
      }
    }
  }

  llvm::Error kernelResult(Operation *op, const std::string &err) {
    if (err.empty())
      return llvm::Error::success();
    return opError(op, err);
  }

  /// Runs one ssm op on its reference kernel (reference/kernels/). One
  /// overload per op of the dialect: an op without one does not compile
  /// (dialect/SsmOpList.h).
  struct SsmExec {
    Interpreter &in;
    Env &env;
    Array out0, out1, out2, out3;

    const Array &get(Value v) { return in.get(env, v); }
    const Array *getOpt(Value v) { return in.getOpt(env, v); }

    std::string operator()(ssm::DiscretizeOp o) {
      ssm::ref::DiscretizeArgs a;
      a.A = &get(o.getA());
      a.B = &get(o.getB());
      a.delta = &get(o.getDelta());
      a.methodA = o.getAMethod();
      a.methodB = o.getBMethod();
      return ssm::ref::discretize(a, out0, out1);
    }
    std::string operator()(ssm::AffineScanOp o) {
      ssm::ref::AffineScanArgs a;
      a.a = &get(o.getA());
      a.b = &get(o.getB());
      a.h0 = getOpt(o.getH0());
      a.reset = getOpt(o.getReset());
      a.dim = o.getDim();
      a.reverse = o.getReverse();
      return ssm::ref::affineScan(a, out0, out1);
    }
    std::string operator()(ssm::SelectiveScanOp o) {
      ssm::ref::SelectiveScanArgs a;
      a.u = &get(o.getU());
      a.delta = &get(o.getDelta());
      a.A = &get(o.getA());
      a.B = &get(o.getB());
      a.C = &get(o.getC());
      a.D = getOpt(o.getD());
      a.z = getOpt(o.getZ());
      a.deltaBias = getOpt(o.getDeltaBias());
      a.h0 = getOpt(o.getH0());
      a.deltaSoftplus = o.getDeltaSoftplus();
      a.layout = o.getLayout();
      return ssm::ref::selectiveScan(a, out0, out1);
    }
    std::string operator()(ssm::SelectiveUpdateOp o) {
      ssm::ref::SelectiveUpdateArgs a;
      a.state = &get(o.getState());
      a.x = &get(o.getX());
      a.dt = &get(o.getDt());
      a.A = &get(o.getA());
      a.B = &get(o.getB());
      a.C = &get(o.getC());
      a.D = getOpt(o.getD());
      a.z = getOpt(o.getZ());
      a.dtBias = getOpt(o.getDtBias());
      a.dtSoftplus = o.getDtSoftplus();
      return ssm::ref::selectiveUpdate(a, out0, out1);
    }
    std::string operator()(ssm::LtiKernelOp o) {
      ssm::ref::LtiKernelArgs a;
      a.A = &get(o.getA());
      a.B = getOpt(o.getB());
      a.C = &get(o.getC());
      a.delta = &get(o.getDelta());
      a.method = o.getDiscretization();
      a.bMethod = o.getBMethod();
      a.length = o.getK().getType().getDimSize(1);
      return ssm::ref::ltiKernel(a, out0);
    }
    std::string operator()(ssm::LtiConvOp o) {
      ssm::ref::LtiConvArgs a;
      a.u = &get(o.getU());
      a.K = &get(o.getK());
      a.D = getOpt(o.getD());
      return ssm::ref::ltiConv(a, out0);
    }
    std::string operator()(ssm::CausalConv1dOp o) {
      ssm::ref::CausalConv1dArgs a;
      a.x = &get(o.getX());
      a.weight = &get(o.getWeight());
      a.bias = getOpt(o.getBias());
      a.initialStates = getOpt(o.getInitialStates());
      a.activation = o.getActivation();
      return ssm::ref::causalConv1d(a, out0, out1);
    }
    std::string operator()(ssm::SsdScanOp o) {
      ssm::ref::SsdScanArgs a;
      a.X = &get(o.getX());
      a.A = &get(o.getA());
      a.B = &get(o.getB());
      a.C = &get(o.getC());
      a.initialState = getOpt(o.getInitialState());
      a.bonus = getOpt(o.getBonus());
      return ssm::ref::ssdScan(a, out0, out1);
    }
    std::string operator()(ssm::Wkv4Op o) {
      ssm::ref::Wkv4Args a;
      a.w = &get(o.getW());
      a.u = &get(o.getU());
      a.k = &get(o.getK());
      a.v = &get(o.getV());
      a.aa = getOpt(o.getAa());
      a.bb = getOpt(o.getBb());
      a.pp = getOpt(o.getPp());
      return ssm::ref::wkv4(a, out0, out1, out2, out3);
    }
    std::string operator()(ssm::Wkv7Op o) {
      ssm::ref::Wkv7Args a;
      a.r = &get(o.getR());
      a.w = &get(o.getW());
      a.k = &get(o.getK());
      a.v = &get(o.getV());
      a.a = &get(o.getA());
      a.b = &get(o.getB());
      a.initialState = getOpt(o.getInitialState());
      return ssm::ref::wkv7(a, out0, out1);
    }
    std::string operator()(ssm::GatedDeltaRuleOp o) {
      ssm::ref::GatedDeltaRuleArgs a;
      a.q = &get(o.getQ());
      a.k = &get(o.getK());
      a.v = &get(o.getV());
      a.g = &get(o.getG());
      a.beta = &get(o.getBeta());
      a.initialState = getOpt(o.getInitialState());
      a.scale = o.getScale().convertToDouble();
      return ssm::ref::gatedDeltaRule(a, out0, out1);
    }
    std::string operator()(ssm::RopeOp o) {
      ssm::ref::RopeArgs a;
      a.x = &get(o.getX());
      a.position = &get(o.getPosition());
      a.theta = o.getTheta().convertToDouble();
      a.rotaryDim = static_cast<int64_t>(o.getRotaryDim());
      a.style = o.getStyle();
      return ssm::ref::rope(a, out0);
    }
    std::string operator()(ssm::AttentionOp o) {
      ssm::ref::AttentionArgs a;
      a.q = &get(o.getQ());
      a.k = &get(o.getK());
      a.v = &get(o.getV());
      a.kCache = &get(o.getKCache());
      a.vCache = &get(o.getVCache());
      a.position = &get(o.getPosition());
      a.scale = o.getScale().convertToDouble();
      a.window = static_cast<int64_t>(o.getWindow());
      return ssm::ref::attention(a, out0, out1, out2);
    }
    std::string operator()(ssm::QuantizeActivationsOp o) {
      return ssm::ref::quantizeActivations(get(o.getInput()), o.getFormat().str(), out0);
    }
    std::string operator()(ssm::DequantizeOp o) {
      auto storageOf = [](Value v) {
        Type t = cast<RankedTensorType>(v.getType()).getElementType();
        return t.isF16()         ? ssm::ref::WeightStorage::F16
               : t.isBF16()      ? ssm::ref::WeightStorage::BF16
               : t.isInteger(8) ? ssm::ref::WeightStorage::I8
                                 : ssm::ref::WeightStorage::F32;
      };
      ssm::ref::DequantizeArgs a;
      a.input = &get(o.getInput());
      a.storage = storageOf(o.getInput());
      a.scale = getOpt(o.getScale());
      if (o.getScale())
        a.scaleStorage = storageOf(o.getScale());
      a.min = getOpt(o.getMin());
      if (o.getMin())
        a.minStorage = storageOf(o.getMin());
      a.blockSize = o.getBlockSize();
      return ssm::ref::dequantize(a, out0);
    }
  };

  llvm::Error execSsm(Operation *op, Env &env) {
    SsmExec exec{*this, env, {}, {}, {}, {}};
    std::optional<std::string> err = ssm::visitSsmOp(
        op, exec, []() -> std::optional<std::string> { return std::nullopt; });
    if (!err)
      return opError(op, "unsupported ssm op in the reference interpreter");
    if (llvm::Error e = kernelResult(op, *err))
      return e;
    Array *outs[] = {&exec.out0, &exec.out1, &exec.out2, &exec.out3};
    for (unsigned i = 0; i < op->getNumResults() && i < 4; ++i)
      set(env, op->getResult(i), std::move(*outs[i]));
    return llvm::Error::success();
  }
};

} // namespace

llvm::Expected<std::vector<Array>>
ssm::ref::runFunction(func::FuncOp func, const std::vector<Array> &args) {
  Interpreter interp;
  return interp.call(func, args);
}
