// The Mamba-2 model graph as MLIR text: @forward_sequence (ssm.ssd_scan, chunked) and @forward_step (ssm.selective_update with heads).
//
// See import/Mamba2Model.h for the computation. Written with the importers'
// MLIR text writer (import/RwkvMlirEmitter.h); one private block function
// per form, called once per layer, as for Mamba-1 and RWKV.
#include "import/Mamba2Model.h"
#include "import/RwkvMlirEmitter.h"
#include "import/layers/Layers.h"

#include <cctype>
#include <cmath>
#include <map>

namespace ssm::importer {

namespace {

using Body = GenericBody;
using Shape = std::vector<int64_t>;

std::string sanitize(const std::string &s) {
  std::string out;
  for (char ch : s)
    out += std::isalnum(static_cast<unsigned char>(ch)) ? char(std::tolower(ch)) : '_';
  return out;
}

using layers::rsqrt;
using layers::silu;
using layers::softplus;

class Mamba2Graph {
public:
  Mamba2Graph(const Mamba2Config &c, MlirEmitter &e) : c(c), e(e) {}

  /// `batch` > 0: the batched decode form (with `step`): one token of each
  /// of `batch` streams as the L = batch rows, every state with a leading
  /// batch dim, the step ops with their batch dim = batch; logits (batch, vocab).
  void emitFunction(const std::string &name, int64_t len, bool step, const std::string &block,
                    LogitsRows rows, int64_t batch = 0);
  void emitBlock(const std::string &name, int64_t len, bool step, int64_t batch = 0);

private:
  /// RMSNorm over the last dim of x (rows, cols) with weight w (cols).
  TValue rmsNorm(const TValue &x, const TValue &w, const std::string &hint);
  /// x (rows, cols) transposed.
  TValue transpose(const TValue &x, const std::string &hint);
  /// The mixer and residual of one block on h (L, d_model).
  TValue mixer(const TValue &h);

  const TValue &param(const std::string &name) const { return params.at(name); }

