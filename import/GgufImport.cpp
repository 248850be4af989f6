// GGUF -> Hugging Face checkpoint (import/GgufImport.h). The conversions
// undone here are those of llama.cpp's convert_hf_to_gguf.py (conversion/
// lfm2.py LFM2Model; conversion/granite.py GraniteHybridModel with
// conversion/mamba.py Mamba2Model.modify_tensors and conversion/llama.py
// LlamaModel.permute), and the metadata is read as llama.cpp's loaders read
// it (src/models/lfm2.cpp, src/models/granite-hybrid.cpp).
#include "import/GgufImport.h"

#include <cmath>
#include <map>
#include <set>

namespace ssm::importer {

using nlohmann::json;

namespace {

class Mapper {
public:
  Mapper(const GgufFile &f, GgufCheckpoint &out, std::string &error)
      : f_(f), out_(out), error_(error) {}

  bool has(const std::string &g) const { return f_.findTensor(g) != nullptr; }

  /// GGUF tensor `g` as f32 values and its shape (outermost first).
  bool load(const std::string &g, std::vector<float> &v, std::vector<int64_t> &shape) {
    const GgufTensor *t = f_.findTensor(g);
    if (!t) {
      error_ = f_.path + ": missing tensor '" + g + "'";
      return false;
    }
    std::string err;
    if (!ggufToFloats(*t, v, err)) {
      error_ = f_.path + ": " + err;
      return false;
    }
    shape = t->shape();
    used_.insert(g);
    return true;
  }

  /// Stores `values` as Hugging Face tensor `hf` of `shape`. `exact`: the
  /// values are the GGUF tensor's, unchanged (then a 16-bit source stays
  /// 16-bit, as the safetensors import keeps it).
  void put(const std::string &hf, const std::vector<int64_t> &shape,
           const std::vector<float> &values, const std::string &g, bool exact) {
    uint32_t type = f_.findTensor(g)->type;
    if (exact && type == uint32_t(GgmlType::F16))
      out_.tensors.tensors.push_back(makeF16Tensor(hf, shape, values));
    else if (exact && type == uint32_t(GgmlType::BF16))
      out_.tensors.tensors.push_back(makeBF16Tensor(hf, shape, values));
    else
      out_.tensors.tensors.push_back(makeF32Tensor(hf, shape, values));
    out_.tensors.metadata["gguf:" + hf] = g;
  }

  /// `g` as `hf` with `shape` (a reshape of the same elements; an empty
  /// shape keeps the GGUF tensor's own). Absent and `optional`: nothing,
  /// true. `present` says which.
  bool copy(const std::string &g, const std::string &hf, std::vector<int64_t> shape = {},
            bool optional = false, bool *present = nullptr) {
    if (present)
      *present = has(g);
    if (!has(g) && optional)
      return true;
    std::vector<float> v;
    std::vector<int64_t> s;
    if (!load(g, v, s))
      return false;
    if (shape.empty())
      shape = s;
    if (!sameNumel(g, s, shape))
      return false;
    put(hf, shape, v, g, true);
    return true;
  }

  bool sameNumel(const std::string &g, const std::vector<int64_t> &s,
                 const std::vector<int64_t> &shape) {
    int64_t a = 1, b = 1;
    for (int64_t d : s)
      a *= d;
    for (int64_t d : shape)
      b *= d;
    if (a != b) {
      error_ = f_.path + ": tensor '" + g + "' has " + std::to_string(a) +
               " elements, but the metadata implies " + std::to_string(b);
      return false;
    }
    return true;
  }

  /// Every tensor of the file used; else an error naming the first left over.
  bool allUsed() {
    for (const GgufTensor &t : f_.tensors)
      if (!used_.count(t.name)) {
        error_ = f_.path + ": tensor '" + t.name + "' is not one the " + out_.ggufArchitecture +
                 " import uses (an unsupported variant of the architecture?)";
        return false;
      }
    std::map<std::string, int> counts;
    for (const GgufTensor &t : f_.tensors)
      ++counts[ggmlTypeName(t.type)];
    out_.sourceTypes.clear();
    for (const auto &[name, n] : counts)
      out_.sourceTypes += (out_.sourceTypes.empty() ? "" : " + ") + name +
                          (counts.size() > 1 ? " x" + std::to_string(n) : std::string());
    return true;
  }

