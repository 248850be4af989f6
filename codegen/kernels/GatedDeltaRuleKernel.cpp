// Halide kernel of ssm.gated_delta_rule: the algorithm only (codegen/schedules/GatedDeltaRuleSchedule.cpp schedules it).
#include "codegen/kernels/GatedDeltaRuleKernel.h"
#include "codegen/kernels/ChunkedPass.h"
#include "codegen/kernels/MathExt.h"

#include <algorithm>

namespace ssm::codegen {

using namespace Halide;

namespace {

/// What both forms read of the inputs.
struct Shapes {
  int Dk = 0, Dv = 0, lanes = 1;
  Expr len, ratio; // tokens; value heads per key head
};

/// The token-by-token form (see the header).
void buildSequential(GatedDeltaRuleKernel &f, const GatedDeltaRuleKernelInputs &in,
                     const Shapes &sh) {
  const int Dk = sh.Dk;
  Expr len = sh.len, ratio = sh.ratio;
  const int W = sh.lanes;
  Var j("j"), s("slot"), h("h"), b("b"), i("i"), t("t"), jl("jl"), jb("jb");
  Expr jj = min(jb * W + jl, sh.Dv - 1); // value column of (lane, block), clamped past Dv

  f.decay = Func("gdr_decay");
  if (f.perChannel)
    f.decay(i, h, t, b) = accurateExp(in.g.func(i, h, t, b));
  else
    f.decay(h, t, b) = accurateExp(in.g.func(h, t, b));
  auto decayAt = [&](Expr key, Expr head, Expr time) {
    return f.perChannel ? f.decay(key, head, time, b) : f.decay(head, time, b);
  };
  auto keyAt = [&](Expr key, Expr head, Expr time) { return in.k.func(key, head / ratio, time, b); };
  auto init = [&](Expr key, Expr col) {
    return in.initialState ? in.initialState->func(col, key, h, b) : Expr(0.0f);
  };

  // The first token's k . S over the decayed initial state (0 without one).
  f.kv0 = Func("gdr_kv0");
  f.kv0(j, h, b) = 0.0f;
  if (in.initialState) {
    RDom ri(0, Dk, "i");
    f.kv0(j, h, b) += keyAt(ri, h, 0) * decayAt(ri, h, 0) * init(ri, j);
  }

  // scan(j, slot): slots 0..Dk-1 hold S[slot, j]; element 1 at slot Dk-1 the
  // complete k . S of the coming token; slot Dk + t holds the output of t.
  f.scan = Func("gdr_scan");
  f.scan(jl, s, jb, h, b) = Tuple(select(s < Dk, init(clamp(s, 0, Dk - 1), jj), 0.0f),
                                  select(s == Dk - 1, f.kv0(jj, h, b), 0.0f), 0.0f);
  f.steps = RDom(0, Dk + 1, 0, len, "step");
  RVar x = f.steps.x, rt = f.steps.y;
  Expr xc = min(x, Dk - 1), isOut = x == Dk;
  Expr kv = f.scan(jl, Dk - 1, jb, h, b)[1];
  Expr u = in.beta.func(h, rt, b) * (in.v.func(jj, h, rt, b) - kv);
  Expr newS = decayAt(xc, h, rt) * f.scan(jl, xc, jb, h, b)[0] + keyAt(xc, h, rt) * u;
  Expr tn = min(rt + 1, len - 1);
  Expr kdNext = select(rt + 1 < len, keyAt(xc, h, tn) * decayAt(xc, h, tn), 0.0f);
  Expr prev = max(xc - 1, 0);
  Expr run1 = select(x == 0, 0.0f, f.scan(jl, prev, jb, h, b)[1]) + newS * kdNext;
  Expr run2 = select(x == 0, 0.0f, f.scan(jl, prev, jb, h, b)[2]) +
              newS * in.q.func(xc, h / ratio, rt, b);
  Expr o = f.scan(jl, Dk - 1, jb, h, b)[2];
  f.scan(jl, select(isOut, Dk + rt, x), jb, h, b) =
      Tuple(select(isOut, o, newS), select(isOut, 0.0f, run1), select(isOut, 0.0f, run2));

  f.out = Func("gdr_out");
  f.out(j, h, t, b) = static_cast<float>(in.scale) * f.scan(j % W, Dk + t, j / W, h, b)[0];
  f.finalState = Func("gdr_final_state");
  f.finalState(j, i, h, b) = f.scan(j % W, i, j / W, h, b)[0];
}

// decayExp (MathExt.h): exp(x) for x <= 0, 0 below -30 (out of f32 denormals).

/// The chunked WY form (see the header).
void buildChunked(GatedDeltaRuleKernel &f, const GatedDeltaRuleKernelInputs &in,
                  const Shapes &sh) {
  const int Dk = sh.Dk, Dv = sh.Dv, C = f.chunk;
  Expr len = sh.len, ratio = sh.ratio;
  Expr chunks = (len + (C - 1)) / C;
  Var i("i"), i2("i2"), j("j"), c("c"), r("r"), s("s"), h("h"), n("n"), b("b"), t("t");

  // Token r of chunk n, clamped for the loads; past L the inputs read as 0
  // (g = 0: no decay; beta = k = v = 0: no write), the identity step.
  auto valid = [&](Expr rr, Expr nn) { return nn * C + rr < len; };
  auto tok = [&](Expr rr, Expr nn) { return min(nn * C + rr, len - 1); };
  auto kA = [&](Expr key, Expr rr, Expr kh, Expr nn) {
    return select(valid(rr, nn), in.k.func(key, kh, tok(rr, nn), b), 0.0f);
  };
  auto qA = [&](Expr key, Expr rr, Expr kh, Expr nn) {
    return select(valid(rr, nn), in.q.func(key, kh, tok(rr, nn), b), 0.0f);
  };
  auto vA = [&](Expr col, Expr rr, Expr head, Expr nn) {
    return select(valid(rr, nn), in.v.func(col, head, tok(rr, nn), b), 0.0f);
  };
  auto betaA = [&](Expr rr, Expr head, Expr nn) {
    return select(valid(rr, nn), in.beta.func(head, tok(rr, nn), b), 0.0f);
  };

  // Cumulative log decay within each chunk: G_r = g_0 + .. + g_r.
  f.gcum = Func("gdr_gcum");
  if (f.perChannel) {
    f.gcum(i, r, h, n, b) = select(valid(r, n), in.g.func(i, h, tok(r, n), b), 0.0f);
  } else {
    f.gcum(r, h, n, b) = select(valid(r, n), in.g.func(h, tok(r, n), b), 0.0f);
  }
  if (C > 1) {
    RDom rg(1, C - 1, "rg");
    if (f.perChannel)
      f.gcum(i, rg, h, n, b) = f.gcum(i, rg - 1, h, n, b) + f.gcum(i, rg, h, n, b);
    else
      f.gcum(rg, h, n, b) = f.gcum(rg - 1, h, n, b) + f.gcum(rg, h, n, b);
  }
  auto G = [&](Expr key, Expr rr, Expr head, Expr nn) {
    return f.perChannel ? f.gcum(key, rr, head, nn, b) : f.gcum(rr, head, nn, b);
  };
  // exp(G_r - G_s), only read where s <= r (the difference is then <= 0).
  auto ratioExp = [&](Expr key, Expr rr, Expr ss, Expr head, Expr nn) {
    return decayExp(min(G(key, rr, head, nn) - G(key, ss, head, nn), 0.0f));
  };

  // k_r . k_s and q_r . k_s: per key head with one decay per value head
  // (the decay ratio is applied after the sum); per value head with a gate
  // per key channel, the ratio inside the sum.
  RDom ri(0, Dk, "ri");
  f.keys = ri;
  // The keys (and per channel the cumulative decays) with the chunk's rows
  // innermost, so that the C x C products below read rows s as vectors.
  f.kRows = Func("gdr_k_rows");
  // The chunk's keys and queries (0 past L), per key head, read by the
  // products below (one bounds-checked load of the inputs each).
  f.kC = Func("gdr_k_chunk");
  f.kC(i, r, h, n, b) = kA(i, r, h, n);
  f.qC = Func("gdr_q_chunk");
  f.qC(i, r, h, n, b) = qA(i, r, h, n);
  f.kRows(s, i, h, n, b) = f.kC(i, s, h, n, b); // h: the key head
  if (f.perChannel) {
    f.gRows = Func("gdr_g_rows");
    f.gRows(s, i, h, n, b) = f.gcum(i, s, h, n, b);
  }
  f.gramKK = Func("gdr_gram_kk");
  f.gramQK = Func("gdr_gram_qk");
  f.gramKK(s, r, h, n, b) = 0.0f;
  f.gramQK(s, r, h, n, b) = 0.0f;
  if (f.perChannel) {
    Expr kh = h / ratio;
    Expr w = decayExp(min(G(ri, r, h, n) - f.gRows(s, ri, h, n, b), 0.0f));
    f.gramKK(s, r, h, n, b) += f.kC(ri, r, kh, n, b) * f.kRows(s, ri, kh, n, b) * w;
    f.gramQK(s, r, h, n, b) += f.qC(ri, r, kh, n, b) * f.kRows(s, ri, kh, n, b) * w;
  } else {
    // h is the key head here.
    f.gramKK(s, r, h, n, b) += f.kC(ri, r, h, n, b) * f.kRows(s, ri, h, n, b);
    f.gramQK(s, r, h, n, b) += f.qC(ri, r, h, n, b) * f.kRows(s, ri, h, n, b);
  }
  // With one decay per value head, the ratios exp(G_r - G_s) (s <= r)
  // once for both products.
  if (!f.perChannel) {
    f.ratioC = Func("gdr_ratio");
    f.ratioC(s, r, h, n, b) = select(s <= r, ratioExp(0, r, s, h, n), 0.0f);
  }
  auto gram = [&](Func g, Expr ss, Expr rr, Expr head, Expr nn) {
    return f.perChannel ? g(ss, rr, head, nn, b)
                        : g(ss, rr, head / ratio, nn, b) * f.ratioC(ss, rr, head, nn, b);
  };
  f.akk = Func("gdr_akk");
  f.akk(s, r, h, n, b) = gram(f.gramKK, s, r, h, n) * select(s < r, betaA(r, h, n), 0.0f);
  f.pqk = Func("gdr_pqk");
  f.pqk(s, r, h, n, b) = gram(f.gramQK, s, r, h, n) * select(s <= r, 1.0f, 0.0f);

  // The chunk's decay factors exp(G_r) and exp(G_last - G_r), once per row
  // (per row and key channel with a gate per key channel).
  f.eg = Func("gdr_eg");
  f.egl = Func("gdr_egl");
  if (f.perChannel) {
    f.eg(i, r, h, n, b) = decayExp(G(i, r, h, n));
    f.egl(i, r, h, n, b) = decayExp(min(G(i, C - 1, h, n) - G(i, r, h, n), 0.0f));
  } else {
    f.eg(r, h, n, b) = decayExp(G(0, r, h, n));
    f.egl(r, h, n, b) = decayExp(min(G(0, C - 1, h, n) - G(0, r, h, n), 0.0f));
  }
  auto egAt = [&](Expr key, Expr rr, Expr head, Expr nn) {
    return f.perChannel ? f.eg(key, rr, head, nn, b) : f.eg(rr, head, nn, b);
  };
  auto eglAt = [&](Expr key, Expr rr, Expr head, Expr nn) {
    return f.perChannel ? f.egl(key, rr, head, nn, b) : f.egl(rr, head, nn, b);
  };

  // X = T diag(beta) [V | K (.) exp G] with T = (I + A)^-1 (fla's
  // solve_tril, then two products): T by forward substitution on the C x C
  // identity, column-wise (right-looking: once row s of T is final it is
  // subtracted from the rows r > s, so consecutive steps update different
  // rows); then X as one product over the rows s <= r (T is lower
  // triangular with a unit diagonal).
  f.tinv = Func("gdr_tinv");
  f.tinv(c, r, h, n, b) = select(c == r, 1.0f, 0.0f); // T[r][c]
  f.solve = RDom(0, C, 0, C, "solve"); // (target row r, source row s)
  f.solve.where(f.solve.y < f.solve.x);
  f.tinv(c, f.solve.x, h, n, b) -=
      f.akk(f.solve.y, f.solve.x, h, n, b) * f.tinv(c, f.solve.y, h, n, b);
  // The two right-hand sides apart (one select between them would make
  // every load a gather): diag(beta) V and diag(beta) (K (.) exp G).
  f.rhsU = Func("gdr_rhs_u");
  f.rhsU(j, r, h, n, b) = betaA(r, h, n) * vA(j, r, h, n);
  f.rhsW = Func("gdr_rhs_w");
  f.rhsW(i, r, h, n, b) = betaA(r, h, n) * f.kC(i, r, h / ratio, n, b) * egAt(i, r, h, n);
  // Over all C rows: T is 0 above its diagonal (exactly: the solve only
  // ever subtracts products with those zeros), so the rows s > r add
  // exact zeros after the sum, the same value as the sum over s <= r; a
  // full square is a branch-free register tile (with `where`, each of the
  // tile's unrolled rows tested every term).
  RDom rx(0, C, "rx");
  f.rowsX = rx;
  f.xu = Func("gdr_xu"); // U~
  f.xu(j, r, h, n, b) = 0.0f;
  f.xu(j, r, h, n, b) += f.tinv(rx, r, h, n, b) * f.rhsU(j, rx, h, n, b);
  f.xw = Func("gdr_xw"); // W
  f.xw(i, r, h, n, b) = 0.0f;
  f.xw(i, r, h, n, b) += f.tinv(rx, r, h, n, b) * f.rhsW(i, rx, h, n, b);

  f.glast = Func("gdr_glast");
  f.glast(i, h, n, b) = egAt(i, C - 1, h, n);
  f.kt = Func("gdr_kt");
  f.kt(i, r, h, n, b) = f.kC(i, r, h / ratio, n, b) * eglAt(i, r, h, n);
  f.qg = Func("gdr_qg");
  f.qg(i, r, h, n, b) = f.qC(i, r, h / ratio, n, b) * egAt(i, r, h, n);

  // The outputs as a map of the state entering the chunk:
  //   O = (Q (.) exp G) S + P V' = Qeff S + Oloc, V' = U~ - W S,
  //   Qeff = (Q (.) exp G) - P W, Oloc = P U~ (P = pqk, lower triangular).
  // (all C rows: P is 0 above its diagonal, as T above)
  RDom rc(0, C, "rc");
  f.rows = rc;
  f.oloc = Func("gdr_oloc");
  f.oloc(j, r, h, n, b) = 0.0f;
  f.oloc(j, r, h, n, b) += f.pqk(rc, r, h, n, b) * f.xu(j, rc, h, n, b);
  // The pass's first phase multiplies S by the rows a of one (2C x Dk)
  // matrix: a < C the rows of -W (V' = U~ - W S), a >= C those of Qeff
  // (O = Oloc + Qeff S).
  // Qeff's rows sum over all C rows ra (P's zeros above its diagonal);
  // the rows of -W are copies, no sum.
  f.coefQ = Func("gdr_coef_q");
  RDom ra(0, C, "ra");
  f.coefQ(i, r, h, n, b) = f.qg(i, r, h, n, b);
  f.coefQ(i, r, h, n, b) -= f.pqk(ra, r, h, n, b) * f.xw(i, ra, h, n, b);
  f.rowsA = ra;
  f.coef = Func("gdr_coef");
  f.coef(i, c, h, n, b) = select(c < C, -f.xw(i, min(c, C - 1), h, n, b),
                                 f.coefQ(i, max(c - C, 0), h, n, b));

  // The pass (ChunkedPass.h), sequential over chunks per (value head,
  // stream), all value columns j together; work rows V' (first U~), the
  // outputs before `scale` (first Oloc), S_{n+1} from exp(G_last) S_n; then
  // V' and O += [-W ; Qeff] S_n, S_{n+1} += K~^T V'.
  ChunkedPassSpec ps;
  ps.name = "gdr_states";
  ps.rows = Dk;
  ps.chunk = C;
  ps.work = C;
  ps.cols = Dv;
  ps.col = j;
  ps.h = h;
  ps.b = b;
  ps.chunks = chunks;
  if (in.initialState)
    ps.initState = [&](Expr e) { return in.initialState->func(j, e, h, b); };
  ps.workInit = [&](Expr rr, Expr nn) { return f.xu(j, rr, h, nn, b); };
  ps.outInit = [&](Expr rr, Expr nn) { return f.oloc(j, rr, h, nn, b); };
  ps.decay = [&](Expr e, Expr nn) { return f.glast(e, h, nn, b); };
  ps.coef = [&](Expr e, Expr a, Expr nn) { return f.coef(e, a, h, nn, b); };
  ps.kt = [&](Expr e, Expr rr, Expr nn) { return f.kt(e, rr, h, nn, b); };
  f.pass = buildChunkedPass(ps);

  f.out = Func("gdr_out");
  f.out(j, h, t, b) = static_cast<float>(in.scale) * f.pass.out(j, t, h, b);
  f.finalState = Func("gdr_final_state");
  f.finalState(j, i, h, b) = f.pass.finalState(i, j, h, b);
}

} // namespace

GatedDeltaRuleKernel buildGatedDeltaRule(const GatedDeltaRuleKernelInputs &in) {
  const char *op = "ssm.gated_delta_rule kernel";
  GatedDeltaRuleKernel f;
  checkOperandRank(op, in.q, "q", 4);
  checkOperandRank(op, in.k, "k", 4);
  checkOperandRank(op, in.v, "v", 4);
  checkOperandRank(op, in.beta, "beta", 3);
  if (in.g.rank() != 3 && in.g.rank() != 4)
    throw CompileError(std::string(op) + ": g must be rank 3 (batch, L, Hv) or 4 (batch, L, Hv, Dk)");
  if (in.initialState)
    checkOperandRank(op, *in.initialState, "initial_state", 4);
  std::optional<int64_t> dkc = constInt(in.q.shape[3]), dvc = constInt(in.v.shape[3]);
  if (!dkc || *dkc <= 0 || !dvc || *dvc <= 0)
    throw CompileError(std::string(op) +
                       ": the head sizes Dk and Dv must be positive constant extents");
  if (in.chunk < 0)
    throw CompileError(std::string(op) + ": chunk must be 0 (token by token) or positive");
  Shapes sh;
  sh.Dk = static_cast<int>(*dkc);
  sh.Dv = static_cast<int>(*dvc);
  sh.lanes = std::max(1, in.lanes);
  sh.len = in.q.shape[1];
  // Key head of value head h: h / r with r = Hv / Hk.
  sh.ratio = Internal::simplify(in.v.shape[2] / max(in.q.shape[2], 1));
  f.perChannel = in.g.rank() == 4;
  f.chunk = in.chunk;
  f.dk = sh.Dk;
  f.dv = sh.Dv;
  if (f.chunk == 0)
    buildSequential(f, in, sh);
  else
    buildChunked(f, in, sh);
  std::vector<Expr> stShape = {in.v.shape[0], in.v.shape[2], in.q.shape[3], in.v.shape[3]};
  f.result = {{TensorFunc{f.out, in.v.shape}, TensorFunc{f.finalState, stShape}}};
  return f;
}

} // namespace ssm::codegen
