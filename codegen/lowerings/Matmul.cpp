// Lowering of linalg.matmul and its transposed forms: the algorithm (tiled or dot).
//
// The generic linalg lowering would vectorise the output's contiguous dim
// and stream the reduction from memory; here the reduction runs into an
// accumulator Func that the schedule (codegen/schedules/MatmulSchedule.cpp)
// keeps as a register tile (a block of rows x vectors of columns), the
// schedule of Halide's test/performance/matrix_multiplication adapted to
// our row-major tensors, with B in a k-major layout (packed once for the
// nn.Linear weight layout of matmul_transpose_b), or (algorithm = dot) as
// dot products along K of both operands. The #ssm.matmul
// attribute picks the algorithm and the tile shapes.
#include "codegen/Lowering.h"
#include "codegen/lowerings/ActivationBlocks.h"
#include "codegen/kernels/Widen.h"
#include "codegen/schedules/Schedules.h"
#include "dialect/SsmOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>

using namespace mlir;
using Halide::Expr;

namespace ssm::codegen {
namespace {

/// The constant an accumulator operand is filled with (linalg.fill of an
/// arith.constant), if it is one: the matmul then starts from the constant
/// instead of reading a materialised buffer of it.
std::optional<float> filledConstant(Value v) {
  auto fill = v.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return std::nullopt;
  auto cst = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
  if (!cst)
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(cst.getValue()))
    return static_cast<float>(f.getValueAsDouble());
  return std::nullopt;
}

/// C[i, j] of the accumulator operand: its constant or its stage.
Expr initialValue(Operation *op, LoweringState &state, Expr i, Expr j) {
  if (std::optional<float> f = filledConstant(op->getOperand(2)))
    return Expr(*f);
  return at(state.get(op->getOperand(2)), {i, j});
}

/// matmul_transpose_b in the dot form: C = A B^T as dot products along the
/// contiguous k of both A and the (N, K) weight, with a vector of partial
/// sums per output, so the weight is read in place instead of first being
/// copied into a k-major layout (the schedule tiles rows and columns of the
/// output; with one row it is a streaming matvec).
LogicalResult lowerDot(Operation *op, LoweringState &state, Halide::Func aRows, int m, int n,
                          int k, const MatmulSchedule &sched) {
  auto cType = cast<RankedTensorType>(op->getResult(0).getType());
  const TensorFunc &b = state.get(op->getOperand(1));
  const int vw = static_cast<int>(sched.vectorWidth); // the lanes of the partial sums: part of the algorithm
  const int kBlocks = k / vw, kTail = k % vw;
  Halide::Var x("x"), y("y"), lane("lane");
  Halide::Func part(state.uniqueName("mm_dot"));
  part(lane, x, y) = 0.0f;
  Halide::RDom rk;
  Halide::Func blockScale; // defined for a q8 weight: (block, weight row) -> f32 scale
  Halide::Func blockMin, blockXSum; // with a min: (block, weight row) -> f32 min; (lane, block, row of A)
  // A q8 weight (ssm.dequantize of int8 blocks with one scale per block,
  // passes/WeightStorage.h): the scale is constant over a block, so each
  // block's int8 products are summed first and scaled once, and the scale
  // is one broadcast load per block instead of a per-lane index. The
  // scales are widened to f32 in a stage of their own (blockScale, one
  // vector conversion per register tile in the CPU schedule) rather than
  // one scalar f16 conversion and broadcast per block and weight row in
  // the inner loop.
  auto deq = op->getOperand(1).getDefiningOp<DequantizeOp>();
  const int block = deq && deq.getScale() ? static_cast<int>(deq.getBlockSize()) : 0;
  // Blocks with an offset (a min operand, ggml's Q4_K / Q5_K): on CPU
  // targets the same block path (below); the GPU schedule knows no block
  // sums of A, so there the weight is read through the dequantize view.
  const bool hasMin = deq && deq.getMin();
  const bool q8Blocks = block > 0 && block % vw == 0 && k % block == 0 && kBlocks > 0 &&
                        (!hasMin || targetFamily(state.target) != TargetFamily::Gpu);
  // Decode (M = 1) with a 16- or 8-bit weight reads each weight row once,
  // tile after tile: each step of a row also prefetches the same place of
  // the matching row of the next register tile (tile_cols rows on), so the
  // next tile's memory requests are in flight while this one is computed.
  // f32 weights are not prefetched at M = 1 (their loop is already at the
  // bandwidth it gets: prefetching slowed it); a batched decode step (1 < M
  // <= tile_rows: every weight row still read once, with M rows'
  // multiply-adds per load) prefetches any weight. Measurements:
  // docs/tuning.md, "Measured defaults". withPrefetchT0 is a no-op where
  // the x86 helpers are not linked (codegen/kernels/Widen.h).
  Halide::Internal::Parameter weightBuffer;
  const bool batchedDecode = m > 1 && m <= sched.tileRows;
  if (m == 1 || batchedDecode) {
    Value w = deq ? deq.getInput() : op->getOperand(1);
    auto it = state.argumentBuffers.find(w);
    if (it != state.argumentBuffers.end() && (it->second.type().bytes() < 4 || batchedDecode))
      weightBuffer = it->second;
  }
  const int tileCols = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(sched.tileCols, n)));
  auto prefetchingNextTile = [&](Expr value, Expr kIndex) {
    if (!weightBuffer.defined())
      return value;
    // The byte offset in 32-bit arithmetic where it cannot overflow (Halide
    // buffers without large_buffers hold < 2^31 bytes; the offset runs one
    // tile past the end): LLVM then computes each row's address with a
    // scalar lea. In 64-bit arithmetic it packed the tile's 8 or 16 row
    // offsets into vectors (vpaddq, vmovq, vpextrq per row), vector-port
    // uops beside the conversions that bound the f16 and q8 loops
    // (docs/tuning.md, "Measured defaults").
    const int bytes = static_cast<int>(weightBuffer.type().bytes());
    const bool fits32 = (static_cast<int64_t>(n) + tileCols) * k * bytes < (int64_t(1) << 31);
    Expr row = fits32 ? Expr(x + tileCols) : Halide::cast(Halide::Int(64), x + tileCols);
    Expr byte = (row * k + kIndex) * bytes;
    return withPrefetchT0(value, weightBuffer, byte, state.target);
  };
  // A q8 weight's scales and mins (rows, K / block) are read by per-tile
  // stages (blockScale, blockMin), once per register tile: at M = 1 each
  // tile's row of them is prefetched one tile ahead too, as the weight rows
  // are (their loads missed the caches: in the Q4_K in_proj at mamba-130m
  // shapes a third of the kernel's samples sat on the multiply after the
  // scales' and mins' loads). Three prefetches per row and stage vector
  // (offsets 0, 64 and the row's last byte: rows of 24 f32 span up to 3
  // lines), the offsets independent of the vectorised block index.
  auto prefetchingNextTileRow = [&](Expr value, Value operand, Halide::Var row) {
    auto it = weightBuffer.defined() ? state.argumentBuffers.find(operand) : state.argumentBuffers.end();
    if (it == state.argumentBuffers.end())
      return value;
    const int64_t rowBytes = static_cast<int64_t>(k / block) * it->second.type().bytes();
    if ((static_cast<int64_t>(n) + tileCols) * rowBytes >= (int64_t(1) << 31))
      return value;
    Expr start = (row + tileCols) * static_cast<int>(rowBytes);
    for (int64_t off : {int64_t(0), int64_t(64), rowBytes - 1})
      if (off < rowBytes)
        value = withPrefetchT0(value, it->second, start + static_cast<int>(off), state.target);
    return value;
  };
  // The integer matvec: decode (M = 1) with a q8 weight whose A is an
  // ssm.quantize_activations into q8 blocks (GGUF imports, `--activations
  // ggml`) on an x86 CPU. A's int8 codes and block scales (ActivationBlocks)
  // are computed once per call; each 32 elements (a block of 32: Q8_0,
  // Q4_0, Q4_K; two of 16: Q6_K, lanes 0-7 the first) are then one int16
  // dot product (vpmaddwd: 16 lanes of two products each, exact in int32),
  // converted once and scaled by the weight's and A's scales together
  // (llama.cpp's vec_dot_q8_0_q8_0 / vec_dot_q4_K_q8_K). The f32 path
  // multiplied each widened int8 weight by A's f32 value (q * d): the same
  // products up to f32 rounding, 2 conversions and 2 multiply-adds per 32
  // weights and row where this does one of each and one vpmaddwd.
  auto actQuant = op->getOperand(0).getDefiningOp<QuantizeActivationsOp>();
  const int64_t actBlock = actQuant ? activationQuantBlock(actQuant.getFormat()) : 0;
  const bool intDot = q8Blocks && m == 1 && targetFamily(state.target) == TargetFamily::X86 &&
                      (block == 2 * vw || (block == vw && !hasMin)) && actBlock > 0 &&
                      actBlock % block == 0 &&
                      k % actBlock == 0 && state.has(actQuant.getInput()) &&
                      cast<RankedTensorType>(deq.getInput().getType()).getElementType().isInteger(8);
  Halide::Func blockIntSum, actCodes, actScales, actCodeSums;
  if (intDot) {
    const TensorFunc &q = state.get(deq.getInput()), &scale = state.get(deq.getScale());
    ActivationBlocks ab = ActivationBlocks::define(state, state.get(actQuant.getInput()),
                                                   static_cast<int>(actBlock),
                                                   actQuant.getFormat() == "q8_K");
    Halide::Var kv("kv"), blk("blk");
    // A's codes (Int(16), read as vpmaddwd's second operand) and scales.
    actCodes = Halide::Func(state.uniqueName("mm_acode"));
    actCodes(kv, y) = ab.code({y, kv});
    actScales = Halide::Func(state.uniqueName("mm_ascale"));
    actScales(blk, y) = ab.scale({y, blk});
    // Groups of 2 vw elements (one vpmaddwd vector): one block of 32 at
    // vw 16, or two blocks of 16 (Q6_K's), lanes 0-7 the first.
    const int group = 2 * vw, lanesPerBlock = block / 2;
    rk = Halide::RDom(0, k / group, state.uniqueName("qb"));
    Halide::RDom pair(0, 2, state.uniqueName("qp"));
    Expr kk = blk * group + 2 * lane + pair;
    blockIntSum = Halide::Func(state.uniqueName("mm_isum"));
    blockIntSum(lane, x, y, blk) = 0;
    blockIntSum(lane, x, y, blk) += Halide::cast(Halide::Int(32), actCodes(kk, y)) *
                                   Halide::cast(Halide::Int(32), Halide::cast(Halide::Int(16), at(q, {x, kk})));
    // The weight's block scale times A's (y is 0: one row of A).
    const int perAct = static_cast<int>(actBlock / block);
    blockScale = Halide::Func(state.uniqueName("mm_scale"));
    Expr term;
    if (block == group) {
      blockScale(blk, x) = prefetchingNextTileRow(
          Halide::cast(Halide::Float(32), at(scale, {x, blk})) * actScales(blk / perAct, 0), deq.getScale(), x);
      term = Halide::cast(Halide::Float(32), blockIntSum(lane, x, y, rk)) * blockScale(rk, x);
    } else {
      // Per lane: the scale of the block the lane's products belong to (a
      // select of the two, not an index lane / 8: Halide 14 died with
      // SIGFPE flattening the nested ramps of that one).
      Expr b0 = blk * 2, b1 = blk * 2 + 1;
      Expr s0 = Halide::cast(Halide::Float(32), at(scale, {x, b0})) * actScales(b0 / perAct, 0);
      Expr s1 = Halide::cast(Halide::Float(32), at(scale, {x, b1})) * actScales(b1 / perAct, 0);
      blockScale(lane, blk, x) =
          prefetchingNextTileRow(Halide::select(lane < lanesPerBlock, s0, s1), deq.getScale(), x);
      term = Halide::cast(Halide::Float(32), blockIntSum(lane, x, y, rk)) * blockScale(lane, rk, x);
    }
    if (hasMin) {
      // w = q s - mn: a block's dot is d_A (s sum(qA q) - mn sum(qA)); the
      // second term spread evenly over the lanes (/ vw: a power of two,
      // exact), with A's code sums computed once per call.
      const TensorFunc &mn = state.get(deq.getMin());
      Halide::RDom rb(0, block, state.uniqueName("qs"));
      actCodeSums = Halide::Func(state.uniqueName("mm_acsum"));
      actCodeSums(blk, y) = 0;
      actCodeSums(blk, y) += Halide::cast(Halide::Int(32), actCodes(blk * block + rb, y));
      blockMin = Halide::Func(state.uniqueName("mm_min"));
      blockMin(blk, x) = prefetchingNextTileRow(
          Halide::cast(Halide::Float(32), at(mn, {x, blk})) *
              (actScales(blk / perAct, 0) * Halide::cast(Halide::Float(32), actCodeSums(blk, 0)) * (1.0f / vw)),
          deq.getMin(), x);
      term = term - blockMin(rk, x);
    }
    part(lane, x, y) += prefetchingNextTile(term, rk * group);
  } else if (q8Blocks) {
    const TensorFunc &q = state.get(deq.getInput()), &scale = state.get(deq.getScale());
    rk = Halide::RDom(0, k / block, state.uniqueName("qb"));
    Expr inner;
    for (int j = 0; j < block / vw; ++j) {
      Expr kk = rk * block + j * vw + lane;
      Expr term = aRows(kk, y) * Halide::cast(Halide::Float(32), at(q, {x, kk}));
      inner = inner.defined() ? inner + term : term;
    }
    Halide::Var blk("blk");
    blockScale = Halide::Func(state.uniqueName("mm_scale"));
    blockScale(blk, x) = prefetchingNextTileRow(Halide::cast(Halide::Float(32), at(scale, {x, blk})),
                                                deq.getScale(), x);
    Expr term = inner * blockScale(rk, x);
    if (hasMin) {
      // w = q * s - mn over a block, so a block's contribution to each lane
      // is s * sum(x q) - mn * sum(x): the lanes' sums of A per block
      // (blockXSum, once per row of A, not per weight row) times the
      // block's min, subtracted. Equal to the dequantised product up to
      // the order of f32 sums.
      const TensorFunc &mn = state.get(deq.getMin());
      blockMin = Halide::Func(state.uniqueName("mm_min"));
      blockMin(blk, x) = Halide::cast(Halide::Float(32), at(mn, {x, blk}));
      blockXSum = Halide::Func(state.uniqueName("mm_xsum"));
      Expr xsum;
      for (int j = 0; j < block / vw; ++j) {
        Expr v = aRows(blk * block + j * vw + lane, y);
        xsum = xsum.defined() ? xsum + v : v;
      }
      blockXSum(lane, blk, y) = xsum;
      term = term - blockMin(rk, x) * blockXSum(lane, rk, y);
    }
    part(lane, x, y) += prefetchingNextTile(term, rk * block);
  } else if (kBlocks > 0) {
    rk = Halide::RDom(0, kBlocks, state.uniqueName("kb"));
    Expr kk = rk * vw + lane;
    part(lane, x, y) += prefetchingNextTile(aRows(kk, y) * at(b, {x, kk}), rk * vw);
  }
  // The lanes' partial sums folded in halves (lane l + lane l + w/2, as
  // vectors of w/2 lanes: a balanced tree done with vector adds, not with
  // one scalar extract per lane), then the k % vw tail.
  std::vector<Halide::Func> halves;
  Halide::Func last = part;
  for (int w = vw; w > 2; w /= 2) {
    Halide::Func h(state.uniqueName("mm_dot_half"));
    h(lane, x, y) = last(lane, x, y) + last(lane + w / 2, x, y);
    halves.push_back(h);
    last = h;
  }
  Expr dot = vw >= 2 ? last(0, x, y) + last(1, x, y) : last(0, x, y);
  for (int t = 0; t < kTail; ++t)
    dot = dot + aRows(kBlocks * vw + t, y) * at(b, {x, Expr(kBlocks * vw + t)});
  TensorFunc out{Halide::Func(state.uniqueName("matmul_dot")), shapeExprs(cType)};
  out.func(x, y) = initialValue(op, state, y, x) + dot;

  DotStages stages{out.func, part, halves, rk, kBlocks > 0, m, n, k, blockScale,
                   intDot && block != 2 * vw ? vw : q8Blocks ? k / block : 0, b.func, blockMin, blockXSum,
                   blockIntSum, actCodes, actScales, actCodeSums};
  if (state.manualSchedules)
    scheduleDot(stages, sched, state.target);
  state.kernelOutputs.push_back(out);
  state.set(op->getResult(0), out);
  return success();
}

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
  MatmulSchedule sched = state.matmulScheduleOf(op, m, n, k, transB);

  Halide::Var x("x"), y("y"); // x: column j (contiguous), y: row i
  // Operands in the layouts the inner loop wants: A(k, i) row-major rows, B(j, k) k-major.
  Halide::Func aRows(state.uniqueName("mm_a")), bCols(state.uniqueName("mm_b"));
  aRows(x, y) = transA ? at(a, {x, y}) : at(a, {y, x});  // aRows(kk, i) = A[i, kk]
  bCols(x, y) = transB ? at(b, {x, y}) : at(b, {y, x});  // bCols(j, kk) = B[kk, j]
  if (sched.dot) {
    if (!transB)
      return op->emitError() << "algorithm = dot needs linalg.matmul_transpose_b";
    return lowerDot(op, state, aRows, m, n, k, sched);
  }
  Halide::RDom r(0, k, state.uniqueName("k"));
  Halide::Func prod(state.uniqueName("mm_acc"));
  prod(x, y) = initialValue(op, state, y, x);
  prod(x, y) += aRows(r, y) * bCols(x, r);
  TensorFunc out{Halide::Func(state.uniqueName("matmul")), shapeExprs(cType)};
  out.func(x, y) = prod(x, y);

  MatmulStages mm{out.func, prod, aRows, bCols, r, m, n, k};
  if (state.manualSchedules)
    scheduleMatmul(mm, sched, state.target);
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
