// CPU schedule of ssm.causal_conv1d: vectors along time, tasks of channel tiles.
#include "codegen/schedules/Schedules.h"

namespace ssm::codegen {

using namespace Halide;

void scheduleCausalConv1d(CausalConv1dKernel &k, const CpuSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleCausalConv1dGpu(k, s, target);
  requireCpuSchedule(target, "ssm.causal_conv1d");
  // x86 and Arm alike: the loop is load-bound, the vector width is the lever.
  Var t = k.out.args()[0], d = k.out.args()[1], b = k.out.args()[2];
  Var dOuter("d_o"), dInner("d_i"), tile("tile");
  k.out.vectorize(t, s.vectorWidth, TailStrategy::GuardWithIf);
  k.out.split(d, dOuter, dInner, s.channelTile, TailStrategy::GuardWithIf);
  if (s.parallel)
    k.out.fuse(dOuter, b, tile).parallel(tile);
}

} // namespace ssm::codegen
