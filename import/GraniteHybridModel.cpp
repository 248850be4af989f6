// Granite 4.0-H (IBM; granitemoehybrid with a dense shared MLP): Mamba-2 and GQA attention layers with Granite's multipliers (import/HybridModel.h).
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

struct GraniteConfig {
  int64_t vocab = 0, width = 0, numLayers = 0, heads = 0, kvHeads = 0, ffWidth = 0;
  bool tied = true;
  double normEps = 1e-6, embeddingMultiplier = 1.0, residualMultiplier = 1.0,
         logitsScaling = 1.0;
  std::vector<bool> attention; // per layer
  layers::AttentionConfig attn;
  Mamba2Config mamba;
};

bool parseGranite(const json &cfg, int64_t context, GraniteConfig &c, std::string &error) {
  const int64_t kMax = config_fields::kMaxDim;
  int64_t experts = 0, maxPos = 4096, intermediate = 0, dInner = 0, expand = 2;
  double attnMultiplier = -1.0, ropeTheta = 10000.0;
  bool attnBias = false;
  Mamba2Config &m = c.mamba;
  m.nGroups = 1;
  m.convKernel = 4;
  m.stateSize = 128;
  m.useConvBias = true;
  m.useBias = false;
  if (!config_fields::readFields(
          cfg,
          {Field::integer("vocab_size", c.vocab, 1, kMax, true),
           Field::integer("hidden_size", c.width, 1, kMax, true),
           Field::integer("num_hidden_layers", c.numLayers, 1, 4096, true),
           Field::integer("num_attention_heads", c.heads, 1, 4096, true),
           Field::integer("intermediate_size", intermediate, 1, kMax),
           Field::integer("num_local_experts", experts, 0, 1 << 20),
           Field::boolean("tie_word_embeddings", c.tied),
           Field::boolean("attention_bias", attnBias),
           Field::number("rms_norm_eps", c.normEps, 0.0),
           Field::number("embedding_multiplier", c.embeddingMultiplier, -3e38),
           Field::number("residual_multiplier", c.residualMultiplier, -3e38),
           Field::number("logits_scaling", c.logitsScaling, 1e-30),
           Field::number("attention_multiplier", attnMultiplier, 1e-30),
           Field::number("rope_theta", ropeTheta, 1e-30),
           Field::integer("max_position_embeddings", maxPos, 1, int64_t(1) << 31),
           Field::integer("mamba_n_heads", m.numHeads, 1, kMax, true),
           Field::integer("mamba_d_head", m.headDim, 1, kMax, true),
           Field::integer("mamba_d_state", m.stateSize, 1, 4096),
           Field::integer("mamba_n_groups", m.nGroups, 1, kMax),
           Field::integer("mamba_d_conv", m.convKernel, 2, 4),
           Field::integer("mamba_expand", expand, 1, 64),
           Field::integer("mamba_chunk_size", m.chunkSize, 1, 1 << 16),
           Field::boolean("mamba_conv_bias", m.useConvBias),
           Field::boolean("mamba_proj_bias", m.useBias)},
          error))
    return false;
  if (experts > 0) {
    error = "num_local_experts is " + std::to_string(experts) +
            ": mixture-of-experts layers are not supported yet (only the dense shared MLP, "
            "num_local_experts 0)";
    return false;
  }
  c.kvHeads = c.heads;
  c.ffWidth = intermediate;
  if (!config_fields::readInt(cfg, "num_key_value_heads", false, 1, 4096, c.kvHeads, error) ||
      !config_fields::readInt(cfg, "shared_intermediate_size", false, 1, kMax, c.ffWidth, error))
    return false;
  if (c.ffWidth <= 0) {
    error = "the config has neither shared_intermediate_size nor intermediate_size";
    return false;
  }
  std::string pe = "nope";
  if (cfg.contains("position_embedding_type") && cfg["position_embedding_type"].is_string())
    pe = cfg["position_embedding_type"].get<std::string>();
  if (pe != "nope" && pe != "rope") {
    error = "position_embedding_type is '" + pe + "' (known: nope, rope)";
    return false;
  }
  if (cfg.contains("rope_scaling") && !cfg["rope_scaling"].is_null()) {
    error = "rope_scaling " + cfg["rope_scaling"].dump() + " is not supported (only null)";
    return false;
  }
  if (c.width % c.heads || c.heads % c.kvHeads) {
    error = "hidden_size " + std::to_string(c.width) + ", num_attention_heads " +
            std::to_string(c.heads) + " and num_key_value_heads " + std::to_string(c.kvHeads) +
            " do not divide into whole heads";
    return false;
  }
  dInner = expand * c.width;
  if (dInner != m.numHeads * m.headDim) {
    error = "mamba_expand x hidden_size = " + std::to_string(dInner) +
            " is not mamba_n_heads x mamba_d_head = " + std::to_string(m.numHeads * m.headDim);
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
  m.intermediateSize = dInner;
  m.layerNormEpsilon = c.normEps;
  m.normBeforeGate = false;
  m.normGroups = 1; // GraniteMoeHybridRMSNormGated: one RMS over all of d_inner
  // Written by the GGUF import (import/GgufImport.cpp): llama.cpp's
  // granite-hybrid graph takes the gated norm's RMS per group of
  // d_inner / mamba_n_groups channels (build_mamba2_layer), as Mamba-2 does;
  // equal to transformers' when mamba_n_groups is 1.
  bool perGroup = false;
  if (!config_fields::readBool(cfg, "ssm_opt_gated_norm_per_group", perGroup, error))
    return false;
  if (perGroup)
    m.normGroups = m.nGroups;
  m.timeStepMin = 0.0;
  m.timeStepMax = std::numeric_limits<double>::infinity();

  c.attention.assign(c.numLayers, false);
  if (!cfg.contains("layer_types") || !cfg["layer_types"].is_array() ||
      int64_t(cfg["layer_types"].size()) != c.numLayers) {
    error = "layer_types must be a list of num_hidden_layers = " + std::to_string(c.numLayers) +
            " entries (mamba or attention)";
    return false;
  }
  for (int64_t l = 0; l < c.numLayers; ++l) {
    const json &t = cfg["layer_types"][l];
    std::string k = t.is_string() ? t.get<std::string>() : t.dump();
    if (k != "mamba" && k != "attention") {
      error = "layer_types[" + std::to_string(l) + "] is '" + k + "' (known: mamba, attention)";
      return false;
    }
    c.attention[l] = k == "attention";
  }
  layers::AttentionConfig &a = c.attn;
  a.heads = c.heads;
  a.kvHeads = c.kvHeads;
  a.headDim = a.valueDim = c.width / c.heads;
  a.capacity = context > 0 ? context : std::min<int64_t>(maxPos, kDefaultContext);
  a.scale = attnMultiplier > 0 ? attnMultiplier : 1.0 / std::sqrt(double(a.headDim));
  a.rope = pe == "rope";
  a.ropeTheta = ropeTheta;
  a.rotaryDim = a.headDim;
  a.ropeNeox = true; // Hugging Face's rotate_half layout
  a.bias = attnBias;
  return true;
}

/// h += r * mixer(input_layernorm(h)); h += r * shared_mlp(post_attention_layernorm(h)).
void graniteLayer(graph::BlockScope &s, const GraniteConfig &c, bool attention) {
  MlirEmitter &e = s.e;
  const double r = c.residualMultiplier;
  auto addScaled = [&](const TValue &h, const TValue &o, const std::string &hint) {
    return e.map(hint, {{h, {}}, {o, {}}}, h.shape,
                 [&](Body &b) { return b.add(b.arg(0), b.mul(b.cst(r), b.arg(1))); });
  };
  TValue xn = layers::rmsNorm(e, s.h, s.param("input_layernorm.weight"), c.normEps, "normed");
  TValue o = attention ? layers::attention(s, c.attn, xn)
                       : layers::mamba2Mixer(s, c.mamba, xn, "mamba.");
  e.line("// Residual, scaled by residual_multiplier.");
  TValue h = addScaled(s.h, o, "h_mix");
  e.line("// Shared SwiGLU MLP: output_linear(silu(g) * u), [g | u] = input_linear(x).");
  TValue fn = layers::rmsNorm(e, h, s.param("post_attention_layernorm.weight"), c.normEps,
                              "ffn_normed");
  TValue f = layers::swiglu(s, fn, "shared_mlp.input_linear.weight", "",
                            "shared_mlp.output_linear.weight");
  s.h = addScaled(h, f, "h_ffn");
}

} // namespace

