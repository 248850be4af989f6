// Qwen3.5 / Qwen3-Next dense text models: Gated DeltaNet layers beside gated GQA attention layers, each followed by a SwiGLU (import/HybridModel.h).
//
// transformers' models/qwen3_5/modeling_qwen3_5.py (Qwen3_5ForCausalLM, model_type
// "qwen3_5_text"; the text part of Qwen3_5ForConditionalGeneration, model_type
// "qwen3_5" with a text_config, weights under model.language_model.) and
// models/qwen3_next/modeling_qwen3_next.py (model_type "qwen3_next", dense MLP
// only); llama.cpp src/models/qwen35.cpp, qwen3next.cpp and delta-net-base.cpp.
// In f32, per layer (layer_types, else every full_attention_interval-th layer
// attends):
//
//   h += mixer(RMSNorm1p(h));  h += down(silu(gate(x)) * up(x)), x = RMSNorm1p(h)
//   RMSNorm1p(x) = x rsqrt(mean(x^2) + eps) (1 + w)   (zero-centred weights)
//
// The Gated DeltaNet mixer (linear_attn.*), nk key heads of dk, nv value heads of dv:
//   qkv = in_proj_qkv(x) = [q (nk dk) | k (nk dk) | v (nv dv)], z = in_proj_z(x),
//   b = in_proj_b(x), a = in_proj_a(x) (nv)   (Qwen3-Next: in_proj_qkvz and in_proj_ba,
//   grouped per key head: [q (dk) | k (dk) | v (r dv) | z (r dv)] and [b (r) | a (r)])
//   qkv = silu(depthwise causal conv(qkv)) from the carried window (ssm.causal_conv1d)
//   q, k = x rsqrt(sum(x^2) + 1e-6) per head (fla's l2norm)
//   beta = sigmoid(b), g = -exp(A_log) softplus(a + dt_bias)
//   o, S = ssm.gated_delta_rule(q, k, v, g, beta, S) with scale 1/sqrt(dk)
//          (value head h reads key head h / (nv / nk))
//   out_proj(norm.weight * o rsqrt(mean_dv(o^2) + eps) * silu(z))   (per value head;
//          this norm's weight is not zero-centred)
// The attention (self_attn.*): layers::attention with the output gate (q_proj
// holds [query | gate] per head), q/k RMSNorm1p, partial NeoX RoPE
// (rotary_dim = head_dim * partial_rotary_factor; Qwen3.5's interleaved M-RoPE
// is this for text positions) and the KV cache.
#include "import/ConfigFields.h"
#include "import/HybridModel.h"
#include "import/layers/Attention.h"
#include "import/layers/Layers.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <set>

namespace ssm::importer {

using config_fields::Field;
using nlohmann::json;
using Body = GenericBody;

namespace {

struct Qwen35Config {
  bool fused = false;         // Qwen3-Next's in_proj_qkvz / in_proj_ba
  std::string prefix;         // "model." or "model.language_model."
  int64_t vocab = 0, width = 0, numLayers = 0, intermediate = 0;
  int64_t nk = 0, nv = 0, dk = 0, dv = 0, convWidth = 4;
  bool tied = false;
  double normEps = 1e-6;
  // 0: q and k l2-normed as transformers (fla) does, x rsqrt(sum x^2 + 1e-6).
  // > 0 (the GGUF import's "ssm_opt_l2norm_eps", import/GgufImport.cpp): as
  // llama.cpp's ggml_l2_norm does, x / max(||x||, eps), eps = rms_norm_eps.
  double l2NormEps = 0;
  std::vector<bool> attention; // per layer
  layers::AttentionConfig attn;

