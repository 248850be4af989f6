// Halide kernel of ssm.wkv7: the algorithm only (codegen/schedules/Wkv7Schedule.cpp schedules it).
#include "codegen/kernels/Wkv7Kernel.h"
#include "codegen/kernels/MathExt.h"

namespace ssm::codegen {

using namespace Halide;

Wkv7Kernel buildWkv7(const Wkv7KernelInputs &in) {
  Wkv7Kernel f;
  for (const TensorFunc *x : {&in.r, &in.w, &in.k, &in.v, &in.a, &in.b})
    if (x->rank() != 4)
      throw CompileError("ssm.wkv7 kernel: r, w, k, v, a, b must be rank 4 (batch, L, H, N)");
  if (in.initialState && in.initialState->rank() != 4)
    throw CompileError("ssm.wkv7 kernel: initial_state must be rank 4 (batch, H, N, N)");
  const int64_t *nc = Internal::as_const_int(in.r.shape[3]);
  if (!nc || *nc <= 0)
    throw CompileError("ssm.wkv7 kernel: the head size N must be a positive constant extent");
  const int N = static_cast<int>(*nc);
  Expr len = in.r.shape[1];
  Var i("i"), s("slot"), h("h"), b("b"), j("j"), t("t");

  f.decay = Func("wkv7_decay");
  f.decay(j, h, t, b) = accurateExp(in.w.func(j, h, t, b));

  auto init = [&](Expr key, Expr row) {
    return in.initialState ? in.initialState->func(key, row, h, b) : Expr(0.0f);
  };
  f.sa0 = Func("wkv7_sa0");
  RDom rj(0, N, "j");
  f.sa0(i, h, b) = 0.0f;
  f.sa0(i, h, b) += init(rj, i) * in.a.func(rj, h, 0, b);

  // scan(i, slot): slots 0..N-1 hold S[i, slot]; element 1 at slot N-1 the
  // complete S.a of the coming step; slot N + 1 + t holds y_t[i].
  f.scan = Func("wkv7_scan");
  f.scan(i, s, h, b) = Tuple(select(s < N, init(clamp(s, 0, N - 1), i), 0.0f),
                             select(s == N - 1, f.sa0(i, h, b), 0.0f), 0.0f);
  f.steps = RDom(0, N + 1, 0, len, "step");
  RVar x = f.steps.x, rt = f.steps.y;
  {
    Expr xc = min(x, N - 1), isY = x == N;
    Expr sa = f.scan(i, N - 1, h, b)[1];
    Expr newS = f.scan(i, xc, h, b)[0] * f.decay(xc, h, rt, b) + sa * in.b.func(xc, h, rt, b) +
                in.v.func(i, h, rt, b) * in.k.func(xc, h, rt, b);
    Expr tn = min(rt + 1, len - 1);
    Expr aNext = select(rt + 1 < len, in.a.func(xc, h, tn, b), 0.0f);
    Expr prev = max(xc - 1, 0);
    Expr run1 = select(x == 0, 0.0f, f.scan(i, prev, h, b)[1]) + newS * aNext;
    Expr run2 = select(x == 0, 0.0f, f.scan(i, prev, h, b)[2]) + newS * in.r.func(xc, h, rt, b);
    Expr y = f.scan(i, N - 1, h, b)[2];
    f.scan(i, select(isY, N + 1 + rt, x), h, b) =
        Tuple(select(isY, y, newS), select(isY, 0.0f, run1), select(isY, 0.0f, run2));
  }

  f.y = Func("wkv7_y");
  f.y(i, h, t, b) = f.scan(i, N + 1 + t, h, b)[0];
  f.finalState = Func("wkv7_final_state");
  f.finalState(j, i, h, b) = f.scan(i, j, h, b)[0];

  std::vector<Expr> stShape = {in.r.shape[0], in.r.shape[2], in.r.shape[3], in.r.shape[3]};
  f.result = {{TensorFunc{f.y, in.r.shape}, TensorFunc{f.finalState, stShape}}};
  return f;
}

} // namespace ssm::codegen