bool describeGraniteHybrid(const json &config, int64_t context, HybridDesc &out,
                           std::string &error) {
  auto c = std::make_shared<GraniteConfig>();
  if (!parseGranite(config, context, *c, error))
    return false;
  out = HybridDesc{};
  out.numLayers = c->numLayers;
  out.vocab = c->vocab;
  out.params.push_back({"model.embed_tokens.weight", {c->vocab, c->width}});
  const Mamba2Config &m = c->mamba;
  int64_t nAttn = 0;
  std::vector<graph::TensorDecl> mlp = {{"post_attention_layernorm.weight", {c->width}},
                                        {"shared_mlp.input_linear.weight", {2 * c->ffWidth, c->width}},
                                        {"shared_mlp.output_linear.weight", {c->width, c->ffWidth}}};
  for (int64_t l = 0; l < c->numLayers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".", st = "layers." + std::to_string(l) + ".";
    std::vector<graph::TensorDecl> ps = {{"input_layernorm.weight", {c->width}}};
    for (const graph::TensorDecl &t : c->attention[l] ? layers::attentionParams(c->attn, c->width)
                                                      : layers::mamba2MixerParams(c->mamba, "mamba."))
      ps.push_back(t);
    ps.insert(ps.end(), mlp.begin(), mlp.end());
    for (const graph::TensorDecl &t : ps)
      out.params.push_back({p + t.name, t.shape});
    if (c->attention[l]) {
      ++nAttn;
      for (const graph::TensorDecl &t : layers::attentionStates(c->attn))
        out.states.push_back({st + t.name, t.shape, true});
    } else {
      out.states.push_back({st + "conv_state", {m.convDim(), m.convKernel - 1}, false});
      out.states.push_back({st + "ssm_state", {m.numHeads, m.headDim, m.stateSize}, false});
    }
  }
  out.params.push_back({"model.norm.weight", {c->width}});
  if (!c->tied)
    out.params.push_back({"lm_head.weight", {c->vocab, c->width}});
  out.summary = std::to_string(c->numLayers) + " layers (" + std::to_string(c->numLayers - nAttn) +
                " Mamba-2, " + std::to_string(nAttn) + " attention), context " +
                std::to_string(c->attn.capacity);
  std::vector<graph::TensorDecl> params = out.params;
  out.write = [c, params](int64_t seqLen, LogitsRows rows, int64_t batch, std::string &mlir,
                          std::string &error) {
    graph::BlockKind mamba, attn;
    mamba.name = "mamba2_block";
    attn.name = "attention_block";
    attn.takesPosition = true;
    mamba.batchedSequence = attn.batchedSequence = true;
    int64_t firstMamba = -1, firstAttn = -1;
    for (int64_t l = c->numLayers - 1; l >= 0; --l)
      (c->attention[l] ? firstAttn : firstMamba) = l;
    auto kindParams = [&](graph::BlockKind &k, int64_t layer) {
      k.params = layerParams(params, "model.layers." + std::to_string(layer) + ".");
    };
    const Mamba2Config &m = c->mamba;
    if (firstMamba >= 0) {
      kindParams(mamba, firstMamba);
      mamba.states = {{"conv_state", {m.convDim(), m.convKernel - 1}},
                      {"ssm_state", {m.numHeads, m.headDim, m.stateSize}}};
    }
    if (firstAttn >= 0) {
      kindParams(attn, firstAttn);
      attn.states = layers::attentionStates(c->attn);
    }
    mamba.body = [c](graph::BlockScope &s) { graniteLayer(s, *c, false); };
    attn.body = [c](graph::BlockScope &s) { graniteLayer(s, *c, true); };
    mamba.comment = [](const graph::Form &) {
      return std::string("One Granite Mamba-2 layer: h += r * Mamba-2(RMSNorm(h)); h += r * SwiGLU(RMSNorm(h)).");
    };
    attn.comment = [](const graph::Form &) {
      return std::string("One Granite attention layer: h += r * GQA attention(RMSNorm(h)), "
                         "writing the KV cache; h += r * SwiGLU(RMSNorm(h)).");
    };
    graph::ModelDecl md;
    md.header = "// Granite 4.0-H language model (GraniteMoeHybridForCausalLM, dense): width " +
                std::to_string(c->width) + ", " + std::to_string(c->numLayers) + " layers, " +
                std::to_string(c->heads) + " heads (" + std::to_string(c->kvHeads) +
                " KV), Mamba-2 " + std::to_string(m.numHeads) + " x " + std::to_string(m.headDim) +
                " heads, d_state " + std::to_string(m.stateSize) + ", KV cache of " +
                std::to_string(c->attn.capacity) + " positions, vocabulary " +
                std::to_string(c->vocab) +
                ".\n// Generated by ssm-import. Arguments: tokens, position, the states (ssm.state),"
                "\n// the weights (ssm.param, Hugging Face names); results: logits, the states.\n";
    md.width = c->width;
    md.vocab = c->vocab;
    md.params = params;
    for (int64_t l = 0; l < c->numLayers; ++l)
      md.layers.push_back({c->attention[l] ? &attn : &mamba,
                           "model.layers." + std::to_string(l) + ".",
                           "layers." + std::to_string(l) + "."});
    md.embed = [c](graph::ModelScope &s, const TValue &tokens) {
      s.e.line("// Embedding lookup, times embedding_multiplier.");
      TValue x = layers::embedding(s.e, tokens, s.param("model.embed_tokens.weight"), "embedded");
      const double k = c->embeddingMultiplier;
      return s.e.map("embedded_scaled", {{x, {}}}, x.shape,
                     [k](Body &b) { return b.mul(b.arg(0), b.cst(k)); });
    };
    md.head = [c](graph::ModelScope &s, const TValue &h) {
      s.e.line("// Final RMSNorm, the LM head, divided by logits_scaling.");
      TValue hn = layers::rmsNorm(s.e, h, s.param("model.norm.weight"), c->normEps, "final_normed");
      TValue l = s.e.linear(hn, s.param(c->tied ? "model.embed_tokens.weight" : "lm_head.weight"),
                            "logits_raw");
      const double inv = 1.0 / c->logitsScaling;
      return s.e.map("logits", {{l, {}}}, l.shape,
                     [inv](Body &b) { return b.mul(b.arg(0), b.cst(inv)); });
    };
    return graph::writeModule(md, seqLen, rows, batch, mlir, error);
  };
  return true;
}

} // namespace ssm::importer
