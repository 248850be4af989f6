// CPU schedule of ssm.selective_update: channel tiles with the new state in L1, readout vectorised over (channel, n).
#include "codegen/schedules/Schedules.h"

#include <algorithm>

namespace ssm::codegen {

using namespace Halide;

namespace {
int floorPow2(int64_t v) {
  int p = 1;
  while (2 * p <= v)
    p *= 2;
  return p;
}
} // namespace

void scheduleSelectiveUpdate(SelectiveUpdateKernel &k, const CpuSchedule &s,
                             const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleSelectiveUpdateGpu(k, s, target);
  requireCpuSchedule(target, "ssm.selective_update");
  const std::optional<int64_t> nC = k.n, chanC = k.channels;
  const bool heads = k.heads;
  Func &ns = k.newState, &y = k.y, &S = k.state, &pre = k.pre, &acc = k.acc;
  RVar rn = k.readout.x;
  Var n("n"), c("c"), h("h"), b("b");
  int vw = std::max(1, s.vectorWidth);
  int nv = vw;
  if (nC)
    nv = std::min<int64_t>(vw, floorPow2(std::max<int64_t>(1, *nC)));
  int cvw = vw;
  int tile = std::max(1, s.channelTile);
  if (chanC) {
    cvw = std::min<int64_t>(vw, floorPow2(std::max<int64_t>(1, *chanC)));
    tile = static_cast<int>(std::min<int64_t>(tile, *chanC));
  }
  tile = std::max(cvw, tile / cvw * cvw);

  Var cO("cO"), ci("ci"), no("no"), nl("nl");
  // new_state: (n, c[, h], b) with the channel tile loop cO outermost but b
  // (and h); y shares that loop (compute_with), so one parallel loop does all.
  ns.split(c, cO, ci, tile);
  y.split(c, cO, ci, tile);
  if (heads) {
    ns.reorder(n, ci, cO, h, b);
    y.reorder(ci, cO, h, b);
  } else {
    ns.reorder(n, ci, cO, b);
    y.reorder(ci, cO, b);
  }
  // Static extents make every per-tile scratch buffer a constant-size
  // stack allocation (a heap allocation per tile costs more than the tile).
  if (nC)
    ns.bound(n, 0, static_cast<int>(*nC));
  if (chanC) {
    ns.bound(c, 0, static_cast<int>(*chanC));
    y.bound(c, 0, static_cast<int>(*chanC));
  }
  ns.split(n, no, nl, nv).vectorize(nl);
  if (s.unrollState && nC)
    ns.unroll(no);
  y.vectorize(ci, cvw);
  VarOrRVar par = heads ? VarOrRVar(h) : VarOrRVar(cO);
  if (s.parallel) {
    ns.parallel(par);
    y.parallel(par);
  }
  y.compute_with(ns, cO);

  S.compute_at(ns, cO).split(n, no, nl, nv, TailStrategy::GuardWithIf).vectorize(nl);
  if (s.unrollState && nC)
    S.unroll(no);
  pre.compute_at(ns, cO).vectorize(c, cvw, TailStrategy::GuardWithIf);
  k.dt.compute_at(ns, cO).vectorize(c, cvw, TailStrategy::GuardWithIf);
  // The readout: 8 channels at a time, vectorised over both the channel and
  // n, so that the horizontal sums become one 64-to-8 lane reduction.
  Var cc("cc"), cl("cl");
  acc.compute_at(y, cO).vectorize(c, cvw, TailStrategy::GuardWithIf);
  acc.update(0)
      .split(c, cc, cl, cvw, TailStrategy::GuardWithIf)
      .reorder(rn, cl, cc)
      .atomic()
      .vectorize(rn, nv, TailStrategy::GuardWithIf)
      .vectorize(cl);

}

} // namespace ssm::codegen
