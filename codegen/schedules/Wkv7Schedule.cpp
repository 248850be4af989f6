// CPU schedule of the ssm.wkv7 kernel.
#include "codegen/schedules/Wkv7Schedule.h"

namespace ssm::codegen {

using namespace Halide;

void scheduleWkv7(const Wkv7Funcs &fc, const CpuSchedule &s, const Target &) {
  Wkv7Funcs f = fc; // Func and Var are handles: scheduling a copy schedules the kernel
  const int vw = s.vectorWidth;
  f.decay.compute_root().vectorize(f.j, vw, TailStrategy::GuardWithIf);
  f.sa0.compute_root().vectorize(f.i, vw, TailStrategy::GuardWithIf);
  f.sa0.update(0).vectorize(f.i, vw, TailStrategy::GuardWithIf);
  f.scan.compute_root().vectorize(f.i, vw, TailStrategy::GuardWithIf);
  Var io("io"), ii("ii"), hb("hb");
  Stage scan = f.scan.update(0);
  scan.split(f.i, io, ii, vw, TailStrategy::GuardWithIf)
      .reorder(ii, f.steps.x, f.steps.y, io, f.h, f.batch)
      .vectorize(ii);
  if (s.parallel)
    scan.fuse(f.h, f.batch, hb).parallel(hb);
  f.y.vectorize(f.i, vw, TailStrategy::GuardWithIf);
  f.finalState.vectorize(f.j, vw, TailStrategy::GuardWithIf);
}

} // namespace ssm::codegen
