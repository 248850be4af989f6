// CPU schedule of ssm.attention: tasks of query tiles per head, score rows kept per tile.
#include "codegen/schedules/Schedules.h"
#include "codegen/schedules/gpu/GpuSchedules.h"

namespace ssm::codegen {

using namespace Halide;

void scheduleAttention(AttentionKernel &k, const CpuSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleAttentionGpu(k, s, target);
  requireCpuSchedule(target, "ssm.attention");
  const int vw = s.vectorWidth;
  // The caches: copies with this call's rows written (results; root).
  for (Func f : {k.kNew, k.vNew}) {
    Var d = f.args()[0], c = f.args()[2], b = f.args()[3];
    f.vectorize(d, vw, TailStrategy::GuardWithIf);
    if (s.parallel)
      f.parallel(c, 64, TailStrategy::GuardWithIf);
    (void)b;
  }
  // One task per (tile of channel_tile queries, head, stream): its score and
  // weight rows (tile x readable keys) live in the task; no L x C matrix.
  Var dv = k.out.args()[0], h = k.out.args()[1], i = k.out.args()[2], b = k.out.args()[3];
  Var io("io"), ii("ii"), task("task");
  const int tile = std::max(1, s.channelTile);
  k.out.split(i, io, ii, tile, TailStrategy::GuardWithIf)
      .reorder(dv, ii, h, io, b)
      .vectorize(dv, vw, TailStrategy::GuardWithIf);
  if (s.parallel)
    k.out.fuse(h, io, task).fuse(task, b, task).parallel(task);
  LoopLevel at = s.parallel ? LoopLevel(k.out, task) : LoopLevel(k.out, h);
  k.score.compute_at(at).vectorize(k.score.args()[0], vw, TailStrategy::GuardWithIf);
  k.score.update(0)
      .reorder(k.score.args()[0], k.channels.x, k.score.args()[1], k.score.args()[2])
      .vectorize(k.score.args()[0], vw, TailStrategy::GuardWithIf);
  k.rowMax.compute_at(at);
  k.weight.compute_at(at).vectorize(k.weight.args()[0], vw, TailStrategy::GuardWithIf);
  k.rowSum.compute_at(at);
  k.acc.compute_at(at).vectorize(k.acc.args()[0], vw, TailStrategy::GuardWithIf);
  k.acc.update(0).vectorize(k.acc.args()[0], vw, TailStrategy::GuardWithIf);
}

} // namespace ssm::codegen
