// CPU schedule of ssm.affine_scan: the time loop inside tiles of lines, vectors across lines.
#include "codegen/schedules/Schedules.h"

#include <string>

namespace ssm::codegen {

using namespace Halide;

void scheduleAffineScan(AffineScanKernel &k, const CpuSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleAffineScanGpu(k, s, target);
  requireCpuSchedule(target, "ssm.affine_scan");
  const std::vector<Var> &v = k.vars;
  const int rank = static_cast<int>(v.size()), hd = k.scannedDim;
  RVar rt = k.time.x;
  // The update: [inner vars] rt [channel tiles] [outer vars], inner
  // vectorised, channel tiles (of the outermost inner var, channel_tile
  // lines each) parallel when nothing is outside them, else the outer vars
  // fused and parallel. When the scanned dim is innermost, the next dim
  // takes the inner place.
  Stage up = k.h.update();
  std::vector<VarOrRVar> inner, outer;
  if (hd > 0)
    for (int i = 0; i < hd; ++i)
      inner.push_back(v[i]);
  else if (rank > 1)
    inner.push_back(v[1]);
  for (int i = 0; i < rank; ++i)
    if (i != hd && !(hd > 0 && i < hd) && !(hd == 0 && i == 1))
      outer.push_back(v[i]);
  std::vector<VarOrRVar> order = inner;
  order.push_back(rt);
  order.insert(order.end(), outer.begin(), outer.end());
  up.reorder(order);
  if (!inner.empty()) {
    Var vec = hd > 0 ? v[0] : v[1];
    Var top = hd > 0 ? v[hd - 1] : v[1];
    Var to("tile_o"), ti("tile_i");
    up.split(top, to, ti, s.channelTile, TailStrategy::GuardWithIf);
    up.reorder(rt, to);
    if (outer.empty() && s.parallel)
      up.parallel(to);
    if (top.same_as(vec))
      vec = ti;
    if (hd > 0) {
      up.vectorize(vec, s.vectorWidth, TailStrategy::GuardWithIf);
    } else {
      // The scanned dim is the contiguous one: vectorising across lines would
      // gather and scatter. Interleave vectorWidth lines instead (unrolled
      // scalar chains, each line read and written sequentially).
      Var lo("lines_o"), li("lines_i");
      up.split(vec, lo, li, s.vectorWidth, TailStrategy::GuardWithIf)
          .reorder(li, rt, lo)
          .unroll(li);
    }
  }
  if (!outer.empty() && s.parallel) {
    Var fused = outer[0].var;
    for (size_t i = 1; i < outer.size(); ++i) {
      Var f("fused_" + std::to_string(i));
      up.fuse(fused, outer[i].var, f);
      fused = f;
    }
    up.parallel(fused);
  }
  std::vector<Var> lastVars = k.hLast.args();
  if (!lastVars.empty())
    k.hLast.vectorize(lastVars[0], s.vectorWidth, TailStrategy::GuardWithIf);
}

} // namespace ssm::codegen
