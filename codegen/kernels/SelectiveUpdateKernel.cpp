// Halide kernel for ssm.selective_update: one decode step, with or without heads.
#include "codegen/kernels/SelectiveUpdateKernel.h"
#include "codegen/kernels/MathExt.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace ssm::codegen {

using namespace Halide;

namespace {

const char *kOp = "ssm.selective_update";

[[noreturn]] void fail(const std::string &msg) {
  throw CompileError(std::string(kOp) + ": " + msg);
}

void checkRank(const TensorFunc &x, const char *name, int rank) {
  checkOperandRank(kOp, x, name, rank);
}

std::vector<Expr> cat(std::vector<Expr> a, const std::vector<Expr> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

} // namespace

SelectiveUpdateKernel buildSelectiveUpdate(const SelectiveUpdateKernelInputs &in) {
  const int sr = in.state.rank();
  if (sr != 3 && sr != 4)
    fail("state must be (batch, dim, N) or (batch, H, P, N), got rank " + std::to_string(sr));
  const bool heads = sr == 4;
  checkRank(in.state, "state", sr);
  checkRank(in.x, "x", sr - 1);
  checkRank(in.dt, "dt", sr - 1);
  checkRank(in.A, "A", sr - 1);
  if (in.D)
    checkRank(*in.D, "D", sr - 2);
  if (in.z)
    checkRank(*in.z, "z", sr - 1);
  if (in.dtBias)
    checkRank(*in.dtBias, "dt_bias", sr - 2);
  for (const TensorFunc *bc : {&in.B, &in.C})
    if (bc->rank() != 2 && bc->rank() != 3)
      fail(std::string(bc == &in.B ? "B" : "C") +
           " must be (batch, N) or (batch, G, N), got rank " + std::to_string(bc->rank()));

  const Expr N = in.state.dim(-1);
  const Expr nHeads = heads ? in.state.dim(1) : Expr(1);
  const Expr chan = in.state.dim(-2); // dim, or P with heads
  const std::optional<int64_t> nC = constInt(N), chanC = constInt(chan);

  Var n("n"), c("c"), h("h"), b("b");
  // Channel coordinates (innermost first): (c) or (c = p, h).
  std::vector<Expr> cv = heads ? std::vector<Expr>{c, h} : std::vector<Expr>{c};
  std::vector<Expr> cvb = cat(cv, {b});
  auto withN = [&](Expr nn, const std::vector<Expr> &rest) { return cat({nn}, rest); };
  auto bcAt = [&](const TensorFunc &x, Expr nn) -> Expr {
    if (x.rank() == 2)
      return x.func(nn, b);
    Expr perGroup = Internal::simplify(nHeads / x.dim(1));
    Expr g = heads ? Expr(h / perGroup) : Expr(0);
    return x.func(nn, g, b);
  };

  // Per channel: dt (bias, softplus), then dt folded with log2(e), and
  // dt * x. dt is a Func of its own so that the softplus is computed once:
  // Halide repeats a shared subexpression in each element of a Tuple.
  Func dtF(Internal::unique_name("su_dt"));
  {
    Expr raw = in.dt.func(cvb);
    if (in.dtBias)
      raw = raw + in.dtBias->func(cv);
    dtF(cvb) = in.dtSoftplus ? softplus(raw) : raw;
  }
  Func pre(Internal::unique_name("su_pre"));
  pre(cvb) = Tuple(dtF(cvb) * 1.44269504088896341f, dtF(cvb) * in.x.func(cvb));

  // The new state, computed once per channel tile; new_state copies it and
  // the readout reduces it while the tile is in L1.
  Func S(Internal::unique_name("su_state"));
  S(withN(n, cvb)) = in.state.func(withN(n, cvb)) * accurateExp2(pre(cvb)[0] * in.A.func(withN(n, cv))) +
                     bcAt(in.B, n) * pre(cvb)[1];
  Func ns(Internal::unique_name("su_new_state"));
  ns(withN(n, cvb)) = S(withN(n, cvb));

  RDom rn(0, N, Internal::unique_name("su_rn"));
  Func acc(Internal::unique_name("su_acc"));
  acc(cvb) = in.D ? in.D->func(cv) * in.x.func(cvb) : Expr(0.0f);
  acc(cvb) += S(withN(rn, cvb)) * bcAt(in.C, rn);
  Func y(Internal::unique_name("su_y"));
  y(cvb) = in.z ? acc(cvb) * silu(in.z->func(cvb)) : acc(cvb);

  std::vector<Expr> yShape = in.x.shape;
  SelectiveUpdateKernel k;
  k.dt = dtF;
  k.pre = pre;
  k.state = S;
  k.newState = ns;
  k.acc = acc;
  k.y = y;
  k.readout = rn;
  k.heads = heads;
  k.n = nC;
  k.channels = chanC;
  k.result = {{TensorFunc{y, yShape}, TensorFunc{ns, in.state.shape}}};
  return k;
}

} // namespace ssm::codegen
