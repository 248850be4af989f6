// GGUF -> Hugging Face checkpoint (import/GgufImport.h). The conversions
// undone here are those of llama.cpp's convert_hf_to_gguf.py (conversion/
// lfm2.py LFM2Model; conversion/mamba.py MambaModel and Mamba2Model;
// conversion/granite.py GraniteHybridModel with conversion/mamba.py
// Mamba2Model.modify_tensors and conversion/llama.py LlamaModel.permute),
// and the metadata is read as llama.cpp's loaders read it
// (src/models/lfm2.cpp, granite-hybrid.cpp, mamba.cpp, mamba2.cpp).
#include "import/GgufImport.h"
#include "runtime/Shape.h"

#include <cmath>
#include <cstring>
#include <map>
#include <set>

namespace ssm::importer {

using nlohmann::json;

namespace {

/// Row `row` (outermost dim) of GGUF matrix `t`.
struct RowRef {
  const GgufTensor *t;
  int64_t row;
};

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
  /// 16-bit, as the safetensors import keeps it). `rows`, when given: where
  /// each row of `hf` (a matrix) comes from, so that Q8_0 blocks are copied
  /// as they are (keepQ8) instead of the f32 `values`. A quantised or
  /// 16-bit source stored as f32 is listed in out_.widened.
  void put(const std::string &hf, const std::vector<int64_t> &shape,
           const std::vector<float> &values, const std::string &g, bool exact,
           const std::vector<RowRef> *rows = nullptr) {
    uint32_t type = f_.findTensor(g)->type;
    out_.tensors.metadata["gguf:" + hf] = g;
    out_.ggmlType[hf] = type;
    if (exact && rows && keepQ8(hf, shape, *rows))
      return;
    if (exact && type == uint32_t(GgmlType::F16))
      out_.tensors.tensors.push_back(makeF16Tensor(hf, shape, values));
    else if (exact && type == uint32_t(GgmlType::BF16))
      out_.tensors.tensors.push_back(makeBF16Tensor(hf, shape, values));
    else {
      out_.tensors.tensors.push_back(makeF32Tensor(hf, shape, values));
      if (type != uint32_t(GgmlType::F32))
        out_.widened.push_back(g + " (" + ggmlTypeName(type) + ")");
    }
  }

  /// The rows of GGUF matrix `g` in order (for put's `rows`).
  std::vector<RowRef> rowsOf(const std::string &g) const {
    std::vector<RowRef> r;
    const GgufTensor *t = f_.findTensor(g);
    if (t && t->ne.size() == 2)
      for (int64_t i = 0; i < t->ne[1]; ++i)
        r.push_back({t, i});
    return r;
  }

