// func.func -> Halide::Pipeline: walk the ops in order through the lowering table.
#include "codegen/Translate.h"

#include "codegen/Lowering.h"
#include "codegen/kernels/Widen.h"

#include "dialect/SsmOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <map>
#include <set>
#include <tuple>

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

/// The Halide type an argument of element type `elem` is passed in, if
/// compiled engines take it: f32 and i32, and the weight storage types f16,
/// bf16 and i8 (passes/WeightStorage.h).
std::optional<Halide::Type> argumentStorageType(Type elem) {
  if (elem.isF32())
    return Halide::Float(32);
  if (elem.isInteger(32))
    return Halide::Int(32);
  if (elem.isF16())
    return Halide::Float(16);
  if (elem.isBF16())
    return Halide::BFloat(16);
  if (elem.isInteger(8))
    return Halide::Int(8);
  return std::nullopt;
}

/// `v` with the tensor reshapes that produce it looked through.
Value throughReshapes(Value v) {
  while (Operation *d = v.getDefiningOp()) {
    if (auto c = dyn_cast<tensor::CollapseShapeOp>(d))
      v = c.getSrc();
    else if (auto e = dyn_cast<tensor::ExpandShapeOp>(d))
      v = e.getSrc();
    else
      break;
  }
  return v;
}

/// The window a result writes in place of an argument: where `result` is
/// (through reshapes) the k_cache_new or v_cache_new of an ssm.attention of
/// one stream whose cache operand is (through reshapes) an argument of
/// `func` of the result's type and whose position is an argument of `func`.
/// Several streams (a batch > 1, no reshapes): the rows form
/// (TensorSignature::Append::rows), `newRows` set to the attention's k or v
/// operand, the rows the kernel writes.
std::optional<TensorSignature::Append> appendWindowOf(Value result, func::FuncOp func,
                                                      Value &newRows) {
  auto res = dyn_cast<OpResult>(throughReshapes(result));
  auto att = res ? dyn_cast<ssm::AttentionOp>(res.getOwner()) : ssm::AttentionOp();
  if (!att || res.getResultNumber() == 0)
    return std::nullopt;
  Value cacheOperand = res.getResultNumber() == 1 ? att.getKCache() : att.getVCache();
  auto cache = dyn_cast<BlockArgument>(throughReshapes(cacheOperand));
  auto position = dyn_cast<BlockArgument>(att.getPosition());
  Block *entry = &func.getBody().front();
  auto cacheType = cast<RankedTensorType>(cacheOperand.getType()); // (B, C, Hkv, D)
  auto resultType = dyn_cast<RankedTensorType>(result.getType());
  if (!cache || !position || cache.getOwner() != entry || position.getOwner() != entry ||
      cache.getType() != result.getType() || !resultType)
    return std::nullopt;
  if (cacheType.getDimSize(0) != 1) {
    if (result != res || cacheOperand != cache || resultType.getRank() != 4)
      return std::nullopt;
    TensorSignature::Append a;
    a.axis = 1;
    a.argument = static_cast<int>(cache.getArgNumber());
    a.position = static_cast<int>(position.getArgNumber());
    a.length = cast<RankedTensorType>(att.getK().getType()).getDimSize(1);
    a.rows = true;
    newRows = res.getResultNumber() == 1 ? att.getK() : att.getV();
    return a;
  }
  // The cache's position axis in the result: (1, C, Hkv, D) or (C, Hkv, D).
  const int axis = resultType.getRank() == 4 ? 1 : resultType.getRank() == 3 ? 0 : -1;
  if (axis < 0 || resultType.getDimSize(axis) != cacheType.getDimSize(1))
    return std::nullopt;
  TensorSignature::Append a;
  a.axis = axis;
  a.argument = static_cast<int>(cache.getArgNumber());
  a.position = static_cast<int>(position.getArgNumber());
  a.length = cast<RankedTensorType>(att.getK().getType()).getDimSize(1);
  return a;
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
  sig.dtype = storageDtype(type.getElementType());
  return sig;
}

