// Halide kernel of ssm.wkv4: a Tuple-valued state scan along time, then the elementwise readout.
#include "codegen/kernels/Wkv4Kernel.h"
#include "codegen/kernels/MathExt.h"

namespace ssm::codegen {

using namespace Halide;

Wkv4Kernel buildWkv4(const Wkv4KernelInputs &in) {
  if (in.k.rank() != 3 || in.v.rank() != 3 || in.w.rank() != 1 || in.u.rank() != 1)
    throw CompileError("ssm.wkv4 kernel: k, v must be rank 3 (batch, L, C) and w, u rank 1 (C)");
  int given = in.aa.has_value() + in.bb.has_value() + in.pp.has_value();
  if (given != 0 && given != 3)
    throw CompileError("ssm.wkv4 kernel: the state operands aa, bb, pp go together");
  Expr len = in.k.shape[1];
  Var c("c"), t("t"), b("b");

  // st(c, t, b) = (aa, bb, pp) before token t; t = 0 is the state in.
  Func st("wkv4_state");
  st(c, t, b) = Tuple(undef<float>(), undef<float>(), undef<float>());
  if (given)
    st(c, 0, b) = Tuple(in.aa->func(c, b), in.bb->func(c, b), in.pp->func(c, b));
  else
    st(c, 0, b) = Tuple(0.0f, 0.0f, -1e30f);
  RDom rt(0, len, "t");
  {
    Expr aa = st(c, rt, b)[0], bb = st(c, rt, b)[1], pp = st(c, rt, b)[2];
    Expr kt = in.k.func(c, rt, b), vt = in.v.func(c, rt, b);
    Expr pw = pp + in.w.func(c);
    Expr q = max(pw, kt);
    Expr e1 = accurateExp(pw - q), e2 = accurateExp(kt - q);
    st(c, rt + 1, b) = Tuple(e1 * aa + e2 * vt, e1 * bb + e2, q);
  }

  Func wkv("wkv4_wkv");
  {
    Expr aa = st(c, t, b)[0], bb = st(c, t, b)[1], pp = st(c, t, b)[2];
    Expr uk = in.u.func(c) + in.k.func(c, t, b);
    Expr q = max(pp, uk);
    Expr e1 = accurateExp(pp - q), e2 = accurateExp(uk - q);
    wkv(c, t, b) = (e1 * aa + e2 * in.v.func(c, t, b)) / (e1 * bb + e2);
  }
  Func aaOut("wkv4_aa_out"), bbOut("wkv4_bb_out"), ppOut("wkv4_pp_out");
  aaOut(c, b) = st(c, len, b)[0];
  bbOut(c, b) = st(c, len, b)[1];
  ppOut(c, b) = st(c, len, b)[2];

  std::vector<Expr> stShape = {in.k.shape[0], in.k.shape[2]};
  Wkv4Kernel k;
  k.state = st;
  k.wkv = wkv;
  k.aa = aaOut;
  k.bb = bbOut;
  k.pp = ppOut;
  k.time = rt;
  k.result = {{TensorFunc{wkv, in.k.shape}, TensorFunc{aaOut, stShape}, TensorFunc{bbOut, stShape},
               TensorFunc{ppOut, stShape}}};
  return k;
}

} // namespace ssm::codegen
