// RWKV models: architecture detection and tensor checks, model.json, states.
#include "import/RwkvModel.h"

#include <climits>

#include <nlohmann/json.hpp>

#include <cstdlib>

namespace ssm::importer {

namespace {

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::string sizesString(const std::vector<int64_t> &sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i)
    s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

/// The layer index of "blocks.N.<rest>", or -1.
int64_t layerOf(const std::string &name) {
  if (name.rfind("blocks.", 0) != 0)
    return -1;
  size_t end = name.find('.', 7);
  if (end == std::string::npos || end == 7)
    return -1;
  int64_t n = 0;
  for (size_t i = 7; i < end; ++i) {
    if (name[i] < '0' || name[i] > '9')
      return -1;
    n = n * 10 + (name[i] - '0');
    if (n > (int64_t(1) << 40))
      return -1;
  }
  return n;
}

class Checker {
public:
  Checker(const RwkvFile &f, RwkvConfig &c, std::string &error) : f(f), c(c), error(error) {}

  const RwkvTensor *get(const std::string &name, const std::string &expected) {
    const RwkvTensor *t = f.find(name);
    if (!t)
      error = "missing tensor '" + name + "' (" + c.architecture + " needs " + expected + ")";
    return t;
  }

  std::string where(const RwkvTensor &t) {
    return "tensor '" + t.name + "' (record at byte offset " + std::to_string(t.offset) +
           ", rwkv.cpp sizes " + sizesString(t.sizes) + ", shape " + shapeString(t.shape()) +
           ")";
  }

  /// Exact row-major shape.
  bool shape(const std::string &name, const std::vector<int64_t> &want) {
    const RwkvTensor *t = get(name, "shape " + shapeString(want));
    if (!t)
      return false;
    if (t->shape() != want) {
      error = where(*t) + " is misshapen: " + c.architecture + " with n_embed " +
              std::to_string(c.nEmbed) + " needs shape " + shapeString(want) +
              " (rwkv.cpp sizes " + sizesString({want.rbegin(), want.rend()}) + ")";
      return false;
    }
    c.params.push_back({name, t->shape()});
    return true;
  }

  /// A vector of one of the element counts in `counts` (size-1 dims allowed).
  bool vector(const std::string &name, const std::vector<int64_t> &counts,
              const std::string &what) {
    const RwkvTensor *t = get(name, what);
    if (!t)
      return false;
    bool ok = false;
    for (int64_t n : counts)
      ok = ok || t->numel() == n;
    int nonUnit = 0;
    for (int64_t s : t->sizes)
      nonUnit += s != 1;
    // Decay and bonus of RWKV-5 keep their (heads, head_size, 1) layout.
    // So do RWKV-7's r_k (heads, head_size) and x_rwkvag (6, 1, n_embed).
    bool multiDim = name.find("time_decay") != std::string::npos ||
                    name.find("time_faaaa") != std::string::npos ||
                    name.find("time_first") != std::string::npos ||
                    name.find("att.r_k") != std::string::npos;
    if (!ok || (nonUnit > 1 && !multiDim)) {
      error = where(*t) + " is misshapen: " + c.architecture + " needs " + what;
      return false;
    }
    c.params.push_back({name, t->shape()});
    return true;
  }

  /// A low-rank adapter matrix of shape (rows, cols) where one of the two
  /// is the rank: `rank` is read from the tensor when 0 (then it must be
  /// positive), else it must match (every layer has the ranks of the first).
  bool lowRank(const std::string &name, int64_t rows, int64_t cols, int64_t &rank,
               bool rankIsRows) {
    const RwkvTensor *t = get(name, rankIsRows ? "shape (rank, n_embed)" : "shape (n_embed, rank)");
    if (!t)
      return false;
    std::vector<int64_t> sh = t->shape();
    int64_t got = sh.size() == 2 ? (rankIsRows ? sh[0] : sh[1]) : -1;
    if (rank == 0 && got > 0)
      rank = got;
    std::vector<int64_t> want = rankIsRows ? std::vector<int64_t>{rank, cols}
                                           : std::vector<int64_t>{rows, rank};
    return shape(name, want);
  }

