// CPU schedule of ssm.discretize: vectorise the contiguous dim, parallel over the outermost.
#include "codegen/schedules/Schedules.h"

namespace ssm::codegen {

using namespace Halide;

void scheduleDiscretize(DiscretizeKernel &k, const CpuSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleDiscretizeGpu(k, s, target);
  requireCpuSchedule(target, "ssm.discretize");
  if (k.rank == 0)
    return;
  for (Func f : {k.abar, k.bbar}) {
    std::vector<Var> v = f.args();
    f.vectorize(v[0], s.vectorWidth, TailStrategy::GuardWithIf);
    if (s.parallel && k.rank >= 2)
      f.parallel(v[k.rank - 1]);
  }
}

} // namespace ssm::codegen
