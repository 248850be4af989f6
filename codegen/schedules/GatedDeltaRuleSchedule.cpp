// CPU schedule of the ssm.gated_delta_rule kernel (codegen/kernels/GatedDeltaRuleKernel.h), both forms,
// and the register-tiled reductions the chunked scans share (ChunkedSchedule.h).
#include "codegen/schedules/ChunkedSchedule.h"
#include "codegen/schedules/Schedules.h"
#include "codegen/schedules/gpu/GpuSchedules.h"

#include <algorithm>

namespace ssm::codegen {

using namespace Halide;

/// A reduction update of `f`: vectors of pure var 0 innermost, then the
/// RVars `r` (innermost first), so each vector accumulator stays put while
/// its reduction runs; parallel over the chunk var (pure position `nPos`).
/// With `rowPos` > 0, `rows` values of that pure var sit between the
/// vector and the RVars, unrolled (rowPos 0: `rows` vectors of var 0): that many independent accumulators per
/// step of the reduction (one accumulator is a chain of dependent FMAs,
/// bound by their latency), sharing the vector they read along var 0.
void chunkReductionUpdate(Func f, int update, const std::vector<RVar> &r, int nPos,
                          const CpuSchedule &s, int rowPos, int rows) {
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

// Reductions in registers: `consumer` (computed at the chunk) in tiles
// of `vecs` vectors along var 0 by `rows` rows (var 1); `red`, the
// reduction it reads at the same (var 0, var 1), computed per tile with
// its RVars outside the tile: its accumulators are one tile, unrolled,
// which LLVM keeps in registers (one load of the vector operand per
// step, shared by the rows). Extents that do not divide keep the
// memory accumulators of reductionUpdate.
void chunkTiledReduction(Func consumer, Func red, const std::vector<RVar> &rv, int ext0, int ext1,
                         LoopLevel chunk, const CpuSchedule &s) {
  const int vw = s.vectorWidth;
  const int vecs = ext0 % (2 * vw) == 0 ? 2 : 1, rows = 4;
  consumer.compute_at(chunk);
  if (ext0 % (vecs * vw) != 0 || ext1 % rows != 0) {
    consumer.vectorize(consumer.args()[0], vw, TailStrategy::GuardWithIf);
    red.compute_at(chunk).vectorize(red.args()[0], s.vectorWidth, TailStrategy::GuardWithIf);
    CpuSchedule local = s;
    local.parallel = false;
    chunkReductionUpdate(red, 0, rv, 0, local, /*rowPos=*/1);
    return;
  }
  Var c0 = consumer.args()[0], c1 = consumer.args()[1];
  const std::string tag = red.name();
  Var o0(tag + "_o0"), i0(tag + "_i0"), o1(tag + "_o1"), i1(tag + "_i1");
  consumer.bound(c0, 0, ext0).bound(c1, 0, ext1);
  Var w0(tag + "_w0"), wv(tag + "_wv");
  consumer.tile(c0, c1, o0, o1, i0, i1, vecs * vw, rows)
      .split(i0, w0, wv, vw)
      .vectorize(wv)
      .unroll(w0)
      .unroll(i1);
  // (the vector splits with names of their own: vectorize(r0, vw) here,
  // its outer loop keeping r0's name, summed wrong tiles in Halide 14)
  Var r0 = red.args()[0], r1 = red.args()[1], vo(tag + "_vo"), vi(tag + "_vi");
  red.compute_at(consumer, o0);
  red.split(r0, vo, vi, vw).vectorize(vi).unroll(vo).unroll(r1);
  std::vector<VarOrRVar> order = {vi, vo, r1};
  for (const RVar &v : rv)
    order.push_back(v);
  red.update(0).split(r0, vo, vi, vw).reorder(order).vectorize(vi).unroll(vo).unroll(r1);
}

LoopLevel scheduleChunkedPass(ChunkedPass &p, const CpuSchedule &s) {
  const int vw = s.vectorWidth;
  Func st = p.states;
  Var col = st.args()[0], h = st.args()[2], b = st.args()[3];
  st.compute_root();
  st.update(0).vectorize(col, vw, TailStrategy::GuardWithIf);
  const int vecs = std::max(1, std::min(4, (p.cols + vw - 1) / vw));
  const RDom &r = p.pass;
  Var co(st.name() + "_co"), ci(st.name() + "_ci"), task(st.name() + "_task");
  Stage pass = st.update(1);
  // The column tiles between the blocks and the steps: a block's E x R
  // coefficients are read inside its tile only. With the columns just
  // outside the tile (a loop of Dv / (4 vw) > 1 around it), LLVM hoisted
  // the R x E broadcasts of the coefficients out of that loop and spilled
  // them (Dv = 128, vw = 16: 141 zmm reloads from the stack in the task's
  // code, 42 after).
  pass.split(col, co, ci, vecs * vw, TailStrategy::GuardWithIf)
      .reorder(ci, r.x, co, r.y, r.z, r.w, h, b)
      .vectorize(ci)
      .unroll(r.z);
  if (s.parallel)
    pass.fuse(h, b, task).parallel(task);
  return LoopLevel(st, r.w);
}

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

void scheduleChunked(GatedDeltaRuleKernel &k, const CpuSchedule &s) {
  // One task per (value head, stream) walks the chunks; each chunk's local
  // stages (a few C x C and C x Dk matrices, ~150 KB at C 64 and
  // Dk = Dv = 128) are computed at the chunk's step of the pass, right
  // before it reads them, so they stay in L2 and nothing of size L is
  // stored but the outputs.
  LoopLevel chunk = scheduleChunkedPass(k.pass, s);
  CpuSchedule local = s;
  local.parallel = false;
  auto at = [&](Func f) {
    if (!f.defined())
      return;
    f.compute_at(chunk).vectorize(f.args()[0], s.vectorWidth, TailStrategy::GuardWithIf);
  };
  // gcum's update is a scan along the rows: vectorised only over the key
  // channels of a per-channel gate.
  k.gcum.compute_at(chunk);
  if (k.perChannel) {
    k.gcum.vectorize(k.gcum.args()[0], s.vectorWidth, TailStrategy::GuardWithIf);
    if (k.gcum.num_update_definitions() > 0)
      k.gcum.update(0).vectorize(k.gcum.args()[0], s.vectorWidth, TailStrategy::GuardWithIf);
  }
  at(k.kC);
  at(k.qC);
  at(k.kRows);
  at(k.gRows);
  // The chunk's C x C matrices over all their rows (the solve reads only
  // s < r; whole tiles of vectors instead of tails of C - 1).
  const int C = k.chunk;
  if (k.ratioC.defined()) {
    at(k.ratioC);
    k.ratioC.bound(k.ratioC.args()[0], 0, C).bound(k.ratioC.args()[1], 0, C);
  }
  auto tiled = [&](Func consumer, Func red, const std::vector<RVar> &rv, int ext0, int ext1) {
    chunkTiledReduction(consumer, red, rv, ext0, ext1, chunk, s);
  };
  // The grams in register tiles, computed per tile of a wrapper (a plain
  // copy: each tile reads exactly its box, whatever akk / pqk mask).
  tiled(k.gramKK.in(), k.gramKK, {k.keys.x}, C, C);
  tiled(k.gramQK.in(), k.gramQK, {k.keys.x}, C, C);
  for (Func f : {k.akk, k.pqk, k.tinv}) {
    at(f);
    f.bound(f.args()[0], 0, C).bound(f.args()[1], 0, C);
  }
  // T: vectors of columns, the target rows r inside the source rows s.
  chunkReductionUpdate(k.tinv, 0, {k.solve.x, k.solve.y}, 0, local, /*rowPos=*/0);
  at(k.rhsU);
  at(k.rhsW);
  tiled(k.xu.in(), k.xu, {k.rowsX.x}, k.dv, C);
  tiled(k.xw.in(), k.xw, {k.rowsX.x}, k.dk, C);
  at(k.eg);
  at(k.egl);
  at(k.glast);
  at(k.kt);
  at(k.qg);
  tiled(k.coefQ.in(), k.coefQ, {k.rowsA.x}, k.dk, C);
  at(k.coef);
  tiled(k.oloc.in(k.pass.states), k.oloc, {k.rows.x}, k.dv, C);
  // The outputs from the pass's output rows, R tokens per block (one Tuple
  // element each): the tokens in groups of R, unrolled, so that each reads
  // its own element (t % R constant; one loop over t loaded all R elements
  // per vector and selected one), and in parallel over the groups.
  const int R = k.pass.rowsPerSlot;
  Var t = k.out.args()[2], to("gdr_out_to"), ti("gdr_out_ti");
  if (R > 1) {
    k.out.split(t, to, ti, R, TailStrategy::GuardWithIf).unroll(ti);
    t = to;
  }
  if (s.parallel)
    k.out.parallel(t, 16, TailStrategy::GuardWithIf);
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
