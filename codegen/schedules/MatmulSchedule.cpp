// CPU schedule of the linalg matmuls: register tiles of outer products (tiled) or of dot products (dot).
#include "codegen/schedules/Schedules.h"

#include "dialect/ScheduleDefaults.h"

#include <algorithm>

namespace ssm::codegen {

using namespace Halide;

MatmulSchedule defaultMatmulSchedule(int64_t m, int64_t n, int64_t k, bool transposeB,
                                     int vectorWidth, const Target &t, std::optional<bool> dot) {
  TargetTraits traits;
  traits.vectorWidth = vectorWidth;
  traits.wideRegisterFile = t.has_feature(Target::AVX512) || targetFamily(t) == TargetFamily::Arm;
  return ssm::defaultMatmulSchedule(m, n, k, transposeB, traits, dot);
}

void scheduleMatmul(MatmulStages &mm, const MatmulSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleMatmulGpu(mm, s, target);
  requireCpuSchedule(target, "linalg matmul");
  const int vw = static_cast<int>(s.vectorWidth);
  Var x("x"), y("y"), xi("xi"), yi("yi"), yii("yii"), xy("xy");
  RVar rk = mm.r.x, ko("ko"), ki("ki");
  const int tileX = static_cast<int>(s.tileCols), tileY = static_cast<int>(s.tileRows),
            rowTiles = static_cast<int>(s.rowTiles), tileK = static_cast<int>(s.tileK);
  const bool blockK = tileK > 1 && tileK < mm.k;
  if (mm.n >= tileX && mm.m >= tileY * rowTiles) {
    mm.out.compute_root()
        .tile(x, y, xi, yi, tileX, tileY * rowTiles, TailStrategy::ShiftInwards)
        .fuse(x, y, xy)
        .split(yi, yi, yii, tileY, TailStrategy::ShiftInwards)
        .vectorize(xi, vw);
    if (s.parallel)
      mm.out.parallel(xy);
    mm.prod.compute_at(mm.out, yi).vectorize(x, vw).unroll(x).unroll(y);
    Stage up = mm.prod.update();
    if (blockK)
      up.split(rk, ko, ki, tileK, TailStrategy::GuardWithIf).reorder(x, y, ki, ko).unroll(ki);
    else
      up.reorder(x, y, rk);
    up.vectorize(x, vw).unroll(x).unroll(y);
  } else {
    mm.out.compute_root().vectorize(x, vw, TailStrategy::GuardWithIf);
    if (s.parallel)
      mm.out.parallel(y);
    mm.prod.compute_at(mm.out, y).vectorize(x, vw, TailStrategy::GuardWithIf);
    Stage up = mm.prod.update();
    if (blockK)
      up.split(rk, ko, ki, tileK, TailStrategy::GuardWithIf).reorder(x, ki, ko).unroll(ki);
    up.vectorize(x, vw, TailStrategy::GuardWithIf);
  }
  // The k-major copy of B is read by every row tile: materialise it once
  // (pack_b), or read B where it is.
  if (s.packB)
    mm.bCols.compute_root().parallel(y).vectorize(x, vw, TailStrategy::GuardWithIf);
  else
    mm.bCols.compute_inline();
}

namespace {
/// True when the dot form runs K in cache blocks of tile_k elements (see
/// scheduleDot): the shape conditions of dotBlocksK (whole tiles, task
/// blocks and K blocks: the partial sums of a task are one buffer whose
/// update loops are split by the tile with RoundUp, and the weight panel is
/// copied per K block, so a partial one would read A or the weight past
/// their ends; with vector_width 1 a partial last K block did), a K loop,
/// and no q8 weight.
bool kBlocked(const DotStages &d, const MatmulSchedule &s) {
  return d.hasBlocks && !d.blockScale.defined() && dotBlocksK(s, d.m, d.n, d.k);
}
} // namespace

void scheduleDot(DotStages &d, const MatmulSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleDotGpu(d, s, target);
  requireCpuSchedule(target, "linalg matmul (dot)");
  // Register tile: tr rows of A x tc rows of the weight, each output's vw
  // partial sums a vector accumulator (part is computed per tile, its
  // lane loop vectorised and the tile unrolled, so LLVM keeps it in
  // registers); the lane sums and the stores of the tile follow. A task
  // is a block of row_tiles x col_tiles tiles walked with the weight
  // block outermost, so it stays in L2 while the rows of A pass over it.
  const int tr = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(s.tileRows, d.m)));
  const int tc = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(s.tileCols, d.n)));
  Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
  Var xb("xb"), xt("xt"), yb("yb"), yt("yt"), task("task");
  d.out.compute_root().tile(x, y, xo, yo, xi, yi, tc, tr, TailStrategy::ShiftInwards);
  d.out.split(xo, xb, xt, static_cast<int>(s.colTiles), TailStrategy::GuardWithIf)
      .split(yo, yb, yt, static_cast<int>(s.rowTiles), TailStrategy::GuardWithIf)
      .reorder(xi, yi, xt, yt, xb, yb)
      .fuse(xb, yb, task)
      .unroll(xi)
      .unroll(yi);
  if (s.parallel)
    d.out.parallel(task);
  Var lane("lane");
  if (kBlocked(d, s)) {
    const int vw = static_cast<int>(s.vectorWidth);
    const int kSteps = static_cast<int>(s.tileK / vw);
    // K in cache blocks of tile_k elements: the task's partial sums (every
    // register tile's lanes) live in a buffer across the blocks, and each
    // block walks the task's tiles, so a tile's rows of A and of the weight
    // (tile_k elements each) are read from L1 instead of streaming all of K
    // from L2 per tile (BLIS's kc loop).
    Var xi2("xi2"), yi2("yi2"), xt2("xt2"), yt2("yt2");
    RVar rko("rko"), rki("rki");
    d.part.compute_at(d.out, task).vectorize(lane);
    d.part.update()
        .split(x, xt2, xi2, tc, TailStrategy::RoundUp)
        .split(y, yt2, yi2, tr, TailStrategy::RoundUp)
        .split(d.r.x, rko, rki, kSteps, TailStrategy::GuardWithIf)
        .reorder(lane, xi2, yi2, rki, xt2, yt2, rko)
        .vectorize(lane)
        .unroll(xi2)
        .unroll(yi2);
    // Each block's panel of the weight (the task's col_tiles x tile_cols
    // rows, tile_k elements each) is copied into a buffer whose rows are
    // tile_k + 16 floats apart. Read in place, weight rows of 1536 or 3072
    // floats (multiples of 4 KB) put the tile's streams into one L1 set;
    // 512 x 768 x 3072 on 2 Zen 5 cores: 9.8 ms blocked without the copy,
    // 8.8 with it (a copy of A's panel as well: 10.4).
    Var wk = d.weight.args()[0];
    d.weight.in(d.part)
        .compute_at(LoopLevel(d.part, rko))
        .align_storage(wk, static_cast<int>(s.tileK) + 16)
        .vectorize(wk, vw, TailStrategy::GuardWithIf);
  } else {
    d.part.compute_at(d.out, xt).vectorize(lane).unroll(x).unroll(y);
    if (d.hasBlocks)
      d.part.update().reorder(lane, x, y, d.r.x).vectorize(lane).unroll(x).unroll(y);
  }
  for (Func &h : d.halves)
    h.compute_at(d.out, xt).vectorize(lane).unroll(x).unroll(y);
  // A q8 weight's scales: the tile's rows x blocks widened to f32 with
  // vector conversions before the block loop, which then reads each with a
  // broadcast load (the scalar f16 conversion and broadcast per block and
  // row were 4 of the loop's ~14 instructions per 32 weights).
  if (d.blockScale.defined()) {
    Var blk = d.blockScale.args()[0];
    d.blockScale.compute_at(d.out, xt);
    const int lanes = std::min(static_cast<int>(s.vectorWidth), d.scaleBlocks);
    if (lanes > 1)
      d.blockScale.vectorize(blk, lanes, TailStrategy::GuardWithIf);
  }
  // A Q4_K weight's mins as its scales; A's block sums once per call (they
  // do not depend on the weight row: K / 2 floats per row of A at vw 16).
  if (d.blockMin.defined()) {
    Var blk = d.blockMin.args()[0];
    d.blockMin.compute_at(d.out, xt);
    const int lanes = std::min(static_cast<int>(s.vectorWidth), d.scaleBlocks);
    if (lanes > 1)
      d.blockMin.vectorize(blk, lanes, TailStrategy::GuardWithIf);
  }
  if (d.blockXSum.defined())
    d.blockXSum.compute_root().vectorize(d.blockXSum.args()[0], static_cast<int>(s.vectorWidth));
  // The integer matvec: each block's int32 sums computed inside the block
  // loop, per weight row of the register tile right before their
  // conversion (computed for the whole tile first, the 16 sums and 16
  // accumulators of a 16-row tile spilled), the pair of
  // products per lane vectorised atomically so Halide emits one vpmaddwd
  // (a VectorReduce of factor 2 over Int(16) products) per block and row;
  // A's codes, scales and code sums once per call.
  if (d.blockIntSum.defined()) {
    const int vw = static_cast<int>(s.vectorWidth);
    Var il = d.blockIntSum.args()[0], ix = d.blockIntSum.args()[1], iy = d.blockIntSum.args()[2];
    d.blockIntSum.compute_at(d.part, d.part.args()[1]).vectorize(il).unroll(ix).unroll(iy);
    d.blockIntSum.update()
        .atomic()
        .vectorize(d.blockIntSum.rvars()[0])
        .vectorize(il)
        .unroll(ix)
        .unroll(iy);
    d.actCodes.compute_root().vectorize(d.actCodes.args()[0], vw * 2, TailStrategy::GuardWithIf);
    d.actScales.compute_root();
    if (d.actCodeSums.defined())
      d.actCodeSums.compute_root();
  }
}

} // namespace ssm::codegen