  const Mamba2Config &c;
  MlirEmitter &e;
  int64_t L = 1;
  bool step = false;
  int64_t batch = 0; // the batched decode form: L = batch rows, one per stream
  std::map<std::string, TValue> params; // by name (block: "backbone.layers.0.<suffix>")
  TValue convState, ssmState;
  std::vector<TValue> newStates;
};

TValue Mamba2Graph::rmsNorm(const TValue &x, const TValue &w, const std::string &hint) {
  return layers::rmsNorm(e, x, w, c.layerNormEpsilon, hint);
}

TValue Mamba2Graph::transpose(const TValue &x, const std::string &hint) {
  return e.map(hint, {{x, {"d1", "d0"}}}, {x.shape[1], x.shape[0]},
               [](Body &b) { return b.arg(0); });
}

TValue Mamba2Graph::mixer(const TValue &h) {
  const int64_t di = c.intermediateSize, H = c.numHeads, P = c.headDim, N = c.stateSize,
                G = c.nGroups, W = c.convKernel, cd = c.convDim(), gs = di / G;
  const std::string m = "backbone.layers.0.mixer.";

  e.line("// RMSNorm, then in_proj split into z, xBC and dt.");
  TValue xn = rmsNorm(h, param("backbone.layers.0.norm.weight"), "normed");
  TValue zxbcdt = e.linear(xn, param(m + "in_proj.weight"), "zxbcdt");
  if (c.useBias)
    zxbcdt = e.map("zxbcdt_b", {{zxbcdt, {}}, {param(m + "in_proj.bias"), {"d1"}}},
                   zxbcdt.shape, [](Body &b) { return b.add(b.arg(0), b.arg(1)); });
  TValue z = e.slice(zxbcdt, {0, 0}, {L, di}, {L, di}, "z");
  TValue xBC = e.slice(zxbcdt, {0, di}, {L, cd}, {L, cd}, "xbc");
  TValue dtRaw = e.slice(zxbcdt, {0, di + cd}, {L, H}, {L, H}, "dt_raw");

  e.line("// Depthwise causal conv (width " + std::to_string(W) +
         ") + silu over xBC, channel-major, from the carried window.");
  // The conv's batch: 1, or in the batched form one row per stream (length 1).
  const int64_t nb = batch > 0 ? batch : 1, len = batch > 0 ? 1 : L;
  TValue xc = step ? e.expand(xBC, {{0}, {1, 2}}, {nb, cd, 1}, "conv_in")
                   : e.expand(transpose(xBC, "xbc_t"), {{0, 1}, {2}}, {1, cd, L}, "conv_in");
  TValue cw = e.collapse(param(m + "conv1d.weight"), {{0, 1}, {2}}, {cd, W}, "conv_w");
  TValue window = batch > 0 ? convState
                            : e.expand(convState, {{0, 1}, {2}}, {1, cd, W - 1}, "conv_window");
  TValue conv{e.fresh("conv"), {nb, cd, len}}, convFinal{e.fresh("conv_final"), {nb, cd, W - 1}};
  std::string line = conv.name + ", " + convFinal.name + " = ssm.causal_conv1d silu " + xc.name +
                     ", " + cw.name;
  std::string types = tensorType(xc.shape) + ", " + tensorType(cw.shape);
  if (c.useConvBias) {
    line += " bias(" + param(m + "conv1d.bias").name + ")";
    types += ", " + tensorType({cd});
  }
  line += " initial_states(" + window.name + ") : (" + types + ", " + tensorType(window.shape) +
          ") -> (" + tensorType(conv.shape) + ", " + tensorType(convFinal.shape) + ")";
  e.line(line);
  newStates.push_back(batch > 0 ? convFinal
                                : e.collapse(convFinal, {{0, 1}, {2}}, {cd, W - 1}, "conv_state_new"));
  TValue u = step ? e.collapse(conv, {{0}, {1, 2}}, {nb, cd}, "xbc_conv")
                  : transpose(e.collapse(conv, {{0, 1}, {2}}, {cd, L}, "conv_cm"), "xbc_conv");
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
    TValue X4 = e.expand(X, {{0, 1}, {2}, {3}}, {1, L, H, P}, "ssd_x");
    TValue A3 = e.expand(Adt, {{0, 1}, {2}}, {1, L, H}, "ssd_a");
    TValue B4 = e.expand(B, {{0, 1}, {2, 3}}, {1, L, G, N}, "ssd_b");
    TValue C4 = e.expand(C, {{0, 1}, {2, 3}}, {1, L, G, N}, "ssd_c");
    TValue S0 = e.expand(ssmState, {{0, 1}, {2}, {3}}, {1, H, P, N}, "ssd_s0");
    TValue Y{e.fresh("ssd_y"), {1, L, H, P}}, S{e.fresh("ssd_state"), {1, H, P, N}};
    e.line(Y.name + ", " + S.name + " = ssm.ssd_scan " + X4.name + ", " + A3.name + ", " +
           B4.name + ", " + C4.name + " initial_state(" + S0.name + ") {chunk_size = " +
           std::to_string(c.chunkSize) + " : i64} : (" + tensorType(X4.shape) + ", " +
           tensorType(A3.shape) + ", " + tensorType(B4.shape) + ", " + tensorType(C4.shape) +
           ", " + tensorType(S0.shape) + ") -> (" + tensorType(Y.shape) + ", " +
           tensorType(S.shape) + ")");
    newStates.push_back(e.collapse(S, {{0, 1}, {2}, {3}}, {H, P, N}, "ssm_state_new"));
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

  e.line(std::string("// Gated RMSNorm over ") + std::to_string(G) + " group(s) of " +
         std::to_string(gs) + " channels, " +
         (c.normBeforeGate ? "norm then gate: rmsnorm(y) w silu(z)."
                           : "gate then norm: rmsnorm(y silu(z)) w."));
  TValue yg = e.expand(e.collapse(y3, {{0}, {1, 2}}, {L, di}, "y_flat"), {{0}, {1, 2}},
                       {L, G, gs}, "y_groups");
  TValue zg = e.expand(z, {{0}, {1, 2}}, {L, G, gs}, "z_groups");
  TValue wg = e.expand(param(m + "norm.weight"), {{0, 1}}, {G, gs}, "norm_w");
  TValue pre = c.normBeforeGate
                   ? yg
                   : e.map("gated", {{yg, {}}, {zg, {}}}, {L, G, gs},
                           [](Body &b) { return b.mul(b.arg(0), silu(b, b.arg(1))); });
  TValue ss = e.reduceLast("gated_sumsq", {{pre, {}}}, pre.shape,
                           [](Body &b) { return b.mul(b.arg(0), b.arg(0)); });
  std::vector<GenericOperand> normIns = {{pre, {}}, {ss, {"d0", "d1"}}, {wg, {"d1", "d2"}}};
  if (c.normBeforeGate)
    normIns.push_back({zg, {}});
  TValue normed = e.map(
      "y_normed", normIns, {L, G, gs},
      [&](Body &b) {
        std::string mean = b.div(b.arg(1), b.cst(double(gs)));
        std::string r = rsqrt(b, b.add(mean, b.cst(c.layerNormEpsilon)));
        std::string v = b.mul(b.mul(b.arg(0), r), b.arg(2));
        return c.normBeforeGate ? b.mul(v, silu(b, b.arg(3))) : v;
      });
  TValue y = e.collapse(normed, {{0}, {1, 2}}, {L, di}, "y");

  e.line("// out_proj, accumulated onto the residual stream.");
  if (!c.useBias)
    return e.linear(y, param(m + "out_proj.weight"), "h_out", &h);
  TValue o = e.linear(y, param(m + "out_proj.weight"), "out");
  return e.map("h_out", {{h, {}}, {o, {}}, {param(m + "out_proj.bias"), {"d1"}}}, h.shape,
               [](Body &b) { return b.add(b.arg(0), b.add(b.arg(1), b.arg(2))); });
}

/// The layer-0 parameters without their "backbone.layers.0." prefix.
std::vector<MambaParam> blockParams(const Mamba2Config &c) {
  std::vector<MambaParam> out;
  const std::string pre = "backbone.layers.0.";
  for (MambaParam p : mamba2Params(c))
    if (p.name.rfind(pre, 0) == 0) {
      p.name = p.name.substr(pre.size());
      out.push_back(p);
    }
  return out;
}

void Mamba2Graph::emitBlock(const std::string &name, int64_t len, bool isStep,
                            int64_t batchRows) {
  batch = batchRows;
  L = batch > 0 ? batch : len;
  step = isStep || batch > 0;
  params.clear();
  newStates.clear();
  e.resetNames();
  std::vector<MambaState> states = mamba2States(c);
  TValue h{e.fresh("h"), {L, c.hiddenSize}};
  convState = TValue{e.fresh("conv_state"), withBatch(batch, states[0].shape)};
  ssmState = TValue{e.fresh("ssm_state"), withBatch(batch, states[1].shape)};
  std::string sig = "func.func private @" + name + "(" + h.name + ": " + tensorType(h.shape) +
                    ",\n    " + convState.name + ": " + tensorType(convState.shape) + ", " +
                    ssmState.name + ": " + tensorType(ssmState.shape);
  for (const MambaParam &p : blockParams(c)) {
    TValue v{e.fresh("w_" + sanitize(p.name)), p.shape};
    params["backbone.layers.0." + p.name] = v;
    sig += ",\n    " + v.name + ": " + tensorType(v.shape);
  }
  std::string resultTypes = tensorType(h.shape) + ", " + tensorType(convState.shape) + ", " +
                            tensorType(ssmState.shape);
  sig += ")\n    -> (" + resultTypes + ") {";
  e.indent = 2;
  e.line("// One block (RMSNorm, mixer, residual) on " +
         (batch > 0 ? "one token of each of " + std::to_string(batch) + " streams"
                    : std::to_string(L) + (L == 1 ? " token" : " tokens")) +
         ", called once per layer.");
  e.line(sig);
  e.indent = 4;
  e.beginFunction();
  TValue out = mixer(h);
  e.line("return " + out.name + ", " + newStates[0].name + ", " + newStates[1].name + " : " +
         resultTypes);
  e.indent = 2;
  e.line("}");
}

void Mamba2Graph::emitFunction(const std::string &name, int64_t len, bool isStep,
                               const std::string &block, LogitsRows rows, int64_t batchRows) {
  batch = batchRows;
  L = batch > 0 ? batch : len;
  step = isStep || batch > 0;
  if (batch > 0)
    rows = LogitsRows::All; // one row per stream
  params.clear();
  newStates.clear();
  e.resetNames();
  std::vector<MambaState> states = mamba2States(c);
  std::vector<MambaParam> all = mamba2Params(c);
  TValue tokens{"%tokens", {L}, "i32"};
  e.reserve(tokens.name);
  std::string sig = "func.func @" + name + "(" + tokens.name + ": " +
                    tensorType(tokens.shape, "i32") + " {ssm.name = \"tokens\"}";
  std::vector<TValue> stateIn;
  for (const MambaState &s : states) {
    stateIn.push_back(TValue{e.fresh("s_" + sanitize(s.name)), withBatch(batch, s.shape)});
    sig += ",\n    " + stateIn.back().name + ": " + tensorType(stateIn.back().shape) +
           " {ssm.state = \"" + s.name + "\"}";
  }
  for (const MambaParam &p : all) {
    std::string n = p.name.rfind("backbone.", 0) == 0 ? p.name.substr(9) : p.name;
    TValue v{e.fresh("w_" + sanitize(n)), p.shape};
    params[p.name] = v;
    sig += ",\n    " + v.name + ": " + tensorType(p.shape) + " {ssm.param = \"" + p.name + "\"}";
  }
  const int64_t logitRows = rows == LogitsRows::All ? L : 1;
  sig += ")\n    -> (" + tensorType({logitRows, c.vocabSize}) + " {ssm.name = \"logits\"}";
  for (const MambaState &s : states)
    sig += ",\n        " + tensorType(withBatch(batch, s.shape)) + " {ssm.state = \"" + s.name + "\"}";
  sig += ") {";
  e.indent = 2;
  e.line(std::string("// ") +
         (batch > 0 ? "Decode of " + std::to_string(batch) +
                          " streams at once: one token each through the state-update form."
          : step    ? "Decode: one token through the state-update form."
               : "Prefill: " + std::to_string(L) +
                     " tokens through the chunked SSD, from the carried states."));
  e.line(sig);
  e.indent = 4;
  e.beginFunction();

  TValue h = layers::embedding(e, tokens, param("backbone.embedding.weight"), "embedded");
  const std::vector<MambaParam> blockList = blockParams(c);
  std::vector<TValue> stateOut;
  for (int64_t l = 0; l < c.numLayers; ++l) {
    const std::string pre = "backbone.layers." + std::to_string(l) + ".";
    const TValue &cs = stateIn[2 * l], &ss = stateIn[2 * l + 1];
    std::string operands = h.name + ", " + cs.name + ", " + ss.name;
    std::string argTypes =
        tensorType(h.shape) + ", " + tensorType(cs.shape) + ", " + tensorType(ss.shape);
    for (const MambaParam &p : blockList) {
      const TValue &v = param(pre + p.name);
      operands += ", " + v.name;
      argTypes += ", " + tensorType(v.shape);
    }
    std::string r = e.fresh("layer" + std::to_string(l));
    e.line(r + ":3 = func.call @" + block + "(" + operands + ") : (" + argTypes + ") -> (" +
           tensorType(h.shape) + ", " + tensorType(cs.shape) + ", " + tensorType(ss.shape) +
           ")");
    h = TValue{r + "#0", h.shape};
    stateOut.push_back(TValue{r + "#1", cs.shape});
    stateOut.push_back(TValue{r + "#2", ss.shape});
  }
  e.line(std::string("// Final RMSNorm and the LM head") +
         (c.tieWordEmbeddings ? " (tied: the embedding table)." : "."));
  if (logitRows < L) {
    e.line("// Only the last position's logits: its hidden state alone goes on.");
    h = e.slice(h, {L - 1, 0}, {1, c.hiddenSize}, {1, c.hiddenSize}, "h_last");
  }
  TValue hn = rmsNorm(h, param("backbone.norm_f.weight"), "final_normed");
  TValue logits = e.linear(
      hn, param(c.tieWordEmbeddings ? "backbone.embedding.weight" : "lm_head.weight"), "logits");
  std::string names = logits.name, types = tensorType(logits.shape);
  for (const TValue &s : stateOut) {
    names += ", " + s.name;
    types += ", " + tensorType(s.shape);
  }
  e.line("return " + names + " : " + types);
  e.indent = 2;
  e.line("}");
}

} // namespace

std::string buildMamba2Module(const Mamba2Config &c, int64_t seqLen, LogitsRows rows,
                              int64_t batch) {
  MlirEmitter e;
  e.text = "// Mamba-2 language model (transformers Mamba2ForCausalLM / mamba_ssm Mamba2): "
           "d_model " + std::to_string(c.hiddenSize) + ", d_inner " +
           std::to_string(c.intermediateSize) + " = " + std::to_string(c.numHeads) +
           " heads x " + std::to_string(c.headDim) + ", d_state " + std::to_string(c.stateSize) +
           ", " + std::to_string(c.nGroups) + " group(s), d_conv " +
           std::to_string(c.convKernel) + ", " + std::to_string(c.numLayers) +
           " layers, vocabulary " + std::to_string(c.vocabSize) + ".\n"
           "// Generated by ssm-import mamba. Arguments: tokens, the streaming states "
           "(ssm.state),\n// the weights (ssm.param); results: logits, the updated states.\n"
           "module {\n";
  Mamba2Graph g(c, e);
  g.emitFunction("forward_sequence", seqLen, /*step=*/false, "block_sequence", rows);
  e.text += "\n";
  g.emitBlock("block_sequence", seqLen, /*step=*/false);
  e.text += "\n";
  g.emitFunction("forward_step", 1, /*step=*/true, "block_step", LogitsRows::Last);
  e.text += "\n";
  g.emitBlock("block_step", 1, /*step=*/true);
  if (batch > 0) {
    e.text += "\n";
    g.emitFunction("forward_step_batched", 1, /*step=*/true, "block_step_batched",
                   LogitsRows::All, batch);
    e.text += "\n";
    g.emitBlock("block_step_batched", 1, /*step=*/true, batch);
  }
  e.text += "}\n";
  return e.text;
}

bool buildMamba2MLIR(const nlohmann::json &config, int64_t seqLen, std::string &mlir,
                     std::string &error, LogitsRows rows, int64_t batch) {
  Mamba2Config c;
  if (!parseMamba2Config(config, c, error))
    return false;
  if (seqLen < 1 || seqLen > (int64_t(1) << 24)) {
    error = "sequence length " + std::to_string(seqLen) + " is out of range (1 to 16777216)";
    return false;
  }
  mlir = buildMamba2Module(c, seqLen, rows, batch);
  return true;
}

} // namespace ssm::importer
