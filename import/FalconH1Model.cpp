// Falcon-H1 (TII; falcon_h1): attention and Mamba-2 side by side in every layer, with Falcon's mup multipliers (import/HybridModel.h).
//
// transformers models/falcon_h1/modeling_falcon_h1.py (FalconH1ForCausalLM),
// in f32, per layer:
//   xn = RMSNorm(h)                                   input_layernorm
//   h += ssm_out_multiplier * Mamba2(xn)              in_proj reads xn * ssm_in_multiplier and
//                                                     its z, x, B, C, dt columns are scaled by
//                                                     ssm_multipliers; the gate is y silu(z), or
//                                                     the gated RMSNorm (n_groups groups, norm
//                                                     before gate by default) when mamba_rms_norm
//      + attention_out_multiplier * Attn(xn * attention_in_multiplier)
//                                                     GQA with NeoX RoPE; k times key_multiplier,
//                                                     which is the softmax scale's factor here:
//                                                     scale = key_multiplier / sqrt(head_dim)
//   h += down(up(x) silu(gate(x) * g)) * d             pre_ff_layernorm, mlp_multipliers [g, d]
// the embedding times embedding_multiplier, the logits times lm_head_multiplier.
#include "import/ConfigFields.h"
#include "import/HybridModel.h"
#include "import/layers/Attention.h"
#include "import/layers/Layers.h"
#include "import/layers/Mamba2Block.h"

#include <cmath>
#include <limits>
#include <memory>

