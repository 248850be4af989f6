// func.func -> Halide::Pipeline: walk the ops in order through the lowering table.
#include "codegen/Translate.h"

#include "codegen/Lowering.h"

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

/// Dense row-major strides and static extents: lets Halide fold addressing.
template <typename Dims>
void constrainDense(Dims dimOf, const std::vector<int64_t> &shape) {
  int64_t stride = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t ext = shape[shape.size() - 1 - i];
    dimOf(i).set_bounds(0, static_cast<int>(ext)).set_stride(static_cast<int>(stride));
    stride *= ext;
  }
}

/// compute_root, vectorise the contiguous dim, parallelise the outermost.
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
    if (vars.size() >= 2)
      s.parallel(vars.back());
  };
  apply(f);
  for (int u = 0; u < f.num_update_definitions(); ++u)
    apply(f.update(u));
}

} // namespace

FailureOr<TranslatedFunction> translateFunction(func::FuncOp func, const Halide::Target &target) {
  TranslatedFunction out;
  out.name = func.getSymName().str();
  out.symbol = "ssm_" + cIdentifier(out.name);
  LoweringState state(target);
  const llvm::StringMap<LowerFn> &table = loweringTable();
  try {
    Block &entry = func.getBody().front();
    for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
      BlockArgument arg = entry.getArgument(i);
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
        return func.emitError() << "argument " << i
                                << " must be a statically shaped f32 tensor for compiled engines, got "
                                << arg.getType();
      TensorSignature sig;
      std::string name = "arg" + std::to_string(i);
      if (auto n = func.getArgAttrOfType<StringAttr>(i, "ssm.name"))
        name = n.str();
      if (auto p = func.getArgAttrOfType<StringAttr>(i, "ssm.param")) {
        sig.param = p.str();
        if (!func.getArgAttr(i, "ssm.name"))
          name = p.str();
      }
      sig.name = cIdentifier(name);
      sig.shape.assign(type.getShape().begin(), type.getShape().end());
      Halide::ImageParam ip(Halide::Float(32), type.getRank(), sig.name);
      constrainDense([&](int d) { return ip.dim(d); }, sig.shape);
      TensorFunc t{Halide::Func(ip), shapeExprs(type)};
      state.set(arg, t);
      out.arguments.push_back(ip);
      out.inputs.push_back(sig);
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

    int vw = state.vectorWidth();
    for (TensorFunc &t : state.genericStages)
      scheduleGeneric(t, vw);
    for (TensorFunc &t : state.kernelOutputs)
      t.func.compute_root();

    std::vector<Halide::Func> outputs;
    for (size_t i = 0; i < returned.size(); ++i) {
      auto type = dyn_cast<RankedTensorType>(returned[i].getType());
      if (!type || !type.hasStaticShape())
        return func.emitError() << "result " << i << " must be a statically shaped tensor";
      TensorFunc t = state.get(returned[i]);
      // An output must be a computed stage of its own: not an input, an
      // inlined constant, or another result.
      auto sameFunc = [&](const TensorFunc &g) { return g.func.name() == t.func.name(); };
      bool isStage = std::any_of(state.genericStages.begin(), state.genericStages.end(), sameFunc) ||
                     std::any_of(state.kernelOutputs.begin(), state.kernelOutputs.end(), sameFunc);
      bool taken = std::any_of(outputs.begin(), outputs.end(),
                               [&](const Halide::Func &f) { return f.name() == t.func.name(); });
      if (!isStage || taken) {
        TensorFunc copy = state.define("result", t.shape, [&](const auto &idx) { return at(t, idx); });
        scheduleGeneric(copy, vw);
        t = copy;
      }
      TensorSignature sig;
      sig.name = "result" + std::to_string(i);
      sig.shape.assign(type.getShape().begin(), type.getShape().end());
      Halide::Func f = t.func;
      constrainDense([&](int d) { return f.output_buffer().dim(d); }, sig.shape);
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
