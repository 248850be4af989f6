// The Mamba-2 block as a layer of the model skeleton (import/layers/Mamba2Block.h).
#include "import/layers/Mamba2Block.h"
#include "import/layers/Layers.h"

#include <array>
#include <cmath>

namespace ssm::importer::layers {

using graph::BlockScope;
using Body = GenericBody;

namespace {
/// out_proj (and its bias) on y (rows, d_inner), added to *addTo when given.
TValue outProjectionOf(graph::BlockScope &s, const Mamba2Config &c, const std::string &m,
                       const TValue &y, const TValue *addTo);
} // namespace

std::vector<graph::TensorDecl> mamba2MixerParams(const Mamba2Config &c, const std::string &m) {
  std::vector<graph::TensorDecl> p = {{m + "in_proj.weight", {c.inProjSize(), c.hiddenSize}}};
  if (c.useBias)
    p.push_back({m + "in_proj.bias", {c.inProjSize()}});
  p.push_back({m + "conv1d.weight", {c.convDim(), 1, c.convKernel}});
  if (c.useConvBias)
    p.push_back({m + "conv1d.bias", {c.convDim()}});
  p.push_back({m + "dt_bias", {c.numHeads}});
  p.push_back({m + "A_log", {c.numHeads}});
  p.push_back({m + "D", {c.numHeads}});
  if (c.gatedNorm)
    p.push_back({m + "norm.weight", {c.intermediateSize}});
  p.push_back({m + "out_proj.weight", {c.hiddenSize, c.intermediateSize}});
  if (c.useBias)
    p.push_back({m + "out_proj.bias", {c.hiddenSize}});
  return p;
}

void mamba2Block(BlockScope &s, const Mamba2Config &c) {
  s.e.line("// RMSNorm, then in_proj split into z, xBC and dt.");
  TValue xn = layers::rmsNorm(s.e, s.h, s.param("norm.weight"), c.layerNormEpsilon, "normed");
  s.h = mamba2Mixer(s, c, xn, "mixer.", &s.h);
}

TValue mamba2Mixer(BlockScope &s, const Mamba2Config &c, const TValue &xn, const std::string &m,
                   const TValue *addTo) {
  MlirEmitter &e = s.e;
  const int64_t L = s.form.rows(), batch = s.form.batched() ? s.form.batch : 0;
  const bool step = s.form.step() || s.form.batched();
  // The SSD's (streams, tokens): (1, L), or (B, T) in the batched sequence
  // (rows stream-major: row b * T + t is stream b's token t), whose states
  // carry the leading dim B already.
  const bool seqs = s.form.batchedSequence();
  const int64_t sb = seqs ? s.form.batch : 1, T = L / sb;
  const TValue &convState = s.state("conv_state"), &ssmState = s.state("ssm_state");
  std::vector<TValue> &newStates = s.newStates;
  auto param = [&](const std::string &suffix) -> const TValue & { return s.param(suffix); };
  const int64_t di = c.intermediateSize, H = c.numHeads, P = c.headDim, N = c.stateSize,
                G = c.nGroups, W = c.convKernel, cd = c.convDim();
  const int64_t NG = c.normGroups > 0 ? c.normGroups : G, gs = di / NG;
  auto outProjection = [&](const TValue &y) { return outProjectionOf(s, c, m, y, addTo); };

  TValue xin = xn;
  if (c.inputMultiplier != 1.0) {
    e.line("// in_proj reads its input times ssm_in_multiplier.");
    const double k = c.inputMultiplier;
    xin = e.map("ssm_in", {{xn, {}}}, xn.shape, [k](Body &b) { return b.mul(b.arg(0), b.cst(k)); });
  }
  TValue zxbcdt = e.linear(xin, param(m + "in_proj.weight"), "zxbcdt");
  if (c.useBias)
    zxbcdt = e.map("zxbcdt_b", {{zxbcdt, {}}, {param(m + "in_proj.bias"), {"d1"}}},
                   zxbcdt.shape, [](Body &b) { return b.add(b.arg(0), b.arg(1)); });
  TValue z = e.slice(zxbcdt, {0, 0}, {L, di}, {L, di}, "z");
  TValue xBC = e.slice(zxbcdt, {0, di}, {L, cd}, {L, cd}, "xbc");
  TValue dtRaw = e.slice(zxbcdt, {0, di + cd}, {L, H}, {L, H}, "dt_raw");
  const std::array<double, 5> &mu = c.zxbcdtMultipliers;
  if (mu != std::array<double, 5>{1.0, 1.0, 1.0, 1.0, 1.0}) {
    e.line("// The mup multipliers of in_proj's z, x, B, C and dt columns (ssm_multipliers).");
    auto scaled = [&](const TValue &t, double k, const std::string &hint) {
      if (k == 1.0)
        return t;
      return e.map(hint, {{t, {}}}, t.shape, [k](Body &b) { return b.mul(b.arg(0), b.cst(k)); });
    };
    z = scaled(z, mu[0], "z_mup");
    dtRaw = scaled(dtRaw, mu[4], "dt_raw_mup");
    TValue xs = scaled(e.slice(xBC, {0, 0}, {L, di}, {L, di}, "xbc_x"), mu[1], "xbc_x_mup");
    TValue bs = scaled(e.slice(xBC, {0, di}, {L, G * N}, {L, G * N}, "xbc_b"), mu[2], "xbc_b_mup");
    TValue cs = scaled(e.slice(xBC, {0, di + G * N}, {L, G * N}, {L, G * N}, "xbc_c"), mu[3],
                       "xbc_c_mup");
    xBC = e.concat(1, {xs, bs, cs}, "xbc_mup");
  }

  e.line("// Depthwise causal conv (width " + std::to_string(W) +
         ") + silu over xBC, channel-major, from the carried window.");
  const int64_t nb = batch > 0 ? batch : 1; // the step ops' batch dim
  ShortConv conv = shortConv(e, s.form, xBC, param(m + "conv1d.weight"),
                             c.useConvBias ? &param(m + "conv1d.bias") : nullptr, convState);
  newStates.push_back(conv.window);
  const TValue &u = conv.y;
  TValue x = e.slice(u, {0, 0}, {L, di}, {L, di}, "x");
  TValue B = e.slice(u, {0, di}, {L, G * N}, {L, G * N}, "B");
  TValue C = e.slice(u, {0, di + G * N}, {L, G * N}, {L, G * N}, "C");

  std::string dtNote = "// dt = softplus(dt + dt_bias)";
  if (c.hasTimeStepLimit())
    dtNote += ", clamped to time_step_limit";
  e.line(dtNote + "; A = -exp(A_log), a scalar per head.");
  TValue dt = e.map("dt", {{dtRaw, {}}, {param(m + "dt_bias"), {"d1"}}}, {L, H}, [&](Body &b) {
    std::string v = softplus(b, b.add(b.arg(0), b.arg(1)));
    if (c.timeStepMin > 0.0)
      v = b.max(v, b.cst(c.timeStepMin));
    if (!std::isinf(c.timeStepMax)) {
      std::string r = b.fresh("v");
      b.raw(r + " = arith.minimumf " + v + ", " + b.cst(c.timeStepMax) + " : f32");
      v = r;
    }
    return v;
  });
  TValue x3 = e.expand(x, {{0}, {1, 2}}, {L, H, P}, "x_heads");
  TValue y3;
  if (!step) {
    e.line("// SSD over the sequence from the carried state: X = x dt, log-decay A dt.");
    TValue A = e.map("A", {{param(m + "A_log"), {}}}, {H},
                     [](Body &b) { return b.neg(b.exp(b.arg(0))); });
    TValue X = e.map("x_dt", {{x3, {}}, {dt, {"d0", "d1"}}}, {L, H, P},
                     [](Body &b) { return b.mul(b.arg(0), b.arg(1)); });
    TValue Adt = e.map("a_dt", {{dt, {}}, {A, {"d1"}}}, {L, H},
                       [](Body &b) { return b.mul(b.arg(0), b.arg(1)); });
    TValue X4 = e.expand(X, {{0, 1}, {2}, {3}}, {sb, T, H, P}, "ssd_x");
    TValue A3 = e.expand(Adt, {{0, 1}, {2}}, {sb, T, H}, "ssd_a");
    TValue B4 = e.expand(B, {{0, 1}, {2, 3}}, {sb, T, G, N}, "ssd_b");
    TValue C4 = e.expand(C, {{0, 1}, {2, 3}}, {sb, T, G, N}, "ssd_c");
    TValue S0 = seqs ? ssmState : e.expand(ssmState, {{0, 1}, {2}, {3}}, {1, H, P, N}, "ssd_s0");
    TValue Y{e.fresh("ssd_y"), {sb, T, H, P}}, S{e.fresh("ssd_state"), {sb, H, P, N}};
    e.line(Y.name + ", " + S.name + " = ssm.ssd_scan " + X4.name + ", " + A3.name + ", " +
           B4.name + ", " + C4.name + " initial_state(" + S0.name + ") {chunk_size = " +
           std::to_string(c.chunkSize) + " : i64} : (" + tensorType(X4.shape) + ", " +
           tensorType(A3.shape) + ", " + tensorType(B4.shape) + ", " + tensorType(C4.shape) +
           ", " + tensorType(S0.shape) + ") -> (" + tensorType(Y.shape) + ", " +
           tensorType(S.shape) + ")");
    newStates.push_back(seqs ? S : e.collapse(S, {{0, 1}, {2}, {3}}, {H, P, N}, "ssm_state_new"));
    TValue Y3 = e.collapse(Y, {{0, 1}, {2}, {3}}, {L, H, P}, "y_ssd");
    e.line("// D skip, per head.");
    y3 = e.map("y_d", {{Y3, {}}, {x3, {}}, {param(m + "D"), {"d1"}}}, {L, H, P},
               [](Body &b) { return b.add(b.arg(0), b.mul(b.arg(2), b.arg(1))); });
  } else {
    e.line("// One SSD step with heads: per-head dt, A and D broadcast over the head dim.");
    TValue A = e.map("A", {{param(m + "A_log"), {"d0"}}}, {H, P, N},
                     [](Body &b) { return b.neg(b.exp(b.arg(0))); });
    TValue dtHp = e.map("dt_heads", {{dt, {"d0", "d1"}}}, {nb, H, P},
                        [](Body &b) { return b.arg(0); });
    TValue Dhp = e.map("D_heads", {{param(m + "D"), {"d0"}}}, {H, P},
                       [](Body &b) { return b.arg(0); });
    TValue B3 = e.expand(B, {{0}, {1, 2}}, {nb, G, N}, "step_b");
    TValue C3 = e.expand(C, {{0}, {1, 2}}, {nb, G, N}, "step_c");
    TValue S0 = batch > 0 ? ssmState
                          : e.expand(ssmState, {{0, 1}, {2}, {3}}, {1, H, P, N}, "step_s0");
    TValue Y{e.fresh("step_y"), {nb, H, P}}, S{e.fresh("step_state"), {nb, H, P, N}};
    e.line(Y.name + ", " + S.name + " = ssm.selective_update " + S0.name + ", " + x3.name +
           ", " + dtHp.name + ", " + A.name + ", " + B3.name + ", " + C3.name + " D(" +
           Dhp.name + ") : (" + tensorType(S0.shape) + ", " + tensorType(x3.shape) + ", " +
           tensorType(dtHp.shape) + ", " + tensorType(A.shape) + ", " + tensorType(B3.shape) +
           ", " + tensorType(C3.shape) + ", " + tensorType(Dhp.shape) + ") -> (" +
           tensorType(Y.shape) + ", " + tensorType(S.shape) + ")");
    newStates.push_back(batch > 0 ? S
                                  : e.collapse(S, {{0, 1}, {2}, {3}}, {H, P, N}, "ssm_state_new"));
    y3 = Y;
  }

  if (!c.gatedNorm) {
    e.line("// Gate without a norm: y silu(z).");
    TValue yf = e.collapse(y3, {{0}, {1, 2}}, {L, di}, "y_flat");
    TValue y = e.map("y", {{yf, {}}, {z, {}}}, {L, di},
                     [](Body &b) { return b.mul(b.arg(0), silu(b, b.arg(1))); });
    return outProjection(y);
  }
  e.line(std::string("// Gated RMSNorm over ") + std::to_string(NG) + " group(s) of " +
         std::to_string(gs) + " channels, " +
         (c.normBeforeGate ? "norm then gate: rmsnorm(y) w silu(z)."
                           : "gate then norm: rmsnorm(y silu(z)) w."));
  TValue yg = e.expand(e.collapse(y3, {{0}, {1, 2}}, {L, di}, "y_flat"), {{0}, {1, 2}},
                       {L, NG, gs}, "y_groups");
  TValue zg = e.expand(z, {{0}, {1, 2}}, {L, NG, gs}, "z_groups");
  TValue wg = e.expand(param(m + "norm.weight"), {{0, 1}}, {NG, gs}, "norm_w");
  TValue pre = c.normBeforeGate
                   ? yg
                   : e.map("gated", {{yg, {}}, {zg, {}}}, {L, NG, gs},
                           [](Body &b) { return b.mul(b.arg(0), silu(b, b.arg(1))); });
  // Each group divided by s = max(1, max |x|) first (layers::lastDimScale):
  // a group past 1.8e19 (a D of 1e20) normalizes as the reference does
  // instead of to zeros; groups within 1 compute the plain formula.
  TValue inv = layers::lastDimScale(e, {pre, {}}, pre.shape, "gated");
  TValue ss = e.reduceLast("gated_sumsq", {{pre, {}}, {inv, {"d0", "d1"}}}, pre.shape,
                           [](Body &b) {
                             std::string v = b.mul(b.arg(0), b.arg(1));
                             return b.mul(v, v);
                           });
  std::vector<GenericOperand> normIns = {
      {pre, {}}, {ss, {"d0", "d1"}}, {wg, {"d1", "d2"}}, {inv, {"d0", "d1"}}};
  if (c.normBeforeGate)
    normIns.push_back({zg, {}});
  TValue normed = e.map(
      "y_normed", normIns, {L, NG, gs},
      [&](Body &b) {
        std::string mean = b.div(b.arg(1), b.cst(double(gs)));
        std::string epsScaled =
            b.mul(b.mul(b.cst(c.layerNormEpsilon), b.arg(3)), b.arg(3));
        std::string r = rsqrt(b, b.add(mean, epsScaled));
        std::string v = b.mul(b.mul(b.mul(b.arg(0), b.arg(3)), r), b.arg(2));
        return c.normBeforeGate ? b.mul(v, silu(b, b.arg(4))) : v;
      });
  return outProjection(e.collapse(normed, {{0}, {1, 2}}, {L, di}, "y"));
}

namespace {
TValue outProjectionOf(graph::BlockScope &s, const Mamba2Config &c, const std::string &m,
                       const TValue &y, const TValue *addTo) {
  MlirEmitter &e = s.e;
  auto param = [&](const std::string &suffix) -> const TValue & { return s.param(suffix); };
  if (!c.useBias) {
    if (addTo)
      e.line("// out_proj, accumulated onto the residual stream.");
    return e.linear(y, param(m + "out_proj.weight"), addTo ? "h_out" : "mixer_out", addTo);
  }
  TValue o = e.linear(y, param(m + "out_proj.weight"), "out");
  if (!addTo)
    return e.map("mixer_out", {{o, {}}, {param(m + "out_proj.bias"), {"d1"}}}, o.shape,
                 [](Body &b) { return b.add(b.arg(0), b.arg(1)); });
  e.line("// out_proj, accumulated onto the residual stream.");
  return e.map("h_out", {{*addTo, {}}, {o, {}}, {param(m + "out_proj.bias"), {"d1"}}},
               addTo->shape, [](Body &b) { return b.add(b.arg(0), b.add(b.arg(1), b.arg(2))); });
}
} // namespace
} // namespace ssm::importer::layers