namespace ssm::importer {

using config_fields::Field;
using nlohmann::json;
using Body = GenericBody;

namespace {

struct FalconConfig {
  int64_t vocab = 0, width = 0, numLayers = 0, heads = 0, kvHeads = 0, ffWidth = 0;
  bool tied = false;
  double normEps = 1e-5, embeddingMultiplier = 1.0, lmHeadMultiplier = 1.0,
         attnInMultiplier = 1.0, attnOutMultiplier = 1.0, ssmOutMultiplier = 1.0,
         gateMultiplier = 1.0, downMultiplier = 1.0;
  layers::AttentionConfig attn;
  Mamba2Config mamba;
};

/// A list of `n` numbers at `key` (missing or null: `out` as it is).
bool readNumbers(const json &cfg, const char *key, size_t n, double *out, std::string &error) {
  auto it = cfg.find(key);
  if (it == cfg.end() || it->is_null())
    return true;
  if (!it->is_array() || it->size() != n) {
    error = std::string("field '") + key + "' must be a list of " + std::to_string(n) +
            " numbers, got " + it->dump();
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    const json &v = (*it)[i];
    if (!v.is_number() || !std::isfinite(v.get<double>()) || std::fabs(v.get<double>()) > 3e38) {
      error = std::string("field '") + key + "'[" + std::to_string(i) +
              "] must be a finite number, got " + v.dump();
      return false;
    }
    out[i] = v.get<double>();
  }
  return true;
}

bool parseFalcon(const json &cfg, int64_t context, FalconConfig &c, std::string &error) {
  const int64_t kMax = config_fields::kMaxDim;
  int64_t maxPos = 8192, expand = 2, headDim = 0;
  double ropeTheta = 10000.0, keyMultiplier = 1.0, ssmInMultiplier = 1.0;
  bool attnBias = false, mlpBias = false, projectorsBias = false, rmsNorm = false,
       normBeforeGate = true;
  Mamba2Config &m = c.mamba;
  m.nGroups = 1;
  m.convKernel = 4;
  m.stateSize = 256;
  m.useConvBias = true;
  m.useBias = false;
  m.chunkSize = 256;
  if (!config_fields::readFields(
          cfg,
          {Field::integer("vocab_size", c.vocab, 1, kMax, true),
           Field::integer("hidden_size", c.width, 1, kMax, true),
           Field::integer("num_hidden_layers", c.numLayers, 1, 4096, true),
           Field::integer("num_attention_heads", c.heads, 1, 4096, true),
           Field::integer("intermediate_size", c.ffWidth, 1, kMax, true),
           Field::integer("head_dim", headDim, 1, 4096),
           Field::boolean("tie_word_embeddings", c.tied),
           Field::boolean("attention_bias", attnBias),
           Field::boolean("mlp_bias", mlpBias),
           Field::boolean("projectors_bias", projectorsBias),
           Field::number("rms_norm_eps", c.normEps, 0.0),
           Field::number("rope_theta", ropeTheta, 1e-30),
           Field::integer("max_position_embeddings", maxPos, 1, int64_t(1) << 31),
           Field::number("embedding_multiplier", c.embeddingMultiplier, -3e38),
           Field::number("lm_head_multiplier", c.lmHeadMultiplier, -3e38),
           Field::number("key_multiplier", keyMultiplier, 1e-30),
           Field::number("attention_in_multiplier", c.attnInMultiplier, -3e38),
           Field::number("attention_out_multiplier", c.attnOutMultiplier, -3e38),
           Field::number("ssm_in_multiplier", ssmInMultiplier, -3e38),
           Field::number("ssm_out_multiplier", c.ssmOutMultiplier, -3e38),
           Field::integer("mamba_n_heads", m.numHeads, 1, kMax, true),
           Field::integer("mamba_d_state", m.stateSize, 1, 4096),
           Field::integer("mamba_n_groups", m.nGroups, 1, kMax),
           Field::integer("mamba_d_conv", m.convKernel, 2, 4),
           Field::integer("mamba_expand", expand, 1, 64),
           Field::integer("mamba_chunk_size", m.chunkSize, 1, 1 << 16),
           Field::boolean("mamba_conv_bias", m.useConvBias),
           Field::boolean("mamba_proj_bias", m.useBias),
           Field::boolean("mamba_rms_norm", rmsNorm),
           Field::boolean("mamba_norm_before_gate", normBeforeGate)},
          error))
    return false;
  double mlpMul[2] = {1.0, 1.0};
  if (!readNumbers(cfg, "mlp_multipliers", 2, mlpMul, error) ||
      !readNumbers(cfg, "ssm_multipliers", 5, m.zxbcdtMultipliers.data(), error) ||
      !readTimeStepLimit(cfg, "time_step_limit", m.timeStepMin, m.timeStepMax, error))
    return false;
  c.gateMultiplier = mlpMul[0];
  c.downMultiplier = mlpMul[1];
  m.inputMultiplier = ssmInMultiplier;
  if (auto it = cfg.find("hidden_act"); it != cfg.end() && !it->is_null() &&
                                        (!it->is_string() || it->get<std::string>() != "silu")) {
    error = "field 'hidden_act' must be \"silu\", got " + it->dump();
    return false;
  }
  if (mlpBias) {
    error = "field 'mlp_bias' is true: Falcon-H1 feed-forwards with biases are not supported";
    return false;
  }
  if (projectorsBias != m.useBias) {
    error = "fields 'mamba_proj_bias' (in_proj) and 'projectors_bias' (out_proj) differ: only "
            "both or neither are supported";
    return false;
  }
  // RoPE: rope_theta, or rope_parameters {rope_type "default", rope_theta}.
  if (auto it = cfg.find("rope_parameters"); it != cfg.end() && !it->is_null()) {
    if (!it->is_object()) {
      error = "field 'rope_parameters' must be an object, got " + it->dump();
      return false;
    }
    if (auto t = it->find("rope_type"); t != it->end() && !t->is_null() &&
                                        (!t->is_string() || t->get<std::string>() != "default")) {
      error = "rope_parameters.rope_type is " + t->dump() + " (only \"default\" is supported)";
      return false;
    }
    if (!config_fields::readNumber(*it, "rope_theta", 1e-30, ropeTheta, error))
      return false;
  }
  if (cfg.contains("rope_scaling") && !cfg["rope_scaling"].is_null()) {
    error = "rope_scaling " + cfg["rope_scaling"].dump() + " is not supported (only null)";
    return false;
  }
  c.kvHeads = c.heads;
  if (!config_fields::readInt(cfg, "num_key_value_heads", false, 1, 4096, c.kvHeads, error))
    return false;
  if (c.heads % c.kvHeads) {
    error = "num_key_value_heads " + std::to_string(c.kvHeads) +
            " does not divide num_attention_heads " + std::to_string(c.heads);
    return false;
  }
  if (headDim == 0) {
    if (c.width % c.heads) {
      error = "hidden_size " + std::to_string(c.width) + " is not a multiple of num_attention_heads " +
              std::to_string(c.heads) + " and the config has no head_dim";
      return false;
    }
    headDim = c.width / c.heads;
  }
  if (headDim % 2) {
    error = "head_dim " + std::to_string(headDim) + " is odd: RoPE needs pairs of channels";
    return false;
  }
  // The Mamba-2 width: mamba_d_ssm, or mamba_expand x hidden_size; head size
  // mamba_d_head or "auto" (width / heads).
  int64_t dSsm = expand * c.width;
  if (!config_fields::readInt(cfg, "mamba_d_ssm", false, 1, kMax, dSsm, error))
    return false;
  if (auto it = cfg.find("mamba_d_head");
      it != cfg.end() && !it->is_null() && !(it->is_string() && it->get<std::string>() == "auto")) {
    if (!config_fields::readInt(cfg, "mamba_d_head", false, 1, kMax, m.headDim, error))
      return false;
  } else {
    m.headDim = dSsm / m.numHeads;
  }
  if (m.numHeads * m.headDim != dSsm) {
    error = "mamba_n_heads x mamba_d_head = " + std::to_string(m.numHeads * m.headDim) +
            " is not the Mamba width " + std::to_string(dSsm) + " (mamba_d_ssm or mamba_expand x hidden_size)";
    return false;
  }
  if (m.numHeads % m.nGroups) {
    error = "mamba_n_groups " + std::to_string(m.nGroups) + " does not divide mamba_n_heads " +
            std::to_string(m.numHeads);
    return false;
  }
  m.vocabSize = c.vocab;
  m.hiddenSize = c.width;
  m.numLayers = c.numLayers;
  m.expand = expand;
  m.intermediateSize = dSsm;
  m.layerNormEpsilon = c.normEps;
  m.gatedNorm = rmsNorm;
  m.normBeforeGate = normBeforeGate;
  m.normGroups = m.nGroups; // FalconH1RMSNormGated(n_groups = mamba_n_groups)

  layers::AttentionConfig &a = c.attn;
  a.heads = c.heads;
  a.kvHeads = c.kvHeads;
  a.headDim = a.valueDim = headDim;
  a.capacity = context > 0 ? context : std::min<int64_t>(maxPos, kDefaultContext);
  a.scale = keyMultiplier / std::sqrt(double(headDim));
  a.rope = true;
  a.ropeTheta = ropeTheta;
  a.rotaryDim = headDim;
  a.ropeNeox = true; // rotate_half
  a.bias = attnBias;
  return true;
}

std::vector<graph::TensorDecl> layerParams(const FalconConfig &c) {
  std::vector<graph::TensorDecl> p = {{"input_layernorm.weight", {c.width}}};
  for (const graph::TensorDecl &t : layers::mamba2MixerParams(c.mamba, "mamba."))
    p.push_back(t);
  for (const graph::TensorDecl &t : layers::attentionParams(c.attn, c.width))
    p.push_back(t);
  p.push_back({"pre_ff_layernorm.weight", {c.width}});
  p.push_back({"feed_forward.gate_proj.weight", {c.ffWidth, c.width}});
  p.push_back({"feed_forward.up_proj.weight", {c.ffWidth, c.width}});
  p.push_back({"feed_forward.down_proj.weight", {c.width, c.ffWidth}});
  return p;
}

std::vector<graph::TensorDecl> layerStates(const FalconConfig &c) {
  const Mamba2Config &m = c.mamba;
  std::vector<graph::TensorDecl> st = {{"conv_state", {m.convDim(), m.convKernel - 1}},
                                       {"ssm_state", {m.numHeads, m.headDim, m.stateSize}}};
  for (const graph::TensorDecl &t : layers::attentionStates(c.attn))
    st.push_back(t);
  return st;
}

TValue scaledBy(MlirEmitter &e, const TValue &x, double k, const std::string &hint) {
  if (k == 1.0)
    return x;
  return e.map(hint, {{x, {}}}, x.shape, [k](Body &b) { return b.mul(b.arg(0), b.cst(k)); });
}

/// One Falcon-H1 layer on s.h (the states in layerStates' order).
void falconLayer(graph::BlockScope &s, const FalconConfig &c) {
  MlirEmitter &e = s.e;
  TValue xn = layers::rmsNorm(e, s.h, s.param("input_layernorm.weight"), c.normEps, "normed");
  e.line("// Mamba-2 on the normed input (times ssm_in_multiplier inside), then attention on "
         "it times attention_in_multiplier, side by side.");
  TValue ssm = layers::mamba2Mixer(s, c.mamba, xn, "mamba.");
  TValue attIn = scaledBy(e, xn, c.attnInMultiplier, "attn_in");
  TValue att = layers::attention(s, c.attn, attIn);
  const double so = c.ssmOutMultiplier, ao = c.attnOutMultiplier;
  e.line("// h += ssm_out_multiplier * mamba + attention_out_multiplier * attention.");
  TValue h = e.map("h_mix", {{s.h, {}}, {ssm, {}}, {att, {}}}, s.h.shape, [&](Body &b) {
    return b.add(b.arg(0), b.add(b.mul(b.cst(so), b.arg(1)), b.mul(b.cst(ao), b.arg(2))));
  });
  e.line("// Feed-forward: down(up(x) silu(gate(x) * mlp_multipliers[0])) * mlp_multipliers[1].");
  TValue fn = layers::rmsNorm(e, h, s.param("pre_ff_layernorm.weight"), c.normEps, "ffn_normed");
  TValue g = e.linear(fn, s.param("feed_forward.gate_proj.weight"), "gate");
  TValue u = e.linear(fn, s.param("feed_forward.up_proj.weight"), "up");
  const double gm = c.gateMultiplier, dm = c.downMultiplier;
  TValue a = e.map("swiglu", {{g, {}}, {u, {}}}, g.shape, [gm](Body &b) {
    return b.mul(b.arg(1), layers::silu(b, b.mul(b.arg(0), b.cst(gm))));
  });
  if (dm == 1.0) {
    s.h = e.linear(a, s.param("feed_forward.down_proj.weight"), "h_ffn", &h);
    return;
  }
  TValue d = e.linear(a, s.param("feed_forward.down_proj.weight"), "ffn_out");
  s.h = e.map("h_ffn", {{h, {}}, {d, {}}}, h.shape,
              [dm](Body &b) { return b.add(b.arg(0), b.mul(b.cst(dm), b.arg(1))); });
}

} // namespace

bool describeFalconH1(const json &config, int64_t context, HybridDesc &out, std::string &error) {
  auto c = std::make_shared<FalconConfig>();
  if (!parseFalcon(config, context, *c, error))
    return false;
  out = HybridDesc{};
  out.numLayers = c->numLayers;
  out.vocab = c->vocab;
  out.params.push_back({"model.embed_tokens.weight", {c->vocab, c->width}});
  const std::vector<graph::TensorDecl> lp = layerParams(*c), ls = layerStates(*c);
  for (int64_t l = 0; l < c->numLayers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".", st = "layers." + std::to_string(l) + ".";
    for (const graph::TensorDecl &t : lp)
      out.params.push_back({p + t.name, t.shape});
    for (const graph::TensorDecl &t : ls)
      out.states.push_back({st + t.name, t.shape, t.name == "k_cache" || t.name == "v_cache"});
  }
  out.params.push_back({"model.final_layernorm.weight", {c->width}});
  if (!c->tied)
    out.params.push_back({"lm_head.weight", {c->vocab, c->width}});
  out.summary = std::to_string(c->numLayers) + " layers (Mamba-2 and attention in each), context " +
                std::to_string(c->attn.capacity);
  std::vector<graph::TensorDecl> params = out.params;
  out.write = [c, params, lp, ls](int64_t seqLen, LogitsRows rows, int64_t batch,
                                  std::string &mlir, std::string &error) {
    graph::BlockKind layer;
    layer.name = "falcon_h1_block";
    layer.takesPosition = true;
    layer.batchedSequence = true;
    layer.params = lp;
    layer.states = ls;
    layer.body = [c](graph::BlockScope &s) { falconLayer(s, *c); };
    layer.comment = [](const graph::Form &) {
      return std::string("One Falcon-H1 layer: h += Mamba-2(RMSNorm(h)) + GQA attention(RMSNorm(h)) "
                         "(with the mup multipliers), writing the KV cache; h += SwiGLU(RMSNorm(h)).");
    };
    const Mamba2Config &m = c->mamba;
    graph::ModelDecl md;
    md.header = "// Falcon-H1 language model (FalconH1ForCausalLM): width " +
                std::to_string(c->width) + ", " + std::to_string(c->numLayers) + " layers, " +
                std::to_string(c->heads) + " heads (" + std::to_string(c->kvHeads) + " KV) of " +
                std::to_string(c->attn.headDim) + ", Mamba-2 " + std::to_string(m.numHeads) +
                " x " + std::to_string(m.headDim) + " heads, d_state " +
                std::to_string(m.stateSize) + ", KV cache of " +
                std::to_string(c->attn.capacity) + " positions, vocabulary " +
                std::to_string(c->vocab) +
                ".\n// Generated by ssm-import. Arguments: tokens, position, the states (ssm.state),"
                "\n// the weights (ssm.param, Hugging Face names); results: logits, the states.\n";
    md.width = c->width;
    md.vocab = c->vocab;
    md.params = params;
    for (int64_t l = 0; l < c->numLayers; ++l)
      md.layers.push_back({&layer, "model.layers." + std::to_string(l) + ".",
                           "layers." + std::to_string(l) + "."});
    md.embed = [c](graph::ModelScope &s, const TValue &tokens) {
      s.e.line("// Embedding lookup, times embedding_multiplier.");
      TValue x = layers::embedding(s.e, tokens, s.param("model.embed_tokens.weight"), "embedded");
      return scaledBy(s.e, x, c->embeddingMultiplier, "embedded_scaled");
    };
    md.head = [c](graph::ModelScope &s, const TValue &h) {
      s.e.line("// Final RMSNorm, the LM head, times lm_head_multiplier.");
      TValue hn = layers::rmsNorm(s.e, h, s.param("model.final_layernorm.weight"), c->normEps,
                                  "final_normed");
      TValue l = s.e.linear(hn, s.param(c->tied ? "model.embed_tokens.weight" : "lm_head.weight"),
                            "logits_raw");
      return scaledBy(s.e, l, c->lmHeadMultiplier, "logits");
    };
    return graph::writeModule(md, seqLen, rows, batch, mlir, error);
  };
  return true;
}

} // namespace ssm::importer