  /// `hf` as int8 blocks with scales (import/WeightStore.h), when `hf` is a
  /// matrix the kernels read so (rank 2, "*.weight", as storeWeight's q8
  /// matrices) and every row comes from a row of the same width K of one
  /// type:
  ///  * Q8_0 (`block_q8_0 {half d; int8 qs[32]}`, x = q * d): "<hf>" I8
  ///    (rows, K) and "<hf>_scale" F16 (rows, K / 32), the blocks' bytes
  ///    copied as they are (our q8);
  ///  * Q6_K (`block_q6_K {u8 ql[128], qh[64]; int8 scales[16]; half d}`,
  ///    x = (d * sc) * (q - 32), ggml's dequantize_row_q6_K): "<hf>" I8 with
  ///    q - 32 in [-32, 31] and "<hf>_scale" F32 (rows, K / 16) with the f32
  ///    product d * sc of each group of 16 (q8b16, passes/WeightStorage.h);
  ///    the same values as the dequantisation, bit for bit;
  ///  * Q4_0 (`block_q4_0 {half d; u8 qs[16]}`, element j in the low nibble
  ///    of qs[j], j + 16 in the high one, x = (q - 8) * d) and Q5_0
  ///    (`block_q5_0 {half d; u8 qh[4]; u8 qs[16]}`, bit j of qh the fifth
  ///    bit of element j, x = (q - 16) * d), ggml's dequantize_row_q4_0 /
  ///    _q5_0: our q8 as for Q8_0, "<hf>" I8 holding q - 8 in [-8, 7] (q - 16
  ///    in [-16, 15]) and "<hf>_scale" F16 the blocks' d copied; the same
  ///    values, bit for bit, at 8.5 bits per weight (4.5 / 5.5 in the file,
  ///    32 dequantised);
  ///  * Q4_K (`block_q4_K {half d, dmin; u8 scales[12]; u8 qs[128]}`,
  ///    sub-block 2c of 32 in the low nibbles of qs[32c .. 32c + 31], 2c + 1
  ///    in the high ones) and Q5_K (`block_q5_K {half d, dmin; u8
  ///    scales[12]; u8 qh[32]; u8 qs[128]}`, bit 2c / 2c + 1 of qh[l] the
  ///    fifth bit of element l of sub-block 2c / 2c + 1), x = (d * sc) * q -
  ///    (dmin * m) per sub-block, ggml's dequantize_row_q4_K / _q5_K:
  ///    "<hf>" I8 holding q in [0, 15] ([0, 31]), "<hf>_scale" F32 (rows,
  ///    K / 32) the f32 products d * sc and "<hf>_min" F32 the products
  ///    dmin * m (q8min, passes/WeightStorage.h); the same values, bit for
  ///    bit, at 10 bits per weight (4.5 / 5.5 in the file).
  /// Else false, nothing stored.
  bool keepQ8(const std::string &hf, const std::vector<int64_t> &shape,
              const std::vector<RowRef> &rows) {
    const std::string suffix = ".weight";
    if (shape.size() != 2 || int64_t(rows.size()) != shape[0] || rows.empty() ||
        hf.size() <= suffix.size() ||
        hf.compare(hf.size() - suffix.size(), suffix.size(), suffix) != 0)
      return false;
    const uint32_t type = rows[0].t->type;
    const bool q6k = type == uint32_t(GgmlType::Q6_K);
    const bool q4 = type == uint32_t(GgmlType::Q4_0), q5 = type == uint32_t(GgmlType::Q5_0);
    const bool q4k = type == uint32_t(GgmlType::Q4_K), q5k = type == uint32_t(GgmlType::Q5_K);
    if (type != uint32_t(GgmlType::Q8_0) && !q6k && !q4 && !q5 && !q4k && !q5k)
      return false;
    const bool kQuant = q6k || q4k || q5k;
    const int64_t k = shape[1], block = kQuant ? 256 : 32,
                  blockBytes = q6k ? 210 : q4k ? 144 : q5k ? 176 : q4 ? 18 : q5 ? 22 : 34;
    const int64_t blocks = k / block, groups = q6k ? k / 16 : k / 32;
    for (const RowRef &r : rows)
      if (r.t->type != type || r.t->ne.size() != 2 || r.t->ne[0] != k || r.row < 0 ||
          r.row >= r.t->ne[1] || k % block != 0 || !r.t->data)
        return false;
    StTensor q{hf, StDType::I8, shape, {}};
    const bool f32Scales = q6k || q4k || q5k;
    StTensor d{hf + "_scale", f32Scales ? StDType::F32 : StDType::F16, {shape[0], groups}, {}};
    StTensor mn{hf + "_min", StDType::F32, {shape[0], groups}, {}};
    q.bytes.resize(size_t(shape[0] * k));
    d.bytes.resize(size_t(shape[0] * groups * (f32Scales ? 4 : 2)));
    if (q4k || q5k)
      mn.bytes.resize(size_t(shape[0] * groups * 4));
    for (int64_t i = 0; i < shape[0]; ++i) {
      const uint8_t *row = rows[size_t(i)].t->data + rows[size_t(i)].row * blocks * blockBytes;
      for (int64_t b = 0; b < blocks; ++b) {
        const uint8_t *src = row + b * blockBytes;
        if (q4k || q5k) {
          // ggml's d1 = d * sc, m1 = dmin * m (f32 products of the f16
          // values and the 6-bit integers, exact) per sub-block of 32.
          const float dd = halfToFloat(uint16_t(src[0] | (src[1] << 8)));
          const float dmin = halfToFloat(uint16_t(src[2] | (src[3] << 8)));
          const uint8_t *scales = src + 4, *qh = src + 16, *qs = src + (q5k ? 48 : 16);
          int8_t *qo = reinterpret_cast<int8_t *>(&q.bytes[size_t(i * k + b * 256)]);
          for (int j = 0; j < 8; ++j) {
            uint8_t sc, m;
            ggmlScaleMinK4(j, scales, sc, m);
            const float s = dd * float(sc), mv = dmin * float(m);
            const size_t at = size_t((i * groups + b * 8 + j) * 4);
            std::memcpy(&d.bytes[at], &s, 4);
            std::memcpy(&mn.bytes[at], &mv, 4);
            const uint8_t *qj = qs + 32 * (j / 2);
            for (int l = 0; l < 32; ++l) {
              int v = j % 2 ? qj[l] >> 4 : qj[l] & 0xF;
              if (q5k && (qh[l] >> j) & 1)
                v += 16;
              qo[j * 32 + l] = int8_t(v);
            }
          }
          continue;
        }
        if (q4 || q5) {
          std::copy_n(src, 2, &d.bytes[size_t((i * blocks + b) * 2)]);
          int8_t *qo = reinterpret_cast<int8_t *>(&q.bytes[size_t(i * k + b * 32)]);
          const uint8_t *qs = src + (q5 ? 6 : 2);
          const uint32_t qh = q5 ? uint32_t(src[2]) | uint32_t(src[3]) << 8 |
                                       uint32_t(src[4]) << 16 | uint32_t(src[5]) << 24
                                 : 0;
          for (int j = 0; j < 16; ++j) {
            const int hi0 = q5 ? int((qh >> j) & 1) << 4 : 0;
            const int hi1 = q5 ? int((qh >> (j + 16)) & 1) << 4 : 0;
            const int offset = q5 ? 16 : 8;
            qo[j] = int8_t(((qs[j] & 0xF) | hi0) - offset);
            qo[j + 16] = int8_t(((qs[j] >> 4) | hi1) - offset);
          }
          continue;
        }
        if (!q6k) {
          std::copy_n(src, 2, &d.bytes[size_t((i * blocks + b) * 2)]);
          std::copy_n(src + 2, 32, &q.bytes[size_t(i * k + b * 32)]);
          continue;
        }
        const uint8_t *ql = src, *qh = src + 128;
        const int8_t *sc = reinterpret_cast<const int8_t *>(src + 192);
        const float dd = halfToFloat(uint16_t(src[208] | (src[209] << 8)));
        int8_t *qo = reinterpret_cast<int8_t *>(&q.bytes[size_t(i * k + b * 256)]);
        for (int n = 0; n < 2; ++n, ql += 64, qh += 32, qo += 128)
          for (int l = 0; l < 32; ++l) {
            qo[l] = int8_t(((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32);
            qo[l + 32] = int8_t(((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32);
            qo[l + 64] = int8_t(((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32);
            qo[l + 96] = int8_t(((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32);
          }
        for (int g = 0; g < 16; ++g) {
          float s = dd * float(sc[g]);
          std::memcpy(&d.bytes[size_t((i * groups + b * 16 + g) * 4)], &s, 4);
        }
      }
    }
    (q6k ? out_.keptQ6K : q4 ? out_.keptQ4_0 : q5 ? out_.keptQ5_0 : q4k ? out_.keptQ4_K
     : q5k ? out_.keptQ5_K : out_.keptQ8) += 1;
    out_.tensors.tensors.push_back(std::move(q));
    out_.tensors.tensors.push_back(std::move(d));
    if (q4k || q5k)
      out_.tensors.tensors.push_back(std::move(mn));
    return true;
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
    std::vector<RowRef> rows;
    if (shape == s)
      rows = rowsOf(g);
    put(hf, shape, v, g, true, rows.empty() ? nullptr : &rows);
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

/// Whether any of the first `layers` blocks holds tensor blk.N.`name`.
bool anyLayerHas(const GgufFile &f, int64_t layers, const std::string &name) {
  for (int64_t l = 0; l < layers; ++l)
    if (f.findTensor(blk(l, name)))
      return true;
  return false;
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
      std::vector<RowRef> rows = m.rowsOf(blk(l, "ffn_gate.weight")),
                          upRows = m.rowsOf(blk(l, "ffn_up.weight"));
      rows.insert(rows.end(), upRows.begin(), upRows.end());
      m.put(hfLayer(l, "shared_mlp.input_linear.weight"), {2 * gs[0], gs[1]}, g,
            blk(l, "ffn_gate.weight"), true, &rows);
    }
    if (c.kvPerLayer[l] > 0) {
      for (const char *qk : {"q", "k"}) {
        std::string g = blk(l, std::string("attn_") + qk + ".weight");
        std::vector<float> w;
        std::vector<int64_t> s;
        int64_t nh = qk[0] == 'q' ? c.heads : c.kvPerLayer[l];
        if (!m.load(g, w, s) || !unpermuteRows(w, s, nh, g, f.path, error))
          return false;
        // The same permutation of the rows, for Q8_0 blocks kept as they are.
        std::vector<RowRef> rows = m.rowsOf(g);
        std::vector<float> index(rows.size());
        for (size_t i = 0; i < index.size(); ++i)
          index[i] = float(i);
        if (!rows.empty() && unpermuteRows(index, {int64_t(rows.size()), 1}, nh, g, f.path, error)) {
          std::vector<RowRef> permuted;
          for (float i : index)
            permuted.push_back(rows[size_t(i)]);
          rows.swap(permuted);
        } else {
          rows.clear();
        }
        m.put(hfLayer(l, std::string("self_attn.") + qk + "_proj.weight"), s, w, g, true,
              rows.empty() ? nullptr : &rows);
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

// ---------------------------------------------------------------------------
// qwen35

/// Undoes _LinearAttentionVReorderBase._reorder_v_heads along the rows of
/// `w` (rows x cols, rows = nk * r * hd): GGUF holds the value heads tiled
/// (r, nk, hd), Hugging Face grouped by key head (nk, r, hd). Rows before
/// `skip` (q and k of the fused qkv) are kept.
void untileRows(std::vector<float> &w, int64_t cols, int64_t skip, int64_t nk, int64_t r,
                int64_t hd) {
  std::vector<float> o(w);
  for (int64_t j = 0; j < r; ++j)
    for (int64_t g = 0; g < nk; ++g)
      for (int64_t d = 0; d < hd; ++d) {
        int64_t from = skip + (j * nk + g) * hd + d, to = skip + (g * r + j) * hd + d;
        std::copy(&w[size_t(from * cols)], &w[size_t(from * cols)] + cols, &o[size_t(to * cols)]);
      }
  w.swap(o);
}

/// The same along the columns of a (rows, nk * r * hd) matrix.
void untileCols(std::vector<float> &w, int64_t rows, int64_t nk, int64_t r, int64_t hd) {
  const int64_t cols = nk * r * hd;
  std::vector<float> o(w.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < r; ++j)
      for (int64_t g = 0; g < nk; ++g)
        for (int64_t d = 0; d < hd; ++d)
          o[size_t(i * cols + (g * r + j) * hd + d)] = w[size_t(i * cols + (j * nk + g) * hd + d)];
  w.swap(o);
}

bool qwen35(const GgufFile &f, GgufCheckpoint &out, std::string &error) {
  const std::string a = "qwen35";
  Common c;
  if (!readCommon(f, a, c, error))
    return false;
  int64_t headDim = 0, valueDim = 0, convK = 4, dk = 0, nk = 0, nv = 0, inner = 0,
          interval = 4, ropeDim = 0;
  const int64_t kMax = int64_t(1) << 31;
  if (!f.getInt(a + ".attention.key_length", true, 1, 4096, headDim, error) ||
      !f.getInt(a + ".attention.value_length", false, 1, 4096, valueDim, error) ||
      !f.getInt(a + ".ssm.conv_kernel", true, 2, 4, convK, error) ||
      !f.getInt(a + ".ssm.state_size", true, 1, 4096, dk, error) ||
      !f.getInt(a + ".ssm.group_count", true, 1, 4096, nk, error) ||
      !f.getInt(a + ".ssm.time_step_rank", true, 1, 4096, nv, error) ||
      !f.getInt(a + ".ssm.inner_size", true, 1, kMax, inner, error) ||
      !f.getInt(a + ".full_attention_interval", true, 1, 4096, interval, error) ||
      !f.getInt(a + ".rope.dimension_count", true, 2, 4096, ropeDim, error))
    return false;
  if (valueDim != 0 && valueDim != headDim) {
    error = f.path + ": " + a + ".attention.value_length " + std::to_string(valueDim) +
            " differs from key_length " + std::to_string(headDim) + " (not supported)";
    return false;
  }
  if (nv % nk || inner % nv || ropeDim > headDim) {
    error = f.path + ": " + a + ".ssm.time_step_rank (value heads) " + std::to_string(nv) +
            ", ssm.group_count (key heads) " + std::to_string(nk) + ", ssm.inner_size " +
            std::to_string(inner) + " and rope.dimension_count " + std::to_string(ropeDim) +
            " do not fit (value heads a multiple of key heads, inner a multiple of value heads)";
    return false;
  }
  const int64_t dv = inner / nv, r = nv / nk;
  json cfg;
  cfg["architectures"] = {"Qwen3_5ForCausalLM"};
  cfg["model_type"] = "qwen3_5_text";
  commonConfig(cfg, c);
  cfg["intermediate_size"] = c.ff;
  cfg["head_dim"] = headDim;
  cfg["linear_num_key_heads"] = nk;
  cfg["linear_num_value_heads"] = nv;
  cfg["linear_key_head_dim"] = dk;
  cfg["linear_value_head_dim"] = dv;
  cfg["linear_conv_kernel_dim"] = convK;
  cfg["full_attention_interval"] = interval;
  cfg["rms_norm_eps"] = c.eps;
  cfg["partial_rotary_factor"] = double(ropeDim) / double(headDim);
  cfg["attention_bias"] = false;
  cfg["hidden_act"] = "silu";
  cfg["ssm_opt_l2norm_eps"] = c.eps; // llama.cpp's ggml_l2_norm (GgufImport.h)
  json types = json::array();
  std::vector<bool> attn(size_t(c.layers));
  for (int64_t l = 0; l < c.layers; ++l) {
    attn[size_t(l)] = (l + 1) % interval == 0; // llama.cpp's recurrent_layer_arr
    types.push_back(attn[size_t(l)] ? "full_attention" : "linear_attention");
  }
  cfg["layer_types"] = types;
  out.config = cfg;

  Mapper m(f, out, error);
  // Zero-centred norms were stored + 1 (Qwen3NextModel.modify_tensors).
  auto minusOne = [&](const std::string &g, const std::string &hf) {
    std::vector<float> v;
    std::vector<int64_t> s;
    if (!m.load(g, v, s))
      return false;
    for (float &x : v)
      x -= 1.0f;
    m.put(hf, s, v, g, false);
    return true;
  };
  if (!m.copy("token_embd.weight", "model.embed_tokens.weight") ||
      !minusOne("output_norm.weight", "model.norm.weight") ||
      !m.copy("output.weight", "lm_head.weight", {}, true))
    return false;
  const int64_t qk = 2 * nk * dk, channels = qk + nv * dv;
  for (int64_t l = 0; l < c.layers; ++l) {
    if (!minusOne(blk(l, "attn_norm.weight"), hfLayer(l, "input_layernorm.weight")) ||
        !minusOne(blk(l, "post_attention_norm.weight"), hfLayer(l, "post_attention_layernorm.weight")) ||
        !m.copy(blk(l, "ffn_gate.weight"), hfLayer(l, "mlp.gate_proj.weight")) ||
        !m.copy(blk(l, "ffn_up.weight"), hfLayer(l, "mlp.up_proj.weight")) ||
        !m.copy(blk(l, "ffn_down.weight"), hfLayer(l, "mlp.down_proj.weight")))
      return false;
    if (attn[size_t(l)]) {
      if (!m.copy(blk(l, "attn_q.weight"), hfLayer(l, "self_attn.q_proj.weight")) ||
          !m.copy(blk(l, "attn_k.weight"), hfLayer(l, "self_attn.k_proj.weight")) ||
          !m.copy(blk(l, "attn_v.weight"), hfLayer(l, "self_attn.v_proj.weight")) ||
          !m.copy(blk(l, "attn_output.weight"), hfLayer(l, "self_attn.o_proj.weight")) ||
          !minusOne(blk(l, "attn_q_norm.weight"), hfLayer(l, "self_attn.q_norm.weight")) ||
          !minusOne(blk(l, "attn_k_norm.weight"), hfLayer(l, "self_attn.k_norm.weight")))
        return false;
      continue;
    }
    const std::string p = "linear_attn.";
    // Row-reordered matrices (value heads tiled -> grouped), then the rest.
    struct Rows { const char *g, *hf; int64_t rows, skip, hd; };
    const Rows rowsOf[] = {{"attn_qkv.weight", "in_proj_qkv.weight", channels, qk, dv},
                           {"attn_gate.weight", "in_proj_z.weight", nv * dv, 0, dv},
                           {"ssm_beta.weight", "in_proj_b.weight", nv, 0, 1},
                           {"ssm_alpha.weight", "in_proj_a.weight", nv, 0, 1},
                           {"ssm_conv1d.weight", "conv1d.weight", channels, qk, dv},
                           {"ssm_dt.bias", "dt_bias", nv, 0, 1},
                           {"ssm_a", "A_log", nv, 0, 1}};
    for (const Rows &t : rowsOf) {
      const std::string g = blk(l, t.g);
      std::vector<float> v;
      std::vector<int64_t> s;
      if (!m.load(g, v, s))
        return false;
      int64_t numel = int64_t(v.size());
      if (numel % t.rows) {
        error = f.path + ": tensor '" + g + "' has " + std::to_string(numel) +
                " elements, not rows of " + std::to_string(t.rows);
        return false;
      }
      const int64_t cols = numel / t.rows;
      if (r > 1)
        untileRows(v, cols, t.skip, nk, r, t.hd);
      std::vector<int64_t> shape = {t.rows, cols};
      bool exact = true;
      if (std::string(t.g) == "ssm_conv1d.weight") {
        shape = {t.rows, 1, cols};
      } else if (std::string(t.g) == "ssm_dt.bias") {
        shape = {t.rows};
      } else if (std::string(t.g) == "ssm_a") {
        // ssm_a = -exp(A_log).
        shape = {t.rows};
        exact = false;
        for (size_t i = 0; i < v.size(); ++i) {
          if (!(v[i] < 0.0f)) {
            error = f.path + ": tensor '" + g + "'[" + std::to_string(i) + "] is " +
                    std::to_string(v[i]) + " (A = -exp(A_log) is negative)";
            return false;
          }
          v[i] = std::log(-v[i]);
        }
      }
      // The same row order for Q8_0 / Q6_K blocks kept as they are.
      std::vector<RowRef> rows;
      if (shape.size() == 2) {
        rows = m.rowsOf(g);
        if (int64_t(rows.size()) == t.rows && r > 1) {
          std::vector<float> index(rows.size());
          for (size_t i = 0; i < index.size(); ++i)
            index[i] = float(i);
          untileRows(index, 1, t.skip, nk, r, t.hd);
          std::vector<RowRef> moved;
          for (float i : index)
            moved.push_back(rows[size_t(i)]);
          rows.swap(moved);
        } else if (int64_t(rows.size()) != t.rows) {
          rows.clear();
        }
      }
      m.put(hfLayer(l, p + t.hf), shape, v, g, exact, rows.empty() ? nullptr : &rows);
    }
    if (!m.copy(blk(l, "ssm_norm.weight"), hfLayer(l, p + "norm.weight"), {dv}))
      return false;
    std::vector<float> o;
    std::vector<int64_t> os;
    const std::string go = blk(l, "ssm_out.weight");
    if (!m.load(go, o, os) || !m.sameNumel(go, os, {c.width, nv * dv}))
      return false;
    if (r > 1)
      untileCols(o, c.width, nk, r, dv);
    m.put(hfLayer(l, p + "out_proj.weight"), {c.width, nv * dv}, o, go, true);
  }
  return m.allUsed();
}


// ---------------------------------------------------------------------------
// mamba, mamba2 (conversion/mamba.py MambaModel / Mamba2Model; llama.cpp's
// loaders src/models/mamba.cpp, mamba2.cpp). The tensors come back under
// mamba_ssm's names (import/MambaModel.h), which the Mamba importer stores
// as they are.

/// The keys both generations share; `vocab` from token_embd's rows.
struct MambaKeys {
  int64_t layers = 0, width = 0, convK = 4, inner = 0, state = 0, rank = 0, vocab = 0;
  double eps = 1e-5;
  bool tied = true;
};

bool readMambaKeys(const GgufFile &f, const std::string &a, MambaKeys &k, std::string &error) {
  const int64_t kMax = int64_t(1) << 31;
  if (!f.getInt(a + ".block_count", true, 1, 4096, k.layers, error) ||
      !f.getInt(a + ".embedding_length", true, 1, kMax, k.width, error) ||
      !f.getInt(a + ".ssm.conv_kernel", true, 2, 4, k.convK, error) ||
      !f.getInt(a + ".ssm.inner_size", true, 1, kMax, k.inner, error) ||
      !f.getInt(a + ".ssm.state_size", true, 1, 4096, k.state, error) ||
      !f.getInt(a + ".ssm.time_step_rank", true, 1, kMax, k.rank, error) ||
      !f.getFloat(a + ".attention.layer_norm_rms_epsilon", true, k.eps, error))
    return false;
  if (k.inner % k.width) {
    error = f.path + ": " + a + ".ssm.inner_size " + std::to_string(k.inner) +
            " is not a multiple of embedding_length " + std::to_string(k.width) +
            " (d_inner = expand * d_model)";
    return false;
  }
  const GgufTensor *emb = f.findTensor("token_embd.weight");
  if (!emb || emb->ne.size() != 2 || emb->ne[0] != k.width) {
    error = f.path + ": tensor 'token_embd.weight' is " +
            (emb ? "not (vocab, " + std::to_string(k.width) + ")" : std::string("missing"));
    return false;
  }
  k.vocab = emb->ne[1];
  k.tied = f.findTensor("output.weight") == nullptr;
  return true;
}

/// token_embd, output_norm, output (absent: tied) under mamba_ssm's names.
bool mambaEnds(Mapper &m) {
  return m.copy("token_embd.weight", "backbone.embedding.weight") &&
         m.copy("output_norm.weight", "backbone.norm_f.weight") &&
         m.copy("output.weight", "lm_head.weight", {}, true);
}

/// ssm_a = -exp(A_log) (both converters): stored back as A_log = log(-ssm_a)
/// with `shape`; a value that is not negative is an error naming it.
bool aLogFrom(Mapper &m, const GgufFile &f, const std::string &ga, const std::string &hf,
              const std::vector<int64_t> &shape, std::string &error) {
  std::vector<float> A;
  std::vector<int64_t> as;
  if (!m.load(ga, A, as) || !m.sameNumel(ga, as, shape))
    return false;
  for (size_t i = 0; i < A.size(); ++i) {
    if (!(A[i] < 0.0f)) {
      error = f.path + ": tensor '" + ga + "'[" + std::to_string(i) + "] is " +
              std::to_string(A[i]) + " (A = -exp(A_log) is negative)";
      return false;
    }
    A[i] = std::log(-A[i]);
  }
  m.put(hf, shape, A, ga, false);
  return true;
}

/// The config.json fields Mamba-1 and Mamba-2 share, from the GGUF's keys.
json mambaConfig(const MambaKeys &k, const char *architecture, const char *modelType) {
  json cfg;
  cfg["architectures"] = {architecture};
  cfg["model_type"] = modelType;
  cfg["vocab_size"] = k.vocab;
  cfg["hidden_size"] = k.width;
  cfg["state_size"] = k.state;
  cfg["num_hidden_layers"] = k.layers;
  cfg["expand"] = k.inner / k.width;
  cfg["intermediate_size"] = k.inner;
  cfg["conv_kernel"] = k.convK;
  return cfg;
}

bool mamba1(const GgufFile &f, GgufCheckpoint &out, std::string &error) {
  const std::string a = "mamba";
  MambaKeys k;
  bool dtBcRms = false;
  if (!readMambaKeys(f, a, k, error) || !f.getBool(a + ".ssm.dt_b_c_rms", false, dtBcRms, error))
    return false;
  if (dtBcRms) {
    error = f.path + ": " + a + ".ssm.dt_b_c_rms is true (FalconMamba's RMS norms of dt, B and "
            "C): not supported";
    return false;
  }
  json cfg = mambaConfig(k, "MambaForCausalLM", "mamba");
  cfg["time_step_rank"] = k.rank;
  cfg["layer_norm_epsilon"] = k.eps;
  cfg["use_bias"] = false; // llama.cpp's Mamba has no in_proj / out_proj biases
  cfg["use_conv_bias"] = true;
  cfg["tie_word_embeddings"] = k.tied;
  cfg["torch_dtype"] = "float32";
  out.config = cfg;

  Mapper m(f, out, error);
  if (!mambaEnds(m))
    return false;
  for (int64_t l = 0; l < k.layers; ++l) {
    const std::string p = "backbone.layers." + std::to_string(l) + ".", x = p + "mixer.";
    // The converter squeezed conv1d (d_inner, 1, W) to (d_inner, W).
    if (!m.copy(blk(l, "attn_norm.weight"), p + "norm.weight") ||
        !m.copy(blk(l, "ssm_in.weight"), x + "in_proj.weight") ||
        !m.copy(blk(l, "ssm_conv1d.weight"), x + "conv1d.weight", {k.inner, 1, k.convK}) ||
        !m.copy(blk(l, "ssm_conv1d.bias"), x + "conv1d.bias", {k.inner}) ||
        !m.copy(blk(l, "ssm_x.weight"), x + "x_proj.weight") ||
        !m.copy(blk(l, "ssm_dt.weight"), x + "dt_proj.weight") ||
        !m.copy(blk(l, "ssm_dt.bias"), x + "dt_proj.bias", {k.inner}) ||
        !m.copy(blk(l, "ssm_d"), x + "D", {k.inner}) ||
        !m.copy(blk(l, "ssm_out.weight"), x + "out_proj.weight") ||
        !aLogFrom(m, f, blk(l, "ssm_a"), x + "A_log", {k.inner, k.state}, error))
      return false;
  }
  return m.allUsed();
}

bool mamba2(const GgufFile &f, GgufCheckpoint &out, std::string &error) {
  const std::string a = "mamba2";
  MambaKeys k;
  int64_t groups = 1;
  if (!readMambaKeys(f, a, k, error) ||
      !f.getInt(a + ".ssm.group_count", true, 1, int64_t(1) << 31, groups, error))
    return false;
  const int64_t heads = k.rank; // the converter writes d_inner / head_dim here
  if (k.inner % heads || heads % groups || k.inner % groups) {
    error = f.path + ": " + a + ".ssm.inner_size " + std::to_string(k.inner) +
            ", ssm.time_step_rank (heads) " + std::to_string(heads) + " and ssm.group_count " +
            std::to_string(groups) + " do not fit (heads divide inner_size, groups divide heads)";
    return false;
  }
  json cfg = mambaConfig(k, "Mamba2ForCausalLM", "mamba2");
  cfg["num_heads"] = heads;
  cfg["head_dim"] = k.inner / heads;
  cfg["n_groups"] = groups;
  cfg["layer_norm_epsilon"] = k.eps;
  // As llama.cpp's Mamba-2 computes: no in_proj / out_proj biases, a conv
  // bias, y silu(z) then the RMS norm per group, dt not clamped.
  cfg["use_bias"] = false;
  cfg["use_conv_bias"] = true;
  cfg["rms_norm"] = true;
  cfg["norm_before_gate"] = false;
  cfg["tie_word_embeddings"] = k.tied;
  cfg["torch_dtype"] = "float32";
  out.config = cfg;

  Mapper m(f, out, error);
  if (!mambaEnds(m))
    return false;
  const int64_t convDim = k.inner + 2 * groups * k.state;
  for (int64_t l = 0; l < k.layers; ++l) {
    const std::string p = "backbone.layers." + std::to_string(l) + ".", x = p + "mixer.";
    // conv1d squeezed to (C, W); A and D stored (H, 1); the norm (G, d_inner / G).
    if (!m.copy(blk(l, "attn_norm.weight"), p + "norm.weight") ||
        !m.copy(blk(l, "ssm_in.weight"), x + "in_proj.weight") ||
        !m.copy(blk(l, "ssm_conv1d.weight"), x + "conv1d.weight", {convDim, 1, k.convK}) ||
        !m.copy(blk(l, "ssm_conv1d.bias"), x + "conv1d.bias", {convDim}) ||
        !m.copy(blk(l, "ssm_dt.bias"), x + "dt_bias", {heads}) ||
        !m.copy(blk(l, "ssm_d"), x + "D", {heads}) ||
        !m.copy(blk(l, "ssm_norm.weight"), x + "norm.weight", {k.inner}) ||
        !m.copy(blk(l, "ssm_out.weight"), x + "out_proj.weight") ||
        !aLogFrom(m, f, blk(l, "ssm_a"), x + "A_log", {heads}, error))
      return false;
  }
  return m.allUsed();
}


// ---------------------------------------------------------------------------
// falcon-h1 (conversion/falcon_h1.py FalconH1Model; src/models/falcon-h1.cpp)

bool falconH1(const GgufFile &f, GgufCheckpoint &out, std::string &error) {
  const std::string a = "falcon-h1";
  Common c;
  if (!readCommon(f, a, c, error))
    return false;
  const int64_t kMax = int64_t(1) << 31;
  int64_t headDim = 0, valueDim = 0, convK = 4, dState = 0, groups = 1, dInner = 0, nHeads = 0;
  double attnScale = 0;
  if (!f.getInt(a + ".attention.key_length", false, 1, 4096, headDim, error) ||
      !f.getInt(a + ".attention.value_length", false, 1, 4096, valueDim, error) ||
      !f.getFloat(a + ".attention.scale", false, attnScale, error) ||
      !f.getInt(a + ".ssm.conv_kernel", true, 2, 4, convK, error) ||
      !f.getInt(a + ".ssm.state_size", true, 1, 4096, dState, error) ||
      !f.getInt(a + ".ssm.group_count", true, 1, kMax, groups, error) ||
      !f.getInt(a + ".ssm.inner_size", true, 1, kMax, dInner, error) ||
      !f.getInt(a + ".ssm.time_step_rank", true, 1, kMax, nHeads, error))
    return false;
  for (size_t l = 0; l < c.kvPerLayer.size(); ++l)
    if (c.kvPerLayer[l] == 0) {
      error = f.path + ": " + a + ".attention.head_count_kv[" + std::to_string(l) +
              "] is 0: every Falcon-H1 layer has attention beside its Mamba-2 mixer";
      return false;
    }
  if (c.heads == 0) {
    error = f.path + ": " + a + ".attention.head_count is 0";
    return false;
  }
  if (headDim == 0)
    headDim = c.width / c.heads;
  if (valueDim != 0 && valueDim != headDim) {
    error = f.path + ": " + a + ".attention.value_length " + std::to_string(valueDim) +
            " differs from key_length " + std::to_string(headDim) + " (not supported)";
    return false;
  }
  if (dInner % nHeads || nHeads % groups) {
    error = f.path + ": " + a + ".ssm.inner_size " + std::to_string(dInner) +
            ", ssm.time_step_rank (heads) " + std::to_string(nHeads) + " and ssm.group_count " +
            std::to_string(groups) + " do not fit (heads divide inner_size, groups divide heads)";
    return false;
  }
  // The multipliers of the Hugging Face config are folded into the weights
  // by the converter (FalconH1Model.modify_tensors), so every one is 1 here;
  // llama.cpp reads no time_step_limit (dt is not clamped) and gates before
  // its grouped RMS norm. Attention scale: attention.scale, else
  // 1/sqrt(head_dim) (the key multiplier is inside attn_k).
  json cfg;
  cfg["architectures"] = {"FalconH1ForCausalLM"};
  cfg["model_type"] = "falcon_h1";
  commonConfig(cfg, c);
  cfg["rms_norm_eps"] = c.eps;
  cfg["intermediate_size"] = c.ff;
  cfg["head_dim"] = headDim;
  cfg["hidden_act"] = "silu";
  for (const char *key : {"embedding_multiplier", "lm_head_multiplier", "attention_in_multiplier",
                          "attention_out_multiplier", "ssm_in_multiplier", "ssm_out_multiplier"})
    cfg[key] = 1.0;
  cfg["key_multiplier"] = attnScale > 0 ? attnScale * std::sqrt(double(headDim)) : 1.0;
  cfg["mlp_multipliers"] = {1.0, 1.0};
  cfg["ssm_multipliers"] = {1.0, 1.0, 1.0, 1.0, 1.0};
  cfg["mamba_n_heads"] = nHeads;
  cfg["mamba_d_ssm"] = dInner;
  cfg["mamba_d_head"] = dInner / nHeads;
  cfg["mamba_d_state"] = dState;
  cfg["mamba_n_groups"] = groups;
  cfg["mamba_d_conv"] = convK;
  // The conv bias and the Mamba norm are in every layer or none: read from
  // any, so a file with them missing from some layers names a missing one.
  const bool anyConvBias = anyLayerHas(f, c.layers, "ssm_conv1d.bias"),
             anyNorm = anyLayerHas(f, c.layers, "ssm_norm.weight");
  cfg["mamba_conv_bias"] = anyConvBias;
  cfg["mamba_proj_bias"] = false;
  cfg["projectors_bias"] = false;
  cfg["mamba_rms_norm"] = anyNorm;
  cfg["mamba_norm_before_gate"] = false;
  cfg["attention_bias"] = false;
  cfg["mlp_bias"] = false;
  out.config = cfg;

  Mapper m(f, out, error);
  if (!m.copy("token_embd.weight", "model.embed_tokens.weight") ||
      !m.copy("output_norm.weight", "model.final_layernorm.weight") ||
      !m.copy("output.weight", "lm_head.weight", {}, true))
    return false;
  const int64_t convDim = dInner + 2 * groups * dState;
  const bool convBias = cfg["mamba_conv_bias"], norm = cfg["mamba_rms_norm"];
  for (int64_t l = 0; l < c.layers; ++l) {
    for (const char *bias : {"attn_q.bias", "attn_k.bias", "attn_v.bias", "attn_output.bias"})
      if (m.has(blk(l, bias))) {
        error = f.path + ": tensor '" + blk(l, bias) +
                "': Falcon-H1 attention with biases is not supported (llama.cpp loads "
                "attn_output.bias but never adds it; ssm-import does not guess)";
        return false;
      }
    const std::string p = "mamba.";
    if (!m.copy(blk(l, "attn_norm.weight"), hfLayer(l, "input_layernorm.weight")) ||
        // gguf-py maps "pre_ff_layernorm.weight" whole (FFN_PRE_NORM), so
        // the converter writes it without the ".weight" suffix.
        !m.copy(blk(l, "ffn_norm"), hfLayer(l, "pre_ff_layernorm.weight")) ||
        !m.copy(blk(l, "ffn_gate.weight"), hfLayer(l, "feed_forward.gate_proj.weight")) ||
        !m.copy(blk(l, "ffn_up.weight"), hfLayer(l, "feed_forward.up_proj.weight")) ||
        !m.copy(blk(l, "ffn_down.weight"), hfLayer(l, "feed_forward.down_proj.weight")) ||
        // NeoX RoPE in llama.cpp: q and k rows are not permuted.
        !m.copy(blk(l, "attn_q.weight"), hfLayer(l, "self_attn.q_proj.weight")) ||
        !m.copy(blk(l, "attn_k.weight"), hfLayer(l, "self_attn.k_proj.weight")) ||
        !m.copy(blk(l, "attn_v.weight"), hfLayer(l, "self_attn.v_proj.weight")) ||
        !m.copy(blk(l, "attn_output.weight"), hfLayer(l, "self_attn.o_proj.weight")) ||
        !m.copy(blk(l, "ssm_in.weight"), hfLayer(l, p + "in_proj.weight")) ||
        !m.copy(blk(l, "ssm_conv1d.weight"), hfLayer(l, p + "conv1d.weight"), {convDim, 1, convK}) ||
        (convBias && !m.copy(blk(l, "ssm_conv1d.bias"), hfLayer(l, p + "conv1d.bias"), {convDim})) ||
        !m.copy(blk(l, "ssm_dt.bias"), hfLayer(l, p + "dt_bias"), {nHeads}) ||
        !m.copy(blk(l, "ssm_d"), hfLayer(l, p + "D"), {nHeads}) ||
        (norm && !m.copy(blk(l, "ssm_norm.weight"), hfLayer(l, p + "norm.weight"), {dInner})) ||
        !m.copy(blk(l, "ssm_out.weight"), hfLayer(l, p + "out_proj.weight")) ||
        !aLogFrom(m, f, blk(l, "ssm_a"), hfLayer(l, p + "A_log"), {nHeads}, error))
      return false;
  }
  return m.allUsed();
}

// ---------------------------------------------------------------------------
// rwkv6 (conversion/rwkv.py Rwkv6Model; src/models/rwkv6.cpp) -> the tensors
// of an rwkv.cpp file (GgufImport.h).

/// Builds GgufCheckpoint::rwkv, the rwkv.cpp file of an RWKV GGUF.
struct RwkvOut {
  RwkvOut(const GgufFile &f, GgufCheckpoint &out, std::string &error, int64_t layers,
          int64_t vocab, int64_t width, double eps)
      : f(f), out(out), error(error) {
    RwkvFile &r = out.rwkv;
    r.version = 101;
    r.nVocab = uint32_t(vocab);
    r.nEmbed = uint32_t(width);
    r.nLayer = uint32_t(layers);
    r.dataType = 0;
    out.rwkvLayerNormEps = eps;
  }

  /// GGUF tensor `g` (numel checked against `pyShape` x `parts`) as rwkv.cpp
  /// tensor `name` of PyTorch shape `pyShape`: part `part` of `parts` equal
  /// pieces (-1: all), times `scale`. F16 stays F16 when unscaled, other
  /// types become f32 (named in out.widened).
  bool put(const std::string &g, const std::string &name, std::vector<int64_t> pyShape,
           float scale = 1.0f, int64_t part = -1, int64_t parts = 1) {
    const GgufTensor *t = f.findTensor(g);
    if (!t) {
      error = f.path + ": missing tensor '" + g + "'";
      return false;
    }
    std::vector<float> v;
    std::string err;
    if (!ggufToFloats(*t, v, err)) {
      error = f.path + ": " + err;
      return false;
    }
    int64_t n = 1;
    for (int64_t d : pyShape)
      n *= d;
    if (int64_t(v.size()) != n * parts) {
      error = f.path + ": tensor '" + g + "' has " + std::to_string(v.size()) +
              " elements, but the metadata implies " + std::to_string(n * parts);
      return false;
    }
    used.insert(g);
    if (name.empty())
      return true; // read and checked, not used (RWKV-7's dummy layer-0 v0/v1/v2)
    RwkvTensor rt;
    rt.name = name;
    rt.sizes.assign(pyShape.rbegin(), pyShape.rend());
    if (part >= 0)
      rt.data.assign(v.begin() + part * n, v.begin() + (part + 1) * n);
    else
      rt.data = std::move(v);
    if (scale != 1.0f)
      for (float &x : rt.data)
        x *= scale;
    const bool f16 = t->type == uint32_t(GgmlType::F16) && scale == 1.0f;
    rt.type = f16 ? 1 : 0;
    anyF16 = anyF16 || f16;
    if (!f16 && t->type != uint32_t(GgmlType::F32) && part <= 0)
      out.widened.push_back(g + " (" + ggmlTypeName(t->type) + ")");
    out.ggmlType[rt.name] = t->type;
    out.rwkv.index[rt.name] = out.rwkv.tensors.size();
    out.rwkv.tensors.push_back(std::move(rt));
    return true;
  }

  /// Every GGUF tensor used (else an error naming one), the summary.
  bool finish(const std::string &arch) {
    out.rwkv.dataType = anyF16 ? 1 : 0;
    for (const GgufTensor &t : f.tensors)
      if (!used.count(t.name)) {
        error = f.path + ": tensor '" + t.name + "' is not one the " + arch +
                " import uses (an unsupported variant of the architecture?)";
        return false;
      }
    std::map<std::string, int> counts;
    for (const GgufTensor &t : f.tensors)
      ++counts[ggmlTypeName(t.type)];
    for (const auto &[name, n] : counts)
      out.sourceTypes += (out.sourceTypes.empty() ? "" : " + ") + name +
                         (counts.size() > 1 ? " x" + std::to_string(n) : std::string());
    return true;
  }

  const GgufFile &f;
  GgufCheckpoint &out;
  std::string &error;
  std::set<std::string> used;
  bool anyF16 = false;
};

bool rwkv6(const GgufFile &f, GgufCheckpoint &out, std::string &error) {
  const std::string a = "rwkv6";
  const int64_t kMax = int64_t(1) << 31;
  int64_t layers = 0, width = 0, headSize = 0, mixDim = 0, decayDim = 0, ff = 0, rescale = 0,
          shifts = 2;
  double eps = 1e-5;
  if (!f.getInt(a + ".block_count", true, 1, 4096, layers, error) ||
      !f.getInt(a + ".embedding_length", true, 1, kMax, width, error) ||
      !f.getInt(a + ".wkv.head_size", true, 1, 4096, headSize, error) ||
      !f.getInt(a + ".time_mix_extra_dim", true, 1, kMax, mixDim, error) ||
      !f.getInt(a + ".time_decay_extra_dim", true, 1, kMax, decayDim, error) ||
      !f.getInt(a + ".feed_forward_length", true, 1, kMax, ff, error) ||
      !f.getInt(a + ".rescale_every_n_layers", false, 0, 4096, rescale, error) ||
      !f.getInt(a + ".token_shift_count", false, 1, 16, shifts, error) ||
      !f.getFloat(a + ".attention.layer_norm_epsilon", false, eps, error))
    return false;
  if (rescale > 0 && (layers - 1) / rescale > 64) {
    error = f.path + ": " + a + ".rescale_every_n_layers " + std::to_string(rescale) + " with " +
            std::to_string(layers) + " layers scales weights by more than 2^64";
    return false;
  }
  if (width % headSize || shifts != 2) {
    error = f.path + ": " + a + ".wkv.head_size " + std::to_string(headSize) +
            " does not divide embedding_length " + std::to_string(width) +
            ", or token_shift_count " + std::to_string(shifts) + " is not 2";
    return false;
  }
  const GgufTensor *emb = f.findTensor("token_embd.weight");
  if (!emb || emb->ne.size() != 2 || emb->ne[0] != width) {
    error = f.path + ": tensor 'token_embd.weight' is " +
            (emb ? "not (vocab, " + std::to_string(width) + ")" : std::string("missing"));
    return false;
  }
  const int64_t heads = width / headSize;
  RwkvOut o(f, out, error, layers, emb->ne[1], width, eps);
  auto put = [&](const std::string &g, const std::string &name, std::vector<int64_t> pyShape,
                 float scale = 1.0f, int64_t part = -1, int64_t parts = 1) {
    return o.put(g, name, std::move(pyShape), scale, part, parts);
  };
  const int64_t C = width, V = emb->ne[1];
  if (!put("token_embd.weight", "emb.weight", {V, C}) ||
      !put("token_embd_norm.weight", "blocks.0.ln0.weight", {C}) ||
      !put("token_embd_norm.bias", "blocks.0.ln0.bias", {C}) ||
      !put("output_norm.weight", "ln_out.weight", {C}) ||
      !put("output_norm.bias", "ln_out.bias", {C}) ||
      !put("output.weight", "head.weight", {V, C}))
    return false;
  for (int64_t l = 0; l < layers; ++l) {
    // The bonus is (head_size, heads) in ggml order: the head split.
    if (const GgufTensor *t = f.findTensor(blk(l, "time_mix_first.weight"));
        t && t->ne != std::vector<int64_t>{headSize, heads}) {
      error = f.path + ": tensor '" + blk(l, "time_mix_first.weight") + "' has ne " +
              rt::shapeList(t->ne) + ", but " + a + ".wkv.head_size " + std::to_string(headSize) +
              " implies [" + std::to_string(headSize) + ", " + std::to_string(heads) + "]";
      return false;
    }
    const std::string p = "blocks." + std::to_string(l) + ".";
    const float back = rescale > 0 ? std::ldexp(1.0f, int(l / rescale)) : 1.0f;
    if (!put(blk(l, "attn_norm.weight"), p + "ln1.weight", {C}) ||
        !put(blk(l, "attn_norm.bias"), p + "ln1.bias", {C}) ||
        !put(blk(l, "attn_norm_2.weight"), p + "ln2.weight", {C}) ||
        !put(blk(l, "attn_norm_2.bias"), p + "ln2.bias", {C}) ||
        !put(blk(l, "time_mix_lerp_x.weight"), p + "att.time_maa_x", {C}) ||
        !put(blk(l, "time_mix_w1.weight"), p + "att.time_maa_w1", {5 * mixDim, C}) ||
        !put(blk(l, "time_mix_w2.weight"), p + "att.time_maa_w2", {5, C, mixDim}) ||
        !put(blk(l, "time_mix_decay.weight"), p + "att.time_decay", {heads, headSize, 1}) ||
        !put(blk(l, "time_mix_decay_w1.weight"), p + "att.time_decay_w1", {decayDim, C}) ||
        !put(blk(l, "time_mix_decay_w2.weight"), p + "att.time_decay_w2", {C, decayDim}) ||
        !put(blk(l, "time_mix_first.weight"), p + "att.time_faaaa", {heads, headSize, 1}) ||
        !put(blk(l, "time_mix_receptance.weight"), p + "att.receptance.weight", {C, C}) ||
        !put(blk(l, "time_mix_key.weight"), p + "att.key.weight", {C, C}) ||
        !put(blk(l, "time_mix_value.weight"), p + "att.value.weight", {C, C}) ||
        !put(blk(l, "time_mix_gate.weight"), p + "att.gate.weight", {C, C}) ||
        !put(blk(l, "time_mix_output.weight"), p + "att.output.weight", {C, C}, back) ||
        !put(blk(l, "time_mix_ln.weight"), p + "att.ln_x.weight", {C}) ||
        !put(blk(l, "time_mix_ln.bias"), p + "att.ln_x.bias", {C}) ||
        !put(blk(l, "channel_mix_lerp_k.weight"), p + "ffn.time_maa_k", {C}) ||
        !put(blk(l, "channel_mix_lerp_r.weight"), p + "ffn.time_maa_r", {C}) ||
        !put(blk(l, "channel_mix_key.weight"), p + "ffn.key.weight", {ff, C}) ||
        !put(blk(l, "channel_mix_value.weight"), p + "ffn.value.weight", {C, ff}, back) ||
        !put(blk(l, "channel_mix_receptance.weight"), p + "ffn.receptance.weight", {C, C}))
      return false;
    // The five token-shift mixes: fused (C, 1, 1, 5) in the order w k v r g,
    // or (older files) one tensor each.
    const char *mixes[] = {"w", "k", "v", "r", "g"};
    const std::string fused = blk(l, "time_mix_lerp_fused.weight");
    for (int64_t i = 0; i < 5; ++i) {
      const std::string name = p + "att.time_maa_" + mixes[i];
      if (f.findTensor(fused) ? !put(fused, name, {C}, 1.0f, i, 5)
                              : !put(blk(l, std::string("time_mix_lerp_") + mixes[i] + ".weight"),
                                     name, {C}))
        return false;
    }
  }
  return o.finish("rwkv6");
}

// ---------------------------------------------------------------------------
// rwkv7 (conversion/rwkv.py Rwkv7Model; src/models/rwkv7.cpp) -> the tensors
// of an rwkv.cpp file (GgufImport.h).

bool rwkv7(const GgufFile &f, GgufCheckpoint &out, std::string &error) {
  const std::string a = "rwkv7";
  const int64_t kMax = int64_t(1) << 31;
  int64_t layers = 0, width = 0, headSize = 0, decay = 0, iclr = 0, vmix = 0, gate = 0, ff = 0;
  double eps = 1e-5;
  if (!f.getInt(a + ".block_count", true, 1, 4096, layers, error) ||
      !f.getInt(a + ".embedding_length", true, 1, kMax, width, error) ||
      !f.getInt(a + ".wkv.head_size", true, 1, 4096, headSize, error) ||
      !f.getInt(a + ".attention.decay_lora_rank", true, 1, kMax, decay, error) ||
      !f.getInt(a + ".attention.iclr_lora_rank", true, 1, kMax, iclr, error) ||
      !f.getInt(a + ".attention.value_residual_mix_lora_rank", true, 1, kMax, vmix, error) ||
      !f.getInt(a + ".attention.gate_lora_rank", false, 0, kMax, gate, error) ||
      !f.getInt(a + ".feed_forward_length", true, 1, kMax, ff, error) ||
      !f.getFloat(a + ".attention.layer_norm_epsilon", false, eps, error))
    return false;
  if (width % headSize) {
    error = f.path + ": " + a + ".wkv.head_size " + std::to_string(headSize) +
            " does not divide embedding_length " + std::to_string(width);
    return false;
  }
  if (gate == 0) {
    error = f.path + ": " + a + ".attention.gate_lora_rank is 0 or missing: RWKV-7 without the "
            "output gate is not supported";
    return false;
  }
  const GgufTensor *emb = f.findTensor("token_embd.weight");
  if (!emb || emb->ne.size() != 2 || emb->ne[0] != width) {
    error = f.path + ": tensor 'token_embd.weight' is " +
            (emb ? "not (vocab, " + std::to_string(width) + ")" : std::string("missing"));
    return false;
  }
  const int64_t C = width, V = emb->ne[1], heads = width / headSize;
  RwkvOut o(f, out, error, layers, V, width, eps);
  if (!o.put("token_embd.weight", "emb.weight", {V, C}) ||
      !o.put("token_embd_norm.weight", "blocks.0.ln0.weight", {C}) ||
      !o.put("token_embd_norm.bias", "blocks.0.ln0.bias", {C}) ||
      !o.put("output_norm.weight", "ln_out.weight", {C}) ||
      !o.put("output_norm.bias", "ln_out.bias", {C}) ||
      !o.put("output.weight", "head.weight", {V, C}))
    return false;
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = "blocks." + std::to_string(l) + ".att.";
    const std::string q = "blocks." + std::to_string(l) + ".";
    // Per-channel vectors are (1, 1, C) in rwkv.cpp's files, r_k (heads,
    // head_size); the six token-shift mixes (C, 1, 1, 6) in the order
    // r w k v a g are rwkv.cpp's x_rwkvag (6, 1, C). The low-rank pairs
    // have the same layout in both formats.
    // Layer 0 has no value-residual mix: llama.cpp's converter writes copies
    // of a0 / a1 / a2 there as v0 / v1 / v2, read and dropped here.
    const std::string v0 = l == 0 ? "" : p + "v0", v1 = l == 0 ? "" : p + "v1",
                      v2 = l == 0 ? "" : p + "v2";
    const int64_t vr = l == 0 ? iclr : vmix;
    if (!o.put(blk(l, "attn_norm.weight"), q + "ln1.weight", {C}) ||
        !o.put(blk(l, "attn_norm.bias"), q + "ln1.bias", {C}) ||
        !o.put(blk(l, "attn_norm_2.weight"), q + "ln2.weight", {C}) ||
        !o.put(blk(l, "attn_norm_2.bias"), q + "ln2.bias", {C}) ||
        !o.put(blk(l, "time_mix_lerp_fused.weight"), p + "x_rwkvag", {6, 1, C}) ||
        !o.put(blk(l, "time_mix_w0.weight"), p + "w0", {1, 1, C}) ||
        !o.put(blk(l, "time_mix_w1.weight"), p + "w1", {decay, C}) ||
        !o.put(blk(l, "time_mix_w2.weight"), p + "w2", {C, decay}) ||
        !o.put(blk(l, "time_mix_a0.weight"), p + "a0", {1, 1, C}) ||
        !o.put(blk(l, "time_mix_a1.weight"), p + "a1", {iclr, C}) ||
        !o.put(blk(l, "time_mix_a2.weight"), p + "a2", {C, iclr}) ||
        !o.put(blk(l, "time_mix_v0.weight"), v0, {1, 1, C}) ||
        !o.put(blk(l, "time_mix_v1.weight"), v1, {vr, C}) ||
        !o.put(blk(l, "time_mix_v2.weight"), v2, {C, vr}) ||
        !o.put(blk(l, "time_mix_g1.weight"), p + "g1", {gate, C}) ||
        !o.put(blk(l, "time_mix_g2.weight"), p + "g2", {C, gate}) ||
        !o.put(blk(l, "time_mix_k_k.weight"), p + "k_k", {1, 1, C}) ||
        !o.put(blk(l, "time_mix_k_a.weight"), p + "k_a", {1, 1, C}) ||
        !o.put(blk(l, "time_mix_r_k.weight"), p + "r_k", {heads, headSize}) ||
        !o.put(blk(l, "time_mix_receptance.weight"), p + "receptance.weight", {C, C}) ||
        !o.put(blk(l, "time_mix_key.weight"), p + "key.weight", {C, C}) ||
        !o.put(blk(l, "time_mix_value.weight"), p + "value.weight", {C, C}) ||
        !o.put(blk(l, "time_mix_output.weight"), p + "output.weight", {C, C}) ||
        !o.put(blk(l, "time_mix_ln.weight"), p + "ln_x.weight", {C}) ||
        !o.put(blk(l, "time_mix_ln.bias"), p + "ln_x.bias", {C}) ||
        !o.put(blk(l, "channel_mix_lerp_k.weight"), q + "ffn.x_k", {1, 1, C}) ||
        !o.put(blk(l, "channel_mix_key.weight"), q + "ffn.key.weight", {ff, C}) ||
        !o.put(blk(l, "channel_mix_value.weight"), q + "ffn.value.weight", {C, ff}))
      return false;
  }
  return o.finish(a);
}

struct GgufArch {
  const char *name;
  bool (*convert)(const GgufFile &, GgufCheckpoint &, std::string &);
};

const std::vector<GgufArch> &ggufArchs() {
  static const std::vector<GgufArch> archs = {
      {"lfm2", lfm2},
      {"granitehybrid", graniteHybrid},
      {"qwen35", qwen35},
      {"mamba", mamba1},
      {"mamba2", mamba2},
      {"rwkv6", rwkv6},
      {"rwkv7", rwkv7},
      {"falcon-h1", falconH1},
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
