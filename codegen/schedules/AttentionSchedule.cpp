// CPU schedule of ssm.attention: tasks of query tiles per head; per task, key tiles as small matrix products.
#include "codegen/schedules/Schedules.h"
#include "codegen/schedules/gpu/GpuSchedules.h"

#include <algorithm>

namespace ssm::codegen {

using namespace Halide;

namespace {

/// The largest u in [2, maxU] dividing n, or maxU where none does.
int unrollDividing(int n, int maxU) {
  for (int u = maxU; u >= 2; --u)
    if (n % u == 0)
      return u;
  return std::max(1, maxU);
}

/// Decode (one query): one task per (head, stream); the key tiles of a task
/// run in parallel (flash-decoding) and each is vectorised along its keys
/// (scores) and the value channels (the weighted sums).
void scheduleDecode(AttentionKernel &k, const CpuSchedule &s, LoopLevel at) {
  const int vw = s.vectorWidth;
  const int cols = (k.valueDim + 2 + vw - 1) / vw * vw;
  Var c = k.part.args()[1], t = k.part.args()[2];
  k.qs.compute_at(at).vectorize(k.qs.args()[1], vw, TailStrategy::GuardWithIf);
  for (Func f : {k.m, k.fac})
    f.compute_at(at);
  k.comb.compute_at(at).bound(k.comb.args()[1], 0, cols);
  k.comb.vectorize(k.comb.args()[1], vw);
  k.comb.update(0).vectorize(k.comb.args()[1], vw);
  k.part.compute_at(at).bound(c, 0, cols).vectorize(c, vw);
  Var co("co"), ci("ci");
  k.part.update(0)
      .split(c, co, ci, vw)
      .reorder(ci, co, k.partKeys.x, k.part.args()[3], t)
      .vectorize(ci)
      .unroll(co);
  if (s.parallel)
    k.part.update(0).parallel(t);
  LoopLevel tile(k.part, t);
  k.vt.compute_at(tile).vectorize(k.vt.args()[0], vw, TailStrategy::GuardWithIf);
  Var sj = k.s.args()[1];
  k.s.compute_at(tile);
  if (k.sp.defined()) {
    // Lane partial sums along each key row (contiguous loads), then one
    // horizontal sum per key.
    Var l = k.sp.args()[0];
    k.sp.compute_at(tile).vectorize(l);
    k.sp.update(0).reorder(l, k.channels.x, k.sp.args()[1]).vectorize(l);
    k.s.update(0).atomic().vectorize(k.lanesDom.x);
  } else {
    // The key tile stored keys-fastest, so the scores vectorise along the keys.
    Var d = k.kt.args()[0], jj = k.kt.args()[1], jo("jo"), ji("ji");
    k.kt.compute_at(tile).reorder_storage(jj, d).reorder(jj, d).vectorize(jj, vw, TailStrategy::GuardWithIf);
    k.s.vectorize(sj, vw, TailStrategy::GuardWithIf);
    const int lanes = std::min(4, std::max(1, k.keyTile / vw)) * vw;
    k.s.update(0)
        .split(sj, jo, ji, lanes, TailStrategy::GuardWithIf)
        .reorder(ji, k.channels.x, jo)
        .vectorize(ji, vw)
        .unroll(ji);
  }
  k.mt.compute_at(tile);
  k.pt.compute_at(tile).vectorize(k.pt.args()[1], vw, TailStrategy::GuardWithIf);
}

/// Prefill: one task per (query tile, head, stream); per key tile, the
/// scores as a Tq x Tk product (queries along the vectors, keys unrolled),
/// the tile's max and weights, and the weighted value sums (queries along
/// the vectors, value channels unrolled).
void schedulePrefill(AttentionKernel &k, const CpuSchedule &s, LoopLevel at) {
  const int vw = s.vectorWidth;
  const int Tq = k.queryTile;
  const int qv = std::min(vw, Tq);
  const int rows = (Tq + qv - 1) / qv; // vectors per query tile
  auto vecQ = [&](Stage st, Var ii) {
    if (Tq == 1)
      return;
    Var io("iv_o"), iv("iv");
    st.split(ii, io, iv, qv, TailStrategy::GuardWithIf).vectorize(iv).unroll(io);
  };
  for (Func f : {k.qs, k.m, k.fac, k.comb, k.part, k.s, k.mt, k.pt})
    f.bound(f.args()[0], 0, Tq);
  k.qs.compute_at(at);
  vecQ(k.qs, k.qs.args()[0]);
  for (Func f : {k.m, k.fac}) {
    f.compute_at(at);
    vecQ(f, f.args()[0]);
  }
  k.m.update(0).reorder(k.m.args()[0], k.tiles.x);
  vecQ(k.m.update(0), k.m.args()[0]);
  Var c = k.part.args()[1], t = k.part.args()[2];
  k.comb.compute_at(at).bound(k.comb.args()[1], 0, k.valueDim + 1);
  vecQ(k.comb, k.comb.args()[0]);
  k.comb.update(0).reorder(k.comb.args()[0], k.comb.args()[1], k.tiles.x);
  vecQ(k.comb.update(0), k.comb.args()[0]);

  // The partials of every key tile the query tile reads; per tile, the
  // weighted sums with value channels unrolled (rows x u accumulators).
  const int cols = k.valueDim + 2;
  const int u = unrollDividing(cols, std::max(1, 12 / rows));
  k.part.compute_at(at).bound(c, 0, cols);
  vecQ(k.part, k.part.args()[0]);
  Var co("co"), ci("ci");
  Var pi = k.part.args()[0];
  k.part.update(0).split(c, co, ci, u, TailStrategy::GuardWithIf).reorder(pi, ci, k.partKeys.x, co, k.part.args()[3], t).unroll(ci);
  vecQ(k.part.update(0), pi);
  LoopLevel tile(k.part, t);
  k.kt.compute_at(tile).vectorize(k.kt.args()[0], vw, TailStrategy::GuardWithIf);
  k.vt.compute_at(tile).vectorize(k.vt.args()[0], vw, TailStrategy::GuardWithIf);
  // Scores: rows x 4 accumulators over the D channels.
  Var si = k.s.args()[0], sj = k.s.args()[1], jo("jo"), ji("ji");
  k.s.compute_at(tile);
  vecQ(k.s, si);
  k.s.update(0)
      .split(sj, jo, ji, std::min(4, k.keyTile), TailStrategy::GuardWithIf)
      .reorder(si, ji, k.channels.x, jo)
      .unroll(ji);
  vecQ(k.s.update(0), si);
  k.mt.compute_at(tile);
  vecQ(k.mt, k.mt.args()[0]);
  k.mt.update(0).reorder(k.mt.args()[0], k.keys.x);
  vecQ(k.mt.update(0), k.mt.args()[0]);
  k.pt.compute_at(tile);
  vecQ(k.pt, k.pt.args()[0]);
}

} // namespace

void scheduleAttention(AttentionKernel &k, const CpuSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleAttentionGpu(k, s, target);
  requireCpuSchedule(target, "ssm.attention");
  const int vw = s.vectorWidth;
  // The caches: copies with this call's rows written (results; root).
  for (Func f : {k.kNew, k.vNew}) {
    Var d = f.args()[0], c = f.args()[2];
    f.vectorize(d, vw, TailStrategy::GuardWithIf);
    if (s.parallel)
      f.parallel(c, 64, TailStrategy::GuardWithIf);
  }
  // One task per (query tile, KV head, stream): the query heads that share
  // a KV head share its key and value tiles, read once per task.
  Var dv = k.out.args()[0], h = k.out.args()[1], i = k.out.args()[2], b = k.out.args()[3];
  Var io("io"), ii("ii"), g("g"), hh("hh"), task("task");
  const int group = k.heads / k.kvHeads;
  k.out.split(i, io, ii, k.queryTile, TailStrategy::GuardWithIf)
      .split(h, g, hh, group, TailStrategy::GuardWithIf)
      .reorder(dv, ii, hh, g, io, b)
      .vectorize(dv, vw, TailStrategy::GuardWithIf);
  if (s.parallel)
    k.out.fuse(g, io, task).fuse(task, b, task).parallel(task);
  LoopLevel at = s.parallel ? LoopLevel(k.out, task) : LoopLevel(k.out, g);
  if (k.decode)
    scheduleDecode(k, s, at);
  else
    schedulePrefill(k, s, at);
}

} // namespace ssm::codegen
