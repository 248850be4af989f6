// Translation state helpers and the registry of per-op lowerings.
#include "codegen/Lowering.h"

#include "dialect/ScheduleDefaults.h"
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
    s.vectorWidth = static_cast<int>(attr.getVectorWidth().value_or(s.vectorWidth));
    s.channelTile = static_cast<int>(attr.getChannelTile().value_or(s.channelTile));
    s.parallel = attr.getParallel().value_or(s.parallel);
    s.unrollState = attr.getUnrollState().value_or(s.unrollState);
    s.chunk = static_cast<int>(attr.getChunk().value_or(s.chunk));
    s.gpuThreads = static_cast<int>(attr.getGpuThreads().value_or(s.gpuThreads));
  }
  return s;
}

MatmulSchedule LoweringState::matmulScheduleOf(Operation *op, int64_t m, int64_t n, int64_t k,
                                               bool transposeB) const {
  auto attr = op->getAttrOfType<MatmulScheduleAttr>(kScheduleAttrName);
  int vw = vectorWidth();
  if (attr && attr.getVectorWidth())
    vw = static_cast<int>(*attr.getVectorWidth());
  std::optional<bool> dot;
  if (attr && attr.getAlgorithm())
    dot = *attr.getAlgorithm() == MatmulAlgorithm::dot;
  MatmulSchedule s = defaultMatmulSchedule(m, n, k, transposeB, vw, target, dot);
  if (!attr)
    return s;
  s.tileRows = attr.getTileRows().value_or(s.tileRows);
  s.tileCols = attr.getTileCols().value_or(s.tileCols);
  s.tileK = attr.getTileK().value_or(s.tileK);
  s.rowTiles = attr.getRowTiles().value_or(s.rowTiles);
  s.colTiles = attr.getColTiles().value_or(s.colTiles);
  s.packB = attr.getPackB().value_or(s.packB);
  s.parallel = attr.getParallel().value_or(s.parallel);
  s.gpuTile = static_cast<int>(attr.getGpuTile().value_or(s.gpuTile));
  return s;
}

StageSchedule LoweringState::stageScheduleOf(Operation *op,
                                             const std::vector<Halide::Expr> &shape) const {
  StageSchedule s;
  s.vectorWidth = vectorWidth();
  int64_t elements = 1;
  for (const Halide::Expr &e : shape) {
    const int64_t *c = Halide::Internal::as_const_int(e);
    elements *= c ? *c : kParallelStageElements; // a symbolic extent: assume large
  }
  s.parallel = shape.size() >= 2 && elements >= kParallelStageElements;
  s.taskElements = kStageTaskElements;
  if (auto attr = op ? op->getAttrOfType<StageScheduleAttr>(kScheduleAttrName) : nullptr) {
    s.inlined = attr.getCompute() == ComputeLevel::inline_;
    s.vectorWidth = static_cast<int>(attr.getVectorWidth().value_or(s.vectorWidth));
    s.parallel = attr.getParallel().value_or(s.parallel);
    s.taskElements = attr.getTaskElements().value_or(s.taskElements);
    s.gpuThreads = static_cast<int>(attr.getGpuThreads().value_or(s.gpuThreads));
  }
  return s;
}

void LoweringState::addGenericStage(const TensorFunc &t) {
  genericStages.push_back(t);
  genericStageOps.push_back(currentOp);
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
    addGenericStage(t);
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
