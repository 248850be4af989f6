// Halide kernel of ssm.wkv7: the algorithm only (codegen/schedules/Wkv7Schedule.cpp schedules it).
#include "codegen/kernels/Wkv7Kernel.h"
#include "codegen/kernels/ChunkedPass.h"
#include "codegen/kernels/MathExt.h"

#include <algorithm>

namespace ssm::codegen {

using namespace Halide;

namespace {

/// The token-by-token form (see the header).
void buildSequential(Wkv7Kernel &f, const Wkv7KernelInputs &in, int N, Expr len) {
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
}

/// The chunked WY form (see the header).
void buildChunked(Wkv7Kernel &f, const Wkv7KernelInputs &in, int N, Expr len) {
  const int C = f.chunk;
  Expr chunks = (len + (C - 1)) / C;
  Var i("i"), j("j"), c("c"), r("r"), s("s"), h("h"), n("n"), b("b"), t("t"),
      q("q");
  // Token r of chunk n, clamped for the loads; past L every input reads as
  // 0 (w = 0: no decay; a = b = k = v = 0: no write), the identity step.
  auto valid = [&](Expr rr, Expr nn) { return nn * C + rr < len; };
  auto tok = [&](Expr rr, Expr nn) { return min(nn * C + rr, len - 1); };
  auto load = [&](const TensorFunc &x, Expr ch, Expr rr, Expr nn) {
    return select(valid(rr, nn), x.func(ch, h, tok(rr, nn), b), 0.0f);
  };

  // G_r = w_0 + .. + w_r per key channel.
  f.gcum = Func("wkv7c_gcum");
  f.gcum(j, r, h, n, b) = load(in.w, j, r, n);
  if (C > 1) {
    RDom rg(1, C - 1, "rg");
    f.gcum(j, rg, h, n, b) = f.gcum(j, rg - 1, h, n, b) + f.gcum(j, rg, h, n, b);
  }
  f.aC = Func("wkv7c_a");
  f.aC(j, r, h, n, b) = load(in.a, j, r, n);
  f.bC = Func("wkv7c_b");
  f.bC(j, r, h, n, b) = load(in.b, j, r, n);
  f.kC = Func("wkv7c_k");
  f.kC(j, r, h, n, b) = load(in.k, j, r, n);
  f.rC = Func("wkv7c_r");
  f.rC(j, r, h, n, b) = load(in.r, j, r, n);
  Func vC("wkv7c_v");
  vC(i, r, h, n, b) = load(in.v, i, r, n);
  f.vC = vC;
  // Rows innermost, so that the C x C sums below read rows s as vectors.
  f.bRows = Func("wkv7c_b_rows");
  f.bRows(s, j, h, n, b) = f.bC(j, s, h, n, b);
  f.kRows = Func("wkv7c_k_rows");
  f.kRows(s, j, h, n, b) = f.kC(j, s, h, n, b);
  // e^{G_r - G_s} (s <= r), else 0, as the running product along r of the
  // factors e^{w_r} (C N exps per chunk instead of C^2 N): 1 at r = s, then
  // times e^{w_r} per row. A product below e^-30 is 0, as decayExp flushes
  // (every later one is then 0 too); factors are taken at least e^-57, which
  // changes no product that stays above e^-30 and keeps every product of a
  // kept one normal (no f32 denormals).
  f.ew = Func("wkv7c_ew");
  f.ew(j, r, h, n, b) = max(accurateExp(load(in.w, j, r, n)), 1.8e-25f);
  f.decRows = Func("wkv7c_dec_rows");
  f.decRows(s, j, r, h, n, b) = select(s == r, 1.0f, 0.0f);
  if (C > 1) {
    RDom rd(1, C - 1, "rd");
    f.decRowsScan = rd;
    Expr p = f.decRows(s, j, rd - 1, h, n, b) * f.ew(j, rd, h, n, b);
    f.decRows(s, j, rd, h, n, b) =
        select(s < rd, select(p < 9.4e-14f, 0.0f, p), f.decRows(s, j, rd, h, n, b));
  }

  // The four key sums; Aab and Aak with e^{G_{r-1} - G_s} (zero for s >= r
  // but at r = 0, masked below), Prb and Prk with e^{G_r - G_s} (zero for s > r).
  RDom rk(0, N, "rk");
  f.keys = rk;
  Expr rm1 = max(r - 1, 0);
  f.gramAB = Func("wkv7c_gram_ab");
  f.gramAK = Func("wkv7c_gram_ak");
  f.gramRB = Func("wkv7c_gram_rb");
  f.gramRK = Func("wkv7c_gram_rk");
  for (Func g : {f.gramAB, f.gramAK, f.gramRB, f.gramRK})
    g(s, r, h, n, b) = 0.0f;
  f.gramAB(s, r, h, n, b) +=
      f.aC(rk, r, h, n, b) * f.bRows(s, rk, h, n, b) * f.decRows(s, rk, rm1, h, n, b);
  f.gramAK(s, r, h, n, b) +=
      f.aC(rk, r, h, n, b) * f.kRows(s, rk, h, n, b) * f.decRows(s, rk, rm1, h, n, b);
  f.gramRB(s, r, h, n, b) +=
      f.rC(rk, r, h, n, b) * f.bRows(s, rk, h, n, b) * f.decRows(s, rk, r, h, n, b);
  f.gramRK(s, r, h, n, b) +=
      f.rC(rk, r, h, n, b) * f.kRows(s, rk, h, n, b) * f.decRows(s, rk, r, h, n, b);

  // T = (I - Aab)^-1 by forward substitution on the identity: T[r] =
  // e_r + sum_{s<r} Aab[r, s] T[s], right-looking (row s, once final, is
  // added to the rows r > s).
  f.aab = Func("wkv7c_aab");
  f.aab(s, r, h, n, b) = select(s < r, f.gramAB(s, r, h, n, b), 0.0f);
  f.tinv = Func("wkv7c_tinv");
  f.tinv(c, r, h, n, b) = select(c == r, 1.0f, 0.0f); // T[r][c]
  f.solve = RDom(0, C, 0, C, "solve"); // (target row r, source row s)
  f.solve.where(f.solve.y < f.solve.x);
  f.tinv(c, f.solve.x, h, n, b) +=
      f.aab(f.solve.y, f.solve.x, h, n, b) * f.tinv(c, f.solve.y, h, n, b);

  // U~ = T (Aak V), W = T A~ (A~ = a_r e^{G_{r-1}}).
  RDom rb(0, C, "rb");
  rb.where(rb < r);
  f.rowsBelow = rb;
  f.rhsU = Func("wkv7c_rhs_u");
  f.rhsU(i, r, h, n, b) = 0.0f;
  f.rhsU(i, r, h, n, b) += f.gramAK(rb, r, h, n, b) * vC(i, rb, h, n, b);
  RDom rx(0, C, "rx");
  rx.where(rx <= r);
  f.rowsUpTo = rx;
  f.xu = Func("wkv7c_xu");
  f.xu(i, r, h, n, b) = 0.0f;
  f.xu(i, r, h, n, b) += f.tinv(rx, r, h, n, b) * f.rhsU(i, rx, h, n, b);
  f.at = Func("wkv7c_at");
  f.at(j, r, h, n, b) =
      f.aC(j, r, h, n, b) * decayExp(select(r > 0, f.gcum(j, max(r - 1, 0), h, n, b), 0.0f));
  f.xw = Func("wkv7c_xw");
  f.xw(j, r, h, n, b) = 0.0f;
  f.xw(j, r, h, n, b) += f.tinv(rx, r, h, n, b) * f.at(j, rx, h, n, b);

  // The outputs as a map of the entering state: Y = Qeff S^T + Oloc with
  // Qeff = R~ + Prb W, Oloc = Prb U~ + Prk V. coef stacks [W ; Qeff].
  f.oloc = Func("wkv7c_oloc");
  f.oloc(i, r, h, n, b) = 0.0f;
  f.oloc(i, r, h, n, b) +=
      f.gramRB(rx, r, h, n, b) * f.xu(i, rx, h, n, b) + f.gramRK(rx, r, h, n, b) * vC(i, rx, h, n, b);
  f.coef = Func("wkv7c_coef");
  RDom ra(0, C, "ra");
  ra.where(ra <= q - C);
  f.rowsCoef = ra;
  Expr qr = clamp(q - C, 0, C - 1);
  f.coef(j, q, h, n, b) = select(q < C, f.xw(j, min(q, C - 1), h, n, b),
                                 f.rC(j, qr, h, n, b) * decayExp(f.gcum(j, qr, h, n, b)));
  f.coef(j, q, h, n, b) += f.gramRB(ra, qr, h, n, b) * f.xw(j, ra, h, n, b);

  // The next state's coefficients: [b ; k] e^{G_last - G_r}, e^{G_last}.
  Expr rq = clamp(select(q < C, q, q - C), 0, C - 1);
  f.kt = Func("wkv7c_kt");
  f.kt(j, q, h, n, b) =
      select(q < C, f.bC(j, rq, h, n, b), f.kC(j, rq, h, n, b)) *
      decayExp(min(f.gcum(j, C - 1, h, n, b) - f.gcum(j, rq, h, n, b), 0.0f));
  f.glast = Func("wkv7c_glast");
  f.glast(j, h, n, b) = decayExp(f.gcum(j, C - 1, h, n, b));

  // The pass (see the header and ChunkedPass.h): work rows U (r < C, first
  // U~) and V (C <= r < 2C), Y's first values Oloc, S_{n+1} from
  // e^{G_last} S_n; then U and Y += coef S_n, S_{n+1} += kt [U ; V].
  ChunkedPassSpec ps;
  ps.name = "wkv7c_states";
  ps.rows = N;
  ps.chunk = C;
  ps.work = 2 * C;
  ps.cols = N;
  ps.col = i;
  ps.h = h;
  ps.b = b;
  ps.chunks = chunks;
  if (in.initialState)
    ps.initState = [&](Expr e) { return in.initialState->func(e, i, h, b); };
  ps.workInit = [&](Expr rr, Expr nn) {
    return select(rr < C, f.xu(i, min(rr, C - 1), h, nn, b), vC(i, clamp(rr - C, 0, C - 1), h, nn, b));
  };
  ps.outInit = [&](Expr rr, Expr nn) { return f.oloc(i, rr, h, nn, b); };
  ps.decay = [&](Expr e, Expr nn) { return f.glast(e, h, nn, b); };
  ps.coef = [&](Expr e, Expr a, Expr nn) { return f.coef(e, a, h, nn, b); };
  ps.kt = [&](Expr e, Expr rr, Expr nn) { return f.kt(e, rr, h, nn, b); };
  f.pass = buildChunkedPass(ps);
  f.y = Func("wkv7_y");
  f.y(i, h, t, b) = f.pass.out(i, t, h, b);
  f.finalState = Func("wkv7_final_state");
  f.finalState(j, i, h, b) = f.pass.finalState(j, i, h, b);
}

} // namespace

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
  if (in.chunk < 0)
    throw CompileError("ssm.wkv7 kernel: chunk must be 0 (token by token) or positive");
  f.chunk = in.chunk;
  f.n = N;
  Expr len = in.r.shape[1];
  if (f.chunk == 0)
    buildSequential(f, in, N, len);
  else
    buildChunked(f, in, N, len);
  std::vector<Expr> stShape = {in.r.shape[0], in.r.shape[2], in.r.shape[3], in.r.shape[3]};
  f.result = {{TensorFunc{f.y, in.r.shape}, TensorFunc{f.finalState, stShape}}};
  return f;
}

} // namespace ssm::codegen
