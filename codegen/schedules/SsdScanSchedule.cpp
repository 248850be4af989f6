// CPU schedule of ssm.ssd_scan: register-blocked chunk products, parallel over batch x heads.
#include "codegen/schedules/Schedules.h"

namespace ssm::codegen {

using namespace Halide;

namespace {

/// Per-chunk scratch goes on the stack when it is at most this many floats
/// (its size is constant); larger chunks fall back to the heap.
constexpr int64_t kMaxStackFloats = 32 * 1024;

void storeSmallOnStack(Func f, int64_t floats) {
  if (floats <= kMaxStackFloats)
    f.store_in(MemoryType::Stack);
}

} // namespace

void scheduleSsdScan(SsdScanKernel &k, const CpuSchedule &s, const Target &target) {
  if (targetFamily(target) == TargetFamily::Gpu) return scheduleSsdScanGpu(k, s, target);
  requireCpuSchedule(target, "ssm.ssd_scan");
  Func &ac = k.ac;
  Func &cum = k.cum;
  Func &wB = k.wB;
  Func &wC = k.wC;
  Func &dC = k.dC;
  Func &xcS = k.xcS;
  Func &bd = k.bd;
  Func &accS = k.accS;
  Func &st = k.st;
  Func &fin = k.fin;
  Func &gm = k.gm;
  Func &gg = k.gg;
  Func &ggAcc = k.ggAcc;
  Func &bt = k.bt;
  Func &diag = k.diag;
  Func &cumT = k.cumT;
  Func &gk = k.gk;
  Func &cd = k.cd;
  Func &xcY = k.xcY;
  Func &accY = k.accY;
  Func &yc = k.yc;
  Func &y = k.y;
  RDom &ri = k.ri;
  RDom &rjS = k.rjS;
  RDom &rc = k.rc;
  RDom &rn = k.rn;
  RDom &rjY = k.rjY;
  const bool perKey = k.perKey, hasBonus = k.hasBonus;
  const int64_t P = k.P, N = k.N;
  const int Q = k.Q, pV = k.pV, pT = k.pT, nT = k.nT, iT = k.iT, jV = k.jV, jT = k.jT,
            iTg = k.iTg, nV = k.nV;
  Var p("p"), n("n"), i("i"), j("j"), c("c"), hh("hh"), g("g"), bb("bb"), k_("k"), t("t");
  Var io("io"), ii("ii");
  (void)k_;
  Var tile("tile"), po("po"), pi("pi"), no("no"), ni("ni"), tc("tc"), ti("ti"), jo("jo"),
      ji("ji"), f1("f1"), f2("f2");
  auto par = [&](Stage st_, VarOrRVar v) {
    if (s.parallel)
      st_.parallel(v);
  };

  // Cumulative decays and per-head factors: small, at root.
  cum.compute_root();
  if (perKey) {
    cum.vectorize(n, nV);
    cum.update().reorder(n, ri, hh).vectorize(n, nV);
    cum.fuse(c, bb, f1);
    cum.update().fuse(c, bb, f1);
    par(cum, f1);
    par(cum.update(), f1);
    dC.compute_root().vectorize(n, nV);
  } else {
    cum.fuse(c, bb, f1);
    cum.update().reorder(ri, hh).fuse(c, bb, f1);
    par(cum, f1);
    par(cum.update(), f1);
    wB.compute_root();
    wC.compute_root();
    dC.compute_root();
  }
  if (hasBonus)
    diag.compute_root();

  // States: h0 (or 0), then the sequential chunk loop with the P x N chunk
  // product computed per register block inside it.
  st.compute_root().bound(p, 0, int(P)).bound(n, 0, int(N));
  st.update(0).vectorize(p, pV).fuse(hh, bb, f1);
  par(st.update(0), f1);
  Stage scan = st.update(1);
  scan.split(p, po, pi, pT)
      .split(n, no, ni, nT)
      .reorder(pi, ni, po, no, rc, hh, bb)
      .vectorize(pi, pV)
      .unroll(ni)
      .fuse(hh, bb, f2);
  par(scan, f2);
  xcS.compute_at(st, rc).vectorize(p, pV);
  bd.compute_at(st, rc).vectorize(n, nV);
  storeSmallOnStack(xcS, P * Q);
  storeSmallOnStack(bd, N * Q);
  accS.compute_at(st, po).bound_extent(p, pT).bound_extent(n, nT);
  accS.vectorize(p, pV).unroll(p).unroll(n);
  accS.update().reorder(p, n, rjS).vectorize(p, pV).unroll(p).unroll(n);

  // A blocked transpose of the last state: (P, N) in st -> (N, P).
  fin.bound(p, 0, int(P)).bound(n, 0, int(N));
  fin.split(p, po, pi, pV).split(n, no, ni, nV).reorder(ni, pi, no, po).vectorize(ni).unroll(pi);
  fin.fuse(hh, bb, f1);
  par(fin, f1);

  // C B^T per (group, chunk) at root; transposed B per chunk inside.
  if (!perKey) {
    gg.compute_root()
        .split(j, jo, ji, jT)
        .split(i, io, ii, iTg)
        .reorder(ji, ii, jo, io, g, c, bb)
        .vectorize(ji, jV)
        .unroll(ii);
    par(gg, c);
    bt.compute_at(gg, g).vectorize(j, jV);
    storeSmallOnStack(bt, N * Q);
    ggAcc.compute_at(gg, jo).bound_extent(j, jT).bound_extent(i, iTg);
    ggAcc.vectorize(j, jV).unroll(j).unroll(i);
    ggAcc.update().reorder(j, i, rn).vectorize(j, jV).unroll(j).unroll(i);
  }

  y.bound(p, 0, int(P));
  y.split(t, tc, ti, Q, TailStrategy::GuardWithIf)
      .reorder(p, ti, tc, hh, bb)
      .vectorize(p, pV)
      .fuse(hh, bb, tile);
  par(y, tile);
  Var yio("yio"), yii("yii");
  // One chunk each: bound_extent(c, 1) makes the sizes constant (stack).
  yc.compute_at(y, tc)
      .bound_extent(c, 1)
      .bound(i, 0, Q)
      .split(p, po, pi, pT)
      .split(i, yio, yii, iT)
      .reorder(pi, yii, po, yio)
      .vectorize(pi, pV)
      .unroll(yii);
  accY.compute_at(yc, po).bound_extent(p, pT).bound_extent(ii, iT).bound_extent(io, 1);
  accY.vectorize(p, pV).unroll(p).unroll(ii);
  accY.update(0).reorder(p, ii, rjY).vectorize(p, pV).unroll(p).unroll(ii);
  accY.update(1).reorder(p, ii, rn).vectorize(p, pV).unroll(p).unroll(ii);
  for (Func f : {xcY, gm, cd})
    f.compute_at(y, tc).bound_extent(c, 1);
  storeSmallOnStack(yc, P * Q);
  storeSmallOnStack(xcY, P * Q);
  storeSmallOnStack(gm, int64_t(Q) * Q);
  storeSmallOnStack(cd, N * Q);
  xcY.vectorize(p, pV);
  gm.vectorize(j, jV);
  cd.vectorize(n, nV);
  if (perKey) {
    bt.compute_at(y, tc).vectorize(j, jV);
    cumT.compute_at(y, tc).vectorize(j, jV);
    gk.compute_at(y, tc).vectorize(j, jV);
    gk.update().reorder(j, rn, i).vectorize(j, jV);
  }

}

} // namespace ssm::codegen
