// CPU schedule of the ssm.wkv7 kernel.
#include "codegen/schedules/Wkv7Schedule.h"

namespace ssm::codegen {

using namespace Halide;

void scheduleWkv7(Wkv7Kernel &k, const CpuSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleWkv7Gpu(k, s, target);
  requireCpuSchedule(target, "ssm.wkv7");
  const int vw = s.vectorWidth;
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
