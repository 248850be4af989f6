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

AffineScanKernel buildAffineScan(const AffineScanKernelInputs &in) {
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

  std::vector<Expr> lastShape;
  for (int i = 0; i < rank; ++i)
    if (i != dim)
      lastShape.push_back(in.b.shape[i]);
  AffineScanKernel k;
  k.h = h;
  k.hLast = hLast;
  k.time = rt;
  k.vars = v;
  k.scannedDim = hd;
  k.result = {{TensorFunc{h, in.b.shape}, TensorFunc{hLast, lastShape}}};
  return k;
}

} // namespace ssm::codegen
