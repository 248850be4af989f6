// Halide kernel of ssm.gated_delta_rule: the algorithm only (codegen/schedules/GatedDeltaRuleSchedule.cpp schedules it).
#include "codegen/kernels/GatedDeltaRuleKernel.h"
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

/// exp(x) for the chunked form's decay factors (x <= 0), exactly 0 below
/// -30 (9.4e-14). Products of those factors with each other and with the
/// chunk's other small terms would otherwise reach f32 denormals (a chunk
/// of strong decay sums G far below -87), whose arithmetic runs two orders
/// of magnitude slower on x86; a flushed term is below f32 precision of
/// every sum it enters.
Expr decayExp(Expr x) { return select(x < -30.0f, 0.0f, accurateExp(x)); }

/// The chunked WY form (see the header).
void buildChunked(GatedDeltaRuleKernel &f, const GatedDeltaRuleKernelInputs &in,
                  const Shapes &sh) {
  const int Dk = sh.Dk, Dv = sh.Dv, C = f.chunk;
  Expr len = sh.len, ratio = sh.ratio;
  Expr chunks = (len + (C - 1)) / C;
  Var i("i"), i2("i2"), j("j"), c("c"), r("r"), s("s"), h("h"), n("n"), b("b"), t("t"),
      slot("slot");

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
  f.kRows(s, i, h, n, b) = kA(i, s, h, n); // h: the key head
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
    f.gramKK(s, r, h, n, b) += kA(ri, r, kh, n) * f.kRows(s, ri, kh, n, b) * w;
    f.gramQK(s, r, h, n, b) += qA(ri, r, kh, n) * f.kRows(s, ri, kh, n, b) * w;
  } else {
    // h is the key head here.
    f.gramKK(s, r, h, n, b) += kA(ri, r, h, n) * f.kRows(s, ri, h, n, b);
    f.gramQK(s, r, h, n, b) += qA(ri, r, h, n) * f.kRows(s, ri, h, n, b);
  }
  auto gram = [&](Func g, Expr ss, Expr rr, Expr head, Expr nn) {
    return f.perChannel ? g(ss, rr, head, nn, b)
                        : g(ss, rr, head / ratio, nn, b) * ratioExp(0, rr, ss, head, nn);
  };
  f.akk = Func("gdr_akk");
  f.akk(s, r, h, n, b) = select(s < r, betaA(r, h, n) * gram(f.gramKK, s, r, h, n), 0.0f);
  f.pqk = Func("gdr_pqk");
  f.pqk(s, r, h, n, b) = select(s <= r, gram(f.gramQK, s, r, h, n), 0.0f);

  // (I + A) X = diag(beta) [V | K (.) exp G], by forward substitution.
  f.x = Func("gdr_x");
  {
    Expr key = clamp(c - Dv, 0, Dk - 1);
    f.x(c, r, h, n, b) =
        betaA(r, h, n) * select(c < Dv, vA(min(c, Dv - 1), r, h, n),
                                kA(key, r, h / ratio, n) * decayExp(G(key, r, h, n)));
  }
  f.solve = RDom(0, C, 0, C, "solve");
  f.solve.where(f.solve.x < f.solve.y);
  f.x(c, f.solve.y, h, n, b) -= f.akk(f.solve.x, f.solve.y, h, n, b) * f.x(c, f.solve.x, h, n, b);

  f.glast = Func("gdr_glast");
  f.glast(i, h, n, b) = decayExp(G(i, C - 1, h, n));
  f.kt = Func("gdr_kt");
  f.kt(i, r, h, n, b) =
      kA(i, r, h / ratio, n) * decayExp(min(G(i, C - 1, h, n) - G(i, r, h, n), 0.0f));
  f.qg = Func("gdr_qg");
  f.qg(i, r, h, n, b) = qA(i, r, h / ratio, n) * decayExp(G(i, r, h, n));

  // The chunk's map of the state: S' = M S + B.
  RDom rc(0, C, "rc");
  f.rows = rc;
  f.m = Func("gdr_m");
  // Stored [i2][i] with i innermost: the state pass walks the rows i of
  // the next state innermost.
  f.m(i, i2, h, n, b) = select(i == i2, f.glast(i, h, n, b), 0.0f);
  f.m(i, i2, h, n, b) -= f.kt(i, rc, h, n, b) * f.x(Dv + i2, rc, h, n, b);
  f.bm = Func("gdr_bm");
  f.bm(j, i, h, n, b) = 0.0f;
  f.bm(j, i, h, n, b) += f.kt(i, rc, h, n, b) * f.x(j, rc, h, n, b);

  // The state entering each chunk, one matrix-vector product per chunk.
  auto init = [&](Expr key, Expr col) {
    return in.initialState ? in.initialState->func(col, key, h, b) : Expr(0.0f);
  };
  const int W = sh.lanes;
  Var jl("jl"), jb("jb");
  Expr jj = min(jb * W + jl, Dv - 1); // value column of (lane, block), clamped past Dv
  f.states = Func("gdr_states");
  f.states(jl, slot, jb, h, b) = select(slot < Dk, init(clamp(slot, 0, Dk - 1), jj),
                                        f.bm(jj, slot % Dk, h, max(slot / Dk - 1, 0), b));
  // The rows pi of the next state innermost, then the rows pi2 they read:
  // consecutive steps update different rows, not one chain of dependent
  // FMAs through memory (each row still sums over pi2 in order).
  f.pass = RDom(0, Dk, 0, Dk, 0, chunks, "pass");
  {
    RVar pi = f.pass.x, pi2 = f.pass.y, pn = f.pass.z;
    f.states(jl, (pn + 1) * Dk + pi, jb, h, b) +=
        f.m(pi, pi2, h, pn, b) * f.states(jl, pn * Dk + pi2, jb, h, b);
  }
  auto stateAt = [&](Expr col, Expr sl) { return f.states(col % W, sl, col / W, h, b); };

  // Each chunk's outputs from the state entering it.
  f.u = Func("gdr_u");
  f.u(j, r, h, n, b) = f.x(j, r, h, n, b);
  f.u(j, r, h, n, b) -= f.x(Dv + ri, r, h, n, b) * stateAt(j, n * Dk + ri);
  f.oc = Func("gdr_oc");
  f.oc(j, r, h, n, b) = 0.0f;
  f.oc(j, r, h, n, b) += f.qg(ri, r, h, n, b) * stateAt(j, n * Dk + ri);
  f.oc(j, r, h, n, b) += f.pqk(rc, r, h, n, b) * f.u(j, rc, h, n, b);

  f.out = Func("gdr_out");
  f.out(j, h, t, b) = static_cast<float>(in.scale) * f.oc(j, t % C, h, t / C, b);
  f.finalState = Func("gdr_final_state");
  f.finalState(j, i, h, b) = stateAt(j, chunks * Dk + i);
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
  if (f.chunk == 0)
    buildSequential(f, in, sh);
  else
    buildChunked(f, in, sh);
  std::vector<Expr> stShape = {in.v.shape[0], in.v.shape[2], in.q.shape[3], in.v.shape[3]};
  f.result = {{TensorFunc{f.out, in.v.shape}, TensorFunc{f.finalState, stShape}}};
  return f;
}

} // namespace ssm::codegen
