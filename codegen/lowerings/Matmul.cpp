// Lowering of linalg.matmul and its transposed forms to a register-tiled Halide matmul.
//
// The generic linalg lowering would vectorise the output's contiguous dim
// and stream the reduction from memory; here the reduction runs in a small
// tile of accumulators (a block of rows x two vectors of columns) kept in
// registers, the schedule of Halide's test/performance/matrix_multiplication
// adapted to our row-major tensors. B of matmul_transpose_b (the nn.Linear
// weight layout) is transposed once into a k-major copy first.
#include "codegen/Lowering.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using Halide::Expr;

namespace ssm::codegen {
namespace {

LogicalResult lowerMatmul(Operation *op, LoweringState &state) {
  bool transA = isa<linalg::MatmulTransposeAOp>(op);
  bool transB = isa<linalg::MatmulTransposeBOp>(op);
  auto cType = cast<RankedTensorType>(op->getResult(0).getType());
  auto aType = cast<RankedTensorType>(op->getOperand(0).getType());
  if (!cType.hasStaticShape() || !aType.hasStaticShape() || !cType.getElementType().isF32())
    return op->emitError() << "Halide matmul lowering needs static f32 shapes";
  const int m = cType.getDimSize(0), n = cType.getDimSize(1);
  const int k = transA ? aType.getDimSize(0) : aType.getDimSize(1);
  const TensorFunc &a = state.get(op->getOperand(0));
  const TensorFunc &b = state.get(op->getOperand(1));
  const TensorFunc &c = state.get(op->getOperand(2));
  int vw = state.vectorWidth();

  Halide::Var x("x"), y("y"); // x: column j (contiguous), y: row i
  // Operands in the layouts the inner loop wants: A(k, i) row-major rows, B(j, k) k-major.
  Halide::Func aRows(state.uniqueName("mm_a")), bCols(state.uniqueName("mm_b"));
  aRows(x, y) = transA ? at(a, {x, y}) : at(a, {y, x});  // aRows(kk, i) = A[i, kk]
  bCols(x, y) = transB ? at(b, {x, y}) : at(b, {y, x});  // bCols(j, kk) = B[kk, j]
  Halide::RDom r(0, k, state.uniqueName("k"));
  Halide::Func prod(state.uniqueName("mm_acc"));
  prod(x, y) = 0.0f;
  prod(x, y) += aRows(r, y) * bCols(x, r);
  TensorFunc out{Halide::Func(state.uniqueName("matmul")), shapeExprs(cType)};
  out.func(x, y) = at(c, {y, x}) + prod(x, y);

  // Schedule: 8 rows x 2 vectors of accumulators per inner tile.
  const int tileX = 2 * vw, tileY = 8;
  Halide::Var xi("xi"), yi("yi"), yii("yii"), xy("xy");
  out.func.compute_root();
  // ShiftInwards keeps every tile full (edge tiles overlap their
  // neighbours), so the accumulator block has a constant size to unroll.
  if (n >= tileX && m >= tileY * 4) {
    out.func.tile(x, y, xi, yi, tileX, tileY * 4, Halide::TailStrategy::ShiftInwards)
        .fuse(x, y, xy)
        .parallel(xy)
        .split(yi, yi, yii, tileY, Halide::TailStrategy::ShiftInwards)
        .vectorize(xi, vw);
    prod.compute_at(out.func, yi).vectorize(x, vw).unroll(x).unroll(y);
    prod.update().reorder(x, y, r).vectorize(x, vw).unroll(x).unroll(y);
  } else {
    out.func.vectorize(x, vw, Halide::TailStrategy::GuardWithIf).parallel(y);
    prod.compute_at(out.func, y).vectorize(x, vw, Halide::TailStrategy::GuardWithIf);
    prod.update().vectorize(x, vw, Halide::TailStrategy::GuardWithIf);
  }
  // The k-major copy of B is read by every row tile: materialise it once.
  if (!transB) {
    bCols.compute_inline();
  } else {
    bCols.compute_root().parallel(y).vectorize(x, vw, Halide::TailStrategy::GuardWithIf);
  }
  state.kernelOutputs.push_back(out);
  state.set(op->getResult(0), out);
  return success();
}

} // namespace

void registerMatmulLowerings(llvm::StringMap<LowerFn> &table) {
  for (const char *name : {"linalg.matmul", "linalg.matmul_transpose_a", "linalg.matmul_transpose_b"})
    table[name] = lowerMatmul;
}

} // namespace ssm::codegen