  const RwkvFile &f;
  RwkvConfig &c;
  std::string &error;
};

/// The head count from a per-channel tensor stored (heads, head_size[, 1])
/// (RWKV-6's time_faaaa, RWKV-7's r_k): its first dim of size > 1 when it has
/// two, else 1 head when the tensor has n_embed values.
int64_t headsOf(const RwkvTensor &t, int64_t nEmbed) {
  std::vector<int64_t> big;
  for (int64_t s : t.shape())
    if (s != 1)
      big.push_back(s);
  if (big.size() == 2 && big[0] * big[1] == nEmbed)
    return big[0];
  if (big.size() == 1 && big[0] == nEmbed)
    return 1;
  return 0;
}

/// RWKV-6 (Finch) blocks: data-dependent token shift (time_maa_* and the
/// low-rank time_maa_w1/w2, 5 mixes w k v r g), data-dependent decay
/// (time_decay + time_decay_w2 tanh(time_decay_w1 x)), bonus time_faaaa,
/// ln_x, gate; channel mixing with time_maa_k/r.
bool analyseV6Blocks(Checker &k, RwkvConfig &c) {
  const int64_t C = c.nEmbed, F = c.ffnDim;
  std::string perChannel = "n_embed = " + std::to_string(C) + " values";
  int64_t mixRank5 = 0, decayRank = 0;
  for (int64_t l = 0; l < c.nLayer; ++l) {
    std::string p = "blocks." + std::to_string(l) + ".";
    for (const char *n : {"ln1.weight", "ln1.bias", "ln2.weight", "ln2.bias"})
      if (!k.shape(p + n, {C}))
        return false;
    for (const char *n : {"att.time_maa_x", "att.time_maa_w", "att.time_maa_k", "att.time_maa_v",
                          "att.time_maa_r", "att.time_maa_g"})
      if (!k.vector(p + n, {C}, perChannel))
        return false;
    // time_maa_w1: (5 x rank, n_embed) as stored (rwkv.cpp transposes
    // PyTorch's (n_embed, 5 x rank)); time_maa_w2: (5, n_embed, rank).
    if (!k.lowRank(p + "att.time_maa_w1", 0, C, mixRank5, true))
      return false;
    if (mixRank5 % 5 != 0) {
      k.error = k.where(*k.f.find(p + "att.time_maa_w1")) +
                " is misshapen: RWKV-6 needs (5 x rank, n_embed), 5 mixes (w, k, v, r, g)";
      return false;
    }
    if (!k.shape(p + "att.time_maa_w2", {5, C, mixRank5 / 5}))
      return false;
    std::string what = "heads x head_size = " + std::to_string(C) + " values";
    if (!k.vector(p + "att.time_decay", {C}, what) ||
        !k.lowRank(p + "att.time_decay_w1", 0, C, decayRank, true) ||
        !k.lowRank(p + "att.time_decay_w2", C, 0, decayRank, false) ||
        !k.vector(p + "att.time_faaaa", {C}, what))
      return false;
    for (const char *n : {"att.receptance.weight", "att.key.weight", "att.value.weight",
                          "att.gate.weight", "att.output.weight"})
      if (!k.shape(p + n, {C, C}))
        return false;
    if (!k.shape(p + "att.ln_x.weight", {C}) || !k.shape(p + "att.ln_x.bias", {C}) ||
        !k.vector(p + "ffn.time_maa_k", {C}, perChannel) ||
        !k.vector(p + "ffn.time_maa_r", {C}, perChannel) ||
        !k.shape(p + "ffn.key.weight", {F, C}) || !k.shape(p + "ffn.receptance.weight", {C, C}) ||
        !k.shape(p + "ffn.value.weight", {C, F}))
      return false;
  }
  return true;
}

/// RWKV-7 (Goose) blocks: token shift x_rwkvag (6 mixes r w k v a g, stored
/// (6, 1, n_embed)), low-rank w (w0, w1, w2), a (a0, a1, a2), v (v0, v1,
/// v2; from layer 1: the mix towards layer 0's v), g (g1, g2), k_k, k_a, r_k
/// (heads, head_size), ln_x; channel mixing x_k, key, value (no receptance).
bool analyseV7Blocks(Checker &k, RwkvConfig &c) {
  const int64_t C = c.nEmbed, F = c.ffnDim;
  std::string perChannel = "n_embed = " + std::to_string(C) + " values";
  int64_t wRank = 0, aRank = 0, vRank = 0, gRank = 0;
  for (int64_t l = 0; l < c.nLayer; ++l) {
    std::string p = "blocks." + std::to_string(l) + ".";
    for (const char *n : {"ln1.weight", "ln1.bias", "ln2.weight", "ln2.bias"})
      if (!k.shape(p + n, {C}))
        return false;
    const RwkvTensor *mix = k.get(p + "att.x_rwkvag", "shape (6, 1, n_embed)");
    if (!mix)
      return false;
    if (mix->shape() != std::vector<int64_t>{6, 1, C} && mix->shape() != std::vector<int64_t>{6, C}) {
      k.error = k.where(*mix) + " is misshapen: RWKV-7 needs (6, 1, " + std::to_string(C) +
                "), the mixes of r, w, k, v, a, g";
      return false;
    }
    c.params.push_back({mix->name, mix->shape()});
    // As stored: x1 (rank, n_embed) and x2 (n_embed, rank), y = x2 (x1 x).
    auto adapterT = [&](const std::string &n, int64_t &rank, bool bias) {
      return (!bias || k.vector(p + "att." + n + "0", {C}, perChannel)) &&
             k.lowRank(p + "att." + n + "1", 0, C, rank, true) &&
             k.lowRank(p + "att." + n + "2", C, 0, rank, false);
    };
    if (!adapterT("w", wRank, true) || !adapterT("a", aRank, true) ||
        (l > 0 && !adapterT("v", vRank, true)) || !adapterT("g", gRank, false))
      return false;
    if (l == 0 && k.f.find(p + "att.v0")) {
      k.error = "tensor '" + p + "att.v0' is in layer 0, whose v is the v_first of the others "
                "(RWKV-7 has v0, v1, v2 from layer 1 on)";
      return false;
    }
    std::string what = "heads x head_size = " + std::to_string(C) + " values";
    if (!k.vector(p + "att.k_k", {C}, perChannel) || !k.vector(p + "att.k_a", {C}, perChannel) ||
        !k.vector(p + "att.r_k", {C}, what))
      return false;
    for (const char *n : {"att.receptance.weight", "att.key.weight", "att.value.weight",
                          "att.output.weight"})
      if (!k.shape(p + n, {C, C}))
        return false;
    if (!k.shape(p + "att.ln_x.weight", {C}) || !k.shape(p + "att.ln_x.bias", {C}) ||
        !k.vector(p + "ffn.x_k", {C}, perChannel) || !k.shape(p + "ffn.key.weight", {F, C}) ||
        !k.shape(p + "ffn.value.weight", {C, F}))
      return false;
  }
  return true;
}

} // namespace

bool analyseRwkv(const RwkvFile &file, RwkvConfig &c, std::string &error) {
  c = RwkvConfig();
  c.nVocab = file.nVocab;
  c.nEmbed = file.nEmbed;
  c.nLayer = file.nLayer;
  c.fileVersion = file.version;
  c.dataType = file.dataType == 0 ? "FP32" : "FP16";
  const bool v7 = file.find("blocks.0.att.k_k") != nullptr;
  const bool v6 = !v7 && file.find("blocks.0.att.time_maa_x") != nullptr;
  bool v5 = file.find("blocks.0.att.ln_x.weight") != nullptr;
  c.architecture = v7   ? "rwkv7"
                   : v6 ? "rwkv6"
                   : !v5 ? "rwkv4"
                   : file.find("blocks.0.att.gate.weight") ? "rwkv5.2"
                                                           : "rwkv5.1";
  if (v6 || v7)
    c.groupNormEps = 64e-5; // RWKV-6/7 ln_x: GroupNorm eps (1e-5) x head_size_divisor (8)^2
  const int64_t C = c.nEmbed, V = c.nVocab;

  for (const RwkvTensor &t : file.tensors) {
    int64_t l = layerOf(t.name);
    if (l >= c.nLayer) {
      error = "tensor '" + t.name + "' (record at byte offset " + std::to_string(t.offset) +
              ") belongs to layer " + std::to_string(l) + " but the header says n_layer = " +
              std::to_string(c.nLayer);
      return false;
    }
  }

  Checker k(file, c, error);
  const RwkvTensor *fk = k.get("blocks.0.ffn.key.weight", "shape (ffn_dim, n_embed)");
  if (!fk)
    return false;
  if (fk->shape().size() != 2 || fk->shape()[1] != C) {
    error = k.where(*fk) + " is misshapen: needs (ffn_dim, n_embed = " + std::to_string(C) + ")";
    return false;
  }
  c.ffnDim = fk->shape()[0];
  const int64_t F = c.ffnDim;

  if (v6 || v7) {
    const char *name = v7 ? "blocks.0.att.r_k" : "blocks.0.att.time_faaaa";
    const RwkvTensor *t = k.get(name, "a value per head and channel (heads, head_size)");
    if (!t)
      return false;
    int64_t h = headsOf(*t, C);
    if (h <= 0 || C % h != 0) {
      error = k.where(*t) + ": cannot tell the head count (expected PyTorch shape (heads, "
              "head_size) or (heads, head_size, 1) with heads x head_size = n_embed = " +
              std::to_string(C) + ")";
      return false;
    }
    c.heads = h;
    c.headSize = C / h;
    if (!k.shape("emb.weight", {V, C}) || !k.shape("blocks.0.ln0.weight", {C}) ||
        !k.shape("blocks.0.ln0.bias", {C}))
      return false;
    if (!(v7 ? analyseV7Blocks(k, c) : analyseV6Blocks(k, c)))
      return false;
    return k.shape("ln_out.weight", {C}) && k.shape("ln_out.bias", {C}) &&
           k.shape("head.weight", {V, C});
  }
  if (v5) {
    const RwkvTensor *td = k.get("blocks.0.att.time_decay", "a decay per head or per channel");
    if (!td)
      return false;
    int64_t h = td->sizes.size() == 3 ? td->sizes[2]
                : td->numel() < C      ? td->numel()
                                       : 0;
    if (h <= 0 || C % h != 0) {
      error = k.where(*td) + ": cannot tell the head count (expected rwkv.cpp sizes "
              "[1, head_size, heads] or [1, 1, heads] with heads dividing n_embed = " +
              std::to_string(C) + ")";
      return false;
    }
    c.heads = h;
    c.headSize = C / h;
  }
  const int64_t H = c.heads;

  if (!k.shape("emb.weight", {V, C}) || !k.shape("blocks.0.ln0.weight", {C}) ||
      !k.shape("blocks.0.ln0.bias", {C}))
    return false;
  std::string perChannel = "n_embed = " + std::to_string(C) + " values";
  for (int64_t l = 0; l < c.nLayer; ++l) {
    std::string p = "blocks." + std::to_string(l) + ".";
    for (const char *n : {"ln1.weight", "ln1.bias", "ln2.weight", "ln2.bias"})
      if (!k.shape(p + n, {C}))
        return false;
    std::vector<const char *> mixes = {"att.time_mix_k", "att.time_mix_v", "att.time_mix_r"};
    if (c.architecture == "rwkv5.2")
      mixes.push_back("att.time_mix_g");
    for (const char *n : mixes)
      if (!k.vector(p + n, {C}, perChannel))
        return false;
    if (c.architecture == "rwkv4") {
      if (!k.vector(p + "att.time_decay", {C}, perChannel) ||
          !k.vector(p + "att.time_first", {C}, perChannel))
        return false;
    } else if (c.architecture == "rwkv5.2") {
      std::string what = "heads x head_size = " + std::to_string(C) + " values";
      if (!k.vector(p + "att.time_decay", {C}, what) ||
          !k.vector(p + "att.time_faaaa", {C}, what))
        return false;
    } else {
      std::string what = "heads = " + std::to_string(H) + " or n_embed = " + std::to_string(C) +
                         " values";
      if (!k.vector(p + "att.time_decay", {H, C}, what) ||
          !k.vector(p + "att.time_first", {H, C}, what))
        return false;
    }
    std::vector<const char *> mats = {"att.key.weight", "att.value.weight",
                                      "att.receptance.weight"};
    if (c.architecture == "rwkv5.2")
      mats.push_back("att.gate.weight");
    mats.push_back("att.output.weight");
    for (const char *n : mats)
      if (!k.shape(p + n, {C, C}))
        return false;
    if (v5 && (!k.shape(p + "att.ln_x.weight", {C}) || !k.shape(p + "att.ln_x.bias", {C})))
      return false;
    if (!k.vector(p + "ffn.time_mix_k", {C}, perChannel) ||
        !k.vector(p + "ffn.time_mix_r", {C}, perChannel) ||
        !k.shape(p + "ffn.key.weight", {F, C}) || !k.shape(p + "ffn.receptance.weight", {C, C}) ||
        !k.shape(p + "ffn.value.weight", {C, F}))
      return false;
  }
  if (!k.shape("ln_out.weight", {C}) || !k.shape("ln_out.bias", {C}) ||
      !k.shape("head.weight", {V, C}))
    return false;
  return true;
}

std::vector<RwkvState> rwkvStates(const RwkvConfig &c) {
  std::vector<RwkvState> states;
  for (int64_t l = 0; l < c.nLayer; ++l) {
    std::string p = "blocks." + std::to_string(l) + ".";
    states.push_back({p + "ffn_xx", {c.nEmbed}, 0.0});
    states.push_back({p + "att_xx", {c.nEmbed}, 0.0});
    if (c.isV5()) {
      states.push_back({p + "att_state", {c.heads, c.headSize, c.headSize}, 0.0});
    } else {
      states.push_back({p + "aa", {c.nEmbed}, 0.0});
      states.push_back({p + "bb", {c.nEmbed}, 0.0});
      states.push_back({p + "pp", {c.nEmbed}, -1e30});
    }
  }
  return states;
}

std::string rwkvModelJson(const RwkvConfig &c, const std::string &source, int64_t batch) {
  using J = nlohmann::ordered_json;
  J j;
  j["format"] = "ssm-opt-model";
  j["version"] = 1;
  j["architecture"] = c.architecture;
  J cfg;
  cfg["n_vocab"] = c.nVocab;
  cfg["n_embed"] = c.nEmbed;
  cfg["n_layer"] = c.nLayer;
  cfg["heads"] = c.heads;
  cfg["head_size"] = c.headSize;
  cfg["ffn_dim"] = c.ffnDim;
  cfg["file_version"] = c.fileVersion;
  cfg["data_type"] = c.dataType;
  cfg["layer_norm_eps"] = c.layerNormEps;
  if (c.isV5())
    cfg["group_norm_eps"] = c.groupNormEps;
  j["config"] = cfg;
  j["byte_tokens"] = true;
  j["source"] = source;
  j["functions"] = {{"sequence", "forward_sequence"}, {"step", "forward_step"}};
  if (batch > 0)
    j["functions"]["step_batched"] = {{"name", "forward_step_batched"}, {"batch", batch}};
  J states = J::array();
  for (const RwkvState &s : rwkvStates(c)) {
    J st;
    st["name"] = s.name;
    st["shape"] = s.shape;
    st["init"] = s.init;
    if (s.name.size() > 9 && s.name.compare(s.name.size() - 9, 9, "att_state") == 0)
      st["layout"] = c.isV7() ? "[head][value i][key j], as rwkv.cpp"
                              : "[head][key i][value j], as rwkv.cpp";
    states.push_back(st);
  }
  j["states"] = states;
  J params = J::array();
  for (const RwkvParam &p : c.params)
    params.push_back({{"name", p.name}, {"shape", p.shape}});
  j["params"] = params;
  return j.dump(2) + "\n";
}

bool rwkvConfigFromJson(const std::string &text, RwkvConfig &c, std::string &error) {
  c = RwkvConfig();
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    error = "model.json is not a JSON object";
    return false;
  }
  auto str = [&](const nlohmann::json &o, const char *key, std::string &out) {
    if (!o.contains(key) || !o[key].is_string()) {
      error = std::string("model.json: missing string \"") + key + "\"";
      return false;
    }
    out = o[key].get<std::string>();
    return true;
  };
  auto integer = [&](const nlohmann::json &o, const char *key, int64_t &out, bool required) {
    if (!o.contains(key)) {
      if (required)
        error = std::string("model.json: missing integer config.\"") + key + "\"";
      return !required;
    }
    if (!o[key].is_number_integer() || o[key].get<int64_t>() < 0) {
      error = std::string("model.json: config.\"") + key + "\" is not a non-negative integer";
      return false;
    }
    out = o[key].get<int64_t>();
    return true;
  };
  if (!str(j, "architecture", c.architecture))
    return false;
  if (c.architecture != "rwkv4" && c.architecture != "rwkv5.1" && c.architecture != "rwkv5.2" &&
      c.architecture != "rwkv6" && c.architecture != "rwkv7") {
    error = "model.json: architecture '" + c.architecture + "' is not an RWKV architecture";
    return false;
  }
  if (!j.contains("config") || !j["config"].is_object()) {
    error = "model.json: missing object \"config\"";
    return false;
  }
  const nlohmann::json &cfg = j["config"];
  if (!integer(cfg, "n_vocab", c.nVocab, true) || !integer(cfg, "n_embed", c.nEmbed, true) ||
      !integer(cfg, "n_layer", c.nLayer, true) || !integer(cfg, "ffn_dim", c.ffnDim, true) ||
      !integer(cfg, "heads", c.heads, c.isV5()) ||
      !integer(cfg, "head_size", c.headSize, c.isV5()) ||
      !integer(cfg, "file_version", c.fileVersion, false))
    return false;
  if (c.nVocab <= 0 || c.nEmbed <= 0 || c.nLayer <= 0 || c.ffnDim <= 0) {
    error = "model.json: n_vocab, n_embed, n_layer and ffn_dim must be positive";
    return false;
  }
  if (c.isV5() && (c.heads <= 0 || c.heads * c.headSize != c.nEmbed)) {
    error = "model.json: heads x head_size must equal n_embed for " + c.architecture;
    return false;
  }
  if (cfg.contains("data_type") && cfg["data_type"].is_string())
    c.dataType = cfg["data_type"].get<std::string>();
  for (auto [key, out] : {std::pair<const char *, double *>{"layer_norm_eps", &c.layerNormEps},
                          {"group_norm_eps", &c.groupNormEps}}) {
    if (!cfg.contains(key))
      continue;
    if (!cfg[key].is_number() || cfg[key].get<double>() < 0) {
      error = std::string("model.json: config.\"") + key + "\" is not a non-negative number";
      return false;
    }
    *out = cfg[key].get<double>();
  }
  if (!j.contains("params") || !j["params"].is_array()) {
    error = "model.json: missing array \"params\"";
    return false;
  }
  for (const nlohmann::json &p : j["params"]) {
    RwkvParam param;
    if (!p.is_object()) {
      error = "model.json: an entry of \"params\" is not an object (" + p.dump().substr(0, 40) +
              ")";
      return false;
    }
    if (!str(p, "name", param.name))
      return false;
    if (!p.contains("shape") || !p["shape"].is_array()) {
      error = "model.json: param '" + param.name + "' has no \"shape\" array";
      return false;
    }
    for (const nlohmann::json &s : p["shape"]) {
      if (!s.is_number_integer() || s.get<int64_t>() <= 0) {
        error = "model.json: param '" + param.name + "' has a bad shape";
        return false;
      }
      param.shape.push_back(s.get<int64_t>());
    }
    c.params.push_back(std::move(param));
  }
  // The params must be the ones the architecture needs, in the shapes the
  // config implies: the graph is built from them, so a misshapen one would
  // give MLIR that does not verify (found by fuzz-model-json). They get the
  // analysis a .bin file's tensors get, on their names and shapes.
  if (c.nVocab > INT32_MAX || c.nEmbed > INT32_MAX || c.nLayer > INT32_MAX) {
    error = "model.json: n_vocab, n_embed and n_layer must be below 2^31";
    return false;
  }
  RwkvFile shapes;
  shapes.nVocab = static_cast<uint32_t>(c.nVocab);
  shapes.nEmbed = static_cast<uint32_t>(c.nEmbed);
  shapes.nLayer = static_cast<uint32_t>(c.nLayer);
  for (const RwkvParam &q : c.params) {
    if (shapes.index.count(q.name)) {
      error = "model.json: param '" + q.name + "' is listed twice";
      return false;
    }
    RwkvTensor t;
    t.name = q.name;
    t.sizes.assign(q.shape.rbegin(), q.shape.rend());
    shapes.index[q.name] = shapes.tensors.size();
    shapes.tensors.push_back(std::move(t));
  }
  RwkvConfig derived;
  std::string why;
  if (!analyseRwkv(shapes, derived, why)) {
    error = "model.json: its params do not fit " + c.architecture + ": " + why;
    return false;
  }
  if (derived.architecture != c.architecture || derived.ffnDim != c.ffnDim ||
      (c.architecture != "rwkv4" && (derived.heads != c.heads || derived.headSize != c.headSize))) {
    error = "model.json: its params are those of " + derived.architecture + " with ffn_dim " +
            std::to_string(derived.ffnDim) + ", heads " + std::to_string(derived.heads) +
            " x head_size " + std::to_string(derived.headSize) + ", but its config says " +
            c.architecture + " with ffn_dim " + std::to_string(c.ffnDim) + ", heads " +
            std::to_string(c.heads) + " x head_size " + std::to_string(c.headSize);
    return false;
  }
  if (derived.params.size() != c.params.size()) {
    error = "model.json: " + std::to_string(c.params.size()) + " params, but " + c.architecture +
            " with this config has " + std::to_string(derived.params.size());
    return false;
  }
  return true;
}

} // namespace ssm::importer
