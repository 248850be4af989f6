// CPU schedule of ssm.wkv4: the time loop inside vectors of channels, tasks over channel vectors x batch.
#include "codegen/schedules/Schedules.h"

namespace ssm::codegen {

using namespace Halide;

void scheduleWkv4(Wkv4Kernel &k, const CpuSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleWkv4Gpu(k, s, target);
  requireCpuSchedule(target, "ssm.wkv4");
  const int vw = s.vectorWidth;
  Var c = k.state.args()[0], b = k.state.args()[2];
  Var t = k.wkv.args()[1];
  Var co("co"), ci("ci"), f("f");
  k.state.compute_root();
  k.state.update(0).vectorize(c, vw, TailStrategy::GuardWithIf);
  Stage scan = k.state.update(1);
  scan.split(c, co, ci, vw, TailStrategy::GuardWithIf).reorder(ci, k.time.x, co, b).vectorize(ci);
  if (s.parallel)
    scan.fuse(co, b, f).parallel(f);
  k.wkv.vectorize(c, vw, TailStrategy::GuardWithIf);
  if (s.parallel)
    k.wkv.parallel(t);
  for (Func o : {k.aa, k.bb, k.pp})
    o.vectorize(o.args()[0], vw, TailStrategy::GuardWithIf);
}

} // namespace ssm::codegen
