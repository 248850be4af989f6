// CPU schedule of ssm.lti_conv: register blocks of outputs along time, tasks over batch x H.
#include "codegen/schedules/Schedules.h"

namespace ssm::codegen {

using namespace Halide;

int ltiConvTimeBlock(const CpuSchedule &s) { return std::max(1, s.vectorWidth) * 4; }

void scheduleLtiConv(LtiConvKernel &k, const CpuSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleLtiConvGpu(k, s, target);
  requireCpuSchedule(target, "ssm.lti_conv");
  const int vw = s.vectorWidth, tb = k.timeBlock;
  Var tile("tile"), j = k.upad.args()[0];
  k.y.split(k.t, k.to, k.ti, tb, TailStrategy::GuardWithIf)
      .vectorize(k.ti, vw, TailStrategy::GuardWithIf);
  if (s.parallel)
    k.y.fuse(k.h, k.b, tile).parallel(tile);
  k.upad.compute_at(k.y, s.parallel ? tile : k.h).vectorize(j, vw, TailStrategy::GuardWithIf);
  Var ati = k.acc.args()[0], ato = k.acc.args()[1];
  k.acc.compute_at(k.y, k.to)
      .bound_extent(ati, tb)
      .bound_extent(ato, 1)
      .vectorize(ati, vw)
      .unroll(ati);
  k.acc.update().reorder(ati, k.taps.x, ato).vectorize(ati, vw).unroll(ati);
}

} // namespace ssm::codegen
