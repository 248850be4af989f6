// The inter-chunk state pass of the chunked delta-rule kernels (see the header).
#include "codegen/kernels/ChunkedPass.h"

#include <algorithm>
#include <vector>

namespace ssm::codegen {

using namespace Halide;

namespace {

/// R: rows per block, dividing K and C (so that every region starts on a block).
int rowsPerBlock(int K, int C) {
  for (int r : {4, 2})
    if (K % r == 0 && C % r == 0)
      return r;
  return 1;
}

/// E: the largest multiple of R dividing `total`, R times a power of two, at most 16.
int termsPerStep(int total, int R) {
  int e = R;
  while (e * 2 <= 16 && total % (e * 2) == 0)
    e *= 2;
  return e;
}

} // namespace

Expr ChunkedPass::at(Expr col, Expr block, int k, Expr h, Expr b) const {
  FuncRef ref = states(col, block, h, b);
  return rowsPerSlot == 1 ? Expr(ref) : Expr(ref[k]);
}

namespace {

/// Element `k` (an Expr) of block `block`: a select over the R elements.
Expr pick(const ChunkedPass &p, Expr col, Expr block, Expr k, Expr h, Expr b) {
  const int R = p.rowsPerSlot;
  Expr v = p.at(col, block, R - 1, h, b);
  for (int i = R - 2; i >= 0; --i)
    v = select(k == i, p.at(col, block, i, h, b), v);
  return v;
}

} // namespace

Expr ChunkedPass::out(Expr col, Expr t, Expr h, Expr b) const {
  const int R = rowsPerSlot;
  return pick(*this, col, (2 * rows + work) / R + t / R, t % R, h, b);
}

Expr ChunkedPass::finalState(Expr key, Expr col, Expr h, Expr b) const {
  const int R = rowsPerSlot;
  return pick(*this, col, (chunks % 2) * (rows / R) + key / R, key % R, h, b);
}

ChunkedPass buildChunkedPass(const ChunkedPassSpec &spec) {
  ChunkedPass p;
  const int K = spec.rows, C = spec.chunk, W = spec.work;
  if (K <= 0 || C <= 0 || W <= 0 || W % C != 0)
    throw CompileError("chunked pass: rows, chunk must be positive, work a multiple of chunk");
  const int R = rowsPerBlock(K, C), E1 = termsPerStep(K, R), E2 = termsPerStep(W, R);
  p.rowsPerSlot = R;
  p.terms1 = E1;
  p.terms2 = E2;
  p.rows = K;
  p.chunk = C;
  p.work = W;
  p.cols = spec.cols;
  p.chunks = spec.chunks;
  const int KB = K / R, WB = W / R, CB = C / R;
  Var col = spec.col, h = spec.h, b = spec.b, blk(spec.name + "_blk");
  Func st(spec.name);
  p.states = st;
  auto define = [&](const std::vector<Expr> &lhs, const std::vector<Expr> &vals) {
    if (R == 1)
      st(lhs) = vals[0];
    else
      st(lhs) = Tuple(vals);
  };
  auto row = [&](Expr block, int k) { return p.at(col, block, k, h, b); };

  define({col, blk, h, b}, std::vector<Expr>(R, undef<float>()));
  RDom r0(0, KB, spec.name + "_r0");
  {
    std::vector<Expr> v;
    for (int k = 0; k < R; ++k)
      v.push_back(spec.initState ? spec.initState(r0 * R + k) : Expr(0.0f));
    define({col, r0, h, b}, v);
  }

  const int X1 = K / E1, X2 = W / E2, Y0 = (W + C + K) / R, Y1 = 2 * CB, Y2 = KB;
  // (block y, step x, phase, chunk): the blocks innermost, so that a
  // step's E state or work rows stay in L1 while every block reads them.
  p.pass = RDom(0, Y0, 0, std::max({1, X1, X2}), 0, 3, 0, spec.chunks, spec.name + "_pass");
  RVar y = p.pass.x, x = p.pass.y, z = p.pass.z, n = p.pass.w;
  p.pass.where((z == 0 && x == 0) || (z == 1 && x < X1 && y < Y1) ||
               (z == 2 && x < X2 && y < Y2));
  Expr curB = (n % 2) * KB, nxtB = ((n + 1) % 2) * KB, workB = 2 * KB,
       outB = 2 * KB + WB + n * CB;

  // Phase 0: block y of (work rows, output rows, next state rows).
  Expr yw = clamp(y, 0, WB - 1), yo = clamp(y - WB, 0, CB - 1), ys = clamp(y - WB - CB, 0, KB - 1);
  Expr dst0 = select(y < WB, workB + yw, y < WB + CB, outB + yo, nxtB + ys);
  // Phase 1: block y of the rows a < 2C (work, then output rows), E1 state rows.
  Expr ya = clamp(y, 0, Y1 - 1), xe = min(x, X1 - 1);
  Expr dst1 = select(ya < CB, workB + ya, outB + clamp(ya - CB, 0, CB - 1));
  // Phase 2: block y of the next state's rows, E2 work rows.
  Expr ye = clamp(y, 0, KB - 1), xr = min(x, X2 - 1);
  Expr dst2 = nxtB + ye;
  std::vector<Expr> vals;
  for (int k = 0; k < R; ++k) {
    Expr v0 = select(y < WB, spec.workInit(yw * R + k, n), y < WB + CB, spec.outInit(yo * R + k, n),
                     spec.decay(ys * R + k, n) * row(curB + ys, k));
    Expr v1 = row(dst1, k);
    for (int u = 0; u < E1; ++u)
      v1 = v1 + spec.coef(xe * E1 + u, ya * R + k, n) * row(curB + xe * (E1 / R) + u / R, u % R);
    Expr v2 = row(dst2, k);
    for (int u = 0; u < E2; ++u)
      v2 = v2 + spec.kt(ye * R + k, xr * E2 + u, n) * row(workB + xr * (E2 / R) + u / R, u % R);
    vals.push_back(select(z == 0, v0, z == 1, v1, v2));
  }
  define({col, select(z == 0, dst0, z == 1, dst1, dst2), h, b}, vals);
  return p;
}

} // namespace ssm::codegen
