// Translation state helpers and the registry of per-op lowerings.
#include "codegen/Lowering.h"

#include "dialect/SsmOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace ssm::codegen {

const TensorFunc &LoweringState::get(Value v) const {
  auto it = values.find(v);
  assert(it != values.end() && "operand lowered before its user");
  return it->second;
}

std::string LoweringState::uniqueName(llvm::StringRef base) {
  std::string name;
  for (char c : base)
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    name = "f_" + name;
  return name + "_" + std::to_string(counter++);
}

int LoweringState::vectorWidth() const {
  return std::max(1, target.natural_vector_size(Halide::Float(32)));
}

CpuSchedule LoweringState::scheduleOf(Operation *op) const {
  CpuSchedule s;
  s.vectorWidth = vectorWidth();
  if (auto attr = op->getAttrOfType<ScheduleAttr>(kScheduleAttrName)) {
    s.vectorWidth = attr.getVectorWidth();
    s.channelTile = attr.getChannelTile();
    s.timeChunk = attr.getTimeChunk();
    s.parallel = attr.getParallel();
    s.unrollState = attr.getUnrollState();
  }
  return s;
}

TensorFunc LoweringState::define(
    llvm::StringRef name, const std::vector<Halide::Expr> &shape,
    const std::function<Halide::Expr(const std::vector<Halide::Expr> &)> &body, bool inlined) {
  TensorFunc t{Halide::Func(uniqueName(name)), shape};
  std::vector<Halide::Var> vars;
  std::vector<Halide::Expr> idx(shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    vars.emplace_back("d" + std::to_string(i));
  // Halide's dim 0 is the MLIR's last dim.
  for (size_t i = 0; i < shape.size(); ++i)
    idx[shape.size() - 1 - i] = vars[i];
  t.func(vars) = body(idx);
  if (!inlined)
    genericStages.push_back(t);
  return t;
}

Halide::Expr at(const TensorFunc &t, const std::vector<Halide::Expr> &idx) {
  std::vector<Halide::Expr> args(idx.rbegin(), idx.rend());
  return t.func(args);
}

std::vector<Halide::Expr> shapeExprs(Type type) {
  std::vector<Halide::Expr> shape;
  if (auto t = dyn_cast<RankedTensorType>(type))
    for (int64_t d : t.getShape())
      shape.push_back(Halide::Expr(static_cast<int>(d)));
  return shape;
}

std::optional<Halide::Type> halideType(Type t) {
  if (t.isF32() || t.isF16() || t.isBF16() || t.isF64())
    return Halide::Float(32); // computed in f32; f16/bf16 storage comes later
  if (t.isInteger(1))
    return Halide::Bool();
  if (t.isIndex() || t.isInteger(32) || t.isInteger(64) || t.isInteger(8) || t.isInteger(16))
    return Halide::Int(32);
  return std::nullopt;
}

const llvm::StringMap<LowerFn> &loweringTable() {
  static const llvm::StringMap<LowerFn> table = [] {
    llvm::StringMap<LowerFn> t;
    registerArithMathLowerings(t);
    registerLinalgLowerings(t);
    registerMatmulLowerings(t);
    registerTensorLowerings(t);
    registerSsmLowerings(t);
    return t;
  }();
  return table;
}

} // namespace ssm::codegen
