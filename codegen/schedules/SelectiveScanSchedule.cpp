// CPU schedule of ssm.selective_scan: channel tiles in parallel, the state of 8 (16) channels per vector.
#include "codegen/schedules/Schedules.h"

#include <algorithm>

namespace ssm::codegen {

using namespace Halide;

namespace {
/// Largest power of two <= v (v >= 1).
int floorPow2(int64_t v) {
  int p = 1;
  while (2 * p <= v)
    p *= 2;
  return p;
}
} // namespace

void scheduleSelectiveScan(SelectiveScanKernel &k, const CpuSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleSelectiveScanGpu(k, s, target);
  requireCpuSchedule(target, "ssm.selective_scan");
  const bool tm = k.timeMajor;
  const std::optional<int64_t> nC = k.n, dimC = k.dim;
  Func &y = k.y, &hLast = k.hLast, &st = k.state, &pre = k.pre, &dtF = k.dt, &aT = k.A;
  RDom &r = k.scan;
  Var d("d"), t("t"), b("b"), n("n"), j("j");
  int vw = std::max(1, s.vectorWidth);
  int tile = std::max(1, s.channelTile);
  if (dimC) {
    vw = std::min<int64_t>(vw, floorPow2(std::max<int64_t>(1, *dimC)));
    tile = static_cast<int>(std::min<int64_t>(tile, *dimC));
  }
  tile = std::max(vw, tile / vw * vw);

  // With a static dim (the usual case) the tiles shift inwards at the end
  // (tile <= dim); a symbolic dim may be smaller than a tile, so guard.
  const TailStrategy dTail = dimC ? TailStrategy::ShiftInwards : TailStrategy::GuardWithIf;
  Var dO("dO"), di("di"), dv("dv"), dl("dl"), to("to"), tl("tl");
  if (tm) {
    y.split(d, dO, di, tile, dTail)
        .split(di, dv, dl, vw, dTail)
        .reorder(dl, dv, t, dO, b)
        .vectorize(dl);
  } else {
    y.split(d, dO, di, tile, dTail)
        .reorder(t, di, dO, b)
        .split(t, to, tl, vw, TailStrategy::GuardWithIf)
        .vectorize(tl);
  }
  hLast.split(d, dO, di, tile, dTail).reorder(n, di, dO, b);
  if (s.parallel) {
    y.parallel(dO);
    hLast.parallel(dO);
  }
  hLast.compute_with(y, dO);

  st.compute_at(y, dO);
  st.split(d, dv, dl, vw, TailStrategy::GuardWithIf).vectorize(dl);
  RVar rk = r.x, rt = r.y, rto("rto"), rti("rti");
  const int preChunk = 64;
  st.update(0)
      .split(d, dv, dl, vw, TailStrategy::GuardWithIf)
      .split(rt, rto, rti, preChunk, TailStrategy::GuardWithIf)
      .reorder(dl, rk, rti, rto, dv, b)
      .vectorize(dl);
  if (nC && s.unrollState)
    st.update(0).unroll(rk);

  // Constant-size scratch (bound_storage) goes on the stack instead of
  // costing a malloc per time chunk.
  pre.compute_at(st, rto)
      .vectorize(d, vw, TailStrategy::GuardWithIf)
      .bound_storage(d, vw)
      .bound_storage(t, preChunk);
  dtF.compute_at(st, rto)
      .vectorize(d, vw, TailStrategy::GuardWithIf)
      .bound_storage(d, vw)
      .bound_storage(t, preChunk);
  std::vector<Func> perTile = k.perTile;
  perTile.insert(perTile.begin(), aT);
  for (Func &f : perTile) {
    f.compute_at(y, dO).vectorize(d, vw, TailStrategy::GuardWithIf).bound_storage(d, tile);
    if (nC)
      f.bound_storage(n, static_cast<int>(*nC));
  }
  if (dimC) {
    y.bound(d, 0, static_cast<int>(*dimC));
    hLast.bound(d, 0, static_cast<int>(*dimC));
  }
  if (nC)
    hLast.bound(n, 0, static_cast<int>(*nC));

}

} // namespace ssm::codegen
