// Halide kernel of ssm.gated_delta_rule: the algorithm only (codegen/schedules/GatedDeltaRuleSchedule.cpp schedules it).
#include "codegen/kernels/GatedDeltaRuleKernel.h"
#include "codegen/kernels/MathExt.h"

namespace ssm::codegen {

using namespace Halide;

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
  std::optional<int64_t> dkc = constInt(in.q.shape[3]);
  if (!dkc || *dkc <= 0)
    throw CompileError(std::string(op) + ": the key head size Dk must be a positive constant extent");
  const int Dk = static_cast<int>(*dkc);
  f.perChannel = in.g.rank() == 4;
  Expr len = in.q.shape[1];
  // Key head of value head h: h / r with r = Hv / Hk.
  Expr ratio = Internal::simplify(in.v.shape[2] / max(in.q.shape[2], 1));
  Var j("j"), s("slot"), h("h"), b("b"), i("i"), t("t");

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
  f.scan(j, s, h, b) = Tuple(select(s < Dk, init(clamp(s, 0, Dk - 1), j), 0.0f),
                             select(s == Dk - 1, f.kv0(j, h, b), 0.0f), 0.0f);
  f.steps = RDom(0, Dk + 1, 0, len, "step");
  RVar x = f.steps.x, rt = f.steps.y;
  {
    Expr xc = min(x, Dk - 1), isOut = x == Dk;
    Expr kv = f.scan(j, Dk - 1, h, b)[1];
    Expr u = in.beta.func(h, rt, b) * (in.v.func(j, h, rt, b) - kv);
    Expr newS = decayAt(xc, h, rt) * f.scan(j, xc, h, b)[0] + keyAt(xc, h, rt) * u;
    Expr tn = min(rt + 1, len - 1);
    Expr kdNext = select(rt + 1 < len, keyAt(xc, h, tn) * decayAt(xc, h, tn), 0.0f);
    Expr prev = max(xc - 1, 0);
    Expr run1 = select(x == 0, 0.0f, f.scan(j, prev, h, b)[1]) + newS * kdNext;
    Expr run2 = select(x == 0, 0.0f, f.scan(j, prev, h, b)[2]) +
                newS * in.q.func(xc, h / ratio, rt, b);
    Expr o = f.scan(j, Dk - 1, h, b)[2];
    f.scan(j, select(isOut, Dk + rt, x), h, b) =
        Tuple(select(isOut, o, newS), select(isOut, 0.0f, run1), select(isOut, 0.0f, run2));
  }

  const float scale = static_cast<float>(in.scale);
  f.out = Func("gdr_out");
  f.out(j, h, t, b) = scale * f.scan(j, Dk + t, h, b)[0];
  f.finalState = Func("gdr_final_state");
  f.finalState(j, i, h, b) = f.scan(j, i, h, b)[0];

  std::vector<Expr> stShape = {in.v.shape[0], in.v.shape[2], in.q.shape[3], in.v.shape[3]};
  f.result = {{TensorFunc{f.out, in.v.shape}, TensorFunc{f.finalState, stShape}}};
  return f;
}

} // namespace ssm::codegen
