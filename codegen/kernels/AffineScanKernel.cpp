// Halide kernel of ssm.affine_scan: an undef pure step and one RDom update along the scanned dim.
#include "codegen/kernels/AffineScanKernel.h"

#include <string>

namespace ssm::codegen {

using namespace Halide;

namespace {

bool isConstOne(const Expr &e) {
  const int64_t *c = Internal::as_const_int(e);
  return c && *c == 1;
}

} // namespace

KernelResult buildAffineScan(const AffineScanKernelInputs &in, const CpuSchedule &s,
                             const Target &) {
  int rank = in.b.rank();
  int dim = in.dim < 0 ? in.dim + rank : in.dim;
  if (dim < 0 || dim >= rank)
    throw CompileError("ssm.affine_scan kernel: dim " + std::to_string(in.dim) +
                       " is out of range for rank " + std::to_string(rank));
  if (in.a.rank() != rank)
    throw CompileError("ssm.affine_scan kernel: a must have the rank of b");
  int hd = rank - 1 - dim; // Halide index of the scanned dim
  Expr len = in.b.shape[dim];

  std::vector<Var> v;
  for (int i = 0; i < rank; ++i)
    v.push_back(Var("d" + std::to_string(i)));

  RDom rt(0, len, "t");
  Expr tt = in.reverse ? len - 1 - rt.x : Expr(rt.x);
  Expr tPrev = in.reverse ? min(tt + 1, len - 1) : max(tt - 1, 0);

  // Index lists (Halide order) with the scanned position replaced.
  auto at = [&](Expr tIdx) {
    std::vector<Expr> e(v.begin(), v.end());
    e[hd] = tIdx;
    return e;
  };
  std::vector<Expr> cur = at(tt);
  std::vector<Expr> aIdx = cur;
  for (int i = 0; i < rank; ++i) // MLIR dim i is Halide dim rank-1-i
    if (isConstOne(in.a.shape[i]) && !isConstOne(in.b.shape[i]))
      aIdx[rank - 1 - i] = 0;
  std::vector<Expr> lineIdx; // the index of a line: every dim but the scanned one
  for (int i = 0; i < rank; ++i)
    if (i != hd)
      lineIdx.push_back(v[i]);

  Func h("affine_scan_h");
  h(v) = undef<float>();
  Expr init = in.h0 ? in.h0->func(lineIdx) : Expr(0.0f);
  Expr prev = select(rt.x == 0, init, h(at(tPrev)));
  if (in.reset) {
    Expr r = in.reset->func(cur);
    Expr isReset = r.type().is_bool() ? r : (r != Internal::make_zero(r.type()));
    prev = select(isReset, 0.0f, prev);
  }
  h(cur) = in.a.func(aIdx) * prev + in.b.func(cur);

  std::vector<Var> lastVars;
  std::vector<Expr> lastIdx(v.begin(), v.end());
  for (int i = 0; i < rank; ++i)
    if (i != hd)
      lastVars.push_back(v[i]);
  lastIdx[hd] = in.reverse ? Expr(0) : len - 1;
  Func hLast("affine_scan_h_last");
  hLast(lastVars) = h(lastIdx);

  // Schedule the update: [inner vars] rt [outer vars], inner vectorised,
  // outer fused and parallel (or a tile of the outermost inner var). When
  // the scanned dim is innermost, the next dim takes the inner place.
  Stage up = h.update();
  std::vector<VarOrRVar> inner, outer;
  if (hd > 0)
    for (int i = 0; i < hd; ++i)
      inner.push_back(v[i]);
  else if (rank > 1)
    inner.push_back(v[1]);
  for (int i = 0; i < rank; ++i)
    if (i != hd && !(hd > 0 && i < hd) && !(hd == 0 && i == 1))
      outer.push_back(v[i]);
  std::vector<VarOrRVar> order = inner;
  order.push_back(rt.x);
  order.insert(order.end(), outer.begin(), outer.end());
  up.reorder(order);
  if (!inner.empty()) {
    Var vec = hd > 0 ? v[0] : v[1];
    if (outer.empty() && s.parallel) {
      // Parallel tiles of the outermost inner var.
      Var top = hd > 0 ? v[hd - 1] : v[1];
      Var to("tile_o"), ti("tile_i");
      up.split(top, to, ti, s.channelTile, TailStrategy::GuardWithIf);
      up.reorder(rt.x, to);
      up.parallel(to);
      if (top.same_as(vec))
        vec = ti;
    }
    if (hd > 0) {
      up.vectorize(vec, s.vectorWidth, TailStrategy::GuardWithIf);
    } else {
      // The scanned dim is the contiguous one: vectorising across lines would
      // gather and scatter. Interleave vectorWidth lines instead (unrolled
      // scalar chains, each line read and written sequentially).
      Var lo("lines_o"), li("lines_i");
      up.split(vec, lo, li, s.vectorWidth, TailStrategy::GuardWithIf)
          .reorder(li, rt.x, lo)
          .unroll(li);
    }
  }
  if (!outer.empty() && s.parallel) {
    Var fused = outer[0].var;
    for (size_t i = 1; i < outer.size(); ++i) {
      Var f("fused_" + std::to_string(i));
      up.fuse(fused, outer[i].var, f);
      fused = f;
    }
    up.parallel(fused);
  }
  if (!lastVars.empty())
    hLast.vectorize(lastVars[0], s.vectorWidth, TailStrategy::GuardWithIf);

  std::vector<Expr> lastShape;
  for (int i = 0; i < rank; ++i)
    if (i != dim)
      lastShape.push_back(in.b.shape[i]);
  return {{TensorFunc{h, in.b.shape}, TensorFunc{hLast, lastShape}}};
}

} // namespace ssm::codegen