  const GgufFile &f_;
  GgufCheckpoint &out_;
  std::string &error_;
  std::set<std::string> used_;
};

std::string blk(int64_t l, const std::string &name) {
  return "blk." + std::to_string(l) + "." + name;
}
std::string hfLayer(int64_t l, const std::string &name) {
  return "model.layers." + std::to_string(l) + "." + name;
}

/// The keys every architecture has: block count, width, heads, per-layer KV
/// heads (0 = a recurrent layer), norm epsilon, rope base, context, and the
/// vocabulary from token_embd's rows.
struct Common {
  int64_t layers = 0, width = 0, heads = 0, kvHeads = 0, ff = 0, context = 4096, vocab = 0;
  std::vector<int64_t> kvPerLayer;
  double eps = 1e-5, ropeBase = 10000.0;
  bool tied = true;
};

bool readCommon(const GgufFile &f, const std::string &a, Common &c, std::string &error) {
  const int64_t kMax = int64_t(1) << 31;
  if (!f.getInt(a + ".block_count", true, 1, 4096, c.layers, error) ||
      !f.getInt(a + ".embedding_length", true, 1, kMax, c.width, error) ||
      !f.getInt(a + ".attention.head_count", true, 0, 4096, c.heads, error) ||
      !f.getInt(a + ".feed_forward_length", false, 0, kMax, c.ff, error) ||
      !f.getInt(a + ".context_length", false, 1, int64_t(1) << 40, c.context, error) ||
      !f.getFloat(a + ".attention.layer_norm_rms_epsilon", true, c.eps, error) ||
      !f.getFloat(a + ".rope.freq_base", false, c.ropeBase, error) ||
      !f.getIntArray(a + ".attention.head_count_kv", true, size_t(c.layers), c.kvPerLayer, error))
    return false;
  for (size_t l = 0; l < c.kvPerLayer.size(); ++l) {
    int64_t k = c.kvPerLayer[l];
    if (k < 0 || (k > 0 && c.kvHeads > 0 && k != c.kvHeads) || (k > 0 && (c.heads == 0 || c.heads % k))) {
      error = f.path + ": " + a + ".attention.head_count_kv[" + std::to_string(l) + "] is " +
              std::to_string(k) + " (each attention layer the same count, dividing head_count " +
              std::to_string(c.heads) + ")";
      return false;
    }
    if (k > 0)
      c.kvHeads = k;
  }
  const GgufTensor *emb = f.findTensor("token_embd.weight");
  if (!emb || emb->ne.size() != 2 || emb->ne[0] != c.width) {
    error = f.path + ": tensor 'token_embd.weight' is " +
            (emb ? "not (vocab, " + std::to_string(c.width) + ")" : std::string("missing"));
    return false;
  }
  c.vocab = emb->ne[1];
  c.tied = f.findTensor("output.weight") == nullptr;
  return true;
}

void commonConfig(json &cfg, const Common &c) {
  cfg["vocab_size"] = c.vocab;
  cfg["hidden_size"] = c.width;
  cfg["num_hidden_layers"] = c.layers;
  cfg["num_attention_heads"] = c.heads;
  cfg["num_key_value_heads"] = c.kvHeads > 0 ? c.kvHeads : c.heads;
  cfg["max_position_embeddings"] = c.context;
  cfg["rope_theta"] = c.ropeBase;
  cfg["tie_word_embeddings"] = c.tied;
  cfg["torch_dtype"] = "float32";
}

// ---------------------------------------------------------------------------
// lfm2

bool lfm2(const GgufFile &f, GgufCheckpoint &out, std::string &error) {
  Common c;
  if (!readCommon(f, "lfm2", c, error))
    return false;
  int64_t lCache = 3;
  if (!f.getInt("lfm2.shortconv.l_cache", true, 2, 4, lCache, error))
    return false;
  json cfg;
  cfg["architectures"] = {"Lfm2ForCausalLM"};
  cfg["model_type"] = "lfm2";
  commonConfig(cfg, c);
  cfg["norm_eps"] = c.eps;
  cfg["conv_L_cache"] = lCache;
  cfg["conv_bias"] = false;
  // feed_forward_length is the width after the converter's rounding.
  cfg["intermediate_size"] = c.ff;
  cfg["block_auto_adjust_ff_dim"] = false;
  cfg["block_ffn_dim_multiplier"] = nullptr;
  json types = json::array();
  for (int64_t k : c.kvPerLayer)
    types.push_back(k > 0 ? "full_attention" : "conv");
  cfg["layer_types"] = types;
  out.config = cfg;

  Mapper m(f, out, error);
  if (!m.copy("token_embd.weight", "model.embed_tokens.weight") ||
      !m.copy("token_embd_norm.weight", "model.embedding_norm.weight") ||
      !m.copy("output.weight", "lm_head.weight", {}, true))
    return false;
  for (int64_t l = 0; l < c.layers; ++l) {
    if (!m.copy(blk(l, "attn_norm.weight"), hfLayer(l, "operator_norm.weight")) ||
        !m.copy(blk(l, "ffn_norm.weight"), hfLayer(l, "ffn_norm.weight")) ||
        !m.copy(blk(l, "ffn_gate.weight"), hfLayer(l, "feed_forward.w1.weight")) ||
        !m.copy(blk(l, "ffn_up.weight"), hfLayer(l, "feed_forward.w3.weight")) ||
        !m.copy(blk(l, "ffn_down.weight"), hfLayer(l, "feed_forward.w2.weight")))
      return false;
    if (c.kvPerLayer[l] > 0) {
      if (!m.copy(blk(l, "attn_q.weight"), hfLayer(l, "self_attn.q_proj.weight")) ||
          !m.copy(blk(l, "attn_k.weight"), hfLayer(l, "self_attn.k_proj.weight")) ||
          !m.copy(blk(l, "attn_v.weight"), hfLayer(l, "self_attn.v_proj.weight")) ||
          !m.copy(blk(l, "attn_output.weight"), hfLayer(l, "self_attn.out_proj.weight")) ||
          !m.copy(blk(l, "attn_q_norm.weight"), hfLayer(l, "self_attn.q_layernorm.weight")) ||
          !m.copy(blk(l, "attn_k_norm.weight"), hfLayer(l, "self_attn.k_layernorm.weight")))
        return false;
    } else {
      // The converter squeezed the depthwise kernel (C, 1, K) to (C, K).
      if (!m.copy(blk(l, "shortconv.in_proj.weight"), hfLayer(l, "conv.in_proj.weight")) ||
          !m.copy(blk(l, "shortconv.conv.weight"), hfLayer(l, "conv.conv.weight"),
                  {c.width, 1, lCache}) ||
          !m.copy(blk(l, "shortconv.out_proj.weight"), hfLayer(l, "conv.out_proj.weight")))
        return false;
    }
  }
  return m.allUsed();
}

// ---------------------------------------------------------------------------
// granitehybrid

/// Undoes LlamaModel.permute(w, nHead): within each head of hd rows, GGUF
/// row 2i + j holds Hugging Face row j * hd/2 + i (j = 0, 1).
bool unpermuteRows(std::vector<float> &w, const std::vector<int64_t> &shape, int64_t nHead,
                   const std::string &name, const std::string &path, std::string &error) {
  int64_t rows = shape[0], cols = 1;
  for (size_t d = 1; d < shape.size(); ++d)
    cols *= shape[d];
  if (nHead <= 0 || rows % (2 * nHead)) {
    error = path + ": tensor '" + name + "' has " + std::to_string(rows) +
            " rows, not a whole number of " + std::to_string(nHead) + " heads of even size";
    return false;
  }
  int64_t hd = rows / nHead;
  std::vector<float> o(w.size());
  for (int64_t h = 0; h < nHead; ++h)
    for (int64_t i = 0; i < hd / 2; ++i)
      for (int64_t j = 0; j < 2; ++j) {
        const float *src = &w[size_t((h * hd + 2 * i + j) * cols)];
        std::copy(src, src + cols, &o[size_t((h * hd + j * (hd / 2) + i) * cols)]);
      }
  w.swap(o);
  return true;
}

bool graniteHybrid(const GgufFile &f, GgufCheckpoint &out, std::string &error) {
  const std::string a = "granitehybrid";
  Common c;
  if (!readCommon(f, a, c, error))
    return false;
  int64_t experts = 0, sharedFf = 0, convK = 4, dState = 0, groups = 1, dInner = 0, nHeads = 0;
  double attnScale = 0, embScale = 1, resScale = 1, logitScale = 1;
  bool ropeFinetuned = true; // llama.cpp's default: Granite reads it as "use RoPE"
  const int64_t kMax = int64_t(1) << 31;
  if (!f.getInt(a + ".expert_count", false, 0, kMax, experts, error) ||
      !f.getInt(a + ".expert_shared_feed_forward_length", false, 0, kMax, sharedFf, error) ||
      !f.getInt(a + ".ssm.conv_kernel", true, 2, 4, convK, error) ||
      !f.getInt(a + ".ssm.state_size", true, 1, 4096, dState, error) ||
      !f.getInt(a + ".ssm.group_count", true, 1, kMax, groups, error) ||
      !f.getInt(a + ".ssm.inner_size", true, 1, kMax, dInner, error) ||
      !f.getInt(a + ".ssm.time_step_rank", true, 1, kMax, nHeads, error) ||
      !f.getFloat(a + ".attention.scale", false, attnScale, error) ||
      !f.getFloat(a + ".embedding_scale", false, embScale, error) ||
      !f.getFloat(a + ".residual_scale", false, resScale, error) ||
      !f.getFloat(a + ".logit_scale", false, logitScale, error) ||
      !f.getBool(a + ".rope.scaling.finetuned", false, ropeFinetuned, error))
    return false;
  if (experts > 0) {
    error = f.path + ": " + a + ".expert_count is " + std::to_string(experts) +
            ": mixture-of-experts layers are not supported yet (only the dense shared MLP)";
    return false;
  }
  if (dInner % c.width || dInner % nHeads) {
    error = f.path + ": " + a + ".ssm.inner_size " + std::to_string(dInner) +
            " is not a multiple of embedding_length and of ssm.time_step_rank (the heads)";
    return false;
  }
  int64_t ffWidth = sharedFf > 0 ? sharedFf : c.ff;
  json cfg;
  cfg["architectures"] = {"GraniteMoeHybridForCausalLM"};
  cfg["model_type"] = "granitemoehybrid";
  commonConfig(cfg, c);
  cfg["rms_norm_eps"] = c.eps;
  cfg["intermediate_size"] = ffWidth;
  cfg["shared_intermediate_size"] = ffWidth;
  cfg["num_local_experts"] = 0;
  cfg["embedding_multiplier"] = embScale;
  cfg["residual_multiplier"] = resScale;
  cfg["logits_scaling"] = logitScale;
  if (attnScale > 0)
    cfg["attention_multiplier"] = attnScale;
  cfg["position_embedding_type"] = ropeFinetuned ? "rope" : "nope";
  cfg["rope_scaling"] = nullptr;
  cfg["mamba_n_heads"] = nHeads;
  cfg["mamba_d_head"] = dInner / nHeads;
  cfg["mamba_d_state"] = dState;
  cfg["mamba_n_groups"] = groups;
  cfg["mamba_d_conv"] = convK;
  cfg["mamba_expand"] = dInner / c.width;
  cfg["ssm_opt_gated_norm_per_group"] = true; // llama.cpp's semantics (GgufImport.h)
  json types = json::array();
  bool convBias = false, projBias = false, attnBias = false;
  for (int64_t l = 0; l < c.layers; ++l) {
    types.push_back(c.kvPerLayer[l] > 0 ? "attention" : "mamba");
    if (c.kvPerLayer[l] > 0)
      attnBias = attnBias || f.findTensor(blk(l, "attn_q.bias"));
    else {
      convBias = convBias || f.findTensor(blk(l, "ssm_conv1d.bias"));
      projBias = projBias || f.findTensor(blk(l, "ssm_in.bias"));
    }
  }
  cfg["layer_types"] = types;
  cfg["mamba_conv_bias"] = convBias;
  cfg["mamba_proj_bias"] = projBias;
  cfg["attention_bias"] = attnBias;
  out.config = cfg;

  Mapper m(f, out, error);
  if (!m.copy("token_embd.weight", "model.embed_tokens.weight") ||
      !m.copy("output_norm.weight", "model.norm.weight") ||
      !m.copy("output.weight", "lm_head.weight", {}, true))
    return false;
  const int64_t convDim = dInner + 2 * groups * dState;
  for (int64_t l = 0; l < c.layers; ++l) {
    if (!m.copy(blk(l, "attn_norm.weight"), hfLayer(l, "input_layernorm.weight")) ||
        !m.copy(blk(l, "ffn_norm.weight"), hfLayer(l, "post_attention_layernorm.weight")) ||
        !m.copy(blk(l, "ffn_down.weight"), hfLayer(l, "shared_mlp.output_linear.weight")))
      return false;
    // The converter split input_linear into ffn_gate (first half) and ffn_up.
    {
      std::vector<float> g, u;
      std::vector<int64_t> gs, us;
      if (!m.load(blk(l, "ffn_gate.weight"), g, gs) || !m.load(blk(l, "ffn_up.weight"), u, us))
        return false;
      if (gs != us || gs.size() != 2) {
        error = f.path + ": tensors '" + blk(l, "ffn_gate.weight") + "' and '" +
                blk(l, "ffn_up.weight") + "' differ in shape";
        return false;
      }
      g.insert(g.end(), u.begin(), u.end());
      m.put(hfLayer(l, "shared_mlp.input_linear.weight"), {2 * gs[0], gs[1]}, g,
            blk(l, "ffn_gate.weight"), true);
    }
    if (c.kvPerLayer[l] > 0) {
      for (const char *qk : {"q", "k"}) {
        std::string g = blk(l, std::string("attn_") + qk + ".weight");
        std::vector<float> w;
        std::vector<int64_t> s;
        int64_t nh = qk[0] == 'q' ? c.heads : c.kvPerLayer[l];
        if (!m.load(g, w, s) || !unpermuteRows(w, s, nh, g, f.path, error))
          return false;
        m.put(hfLayer(l, std::string("self_attn.") + qk + "_proj.weight"), s, w, g, true);
        std::string gb = blk(l, std::string("attn_") + qk + ".bias");
        if (m.has(gb)) {
          std::vector<float> b;
          std::vector<int64_t> bs;
          if (!m.load(gb, b, bs) || !unpermuteRows(b, bs, nh, gb, f.path, error))
            return false;
          m.put(hfLayer(l, std::string("self_attn.") + qk + "_proj.bias"), bs, b, gb, true);
        }
      }
      if (!m.copy(blk(l, "attn_v.weight"), hfLayer(l, "self_attn.v_proj.weight")) ||
          !m.copy(blk(l, "attn_output.weight"), hfLayer(l, "self_attn.o_proj.weight")) ||
          !m.copy(blk(l, "attn_v.bias"), hfLayer(l, "self_attn.v_proj.bias"), {}, true) ||
          !m.copy(blk(l, "attn_output.bias"), hfLayer(l, "self_attn.o_proj.bias"), {}, true))
        return false;
      continue;
    }
    const std::string p = "mamba.";
    if (!m.copy(blk(l, "ssm_in.weight"), hfLayer(l, p + "in_proj.weight")) ||
        !m.copy(blk(l, "ssm_in.bias"), hfLayer(l, p + "in_proj.bias"), {}, true) ||
        !m.copy(blk(l, "ssm_conv1d.weight"), hfLayer(l, p + "conv1d.weight"), {convDim, 1, convK}) ||
        !m.copy(blk(l, "ssm_conv1d.bias"), hfLayer(l, p + "conv1d.bias"), {}, true) ||
        !m.copy(blk(l, "ssm_dt.bias"), hfLayer(l, p + "dt_bias"), {nHeads}) ||
        !m.copy(blk(l, "ssm_d"), hfLayer(l, p + "D"), {nHeads}) ||
        !m.copy(blk(l, "ssm_norm.weight"), hfLayer(l, p + "norm.weight"), {dInner}) ||
        !m.copy(blk(l, "ssm_out.weight"), hfLayer(l, p + "out_proj.weight")) ||
        !m.copy(blk(l, "ssm_out.bias"), hfLayer(l, p + "out_proj.bias"), {}, true))
      return false;
    // ssm_a = -exp(A_log) (Mamba2Model.modify_tensors): A_log = log(-ssm_a).
    std::vector<float> A;
    std::vector<int64_t> as;
    const std::string ga = blk(l, "ssm_a");
    if (!m.load(ga, A, as) || !m.sameNumel(ga, as, {nHeads}))
      return false;
    for (size_t i = 0; i < A.size(); ++i) {
      if (!(A[i] < 0.0f)) {
        error = f.path + ": tensor '" + ga + "'[" + std::to_string(i) + "] is " +
                std::to_string(A[i]) + " (A = -exp(A_log) is negative)";
        return false;
      }
      A[i] = std::log(-A[i]);
    }
    m.put(hfLayer(l, p + "A_log"), {nHeads}, A, ga, false);
  }
  return m.allUsed();
}

struct GgufArch {
  const char *name;
  bool (*convert)(const GgufFile &, GgufCheckpoint &, std::string &);
};

const std::vector<GgufArch> &ggufArchs() {
  static const std::vector<GgufArch> archs = {
      {"lfm2", lfm2},
      {"granitehybrid", graniteHybrid},
  };
  return archs;
}

} // namespace

std::string ggufKnownArchitectures() {
  std::string s;
  for (const GgufArch &a : ggufArchs())
    s += (s.empty() ? "" : ", ") + std::string(a.name);
  return s;
}

bool ggufToCheckpoint(const GgufFile &f, GgufCheckpoint &out, std::string &error) {
  out = GgufCheckpoint();
  if (!f.getString("general.architecture", true, out.ggufArchitecture, error))
    return false;
  for (const GgufArch &a : ggufArchs())
    if (out.ggufArchitecture == a.name)
      return a.convert(f, out, error);
  error = f.path + ": GGUF architecture '" + out.ggufArchitecture +
          "' is not one ssm-import reads (known: " + ggufKnownArchitectures() + ")";
  return false;
}

} // namespace ssm::importer
