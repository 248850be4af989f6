// CPU schedule of the linalg matmuls: register tiles (tiled) or partial-sum vectors (matvec).
#include "codegen/schedules/Schedules.h"

#include "dialect/ScheduleDefaults.h"

#include <algorithm>

namespace ssm::codegen {

using namespace Halide;

MatmulSchedule defaultMatmulSchedule(int64_t m, int64_t n, int64_t k, bool transposeB,
                                     int vectorWidth, const Target &t) {
  TargetTraits traits;
  traits.vectorWidth = vectorWidth;
  traits.wideRegisterFile = t.has_feature(Target::AVX512) || targetFamily(t) == TargetFamily::Arm;
  MatmulDefaults d = ssm::defaultMatmulSchedule(m, n, k, transposeB, traits);
  MatmulSchedule s;
  s.matvec = d.matvec;
  s.vectorWidth = static_cast<int>(d.vectorWidth);
  s.tileRows = static_cast<int>(d.tileRows);
  s.tileCols = static_cast<int>(d.tileCols);
  s.tileK = static_cast<int>(d.tileK);
  s.rowTiles = static_cast<int>(d.rowTiles);
  s.packB = d.packB;
  s.parallel = d.parallel;
  return s;
}

void scheduleMatmul(MatmulStages &mm, const MatmulSchedule &s, const Target &target) {
  requireCpuSchedule(target, "linalg matmul");
  const int vw = s.vectorWidth;
  Var x("x"), y("y"), xi("xi"), yi("yi"), yii("yii"), xy("xy");
  RVar rk = mm.r.x, ko("ko"), ki("ki");
  const int tileX = s.tileCols, tileY = s.tileRows, rowTiles = s.rowTiles;
  const bool blockK = s.tileK > 1 && s.tileK < mm.k;
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
      up.split(rk, ko, ki, s.tileK, TailStrategy::GuardWithIf).reorder(x, y, ki, ko).unroll(ki);
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
      up.split(rk, ko, ki, s.tileK, TailStrategy::GuardWithIf).reorder(x, ki, ko).unroll(ki);
    up.vectorize(x, vw, TailStrategy::GuardWithIf);
  }
  // The k-major copy of B is read by every row tile: materialise it once
  // (pack_b), or read B where it is.
  if (s.packB)
    mm.bCols.compute_root().parallel(y).vectorize(x, vw, TailStrategy::GuardWithIf);
  else
    mm.bCols.compute_inline();
}

void scheduleMatvec(MatvecStages &mv, const MatmulSchedule &s, const Target &target) {
  requireCpuSchedule(target, "linalg matmul (matvec)");
  const int vw = s.vectorWidth;
  Var x("x"), y("y"), lane("lane"), xo("xo"), xi("xi"), xt("xt"), xb("xb");
  mv.out.compute_root();
  if (mv.n >= vw) {
    // ShiftInwards keeps each block of columns full, so the partial sums
    // of its vw columns unroll into vw vector accumulators; tasks of
    // tile_cols columns.
    mv.out.split(x, xo, xi, vw, TailStrategy::ShiftInwards).vectorize(xi);
    Var block = xo;
    int blocksPerTask = std::max(1, s.tileCols / vw);
    if (blocksPerTask > 1) {
      mv.out.split(xo, xt, xb, blocksPerTask, TailStrategy::GuardWithIf);
      block = xb;
    }
    if (s.parallel)
      mv.out.parallel(blocksPerTask > 1 ? xt : xo);
    mv.part.compute_at(mv.out, block).vectorize(lane).unroll(x);
    if (mv.hasBlocks)
      mv.part.update().vectorize(lane).unroll(x);
  } else {
    mv.part.compute_at(mv.out, x).vectorize(lane);
    if (mv.hasBlocks)
      mv.part.update().vectorize(lane);
  }
}

} // namespace ssm::codegen
