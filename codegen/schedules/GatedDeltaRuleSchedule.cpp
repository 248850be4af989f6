// CPU schedule of the ssm.gated_delta_rule kernel (codegen/kernels/GatedDeltaRuleKernel.h).
#include "codegen/schedules/Schedules.h"
#include "codegen/schedules/gpu/GpuSchedules.h"

namespace ssm::codegen {

using namespace Halide;

void scheduleGatedDeltaRule(GatedDeltaRuleKernel &k, const CpuSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu)
    return scheduleGatedDeltaRuleGpu(k, s, target);
  requireCpuSchedule(target, "ssm.gated_delta_rule");
  const int vw = s.vectorWidth;
  k.decay.compute_root().vectorize(k.decay.args()[0], vw, TailStrategy::GuardWithIf);
  Var kj = k.kv0.args()[0];
  k.kv0.compute_root().vectorize(kj, vw, TailStrategy::GuardWithIf);
  if (k.kv0.num_update_definitions() > 0)
    k.kv0.update(0).vectorize(kj, vw, TailStrategy::GuardWithIf);
  Var j = k.scan.args()[0], h = k.scan.args()[2], b = k.scan.args()[3];
  k.scan.compute_root().vectorize(j, vw, TailStrategy::GuardWithIf);
  // Value columns are independent: each vector of columns runs the whole
  // (t, x) walk of its (head, stream) task.
  Var jo("jo"), ji("ji"), hb("hb");
  Stage scan = k.scan.update(0);
  scan.split(j, jo, ji, vw, TailStrategy::GuardWithIf)
      .reorder(ji, k.steps.x, k.steps.y, jo, h, b)
      .vectorize(ji);
  if (s.parallel)
    scan.fuse(h, b, hb).parallel(hb);
  k.out.vectorize(k.out.args()[0], vw, TailStrategy::GuardWithIf);
  k.finalState.vectorize(k.finalState.args()[0], vw, TailStrategy::GuardWithIf);
}

} // namespace ssm::codegen