  int64_t ratio() const { return nv / nk; }
  int64_t convChannels() const { return 2 * nk * dk + nv * dv; }
};

std::string num(int64_t v) { return std::to_string(v); }

std::string f64(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  return s + " : f64";
}

/// The rope fields: rope_parameters (transformers 5) or rope_theta,
/// partial_rotary_factor and rope_scaling at the top (Qwen3-Next's configs).
bool parseRope(const json &cfg, double &theta, double &factor, std::string &error) {
  const json *scaling = nullptr;
  const char *scalingName = "rope_parameters";
  if (cfg.contains("rope_parameters") && !cfg["rope_parameters"].is_null()) {
    const json &r = cfg["rope_parameters"];
    if (!r.is_object()) {
      error = "rope_parameters must be an object, got " + r.dump();
      return false;
    }
    if (!config_fields::readNumber(r, "rope_theta", 1e-30, theta, error) ||
        !config_fields::readNumber(r, "partial_rotary_factor", 1e-30, factor, error)) {
      error = "rope_parameters: " + error;
      return false;
    }
    scaling = &r;
  }
  if (!config_fields::readNumber(cfg, "rope_theta", 1e-30, theta, error) ||
      !config_fields::readNumber(cfg, "partial_rotary_factor", 1e-30, factor, error))
    return false;
  if (cfg.contains("rope_scaling") && !cfg["rope_scaling"].is_null()) {
    if (!cfg["rope_scaling"].is_object()) {
      error = "rope_scaling must be an object or null, got " + cfg["rope_scaling"].dump();
      return false;
    }
    scaling = &cfg["rope_scaling"];
    scalingName = "rope_scaling";
  }
  if (scaling) {
    // M-RoPE's sections only split the rotary pairs among the (temporal,
    // height, width) positions, equal for text: plain RoPE. Any other
    // scaling (yarn, linear, dynamic) changes the angles.
    for (const char *key : {"rope_type", "type"}) {
      if (!scaling->contains(key) || (*scaling)[key].is_null())
        continue;
      const json &t = (*scaling)[key];
      std::string kind = t.is_string() ? t.get<std::string>() : t.dump();
      if (kind != "default" && kind != "mrope") {
        error = std::string(scalingName) + " has " + key + " '" + kind +
                "': only the default rotary embedding (and M-RoPE, the same for text) is "
                "supported";
        return false;
      }
    }
  }
  if (factor > 1.0) {
    error = "partial_rotary_factor " + std::to_string(factor) + " is above 1";
    return false;
  }
  return true;
}

bool parseQwen35(const json &top, int64_t context, Qwen35Config &c, std::string &error) {
  const int64_t kMax = config_fields::kMaxDim;
  const std::string type = top.value("model_type", std::string());
  if (type.find("moe") != std::string::npos) {
    error = "model_type '" + type + "' is a mixture-of-experts model, which is not supported "
            "yet (dense models only: qwen3_5_text, qwen3_5, qwen3_next without experts)";
    return false;
  }
  const json *cfgp = &top;
  c.prefix = "model.";
  c.fused = type == "qwen3_next";
  if (type == "qwen3_5") {
    // Qwen3_5ForConditionalGeneration: the language model's config is text_config
    // and its weights model.language_model.*; the vision tower is not read.
    if (!top.contains("text_config") || !top["text_config"].is_object()) {
      error = "model_type 'qwen3_5' needs a text_config object (the language model's fields)";
      return false;
    }
    cfgp = &top["text_config"];
    c.prefix = "model.language_model.";
    std::string inner = cfgp->value("model_type", std::string("qwen3_5_text"));
    if (inner != "qwen3_5_text") {
      error = "text_config.model_type is '" + inner + "' (expected qwen3_5_text)";
      return false;
    }
    // tie_word_embeddings may sit at the top of a composite config.
    if (!config_fields::readBool(top, "tie_word_embeddings", c.tied, error))
      return false;
  }
  const json &cfg = *cfgp;
  const std::string where = cfgp == &top ? "" : "text_config: ";
  int64_t heads = 0, kvHeads = 0, headDim = 0, maxPos = 262144, interval = 4;
  int64_t experts = c.fused ? 512 : 0, sparseStep = 1; // Qwen3NextConfig's defaults
  bool attnBias = false;
  double theta = 10000.0, factor = 0.25;
  if (!config_fields::readFields(
          cfg,
          {Field::integer("vocab_size", c.vocab, 1, kMax, true),
           Field::integer("hidden_size", c.width, 1, kMax, true),
           Field::integer("num_hidden_layers", c.numLayers, 1, 4096, true),
           Field::integer("intermediate_size", c.intermediate, 1, kMax, true),
           Field::integer("num_attention_heads", heads, 1, 4096, true),
           Field::integer("num_key_value_heads", kvHeads, 1, 4096, true),
           Field::integer("head_dim", headDim, 1, 4096),
           Field::integer("linear_num_key_heads", c.nk, 1, 4096, true),
           Field::integer("linear_num_value_heads", c.nv, 1, 4096, true),
           Field::integer("linear_key_head_dim", c.dk, 1, 4096, true),
           Field::integer("linear_value_head_dim", c.dv, 1, 4096, true),
           Field::integer("linear_conv_kernel_dim", c.convWidth, 2, 4),
           Field::integer("full_attention_interval", interval, 1, 4096),
           Field::integer("num_experts", experts, 0, 1 << 20),
           Field::integer("decoder_sparse_step", sparseStep, 1, 4096),
           Field::boolean("tie_word_embeddings", c.tied),
           Field::boolean("attention_bias", attnBias),
           Field::number("rms_norm_eps", c.normEps, 0.0),
           Field::number("ssm_opt_l2norm_eps", c.l2NormEps, 0.0),
           Field::integer("max_position_embeddings", maxPos, 1, int64_t(1) << 31)},
          error) ||
      !parseRope(cfg, theta, factor, error)) {
    error = where + error;
    return false;
  }
  if (cfg.contains("hidden_act") && cfg["hidden_act"] != "silu") {
    error = where + "hidden_act is " + cfg["hidden_act"].dump() + " (only silu is supported)";
    return false;
  }
  if (headDim == 0) {
    if (c.width % heads) {
      error = where + "no head_dim, and hidden_size " + num(c.width) +
              " is not a multiple of num_attention_heads " + num(heads);
      return false;
    }
    headDim = c.width / heads;
  }
  if (heads % kvHeads) {
    error = where + "num_attention_heads " + num(heads) +
            " is not a multiple of num_key_value_heads " + num(kvHeads);
    return false;
  }
  if (c.nv % c.nk) {
    error = where + "linear_num_value_heads " + num(c.nv) +
            " is not a multiple of linear_num_key_heads " + num(c.nk) +
            " (each key head serves the same number of value heads)";
    return false;
  }
  // Which layers attend: layer_types, else every interval-th.
  c.attention.assign(c.numLayers, false);
  if (cfg.contains("layer_types") && !cfg["layer_types"].is_null()) {
    const json &t = cfg["layer_types"];
    if (!t.is_array() || int64_t(t.size()) != c.numLayers) {
      error = where + "layer_types must be a list of num_hidden_layers = " + num(c.numLayers) +
              " entries, got " + t.dump();
      return false;
    }
    for (int64_t l = 0; l < c.numLayers; ++l) {
      std::string k = t[l].is_string() ? t[l].get<std::string>() : t[l].dump();
      if (k != "linear_attention" && k != "full_attention") {
        error = where + "layer_types[" + num(l) + "] is '" + k +
                "' (known: linear_attention, full_attention)";
        return false;
      }
      c.attention[l] = k == "full_attention";
    }
  } else {
    for (int64_t l = 0; l < c.numLayers; ++l)
      c.attention[l] = (l + 1) % interval == 0;
  }
  // Experts: Qwen3-Next's sparse MLP layers (and Qwen3.5-MoE's, another model_type).
  std::set<int64_t> mlpOnly;
  if (cfg.contains("mlp_only_layers") && !cfg["mlp_only_layers"].is_null()) {
    if (!cfg["mlp_only_layers"].is_array()) {
      error = where + "mlp_only_layers must be a list of layer indices, got " +
              cfg["mlp_only_layers"].dump();
      return false;
    }
    for (const json &i : cfg["mlp_only_layers"])
      if (i.is_number_integer())
        mlpOnly.insert(i.get<int64_t>());
  }
  for (int64_t l = 0; l < c.numLayers; ++l)
    if (experts > 0 && !mlpOnly.count(l) && (l + 1) % sparseStep == 0) {
      error = where + "num_experts is " + num(experts) + ": layer " + num(l) +
              " would be a mixture-of-experts MLP, which is not supported yet (dense "
              "models only: num_experts 0, or every layer in mlp_only_layers)";
      return false;
    }
  layers::AttentionConfig &a = c.attn;
  a.heads = heads;
  a.kvHeads = kvHeads;
  a.headDim = a.valueDim = headDim;
  a.capacity = context > 0 ? context : std::min<int64_t>(maxPos, kDefaultContext);
  a.scale = 1.0 / std::sqrt(double(headDim));
  a.rotaryDim = int64_t(double(headDim) * factor);
  a.rotaryDim -= a.rotaryDim % 2;
  if (a.rotaryDim < 2) {
    error = where + "partial_rotary_factor " + std::to_string(factor) + " of head_dim " +
            num(headDim) + " leaves no rotary pair";
    return false;
  }
  a.rope = true;
  a.ropeTheta = theta;
  a.ropeNeox = true;
  a.qkNorm = true;
  a.normEpsilon = c.normEps;
  a.normWeightOffset = 1.0;
  a.outputGate = true;
  a.bias = attnBias;
  return true;
}

/// The Gated DeltaNet layer's weights after the layer's prefix.
std::vector<graph::TensorDecl> gdnParams(const Qwen35Config &c) {
  const int64_t W = c.width, r = c.ratio();
  std::vector<graph::TensorDecl> p = {{"input_layernorm.weight", {W}}};
  if (c.fused) {
    p.push_back({"linear_attn.in_proj_qkvz.weight", {c.nk * (2 * c.dk + 2 * r * c.dv), W}});
    p.push_back({"linear_attn.in_proj_ba.weight", {c.nk * 2 * r, W}});
  } else {
    p.push_back({"linear_attn.in_proj_qkv.weight", {c.convChannels(), W}});
    p.push_back({"linear_attn.in_proj_z.weight", {c.nv * c.dv, W}});
    p.push_back({"linear_attn.in_proj_b.weight", {c.nv, W}});
    p.push_back({"linear_attn.in_proj_a.weight", {c.nv, W}});
  }
  p.push_back({"linear_attn.conv1d.weight", {c.convChannels(), 1, c.convWidth}});
  p.push_back({"linear_attn.dt_bias", {c.nv}});
  p.push_back({"linear_attn.A_log", {c.nv}});
  p.push_back({"linear_attn.norm.weight", {c.dv}});
  p.push_back({"linear_attn.out_proj.weight", {W, c.nv * c.dv}});
  return p;
}

std::vector<graph::TensorDecl> mlpParams(const Qwen35Config &c) {
  return {{"post_attention_layernorm.weight", {c.width}},
          {"mlp.gate_proj.weight", {c.intermediate, c.width}},
          {"mlp.up_proj.weight", {c.intermediate, c.width}},
          {"mlp.down_proj.weight", {c.width, c.intermediate}}};
}

std::vector<graph::TensorDecl> gdnStates(const Qwen35Config &c) {
  return {{"conv_state", {c.convChannels(), c.convWidth - 1}},
          {"recurrent_state", {c.nv, c.dk, c.dv}}};
}

/// x (rows, heads, d) * rsqrt(sum_d x^2 + 1e-6): fla's l2norm, which transformers uses;
/// with `llamaEps` > 0, x / max(sqrt(sum_d x^2), llamaEps): ggml_l2_norm, llama.cpp's.
/// Each head is divided by s = max(1, max |x|) first (layers::lastDimScale),
/// with the eps scaled to match: a head past 1.8e19 normalizes as the
/// reference does; heads within 1 compute the plain formula.
TValue l2Norm(MlirEmitter &e, const TValue &x, const std::string &hint, double llamaEps = 0) {
  TValue inv = layers::lastDimScale(e, {x, {}}, x.shape, hint);
  TValue ss = e.reduceLast(hint + "_sumsq", {{x, {}}, {inv, {"d0", "d1"}}}, x.shape, [](Body &b) {
    std::string v = b.mul(b.arg(0), b.arg(1));
    return b.mul(v, v);
  });
  return e.map(hint, {{x, {}}, {ss, {"d0", "d1"}}, {inv, {"d0", "d1"}}}, x.shape,
               [llamaEps](Body &b) {
                 std::string xs = b.mul(b.arg(0), b.arg(2));
                 if (llamaEps > 0)
                   return b.div(xs, b.max(b.sqrt(b.arg(1)), b.mul(b.cst(llamaEps), b.arg(2))));
                 std::string epsScaled = b.mul(b.mul(b.cst(1e-6), b.arg(2)), b.arg(2));
                 return b.mul(xs, layers::rsqrt(b, b.add(b.arg(1), epsScaled)));
               });
}

/// The Gated DeltaNet mixer on xn (rows, width), already normed.
TValue gatedDeltaNet(graph::BlockScope &s, const Qwen35Config &c, const TValue &xn) {
  MlirEmitter &e = s.e;
  const int64_t rows = xn.shape[0], nk = c.nk, nv = c.nv, dk = c.dk, dv = c.dv, r = c.ratio();
  // The rule's (streams, tokens): (1, rows), (rows, 1) batched, (streams, T)
  // in the batched sequence (rows stream-major).
  const int64_t nb = s.form.streams(), len = rows / nb;
  e.line("// Gated DeltaNet: " + num(nk) + " key heads of " + num(dk) + ", " + num(nv) +
         " value heads of " + num(dv) + ".");
  TValue qkv, z, b, a;
  if (c.fused) {
    e.line("// Qwen3-Next's fused projections, grouped per key head: [q | k | v (r heads) | z "
           "(r heads)] and [b (r) | a (r)].");
    const int64_t per = 2 * dk + 2 * r * dv;
    TValue p = e.expand(e.linear(xn, s.param("linear_attn.in_proj_qkvz.weight"), "qkvz"),
                        {{0}, {1, 2}}, {rows, nk, per}, "qkvz_groups");
    auto part = [&](int64_t off, int64_t n, const std::string &hint) {
      return e.collapse(e.slice(p, {0, 0, off}, {rows, nk, n}, {rows, nk, n}, hint + "_g"),
                        {{0}, {1, 2}}, {rows, nk * n}, hint);
    };
    qkv = e.concat(1, {part(0, dk, "q_in"), part(dk, dk, "k_in"), part(2 * dk, r * dv, "v_in")},
                   "qkv");
    z = part(2 * dk + r * dv, r * dv, "z");
    TValue ba = e.expand(e.linear(xn, s.param("linear_attn.in_proj_ba.weight"), "ba"),
                         {{0}, {1, 2}}, {rows, nk, 2 * r}, "ba_groups");
    b = e.collapse(e.slice(ba, {0, 0, 0}, {rows, nk, r}, {rows, nk, r}, "b_g"), {{0}, {1, 2}},
                   {rows, nv}, "b");
    a = e.collapse(e.slice(ba, {0, 0, r}, {rows, nk, r}, {rows, nk, r}, "a_g"), {{0}, {1, 2}},
                   {rows, nv}, "a");
  } else {
    qkv = e.linear(xn, s.param("linear_attn.in_proj_qkv.weight"), "qkv");
    z = e.linear(xn, s.param("linear_attn.in_proj_z.weight"), "z");
    b = e.linear(xn, s.param("linear_attn.in_proj_b.weight"), "b");
    a = e.linear(xn, s.param("linear_attn.in_proj_a.weight"), "a");
  }
  e.line("// Depthwise causal conv (width " + num(c.convWidth) +
         ") + silu over [q | k | v], from the carried window.");
  layers::ShortConv conv = layers::shortConv(e, s.form, qkv, s.param("linear_attn.conv1d.weight"),
                                             nullptr, s.state("conv_state"), /*silu=*/true);
  s.newStates.push_back(conv.window);
  TValue q = e.expand(e.slice(conv.y, {0, 0}, {rows, nk * dk}, {rows, nk * dk}, "q_flat"),
                      {{0}, {1, 2}}, {rows, nk, dk}, "q");
  TValue k = e.expand(e.slice(conv.y, {0, nk * dk}, {rows, nk * dk}, {rows, nk * dk}, "k_flat"),
                      {{0}, {1, 2}}, {rows, nk, dk}, "k");
  TValue v = e.expand(e.slice(conv.y, {0, 2 * nk * dk}, {rows, nv * dv}, {rows, nv * dv}, "v_flat"),
                      {{0}, {1, 2}}, {rows, nv, dv}, "v");
  e.line("// q, k L2-normalised per head; beta = sigmoid(b); g = -exp(A_log) softplus(a + dt_bias).");
  q = l2Norm(e, q, "q_l2", c.l2NormEps);
  k = l2Norm(e, k, "k_l2", c.l2NormEps);
  TValue beta = e.map("beta", {{b, {}}}, b.shape, [](Body &bd) { return bd.sigmoid(bd.arg(0)); });
  TValue g = e.map("g", {{a, {}}, {s.param("linear_attn.dt_bias"), {"d1"}},
                         {s.param("linear_attn.A_log"), {"d1"}}},
                   a.shape, [](Body &bd) {
                     return bd.neg(bd.mul(bd.exp(bd.arg(2)),
                                          layers::softplus(bd, bd.add(bd.arg(0), bd.arg(1)))));
                   });
  TValue q4 = e.expand(q, {{0, 1}, {2}, {3}}, {nb, len, nk, dk}, "gdn_q");
  TValue k4 = e.expand(k, {{0, 1}, {2}, {3}}, {nb, len, nk, dk}, "gdn_k");
  TValue v4 = e.expand(v, {{0, 1}, {2}, {3}}, {nb, len, nv, dv}, "gdn_v");
  TValue g3 = e.expand(g, {{0, 1}, {2}}, {nb, len, nv}, "gdn_g");
  TValue beta3 = e.expand(beta, {{0, 1}, {2}}, {nb, len, nv}, "gdn_beta");
  const TValue &st = s.state("recurrent_state");
  TValue s0 = s.form.hasBatchDim() ? st : e.expand(st, {{0, 1}, {2}, {3}}, {1, nv, dk, dv}, "gdn_s0");
  TValue o{e.fresh("gdn_out"), {nb, len, nv, dv}}, s1{e.fresh("gdn_state"), s0.shape};
  e.line(o.name + ", " + s1.name + " = ssm.gated_delta_rule " + q4.name + ", " + k4.name + ", " +
         v4.name + ", " + g3.name + ", " + beta3.name + " initial_state(" + s0.name +
         ") {scale = " + f64(1.0 / std::sqrt(double(dk))) + "} : (" + tensorType(q4.shape) +
         ", " + tensorType(k4.shape) + ", " + tensorType(v4.shape) + ", " +
         tensorType(g3.shape) + ", " + tensorType(beta3.shape) + ", " + tensorType(s0.shape) +
         ") -> (" + tensorType(o.shape) + ", " + tensorType(s1.shape) + ")");
  s.newStates.push_back(s.form.hasBatchDim()
                            ? s1
                            : e.collapse(s1, {{0, 1}, {2}, {3}}, st.shape, "recurrent_state_new"));
  e.line("// Gated RMSNorm per value head: norm.weight * rmsnorm(o) * silu(z); out_proj.");
  TValue o3 = e.collapse(o, {{0, 1}, {2}, {3}}, {rows, nv, dv}, "gdn_o");
  TValue z3 = e.expand(z, {{0}, {1, 2}}, {rows, nv, dv}, "z_heads");
  // Each head divided by max(1, max |o|) first (layers::lastDimScale).
  TValue inv = layers::lastDimScale(e, {o3, {}}, o3.shape, "gdn");
  TValue ss = e.reduceLast("gdn_sumsq", {{o3, {}}, {inv, {"d0", "d1"}}}, o3.shape, [](Body &bd) {
    std::string v = bd.mul(bd.arg(0), bd.arg(1));
    return bd.mul(v, v);
  });
  const double eps = c.normEps;
  TValue y = e.map("gdn_normed",
                   {{o3, {}}, {ss, {"d0", "d1"}}, {s.param("linear_attn.norm.weight"), {"d2"}},
                    {z3, {}}, {inv, {"d0", "d1"}}},
                   o3.shape, [&](Body &bd) {
                     std::string mean = bd.div(bd.arg(1), bd.cst(double(dv)));
                     std::string epsScaled = bd.mul(bd.mul(bd.cst(eps), bd.arg(4)), bd.arg(4));
                     std::string n = bd.mul(bd.mul(bd.arg(0), bd.arg(4)),
                                            layers::rsqrt(bd, bd.add(mean, epsScaled)));
                     return bd.mul(bd.mul(bd.arg(2), n), layers::silu(bd, bd.arg(3)));
                   });
  return e.linear(e.collapse(y, {{0}, {1, 2}}, {rows, nv * dv}, "gdn_y"),
                  s.param("linear_attn.out_proj.weight"), "gdn_out_proj");
}

/// h += mixer(RMSNorm1p(h)); h += SwiGLU(RMSNorm1p(h)).
void qwen35Layer(graph::BlockScope &s, const Qwen35Config &c, bool attention) {
  MlirEmitter &e = s.e;
  TValue xn = layers::rmsNorm(e, s.h, s.param("input_layernorm.weight"), c.normEps, "normed", 1.0);
  TValue o = attention ? layers::attention(s, c.attn, xn) : gatedDeltaNet(s, c, xn);
  TValue h = e.map("h_mix", {{s.h, {}}, {o, {}}}, s.h.shape,
                   [](Body &b) { return b.add(b.arg(0), b.arg(1)); });
  e.line("// SwiGLU MLP down(silu(gate x) * up x), on the residual stream.");
  TValue fn = layers::rmsNorm(e, h, s.param("post_attention_layernorm.weight"), c.normEps,
                              "mlp_normed", 1.0);
  s.h = layers::swiglu(s, fn, "mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight",
                       &h);
}

} // namespace

bool describeQwen35(const json &config, int64_t context, HybridDesc &out, std::string &error) {
  auto c = std::make_shared<Qwen35Config>();
  if (!parseQwen35(config, context, *c, error))
    return false;
  out = HybridDesc{};
  out.numLayers = c->numLayers;
  out.vocab = c->vocab;
  out.params.push_back({c->prefix + "embed_tokens.weight", {c->vocab, c->width}});
  int64_t nAttn = 0;
  for (int64_t l = 0; l < c->numLayers; ++l) {
    const std::string p = c->prefix + "layers." + num(l) + ".", st = "layers." + num(l) + ".";
    std::vector<graph::TensorDecl> ps;
    if (c->attention[l]) {
      ps = layers::attentionParams(c->attn, c->width);
      ps.insert(ps.begin(), {"input_layernorm.weight", {c->width}});
    } else {
      ps = gdnParams(*c);
    }
    for (const graph::TensorDecl &t : mlpParams(*c))
      ps.push_back(t);
    for (const graph::TensorDecl &t : ps)
      out.params.push_back({p + t.name, t.shape});
    if (c->attention[l]) {
      ++nAttn;
      for (const graph::TensorDecl &t : layers::attentionStates(c->attn))
        out.states.push_back({st + t.name, t.shape, true});
    } else {
      for (const graph::TensorDecl &t : gdnStates(*c))
        out.states.push_back({st + t.name, t.shape, false});
    }
  }
  out.params.push_back({c->prefix + "norm.weight", {c->width}});
  if (!c->tied)
    out.params.push_back({"lm_head.weight", {c->vocab, c->width}});
  out.summary = num(c->numLayers) + " layers (" + num(c->numLayers - nAttn) +
                " gated delta net, " + num(nAttn) + " attention), context " +
                num(c->attn.capacity);
  std::vector<graph::TensorDecl> params = out.params;
  out.write = [c, params](int64_t seqLen, LogitsRows rows, int64_t batch, std::string &mlir,
                          std::string &error) {
    graph::BlockKind gdn, attn;
    gdn.name = "gated_delta_net_block";
    attn.name = "attention_block";
    attn.takesPosition = true;
    gdn.batchedSequence = attn.batchedSequence = true;
    int64_t firstGdn = -1, firstAttn = -1;
    for (int64_t l = c->numLayers - 1; l >= 0; --l)
      (c->attention[l] ? firstAttn : firstGdn) = l;
    auto kindParams = [&](graph::BlockKind &k, int64_t layer) {
      k.params = layerParams(params, c->prefix + "layers." + num(layer) + ".");
    };
    if (firstGdn >= 0) {
      kindParams(gdn, firstGdn);
      gdn.states = gdnStates(*c);
    }
    if (firstAttn >= 0) {
      kindParams(attn, firstAttn);
      attn.states = layers::attentionStates(c->attn);
    }
    gdn.body = [c](graph::BlockScope &s) { qwen35Layer(s, *c, false); };
    attn.body = [c](graph::BlockScope &s) { qwen35Layer(s, *c, true); };
    gdn.comment = [](const graph::Form &) {
      return std::string("One Gated DeltaNet layer: h += GDN(RMSNorm1p(h)) (conv, L2-normed q/k, "
                         "the gated delta rule, gated RMSNorm); h += SwiGLU(RMSNorm1p(h)).");
    };
    attn.comment = [](const graph::Form &) {
      return std::string("One gated attention layer: h += sigmoid(gate) * GQA attention with q/k "
                         "norms and partial RoPE (RMSNorm1p(h)), writing the KV cache; h += "
                         "SwiGLU(RMSNorm1p(h)).");
    };
    graph::ModelDecl m;
    m.header = std::string("// ") + (c->fused ? "Qwen3-Next" : "Qwen3.5") +
               " dense text model: width " + num(c->width) + ", " + num(c->numLayers) +
               " layers, Gated DeltaNet " + num(c->nk) + "x" + num(c->dk) + " keys / " +
               num(c->nv) + "x" + num(c->dv) + " values, attention " + num(c->attn.heads) +
               " heads (" + num(c->attn.kvHeads) + " KV) of " + num(c->attn.headDim) +
               ", MLP " + num(c->intermediate) + ", KV cache of " + num(c->attn.capacity) +
               " positions, vocabulary " + num(c->vocab) +
               ".\n// Generated by ssm-import. Arguments: tokens, position, the states (ssm.state),"
               "\n// the weights (ssm.param, Hugging Face names); results: logits, the states.\n";
    m.width = c->width;
    m.vocab = c->vocab;
    m.params = params;
    for (int64_t l = 0; l < c->numLayers; ++l)
      m.layers.push_back({c->attention[l] ? &attn : &gdn, c->prefix + "layers." + num(l) + ".",
                          "layers." + num(l) + "."});
    m.embed = [c](graph::ModelScope &s, const TValue &tokens) {
      s.e.line("// Embedding lookup.");
      return layers::embedding(s.e, tokens, s.param(c->prefix + "embed_tokens.weight"), "embedded");
    };
    m.head = [c](graph::ModelScope &s, const TValue &h) {
      s.e.line("// Final RMSNorm (zero-centred weight) and the LM head.");
      TValue hn = layers::rmsNorm(s.e, h, s.param(c->prefix + "norm.weight"), c->normEps,
                                  "final_normed", 1.0);
      return s.e.linear(hn, s.param(c->tied ? c->prefix + "embed_tokens.weight" : "lm_head.weight"),
                        "logits");
    };
    return graph::writeModule(m, seqLen, rows, batch, mlir, error);
  };
  return true;
}

} // namespace ssm::importer