std::string storageDtype(Type elem) {
  if (elem.isInteger(32))
    return "int32";
  if (elem.isInteger(8))
    return "int8";
  if (elem.isF16())
    return "float16";
  if (elem.isBF16())
    return "bfloat16";
  return "float32";
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
  // ssm-chunk-time decides; the verifier keeps the chunk a multiple of 32
  // (chunk views must start 128-byte aligned, as the kernels' vector ops assume).
  auto chunkAttr = func->getAttrOfType<IntegerAttr>(kTimeChunkAttrName);
  if (!chunkAttr)
    return std::nullopt;
  int64_t chunk = chunkAttr.getInt();
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

FailureOr<TranslatedFunction> translateFunction(func::FuncOp func, const Halide::Target &target,
                                                const TranslateOptions &options) {
  TranslatedFunction out;
  out.name = func.getSymName().str();
  out.symbol = "ssm_" + cIdentifier(out.name);
  const bool manual = options.autoscheduler.empty();
  LoweringState state(target, manual);
  const llvm::StringMap<LowerFn> &table = loweringTable();
  out.chunking = planTimeChunking(func);
  if (func->hasAttr(kTimeChunkAttrName) && !func.getBody().empty()) {
    Block &body = func.getBody().front();
    if (body.getOperations().size() != 2 || !isa<SelectiveScanOp>(body.front()))
      return func.emitError() << "'" << kTimeChunkAttrName
                              << "' needs a function whose only op is one ssm.selective_scan "
                                 "(ssm-chunk-time sets it only there)";
  }
  // The dims the runtime crops per chunk stay symbolic; all others are fixed.
  // A result's append axis (TensorSignature::Append) is left unbounded: the
  // runtime may pass a window of it at any position.
  auto constrain = [](auto dimOf, const std::vector<int64_t> &shape, int timeAxis,
                      int freeAxis = -1) {
    int64_t stride = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t ext = shape[shape.size() - 1 - i];
      bool time = static_cast<int>(shape.size() - 1 - i) == timeAxis;
      if (static_cast<int>(shape.size() - 1 - i) == freeAxis)
        ; // neither min nor extent fixed
      else if (!time)
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
  // Every ImageParam with its MLIR shape and time axis (for estimates).
  std::vector<std::tuple<Halide::ImageParam, std::vector<int64_t>, int>> imageParams;
  try {
    Block &entry = func.getBody().front();
    // The results written in place of an argument (CPU targets only: a GPU
    // module keeps its own device copies), and the caches they append to,
    // whose position axis stays symbolic (min 0): the runtime passes only
    // the rows the call reads, 0 .. p + L - 1 (runtime/Module.cpp).
    // Rows-form results (several streams) keep their arguments' bounds.
    std::vector<std::optional<TensorSignature::Append>> appends;
    std::vector<Value> appendRows;
    std::map<unsigned, int> appendAxisOf;
    if (!out.chunking && manual && targetFamily(target) != TargetFamily::Gpu)
      if (auto ret = dyn_cast<func::ReturnOp>(entry.getTerminator()))
        for (Value r : ret.getOperands()) {
          appendRows.emplace_back();
          appends.push_back(appendWindowOf(r, func, appendRows.back()));
          if (appends.back() && !appends.back()->rows)
            appendAxisOf[static_cast<unsigned>(appends.back()->argument)] = appends.back()->axis;
        }
    for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
      BlockArgument arg = entry.getArgument(i);
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      std::optional<Halide::Type> storage =
          type ? argumentStorageType(type.getElementType()) : std::nullopt;
      if (!type || !type.hasStaticShape() || !storage)
        return func.emitError() << "argument " << i
                                << " must be a statically shaped f32, f16, bf16, i8 or i32 "
                                   "tensor for compiled engines, got "
                                << arg.getType();
      TensorSignature sig =
          tensorSignature(type, func.getArgAttrDict(i), "arg" + std::to_string(i));
      Halide::ImageParam ip(*storage, type.getRank(), sig.name);
      int timeAxis = out.chunking ? out.chunking->argTimeAxis[i] : -1;
      if (auto it = appendAxisOf.find(i); it != appendAxisOf.end())
        timeAxis = it->second;
      constrain([&](int d) { return ip.dim(d); }, sig.shape, timeAxis);
      // 16-bit floats are stored as such and computed in f32: every reader
      // sees an inline f32 view that converts at each load.
      Halide::Func f(ip);
      if (storage->is_float() && storage->bits() == 16) {
        Halide::Func widened(state.uniqueName(sig.name + "_f32"));
        std::vector<Halide::Var> vs(type.getRank());
        widened(vs) = widenToF32(ip(vs), state.target);
        f = widened;
      }
      TensorFunc t{f, shapeOf(type, timeAxis, [&](int d) { return ip.dim(d).extent(); })};
      state.set(arg, t);
      state.argumentBuffers[arg] = ip.parameter();
      out.arguments.push_back(ip);
      out.inputs.push_back(sig);
      imageParams.push_back({ip, sig.shape, timeAxis});
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
      imageParams.push_back({ip, sig.shape, -1});
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
      state.currentOp = &op;
      if (failed(it->second(&op, state)))
        return failure();
      state.currentOp = nullptr;
    }

    // Fusion and stage schedules come from the IR (ssm-fuse and
    // ssm-assign-schedules): a stage whose op says compute = inline is
    // inlined into its users, every other is computed at root with its
    // #ssm.stage; kernels and matmuls were scheduled by their lowerings.
    std::set<std::string> inlined;
    for (size_t i = 0; i < state.genericStages.size(); ++i) {
      TensorFunc &t = state.genericStages[i];
      Operation *op = state.genericStageOps[i];
      StageSchedule ss = state.stageScheduleOf(op, t.shape);
      if (ss.inlined) {
        if (t.func.has_update_definition())
          return (op ? op->emitError() : func.emitError())
                 << "this stage has an update loop (a reduction) and cannot be inlined";
        inlined.insert(t.func.name());
      }
      if (manual)
        scheduleStage(t.func, t.shape, ss, target);
    }
    if (manual)
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
      // A rows-form result's kernel output is the rows it writes.
      const bool rows = i < appends.size() && appends[i] && appends[i]->rows;
      TensorFunc t = state.get(rows ? appendRows[i] : returned[i]);
      // An output must be a computed stage of its own: not an input, an
      // inlined constant, or another result.
      auto sameFunc = [&](const TensorFunc &g) { return g.func.name() == t.func.name(); };
      bool isStage = (std::any_of(state.genericStages.begin(), state.genericStages.end(), sameFunc) &&
                      !inlined.count(t.func.name())) ||
                     std::any_of(state.kernelOutputs.begin(), state.kernelOutputs.end(), sameFunc);
      bool taken = std::any_of(outputs.begin(), outputs.end(),
                               [&](const Halide::Func &f) { return f.name() == t.func.name(); });
      // With an autoscheduler every output is a copy stage of its own: a
      // result that other stages also read may otherwise be tiled past its end
      // for them (Adams2019 did, on an output buffer).
      if (!isStage || taken || !manual) {
        state.currentOp = nullptr;
        TensorFunc copy = state.define("result", t.shape, [&](const auto &idx) { return at(t, idx); });
        if (manual)
          scheduleStage(copy.func, copy.shape, state.stageScheduleOf(nullptr, copy.shape), target);
        t = copy;
      }
      TensorSignature sig =
          tensorSignature(type, func.getResultAttrDict(i), "result" + std::to_string(i));
      if (i < appends.size())
        sig.append = appends[i];
      Halide::Func f = t.func;
      std::vector<int64_t> bufferShape = sig.shape;
      if (rows)
        bufferShape[sig.append->axis] = sig.append->length;
      constrain([&](int d) { return f.output_buffer().dim(d); }, bufferShape,
                out.chunking ? out.chunking->resultTimeAxis[i] : -1,
                sig.append && !rows ? sig.append->axis : -1);
      outputs.push_back(f);
      out.results.push_back(sig);
    }
    out.pipeline = Halide::Pipeline(outputs);
    if (!manual) {
      // The autoscheduler needs the extents it plans for: the static
      // shapes, and one time chunk where the runtime crops the time axis.
      int64_t chunk = out.chunking ? out.chunking->chunk : 0;
      auto estimate = [&](const std::vector<int64_t> &shape, int timeAxis, auto setDim) {
        for (size_t d = 0; d < shape.size(); ++d) {
          int mlirDim = static_cast<int>(shape.size() - 1 - d);
          int64_t ext = mlirDim == timeAxis ? chunk : shape[mlirDim];
          setDim(static_cast<int>(d), static_cast<int>(ext));
        }
      };
      for (size_t i = 0; i < outputs.size(); ++i) {
        Halide::Region region;
        int timeAxis = out.chunking ? out.chunking->resultTimeAxis[i] : -1;
        estimate(out.results[i].shape, timeAxis,
                 [&](int, int ext) { region.push_back(Halide::Range(0, ext)); });
        outputs[i].set_estimates(region);
        // The static extents as bounds too: an autoscheduler (Adams2019)
        // may otherwise tile an output past its end.
        std::vector<Halide::Var> vars = outputs[i].args();
        const auto &bounds = outputs[i].function().schedule().bounds();
        for (size_t d = 0; d < vars.size(); ++d) {
          bool bounded = std::any_of(bounds.begin(), bounds.end(),
                                     [&](const auto &b) { return b.var == vars[d].name(); });
          if (!bounded && static_cast<int>(vars.size() - 1 - d) != timeAxis)
            outputs[i].bound(vars[d], 0, region[d].extent);
        }
      }
      for (auto &[ip, shape, timeAxis] : imageParams)
        estimate(shape, timeAxis, [&, &ip = ip](int d, int ext) { ip.dim(d).set_estimate(0, ext); });
      out.pipeline.auto_schedule(options.autoscheduler, target, options.machine);
    }
  } catch (const Halide::Error &e) {
    return func.emitError() << "Halide rejected the pipeline of @" << out.name << ": " << e.what();
  }
  return out;
}

} // namespace ssm::codegen
