// CPU schedule of the ssm.wkv7 kernel.
#include "codegen/schedules/Wkv7Schedule.h"
#include "codegen/schedules/ChunkedSchedule.h"

namespace ssm::codegen {

using namespace Halide;

namespace {

void scheduleChunked(Wkv7Kernel &k, const CpuSchedule &s) {
  // One task per (head, stream) walks the chunks; each chunk's local stages
  // (a few C x C, C x N and one C x N x C matrices, ~100 KB at C 16 and
  // N 64) are computed at the chunk's step of the pass, right before it
  // reads them, so they stay in L2.
  const int vw = s.vectorWidth, C = k.chunk, N = k.n;
  LoopLevel chunk = scheduleChunkedPass(k.pass, s);
  CpuSchedule local = s;
  local.parallel = false;
  auto at = [&](Func f) {
    f.compute_at(chunk).vectorize(f.args()[0], vw, TailStrategy::GuardWithIf);
  };
  at(k.gcum);
  if (k.gcum.num_update_definitions() > 0)
    k.gcum.update(0).vectorize(k.gcum.args()[0], vw, TailStrategy::GuardWithIf);
  for (Func f : {k.aC, k.bC, k.kC, k.rC, k.vC, k.bRows, k.kRows})
    at(f);
  at(k.ew);
  at(k.decRows);
  k.decRows.bound(k.decRows.args()[0], 0, C).bound(k.decRows.args()[2], 0, C);
  if (k.decRows.num_update_definitions() > 0) {
    // The rows r outermost: each step a vector multiply per (s, j), independent.
    Var ds = k.decRows.args()[0], dj = k.decRows.args()[1];
    k.decRows.update(0)
        .reorder(ds, dj, k.decRowsScan.x)
        .vectorize(ds, vw, TailStrategy::GuardWithIf);
  }
  for (Func g : {k.gramAB, k.gramAK, k.gramRB, k.gramRK})
    chunkTiledReduction(g.in(), g, {k.keys.x}, C, C, chunk, s);
  for (Func f : {k.aab, k.tinv}) {
    at(f);
    f.bound(f.args()[0], 0, C).bound(f.args()[1], 0, C);
  }
  chunkReductionUpdate(k.tinv, 0, {k.solve.x, k.solve.y}, 0, local, /*rowPos=*/0);
  chunkTiledReduction(k.rhsU.in(), k.rhsU, {k.rowsBelow.x}, N, C, chunk, s);
  chunkTiledReduction(k.xu.in(), k.xu, {k.rowsUpTo.x}, N, C, chunk, s);
  at(k.at);
  chunkTiledReduction(k.xw.in(), k.xw, {k.rowsUpTo.x}, N, C, chunk, s);
  chunkTiledReduction(k.oloc.in(k.pass.states), k.oloc, {k.rowsUpTo.x}, N, C, chunk, s);
  chunkTiledReduction(k.coef.in(k.pass.states), k.coef, {k.rowsCoef.x}, N, 2 * C, chunk, s);
  at(k.kt);
  at(k.glast);
}

} // namespace

void scheduleWkv7(Wkv7Kernel &k, const CpuSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleWkv7Gpu(k, s, target);
  requireCpuSchedule(target, "ssm.wkv7");
  const int vw = s.vectorWidth;
  if (k.chunk > 0) {
    scheduleChunked(k, s);
    k.y.vectorize(k.y.args()[0], vw, TailStrategy::GuardWithIf);
    k.finalState.vectorize(k.finalState.args()[0], vw, TailStrategy::GuardWithIf);
    return;
  }
  Var i = k.scan.args()[0], h = k.scan.args()[2], b = k.scan.args()[3];
  k.decay.compute_root().vectorize(k.decay.args()[0], vw, TailStrategy::GuardWithIf);
  Var si = k.sa0.args()[0];
  k.sa0.compute_root().vectorize(si, vw, TailStrategy::GuardWithIf);
  k.sa0.update(0).vectorize(si, vw, TailStrategy::GuardWithIf);
  k.scan.compute_root().vectorize(i, vw, TailStrategy::GuardWithIf);
  // Rows are independent: each vector of rows runs the whole (t, x) walk.
  Var io("io"), ii("ii"), hb("hb");
  Stage scan = k.scan.update(0);
  scan.split(i, io, ii, vw, TailStrategy::GuardWithIf)
      .reorder(ii, k.steps.x, k.steps.y, io, h, b)
      .vectorize(ii);
  if (s.parallel)
    scan.fuse(h, b, hb).parallel(hb);
  k.y.vectorize(k.y.args()[0], vw, TailStrategy::GuardWithIf);
  k.finalState.vectorize(k.finalState.args()[0], vw, TailStrategy::GuardWithIf);
}

} // namespace ssm::codegen
