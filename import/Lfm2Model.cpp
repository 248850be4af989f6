// LFM2 / LFM2.5 (Liquid AI): gated short convolutions and GQA attention layers, each followed by a SwiGLU (import/HybridModel.h).
#include "import/ConfigFields.h"
#include "import/HybridModel.h"
#include "import/layers/Attention.h"
#include "import/layers/Layers.h"

#include <cmath>
#include <memory>

namespace ssm::importer {

using config_fields::Field;
using nlohmann::json;
using Body = GenericBody;

namespace {

struct Lfm2Config {
  int64_t vocab = 0, width = 0, numLayers = 0, heads = 0, kvHeads = 0, intermediate = 0;
  int64_t ffWidth = 0; // after block_auto_adjust_ff_dim and the rounding
  int64_t convWidth = 3;
  bool convBias = false, tied = true, autoAdjust = false;
  double normEps = 1e-5, ropeTheta = 1000000.0;
  std::vector<bool> attention; // per layer
  layers::AttentionConfig attn;
};

bool parseLfm2(const json &cfg, int64_t context, Lfm2Config &c, std::string &error) {
  const int64_t kMax = config_fields::kMaxDim;
  int64_t multipleOf = 256, maxPos = 128000;
  double multiplier = 1.0;
  bool hasMultiplier = cfg.contains("block_ffn_dim_multiplier") &&
                       !cfg["block_ffn_dim_multiplier"].is_null();
  if (!config_fields::readFields(
          cfg,
          {Field::integer("vocab_size", c.vocab, 1, kMax, true),
           Field::integer("hidden_size", c.width, 1, kMax, true),
           Field::integer("num_hidden_layers", c.numLayers, 1, 4096, true),
           Field::integer("num_attention_heads", c.heads, 1, 4096, true),
           Field::integer("intermediate_size", c.intermediate, 1, kMax, true),
           Field::integer("conv_L_cache", c.convWidth, 2, 4),
           Field::boolean("conv_bias", c.convBias),
           Field::boolean("tie_word_embeddings", c.tied),
           Field::boolean("block_auto_adjust_ff_dim", c.autoAdjust),
           Field::integer("block_multiple_of", multipleOf, 1, kMax),
           Field::number("norm_eps", c.normEps, 0.0),
           Field::number("rope_theta", c.ropeTheta, 1e-30),
           Field::integer("max_position_embeddings", maxPos, 1, int64_t(1) << 31)},
          error))
    return false;
  c.kvHeads = c.heads;
  if (!config_fields::readInt(cfg, "num_key_value_heads", false, 1, 4096, c.kvHeads, error))
    return false;
  if (hasMultiplier && !config_fields::readNumber(cfg, "block_ffn_dim_multiplier", 0.0, multiplier, error))
    return false;
  if (cfg.contains("rope_parameters") && cfg["rope_parameters"].is_object() &&
      !cfg.contains("rope_theta") &&
      !config_fields::readNumber(cfg["rope_parameters"], "rope_theta", 1e-30, c.ropeTheta, error))
    return false;
  if (cfg.contains("rope_scaling") && !cfg["rope_scaling"].is_null()) {
    error = "rope_scaling " + cfg["rope_scaling"].dump() + " is not supported (only null)";
    return false;
  }
  if (c.width % c.heads) {
    error = "hidden_size " + std::to_string(c.width) + " is not a multiple of num_attention_heads " +
            std::to_string(c.heads);
    return false;
  }
  if (c.heads % c.kvHeads) {
    error = "num_attention_heads " + std::to_string(c.heads) +
            " is not a multiple of num_key_value_heads " + std::to_string(c.kvHeads);
    return false;
  }
  // The feed-forward width as Lfm2MLP computes it.
  c.ffWidth = c.intermediate;
  if (c.autoAdjust) {
    c.ffWidth = int64_t(2 * c.ffWidth / 3);
    if (hasMultiplier) {
      c.ffWidth = int64_t(multiplier * double(c.ffWidth));
      c.ffWidth = multipleOf * ((c.ffWidth + multipleOf - 1) / multipleOf);
    }
  }
  // Which layers attend: layer_types, else full_attn_idxs.
  c.attention.assign(c.numLayers, false);
  if (cfg.contains("layer_types") && !cfg["layer_types"].is_null()) {
    const json &t = cfg["layer_types"];
    if (!t.is_array() || int64_t(t.size()) != c.numLayers) {
      error = "layer_types must be a list of num_hidden_layers = " + std::to_string(c.numLayers) +
              " entries, got " + t.dump();
      return false;
    }
    for (int64_t l = 0; l < c.numLayers; ++l) {
      std::string k = t[l].is_string() ? t[l].get<std::string>() : t[l].dump();
      if (k != "conv" && k != "full_attention") {
        error = "layer_types[" + std::to_string(l) + "] is '" + k +
                "' (known: conv, full_attention)";
        return false;
      }
      c.attention[l] = k == "full_attention";
    }
  } else if (cfg.contains("full_attn_idxs") && cfg["full_attn_idxs"].is_array()) {
    for (const json &i : cfg["full_attn_idxs"]) {
      if (!i.is_number_integer() || i.get<int64_t>() < 0 || i.get<int64_t>() >= c.numLayers) {
        error = "full_attn_idxs holds " + i.dump() + ", not a layer index below " +
                std::to_string(c.numLayers);
        return false;
      }
      c.attention[i.get<int64_t>()] = true;
    }
  } else {
    error = "the config has neither layer_types nor full_attn_idxs (which layers attend)";
    return false;
  }
  layers::AttentionConfig &a = c.attn;
  a.heads = c.heads;
  a.kvHeads = c.kvHeads;
  a.headDim = a.valueDim = c.width / c.heads;
  a.capacity = context > 0 ? context : std::min<int64_t>(maxPos, kDefaultContext);
  a.scale = 1.0 / std::sqrt(double(a.headDim));
  a.rope = true;
  a.ropeTheta = c.ropeTheta;
  a.rotaryDim = a.headDim;
  a.ropeNeox = true;
  a.qkNorm = true;
  a.normEpsilon = c.normEps;
  a.q = "self_attn.q_proj.weight";
  a.k = "self_attn.k_proj.weight";
  a.v = "self_attn.v_proj.weight";
  a.o = "self_attn.out_proj.weight";
  a.qNorm = "self_attn.q_layernorm.weight";
  a.kNorm = "self_attn.k_layernorm.weight";
  return true;
}

std::vector<graph::TensorDecl> convParams(const Lfm2Config &c) {
  const int64_t W = c.width;
  std::vector<graph::TensorDecl> p = {{"operator_norm.weight", {W}},
                                      {"conv.in_proj.weight", {3 * W, W}},
                                      {"conv.conv.weight", {W, 1, c.convWidth}},
                                      {"conv.out_proj.weight", {W, W}}};
  if (c.convBias) {
    p.push_back({"conv.in_proj.bias", {3 * W}});
    p.push_back({"conv.conv.bias", {W}});
    p.push_back({"conv.out_proj.bias", {W}});
  }
  return p;
}

std::vector<graph::TensorDecl> ffnParams(const Lfm2Config &c) {
  return {{"ffn_norm.weight", {c.width}},
          {"feed_forward.w1.weight", {c.ffWidth, c.width}},
          {"feed_forward.w3.weight", {c.ffWidth, c.width}},
          {"feed_forward.w2.weight", {c.width, c.ffWidth}}};
}

/// The gated short conv: B, C, x = in_proj(x); out_proj(C * conv(B * x)).
TValue gatedConv(graph::BlockScope &s, const Lfm2Config &c, const TValue &xn) {
  MlirEmitter &e = s.e;
  const int64_t rows = xn.shape[0], W = c.width;
  e.line("// Gated short conv: B, C, x = in_proj(x); out_proj(C * conv(B * x)).");
  TValue bcx = e.linear(xn, s.param("conv.in_proj.weight"), "bcx");
  if (c.convBias)
    bcx = e.map("bcx_b", {{bcx, {}}, {s.param("conv.in_proj.bias"), {"d1"}}}, bcx.shape,
                [](Body &b) { return b.add(b.arg(0), b.arg(1)); });
  TValue B = e.slice(bcx, {0, 0}, {rows, W}, {rows, W}, "b_gate");
  TValue C = e.slice(bcx, {0, W}, {rows, W}, {rows, W}, "c_gate");
  TValue x = e.slice(bcx, {0, 2 * W}, {rows, W}, {rows, W}, "x_in");
  TValue bx = e.map("bx", {{B, {}}, {x, {}}}, B.shape,
                    [](Body &b) { return b.mul(b.arg(0), b.arg(1)); });
  layers::ShortConv conv =
      layers::shortConv(e, s.form, bx, s.param("conv.conv.weight"),
                        c.convBias ? &s.param("conv.conv.bias") : nullptr, s.state("conv_state"),
                        /*silu=*/false);
  s.newStates.push_back(conv.window);
  TValue y = e.map("cy", {{C, {}}, {conv.y, {}}}, C.shape,
                   [](Body &b) { return b.mul(b.arg(0), b.arg(1)); });
  TValue o = e.linear(y, s.param("conv.out_proj.weight"), "conv_out");
  if (c.convBias)
    o = e.map("conv_out_b", {{o, {}}, {s.param("conv.out_proj.bias"), {"d1"}}}, o.shape,
              [](Body &b) { return b.add(b.arg(0), b.arg(1)); });
  return o;
}

/// h += op(operator_norm(h)); h += SwiGLU(ffn_norm(h)).
void lfm2Layer(graph::BlockScope &s, const Lfm2Config &c, bool attention) {
  MlirEmitter &e = s.e;
  TValue xn = layers::rmsNorm(e, s.h, s.param("operator_norm.weight"), c.normEps, "normed");
  TValue o = attention ? layers::attention(s, c.attn, xn) : gatedConv(s, c, xn);
  TValue h = e.map("h_mix", {{s.h, {}}, {o, {}}}, s.h.shape,
                   [](Body &b) { return b.add(b.arg(0), b.arg(1)); });
  e.line("// SwiGLU feed-forward w2(silu(w1 x) * w3 x), on the residual stream.");
  TValue fn = layers::rmsNorm(e, h, s.param("ffn_norm.weight"), c.normEps, "ffn_normed");
  s.h = layers::swiglu(s, fn, "feed_forward.w1.weight", "feed_forward.w3.weight",
                       "feed_forward.w2.weight", &h);
}

} // namespace

bool describeLfm2(const json &config, int64_t context, HybridDesc &out, std::string &error) {
  auto c = std::make_shared<Lfm2Config>();
  if (!parseLfm2(config, context, *c, error))
    return false;
  out = HybridDesc{};
  out.numLayers = c->numLayers;
  out.vocab = c->vocab;
  out.params.push_back({"model.embed_tokens.weight", {c->vocab, c->width}});
  int64_t nAttn = 0;
  for (int64_t l = 0; l < c->numLayers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".", st = "layers." + std::to_string(l) + ".";
    std::vector<graph::TensorDecl> ps = c->attention[l] ? layers::attentionParams(c->attn, c->width)
                                                        : convParams(*c);
    if (c->attention[l])
      ps.insert(ps.begin(), {"operator_norm.weight", {c->width}});
    for (const graph::TensorDecl &t : ffnParams(*c))
      ps.push_back(t);
    for (const graph::TensorDecl &t : ps)
      out.params.push_back({p + t.name, t.shape});
    if (c->attention[l]) {
      ++nAttn;
      for (const graph::TensorDecl &t : layers::attentionStates(c->attn))
        out.states.push_back({st + t.name, t.shape, true});
    } else {
      out.states.push_back({st + "conv_state", {c->width, c->convWidth - 1}, false});
    }
  }
  out.params.push_back({"model.embedding_norm.weight", {c->width}});
  if (!c->tied)
    out.params.push_back({"lm_head.weight", {c->vocab, c->width}});
  out.summary = std::to_string(c->numLayers) + " layers (" +
                std::to_string(c->numLayers - nAttn) + " gated short conv, " +
                std::to_string(nAttn) + " attention), context " + std::to_string(c->attn.capacity);
  std::vector<graph::TensorDecl> params = out.params;
  out.write = [c, params](int64_t seqLen, LogitsRows rows, int64_t batch, std::string &mlir,
                          std::string &error) {
    graph::BlockKind conv, attn;
    conv.name = "conv_block";
    attn.name = "attention_block";
    attn.takesPosition = true;
    conv.batchedSequence = attn.batchedSequence = true;
    int64_t firstConv = -1, firstAttn = -1;
    for (int64_t l = c->numLayers - 1; l >= 0; --l)
      (c->attention[l] ? firstAttn : firstConv) = l;
    auto kindParams = [&](graph::BlockKind &k, int64_t layer) {
      k.params = layerParams(params, "model.layers." + std::to_string(layer) + ".");
    };
    if (firstConv >= 0) {
      kindParams(conv, firstConv);
      conv.states = {{"conv_state", {c->width, c->convWidth - 1}}};
    }
    if (firstAttn >= 0) {
      kindParams(attn, firstAttn);
      attn.states = layers::attentionStates(c->attn);
    }
    conv.body = [c](graph::BlockScope &s) { lfm2Layer(s, *c, false); };
    attn.body = [c](graph::BlockScope &s) { lfm2Layer(s, *c, true); };
    conv.comment = [](const graph::Form &) {
      return std::string("One LFM2 conv layer: h += gated short conv(RMSNorm(h)); h += SwiGLU(RMSNorm(h)).");
    };
    attn.comment = [](const graph::Form &) {
      return std::string("One LFM2 attention layer: h += GQA attention with q/k norms and RoPE "
                         "(RMSNorm(h)), writing the KV cache; h += SwiGLU(RMSNorm(h)).");
    };
    graph::ModelDecl m;
    m.header = "// LFM2 language model (Lfm2ForCausalLM): width " + std::to_string(c->width) + ", " +
               std::to_string(c->numLayers) + " layers, " + std::to_string(c->heads) +
               " heads (" + std::to_string(c->kvHeads) + " KV), feed-forward " +
               std::to_string(c->ffWidth) + ", KV cache of " + std::to_string(c->attn.capacity) +
               " positions, vocabulary " + std::to_string(c->vocab) +
               ".\n// Generated by ssm-import. Arguments: tokens, position, the states (ssm.state),"
               "\n// the weights (ssm.param, Hugging Face names); results: logits, the states.\n";
    m.width = c->width;
    m.vocab = c->vocab;
    m.params = params;
    for (int64_t l = 0; l < c->numLayers; ++l)
      m.layers.push_back({c->attention[l] ? &attn : &conv, "model.layers." + std::to_string(l) + ".",
                          "layers." + std::to_string(l) + "."});
    m.embed = [](graph::ModelScope &s, const TValue &tokens) {
      s.e.line("// Embedding lookup.");
      return layers::embedding(s.e, tokens, s.param("model.embed_tokens.weight"), "embedded");
    };
    m.head = [c](graph::ModelScope &s, const TValue &h) {
      s.e.line("// Final RMSNorm (model.embedding_norm) and the LM head.");
      TValue hn = layers::rmsNorm(s.e, h, s.param("model.embedding_norm.weight"), c->normEps,
                                  "final_normed");
      return s.e.linear(hn, s.param(c->tied ? "model.embed_tokens.weight" : "lm_head.weight"),
                        "logits");
    };
    return graph::writeModule(m, seqLen, rows, batch, mlir, error);
  };
  return true;
}

} // namespace ssm::importer
