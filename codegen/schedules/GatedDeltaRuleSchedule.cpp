// CPU schedule of the ssm.gated_delta_rule kernel (codegen/kernels/GatedDeltaRuleKernel.h), both forms.
#include "codegen/schedules/Schedules.h"
#include "codegen/schedules/gpu/GpuSchedules.h"

namespace ssm::codegen {

using namespace Halide;

namespace {

void scheduleSequential(GatedDeltaRuleKernel &k, const CpuSchedule &s) {
  const int vw = s.vectorWidth;
  k.decay.compute_root().vectorize(k.decay.args()[0], vw, TailStrategy::GuardWithIf);
  Var kj = k.kv0.args()[0];
  k.kv0.compute_root().vectorize(kj, vw, TailStrategy::GuardWithIf);
  if (k.kv0.num_update_definitions() > 0)
    k.kv0.update(0).vectorize(kj, vw, TailStrategy::GuardWithIf);
  // (lane, slot, block, h, b): the lanes are the schedule's vector width.
  Var jl = k.scan.args()[0], jb = k.scan.args()[2], h = k.scan.args()[3],
      b = k.scan.args()[4];
  k.scan.compute_root().vectorize(jl, vw, TailStrategy::GuardWithIf);
  // Value columns are independent: each vector of columns runs the whole
  // (t, x) walk of its (block, head, stream) task over its own contiguous
  // slots.
  Var task("task");
  Stage scan = k.scan.update(0);
  scan.reorder(jl, k.steps.x, k.steps.y, jb, h, b).vectorize(jl, vw, TailStrategy::GuardWithIf);
  // The walk over the key rows unrolled: the running sums pass from one
  // row to the next in registers rather than through the scan's buffers.
  if (const int64_t *rows = Internal::as_const_int(k.steps.x.extent()); rows && *rows <= 257)
    scan.unroll(k.steps.x);
  if (s.parallel)
    scan.fuse(jb, h, task).fuse(task, b, task).parallel(task);
}

/// A reduction update of `f`: vectors of pure var 0 innermost, then the
/// RVars `r` (innermost first), so each vector accumulator stays put while
/// its reduction runs; parallel over the chunk var (pure position `nPos`).
/// With `rowPos` > 0, `rows` values of that pure var sit between the
/// vector and the RVars, unrolled (rowPos 0: `rows` vectors of var 0): that many independent accumulators per
/// step of the reduction (one accumulator is a chain of dependent FMAs,
/// bound by their latency), sharing the vector they read along var 0.
void reductionUpdate(Func f, int update, const std::vector<RVar> &r, int nPos,
                     const CpuSchedule &s, int rowPos = -1, int rows = 4) {
  std::vector<Var> a = f.args();
  const std::string tag = f.name() + "_" + std::to_string(update);
  Var o(tag + "_o"), in(tag + "_i"), ro(tag + "_ro"), ri(tag + "_ri");
  Stage st = f.update(update);
  st.split(a[0], o, in, s.vectorWidth, TailStrategy::GuardWithIf);
  // The pure vars this update keeps at their own position (the solve's
  // row is an RVar there).
  std::vector<Expr> lhs = f.update_args(update);
  auto pureAt = [&](size_t i) {
    const auto *v = lhs[i].as<Internal::Variable>();
    return v && v->name == a[i].name();
  };
  // rowPos 0: the accumulators are `rows` vectors along var 0 instead (the
  // solve, whose row is an RVar).
  const bool split = rowPos >= 0 && rows > 1 && pureAt(rowPos);
  if (split)
    st.split(rowPos == 0 ? o : a[rowPos], ro, ri, rows, TailStrategy::GuardWithIf);
  std::vector<VarOrRVar> order = {in};
  if (split)
    order.push_back(ri);
  for (const RVar &v : r)
    order.push_back(v);
  order.push_back(split && rowPos == 0 ? ro : o);
  for (size_t i = 1; i < a.size(); ++i)
    if (pureAt(i))
      order.push_back(split && int(i) == rowPos ? VarOrRVar(ro) : VarOrRVar(a[i]));
  st.reorder(order).vectorize(in);
  if (split)
    st.unroll(ri);
  if (s.parallel)
    st.parallel(a[nPos]);
}

void rootVectorized(Func f, int nPos, const CpuSchedule &s) {
  f.compute_root().vectorize(f.args()[0], s.vectorWidth, TailStrategy::GuardWithIf);
  if (s.parallel && nPos >= 0)
    f.parallel(f.args()[nPos]);
}

void scheduleChunked(GatedDeltaRuleKernel &k, const CpuSchedule &s) {
  // Everything but the state pass is independent across chunks (var n,
  // position 3 of (col, row, head, n, batch)): parallel over n.
  const int nPos = 3;
  k.gcum.compute_root();
  if (s.parallel) {
    k.gcum.parallel(k.gcum.args()[k.perChannel ? 3 : 2]);
    if (k.gcum.num_update_definitions() > 0)
      k.gcum.update(0).parallel(k.gcum.args()[k.perChannel ? 3 : 2]);
  }
  if (k.perChannel) {
    k.gcum.vectorize(k.gcum.args()[0], s.vectorWidth, TailStrategy::GuardWithIf);
    if (k.gcum.num_update_definitions() > 0)
      k.gcum.update(0).vectorize(k.gcum.args()[0], s.vectorWidth, TailStrategy::GuardWithIf);
  }
  rootVectorized(k.kRows, nPos, s);
  if (k.perChannel)
    rootVectorized(k.gRows, nPos, s);
  for (Func g : {k.gramKK, k.gramQK}) {
    rootVectorized(g, nPos, s);
    reductionUpdate(g, 0, {k.keys.x}, nPos, s, /*rowPos=*/1);
  }
  rootVectorized(k.akk, nPos, s);
  rootVectorized(k.pqk, nPos, s);
  // The forward substitution: vectors of columns, (s, r) inside.
  rootVectorized(k.x, nPos, s);
  reductionUpdate(k.x, 0, {k.solve.x, k.solve.y}, nPos, s, /*rowPos=*/0);
  rootVectorized(k.glast, 2, s);
  rootVectorized(k.kt, nPos, s);
  rootVectorized(k.qg, nPos, s);
  rootVectorized(k.m, nPos, s);
  reductionUpdate(k.m, 0, {k.rows.x}, nPos, s, 1);
  rootVectorized(k.bm, nPos, s);
  reductionUpdate(k.bm, 0, {k.rows.x}, nPos, s, 1);
  // The state pass: sequential over chunks inside each (value head,
  // stream) task, vectors of value columns.
  Var jl = k.states.args()[0], jb = k.states.args()[2], h = k.states.args()[3],
      b = k.states.args()[4];
  k.states.compute_root().vectorize(jl, s.vectorWidth, TailStrategy::GuardWithIf);
  Var task("task");
  Stage pass = k.states.update(0);
  // pass.x, the rows of the next state, inside pass.y, the rows they read
  // (the kernel's RDom order): consecutive steps update different rows, so
  // they do not wait on each other's FMA through memory (the buffer is read
  // and written, so no accumulator can live in a register).
  pass.reorder(jl, k.pass.x, k.pass.y, k.pass.z, jb, h, b)
      .vectorize(jl, s.vectorWidth, TailStrategy::GuardWithIf);
  if (s.parallel)
    pass.fuse(jb, h, task).fuse(task, b, task).parallel(task);
  rootVectorized(k.u, nPos, s);
  reductionUpdate(k.u, 0, {k.keys.x}, nPos, s, 1);
  rootVectorized(k.oc, nPos, s);
  reductionUpdate(k.oc, 0, {k.keys.x}, nPos, s, 1);
  reductionUpdate(k.oc, 1, {k.rows.x}, nPos, s, 1);
}

} // namespace

void scheduleGatedDeltaRule(GatedDeltaRuleKernel &k, const CpuSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu)
    return scheduleGatedDeltaRuleGpu(k, s, target);
  requireCpuSchedule(target, "ssm.gated_delta_rule");
  if (k.chunk == 0)
    scheduleSequential(k, s);
  else
    scheduleChunked(k, s);
  k.out.vectorize(k.out.args()[0], s.vectorWidth, TailStrategy::GuardWithIf);
  k.finalState.vectorize(k.finalState.args()[0], s.vectorWidth, TailStrategy::GuardWithIf);
}

} // namespace ssm::codegen
