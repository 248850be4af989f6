// CPU schedule of ssm.rope: the angle table at root, the rotation vectorised along the head channels.
#include "codegen/schedules/Schedules.h"
#include "codegen/schedules/gpu/GpuSchedules.h"

namespace ssm::codegen {

using namespace Halide;

void scheduleRope(RopeKernel &k, const CpuSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleRopeGpu(k, s, target);
  requireCpuSchedule(target, "ssm.rope");
  // The table is (R/2) x L x batch angles in f64: small, computed once per call.
  k.table.compute_root();
  Var d = k.out.args()[0], h = k.out.args()[1], t = k.out.args()[2], b = k.out.args()[3];
  Var tb("tb");
  k.out.vectorize(d, s.vectorWidth, TailStrategy::GuardWithIf);
  if (s.parallel)
    k.out.fuse(t, b, tb).parallel(tb);
}

} // namespace ssm::codegen
