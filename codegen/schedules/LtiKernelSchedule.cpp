// CPU schedule of ssm.lti_kernel: coefficients at root, K vectorised along l, parallel over h.
#include "codegen/schedules/Schedules.h"

namespace ssm::codegen {

using namespace Halide;

void scheduleLtiKernel(LtiKernelKernel &k, const CpuSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleLtiKernelGpu(k, s, target);
  requireCpuSchedule(target, "ssm.lti_kernel");
  Var l = k.K.args()[0], h = k.K.args()[1];
  k.coef.compute_root();
  k.K.vectorize(l, s.vectorWidth, TailStrategy::GuardWithIf);
  k.K.update().reorder(l, k.modes.x, h).vectorize(l, s.vectorWidth, TailStrategy::GuardWithIf);
  if (s.parallel) {
    k.K.parallel(h);
    k.K.update().parallel(h);
  }
}

} // namespace ssm::codegen
