// Halide kernel for ssm.selective_scan: the state and the outputs share one scratch Func.
#include "codegen/kernels/SelectiveScanKernel.h"
#include "codegen/kernels/MathExt.h"

#include <algorithm>
#include <string>

namespace ssm::codegen {

using namespace Halide;

namespace {

const char *kOp = "ssm.selective_scan";

[[noreturn]] void fail(const std::string &msg) {
  throw CompileError(std::string(kOp) + ": " + msg);
}

void checkRank(const TensorFunc &x, const char *name, int rank) {
  checkOperandRank(kOp, x, name, rank);
}

/// Where B (or C) comes from, resolved once: value(k, d, t, b) in the kernel's
/// coordinates.
struct BCSource {
  const TensorFunc *x = nullptr;
  int rank = 0;
  Expr perGroup;  // channels per group (rank 4)
  Func transposed; // (d, n) copy per channel tile (rank 2)
};

} // namespace

SelectiveScanKernel buildSelectiveScan(const SelectiveScanKernelInputs &in) {
  const bool tm = in.timeMajor;
  checkRank(in.u, "u", 3);
  checkRank(in.delta, "delta", 3);
  checkRank(in.A, "A", 2);
  if (in.D)
    checkRank(*in.D, "D", 1);
  if (in.z)
    checkRank(*in.z, "z", 3);
  if (in.deltaBias)
    checkRank(*in.deltaBias, "delta_bias", 1);
  if (in.h0)
    checkRank(*in.h0, "h0", 3);

  const Expr dim = tm ? in.u.dim(2) : in.u.dim(1);
  const Expr len = tm ? in.u.dim(1) : in.u.dim(2);
  const Expr N = in.A.dim(1);
  const std::optional<int64_t> nC = constInt(N), dimC = constInt(dim);

  Var d("d"), t("t"), b("b"), n("n"), j("j");

  // u-shaped operands in (channel, token, batch) coordinates.
  auto seq = [&](const TensorFunc &x, Expr dd, Expr tt, Expr bb) {
    return tm ? x.func(dd, tt, bb) : x.func(tt, dd, bb);
  };

  // Per (token, channel): Delta (bias, softplus), then Delta, Delta * u and
  // D * u for the scan. Delta is its own Func so that the softplus is
  // evaluated once (Halide would repeat it in each element of a Tuple).
  Func dtF(Internal::unique_name("ss_dt"));
  {
    Expr raw = seq(in.delta, d, t, b);
    if (in.deltaBias)
      raw = raw + in.deltaBias->func(d);
    dtF(d, t, b) = in.deltaSoftplus ? softplus(raw) : raw;
  }
  Func pre(Internal::unique_name("ss_pre"));
  {
    Expr uu = seq(in.u, d, t, b);
    pre(d, t, b) = Tuple(dtF(d, t, b) * 1.44269504088896341f, dtF(d, t, b) * uu,
                         in.D ? in.D->func(d) * uu : Expr(0.0f));
  }

  // A as (channel, n): vector loads over channels in the scan.
  Func aT(Internal::unique_name("ss_A"));
  aT(d, n) = in.A.func(n, d);

  auto bindBC = [&](const TensorFunc &x, const char *name) {
    BCSource src;
    src.x = &x;
    src.rank = x.rank();
    if (src.rank == 2) {
      src.transposed = Func(Internal::unique_name(std::string("ss_") + name));
      src.transposed(d, n) = x.func(n, d);
    } else if (src.rank == 4) {
      Expr groups = tm ? x.dim(2) : x.dim(1);
      src.perGroup = Internal::simplify(dim / groups);
    } else if (src.rank != 3) {
      fail(std::string(name) + " must be (dim, N), per token or grouped; got rank " +
           std::to_string(src.rank));
    }
    return src;
  };
  BCSource bSrc = bindBC(in.B, "B"), cSrc = bindBC(in.C, "C");
  auto bcValue = [&](const BCSource &src, Expr k, Expr dd, Expr tt, Expr bb) -> Expr {
    const Func &f = src.x->func;
    switch (src.rank) {
    case 2:
      return src.transposed(dd, k);
    case 3:
      return tm ? f(k, tt, bb) : f(tt, k, bb);
    default: {
      Expr g = dd / src.perGroup;
      return tm ? f(k, g, tt, bb) : f(tt, k, g, bb);
    }
    }
  };

  // The scratch Func: per channel, slots 0..N-1 hold the state and slot N + t
  // holds the readout of token t (before the z gate). One update over
  // (k, t), k innermost: for k < N it advances state k to token t, for k = N
  // it writes the readout. Its storage is (channel tile) x (N + L) floats:
  // the state is never stored per token.
  Func st(Internal::unique_name("ss_state"));
  st(d, j, b) = select(j < N, in.h0 ? in.h0->func(clamp(j, 0, N - 1), d, b) : Expr(0.0f),
                       0.0f);

  RDom r;
  if (nC) {
    r = RDom(0, static_cast<int>(*nC) + 1, 0, len, Internal::unique_name("ss_r"));
    Expr k = r.x, tt = r.y;
    Expr kk = min(k, N - 1);
    Expr a = accurateExp2(pre(d, tt, b)[0] * aT(d, kk));
    Expr hNew = a * st(d, kk, b) + pre(d, tt, b)[1] * bcValue(bSrc, kk, d, tt, b);
    // Readout with four partial sums (shorter dependency chains).
    std::vector<Expr> acc;
    for (int64_t i = 0; i < *nC; ++i) {
      Expr term = st(d, static_cast<int>(i), b) * bcValue(cSrc, static_cast<int>(i), d, tt, b);
      if (acc.size() < 4)
        acc.push_back(term);
      else
        acc[i % 4] = acc[i % 4] + term;
    }
    Expr y = pre(d, tt, b)[2];
    if (acc.size() == 4)
      y = y + ((acc[0] + acc[1]) + (acc[2] + acc[3]));
    else
      for (const Expr &e : acc)
        y = y + e;
    st(d, select(k < N, kk, N + tt), b) = select(k < N, hNew, y);
  } else {
    // Symbolic N: k = 0 starts the readout with D u, odd k advances state
    // (k - 1) / 2, even k > 0 adds state (k - 2) / 2 times C.
    r = RDom(0, 2 * N + 1, 0, len, Internal::unique_name("ss_r"));
    Expr k = r.x, tt = r.y;
    Expr hn = clamp((k - 1) / 2, 0, N - 1), cn = clamp((k - 2) / 2, 0, N - 1);
    Expr a = accurateExp2(pre(d, tt, b)[0] * aT(d, hn));
    Expr hNew = a * st(d, hn, b) + pre(d, tt, b)[1] * bcValue(bSrc, hn, d, tt, b);
    Expr yAcc = st(d, N + tt, b) + st(d, cn, b) * bcValue(cSrc, cn, d, tt, b);
    Expr isY = k % 2 == 0;
    st(d, select(isY, N + tt, hn), b) = select(k == 0, pre(d, tt, b)[2], isY, yAcc, hNew);
  }

  Func y(Internal::unique_name("ss_y"));
  {
    Expr v = st(d, N + t, b);
    if (in.z)
      v = v * silu(seq(*in.z, d, t, b));
    if (tm)
      y(d, t, b) = v;
    else
      y(t, d, b) = v;
  }
  Func hLast(Internal::unique_name("ss_h_last"));
  hLast(n, d, b) = st(d, n, b);

  std::vector<Expr> yShape = in.u.shape;
  std::vector<Expr> hShape = {in.u.dim(0), dim, N};
  SelectiveScanKernel k;
  k.dt = dtF;
  k.pre = pre;
  k.A = aT;
  if (bSrc.rank == 2)
    k.perTile.push_back(bSrc.transposed);
  if (cSrc.rank == 2)
    k.perTile.push_back(cSrc.transposed);
  k.state = st;
  k.y = y;
  k.hLast = hLast;
  k.scan = r;
  k.timeMajor = tm;
  k.n = nC;
  k.dim = dimC;
  k.result = {{TensorFunc{y, yShape}, TensorFunc{hLast, hShape}}};
  return k;
}

} // namespace ssm::codegen
