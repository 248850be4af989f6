// func.func -> Halide::Pipeline: walk the ops in order through the lowering table.
#include "codegen/Translate.h"

#include "codegen/Lowering.h"

#include "dialect/SsmOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <cstdlib>
#include <set>

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace ssm::codegen {
namespace {

std::string cIdentifier(llvm::StringRef s) {
  std::string out;
  for (char c : s)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out = "t_" + out;
  return out;
}

/// Stages with fewer elements than this run on one thread: waking the
/// thread pool costs more than they do (the decode step of a small model).
constexpr int64_t kParallelElements = 1 << 14;
/// The least work of one parallel task, in elements.
constexpr int64_t kTaskElements = 1 << 13;

/// compute_root, vectorise the contiguous dim, parallelise the outermost
/// (when the stage is large enough to gain from threads).
void scheduleGeneric(TensorFunc &t, int vw) {
  Halide::Func &f = t.func;
  f.compute_root();
  std::vector<Halide::Var> vars = f.args();
  if (vars.empty())
    return;
  auto apply = [&](Halide::Stage s) {
    int ext0 = 0;
    if (auto c = Halide::Internal::as_const_int(t.shape.back()))
      ext0 = static_cast<int>(*c);
    if (ext0 >= vw)
      s.vectorize(vars[0], vw, Halide::TailStrategy::GuardWithIf);
    int64_t elements = 1, inner = 1;
    for (size_t i = 0; i < t.shape.size(); ++i) {
      auto c = Halide::Internal::as_const_int(t.shape[i]);
      int64_t ext = c ? *c : kParallelElements; // a symbolic extent: assume large
      elements *= ext;
      if (i > 0)
        inner *= ext;
    }
    if (vars.size() >= 2 && elements >= kParallelElements) {
      // Tasks of at least kTaskElements: one row of a (512, 64) stage per
      // task would cost more in the thread pool than the row's work.
      int64_t rows = std::max<int64_t>(1, (kTaskElements + inner - 1) / inner);
      if (rows > 1) {
        Halide::Var outer(vars.back().name() + "_task"), innerRows(vars.back().name() + "_rows");
        s.split(vars.back(), outer, innerRows, static_cast<int>(rows),
                Halide::TailStrategy::GuardWithIf)
            .parallel(outer);
      } else {
        s.parallel(vars.back());
      }
    }
  };
  apply(f);
  for (int u = 0; u < f.num_update_definitions(); ++u)
    apply(f.update(u));
}

} // namespace

TensorSignature tensorSignature(RankedTensorType type, DictionaryAttr attrs,
                                const std::string &fallback) {
  auto get = [&](llvm::StringRef key) -> std::string {
    if (attrs)
      if (auto s = attrs.getAs<StringAttr>(key))
        return s.str();
    return "";
  };
  TensorSignature sig;
  sig.param = get("ssm.param");
  sig.state = get("ssm.state");
  std::string name = get("ssm.name");
  if (name.empty())
    name = sig.param.empty() ? fallback : sig.param;
  sig.name = cIdentifier(name);
  sig.shape.assign(type.getShape().begin(), type.getShape().end());
  if (type.getElementType().isInteger(32))
    sig.dtype = "int32";
  return sig;
}

std::optional<TimeChunking> planTimeChunking(func::FuncOp func) {
  Block &entry = func.getBody().front();
  SelectiveScanOp scan;
  for (Operation &op : entry) {
    if (auto s = dyn_cast<SelectiveScanOp>(op); s && !scan)
      scan = s;
    else if (!isa<func::ReturnOp>(op))
      return std::nullopt;
  }
  if (!scan)
    return std::nullopt;
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  bool tm = scan.getLayout() == Layout::time_major;
  int64_t len = cast<RankedTensorType>(scan.getU().getType()).getDimSize(tm ? 1 : 2);
  int64_t chunk = 512;
  if (auto attr = scan->getAttrOfType<ScheduleAttr>(kScheduleAttrName))
    chunk = attr.getTimeChunk();
  // Chunk views must start 128-byte aligned, as the kernels' vector ops assume.
  chunk = std::max<int64_t>(32, chunk / 32 * 32);
  if (ShapedType::isDynamic(len) || len <= chunk)
    return std::nullopt;

  TimeChunking plan;
  plan.chunk = chunk;
  plan.length = len;
  auto timeAxis = [&](Value v) -> int {
    int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
    if (v == scan.getU() || v == scan.getDelta() || v == scan.getZ() || v == scan.getY())
      return tm ? 1 : 2;
    if (v == scan.getB() || v == scan.getC())
      return rank == 2 ? -1 : (tm ? 1 : static_cast<int>(rank) - 1);
    return -1;
  };
  for (BlockArgument arg : entry.getArguments()) {
    // An argument used by the scan in two roles cannot be cropped consistently.
    int axis = -2;
    for (OpOperand &use : arg.getUses()) {
      int a = isa<func::ReturnOp>(use.getOwner()) ? -3 : timeAxis(use.get());
      if (axis != -2 && axis != a)
        return std::nullopt;
      axis = a;
    }
    if (axis == -3)
      return std::nullopt; // an argument returned as is
    plan.argTimeAxis.push_back(axis == -2 ? -1 : axis);
    if (scan.getH0() && arg == scan.getH0())
      plan.stateArg = arg.getArgNumber();
  }
  for (Value v : ret.getOperands()) {
    if (v == scan.getY())
      plan.resultTimeAxis.push_back(tm ? 1 : 2);
    else if (v == scan.getHLast())
      plan.resultTimeAxis.push_back(-1);
    else
      return std::nullopt;
    if (v == scan.getHLast())
      plan.stateResult = plan.resultTimeAxis.size() - 1;
  }
  if (plan.stateResult < 0)
    return std::nullopt; // the final state is not returned: nothing to carry
  if (plan.stateArg < 0) {
    plan.stateArg = entry.getNumArguments();
    plan.stateArgAdded = true;
  }
  return plan;
}

FailureOr<TranslatedFunction> translateFunction(func::FuncOp func, const Halide::Target &target) {
  TranslatedFunction out;
  out.name = func.getSymName().str();
  out.symbol = "ssm_" + cIdentifier(out.name);
  LoweringState state(target);
  const llvm::StringMap<LowerFn> &table = loweringTable();
  out.chunking = planTimeChunking(func);
  // The dims the runtime crops per chunk stay symbolic; all others are fixed.
  auto constrain = [](auto dimOf, const std::vector<int64_t> &shape, int timeAxis) {
    int64_t stride = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t ext = shape[shape.size() - 1 - i];
      bool time = static_cast<int>(shape.size() - 1 - i) == timeAxis;
      if (!time)
        dimOf(i).set_bounds(0, static_cast<int>(ext));
      else
        dimOf(i).set_min(0);
      if (timeAxis < 0 || static_cast<int>(shape.size() - 1 - i) >= timeAxis)
        dimOf(i).set_stride(static_cast<int>(stride)); // dims inside time keep their strides
      stride *= ext;
    }
  };
  auto shapeOf = [](Type type, int timeAxis, auto extentOf) {
    std::vector<Halide::Expr> shape = shapeExprs(type);
    if (timeAxis >= 0)
      shape[timeAxis] = extentOf(static_cast<int>(shape.size()) - 1 - timeAxis);
    return shape;
  };
  try {
    Block &entry = func.getBody().front();
    for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
      BlockArgument arg = entry.getArgument(i);
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type || !type.hasStaticShape() ||
          !(type.getElementType().isF32() || type.getElementType().isInteger(32)))
        return func.emitError() << "argument " << i
                                << " must be a statically shaped f32 or i32 tensor for compiled "
                                   "engines, got "
                                << arg.getType();
      bool isInt = type.getElementType().isInteger(32);
      TensorSignature sig =
          tensorSignature(type, func.getArgAttrDict(i), "arg" + std::to_string(i));
      Halide::ImageParam ip(isInt ? Halide::Int(32) : Halide::Float(32), type.getRank(), sig.name);
      int timeAxis = out.chunking ? out.chunking->argTimeAxis[i] : -1;
      constrain([&](int d) { return ip.dim(d); }, sig.shape, timeAxis);
      TensorFunc t{Halide::Func(ip),
                   shapeOf(type, timeAxis, [&](int d) { return ip.dim(d).extent(); })};
      state.set(arg, t);
      out.arguments.push_back(ip);
      out.inputs.push_back(sig);
    }

    if (out.chunking && out.chunking->stateArgAdded) {
      // The carried state of a chunked scan without an h0 operand.
      auto scan = *func.getOps<SelectiveScanOp>().begin();
      auto type = cast<RankedTensorType>(scan.getHLast().getType());
      TensorSignature sig;
      sig.name = "carried_state";
      sig.shape.assign(type.getShape().begin(), type.getShape().end());
      Halide::ImageParam ip(Halide::Float(32), type.getRank(), sig.name);
      constrain([&](int d) { return ip.dim(d); }, sig.shape, -1);
      state.carriedState = TensorFunc{Halide::Func(ip), shapeExprs(type)};
      out.arguments.push_back(ip);
      out.kernelExtraInputs.push_back(sig);
    }

    std::vector<Value> returned;
    for (Operation &op : entry) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        returned.assign(ret.getOperands().begin(), ret.getOperands().end());
        break;
      }
      auto it = table.find(op.getName().getStringRef());
      if (it == table.end())
        return op.emitError() << "'" << op.getName() << "' has no Halide lowering";
      if (failed(it->second(&op, state)))
        return failure();
    }

    // Fusion: a pure stage whose value has one user that reads each element
    // once (an elementwise op, a parallel linalg op, a reshape or slice) is
    // inlined into that user instead of computed at root. Chains of such ops
    // become one loop nest, and the pipeline has fewer stages to compile.
    // Reductions, matmuls and ssm kernels read their operands many times, so
    // what feeds them stays at root.
    auto readsOnce = [](Operation *user) {
      if (isa<func::ReturnOp>(user) || user->getDialect()->getNamespace() == "ssm")
        return false;
      if (auto lop = dyn_cast<linalg::LinalgOp>(user))
        return lop.getNumReductionLoops() == 0;
      return true; // arith, math, tensor
    };
    std::set<std::string> inlined;
    // SSM_NO_FUSION=1 computes every stage at root (for A/B timing and debugging).
    const char *noFusion = std::getenv("SSM_NO_FUSION");
    for (Operation &op : entry)
      if (!noFusion || std::string(noFusion) != "1")
      for (Value v : op.getResults()) {
        if (!state.has(v) || !v.hasOneUse() || !readsOnce(*v.getUsers().begin()))
          continue;
        const TensorFunc &t = state.get(v);
        if (!t.func.defined() || t.func.has_update_definition())
          continue;
        bool generic = std::any_of(state.genericStages.begin(), state.genericStages.end(),
                                   [&](const TensorFunc &g) { return g.func.name() == t.func.name(); });
        if (generic)
          inlined.insert(t.func.name());
      }
    int vw = state.vectorWidth();
    for (TensorFunc &t : state.genericStages)
      if (!inlined.count(t.func.name()))
        scheduleGeneric(t, vw);
    for (TensorFunc &t : state.kernelOutputs)
      t.func.compute_root();

    if (returned.empty())
      return func.emitError() << "@" << out.name
                              << " has no results: a compiled function must return a tensor";
    std::vector<Halide::Func> outputs;
    for (size_t i = 0; i < returned.size(); ++i) {
      auto type = dyn_cast<RankedTensorType>(returned[i].getType());
      if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
        return func.emitError() << "result " << i
                                << " must be a statically shaped f32 tensor for compiled engines";
      TensorFunc t = state.get(returned[i]);
      // An output must be a computed stage of its own: not an input, an
      // inlined constant, or another result.
      auto sameFunc = [&](const TensorFunc &g) { return g.func.name() == t.func.name(); };
      bool isStage = (std::any_of(state.genericStages.begin(), state.genericStages.end(), sameFunc) &&
                      !inlined.count(t.func.name())) ||
                     std::any_of(state.kernelOutputs.begin(), state.kernelOutputs.end(), sameFunc);
      bool taken = std::any_of(outputs.begin(), outputs.end(),
                               [&](const Halide::Func &f) { return f.name() == t.func.name(); });
      if (!isStage || taken) {
        TensorFunc copy = state.define("result", t.shape, [&](const auto &idx) { return at(t, idx); });
        scheduleGeneric(copy, vw);
        t = copy;
      }
      TensorSignature sig =
          tensorSignature(type, func.getResultAttrDict(i), "result" + std::to_string(i));
      Halide::Func f = t.func;
      constrain([&](int d) { return f.output_buffer().dim(d); }, sig.shape,
                out.chunking ? out.chunking->resultTimeAxis[i] : -1);
      outputs.push_back(f);
      out.results.push_back(sig);
    }
    out.pipeline = Halide::Pipeline(outputs);
  } catch (const Halide::Error &e) {
    return func.emitError() << "Halide rejected the pipeline of @" << out.name << ": " << e.what();
  }
  return out;
}

} // namespace ssm::codegen
