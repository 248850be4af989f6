// Mamba-2 configs (transformers' Mamba2Config and mamba_ssm's): validation, defaults, and the parameter and state lists they imply.
#include "import/ConfigFields.h"
#include "import/Mamba2Model.h"

#include <cmath>

namespace ssm::importer {

using nlohmann::json;
using namespace config_fields;

bool readTimeStepLimit(const json &cfg, const char *key, double &lo, double &hi, std::string &error) {
  auto it = cfg.find(key);
  if (it == cfg.end() || it->is_null())
    return true;
  double a = 0, b = 0;
  if (!it->is_array() || it->size() != 2 || !extendedNumber((*it)[0], a) ||
      !extendedNumber((*it)[1], b)) {
    error = std::string("field '") + key + "' must be a pair of numbers [min, max], got " +
            it->dump();
    return false;
  }
  if (!(a >= 0.0) || !(b >= a) || std::isinf(a)) {
    error = std::string("field '") + key + "' is " + it->dump() +
            ", expected 0 <= min <= max (min finite)";
    return false;
  }
  lo = a;
  hi = b;
  return true;
}

namespace {

/// The checks both formats share once their fields are read; `names` gives
/// the format's field names for heads, head size and groups.
bool finish(Mamba2Config &c, bool headsGiven, const char *headsName, const char *headDimName,
            const char *groupsName, const char *expandName, std::string &error) {
  c.intermediateSize = c.expand * c.hiddenSize;
  if (c.intermediateSize > kMaxDim) {
    error = std::string("field '") + expandName + "' times the model width is too large";
    return false;
  }
  if (!headsGiven) {
    if (c.intermediateSize % c.headDim != 0) {
      error = std::string("field '") + headDimName + "' is " + std::to_string(c.headDim) +
              ", which does not divide d_inner = " + std::to_string(c.intermediateSize);
      return false;
    }
    c.numHeads = c.intermediateSize / c.headDim;
  }
  if (c.numHeads * c.headDim != c.intermediateSize) {
    error = std::string("fields '") + headsName + "' (" + std::to_string(c.numHeads) + ") * '" +
            headDimName + "' (" + std::to_string(c.headDim) + ") must equal d_inner = " +
            expandName + " * width = " + std::to_string(c.intermediateSize);
    return false;
  }
  if (c.numHeads % c.nGroups != 0) {
    error = std::string("field '") + groupsName + "' is " + std::to_string(c.nGroups) +
            ", which does not divide the " + std::to_string(c.numHeads) + " heads";
    return false;
  }
  return true;
}

bool parseTransformers(const json &cfg, Mamba2Config &out, std::string &error) {
  Mamba2Config c;
  if (auto it = cfg.find("model_type"); it != cfg.end() && !it->is_null()) {
    if (!it->is_string() || it->get<std::string>() != "mamba2") {
      error = "field 'model_type' is " + it->dump() + ", expected \"mamba2\"";
      return false;
    }
  }
  bool headsGiven = cfg.contains("num_heads") && !cfg["num_heads"].is_null();
  // transformers' Mamba2Config: key, where it goes, what it may hold.
  // ssm.causal_conv1d takes widths 2 to 4, as causal-conv1d's kernels do.
  if (!readFields(cfg,
                  {Field::integer("vocab_size", c.vocabSize, 1, kMaxDim, true),
                   Field::integer("hidden_size", c.hiddenSize, 1, kMaxDim, true),
                   Field::integer("num_hidden_layers", c.numLayers, 1, 4096, true),
                   Field::integer("state_size", c.stateSize, 1, 4096),
                   Field::integer("expand", c.expand, 1, 64),
                   Field::integer("num_heads", c.numHeads, 1, kMaxDim),
                   Field::integer("head_dim", c.headDim, 1, kMaxDim),
                   Field::integer("n_groups", c.nGroups, 1, kMaxDim),
                   Field::integer("conv_kernel", c.convKernel, 2, 4),
                   Field::integer("chunk_size", c.chunkSize, 1, 1 << 16),
                   Field::number("layer_norm_epsilon", c.layerNormEpsilon, 0.0),
                   Field::boolean("use_bias", c.useBias),
                   Field::boolean("use_conv_bias", c.useConvBias),
                   Field::boolean("tie_word_embeddings", c.tieWordEmbeddings),
                   Field::boolean("norm_before_gate", c.normBeforeGate),
                   Field::boolean("residual_in_fp32", c.residualInFp32)},
                  error) ||
      !readTimeStepLimit(cfg, "time_step_limit", c.timeStepMin, c.timeStepMax, error))
    return false;
  bool rmsNorm = true;
  if (!readBool(cfg, "rms_norm", rmsNorm, error))
    return false;
  if (!rmsNorm) {
    error = "field 'rms_norm' is false: only Mamba-2 models with the gated RMSNorm are supported";
    return false;
  }
  if (auto it = cfg.find("hidden_act"); it != cfg.end() && !it->is_null()) {
    if (!it->is_string() || it->get<std::string>() != "silu") {
      error = "field 'hidden_act' must be \"silu\" (the activation of Mamba-2's conv and gate), "
              "got " + typeName(*it);
      return false;
    }
  }
  if (auto it = cfg.find("intermediate_size"); it != cfg.end() && !it->is_null()) {
    int64_t inter = 0;
    if (!readInt(cfg, "intermediate_size", true, 1, kMaxDim, inter, error))
      return false;
    if (inter != c.expand * c.hiddenSize) {
      error = "field 'intermediate_size' is " + std::to_string(inter) +
              " but expand * hidden_size is " + std::to_string(c.expand * c.hiddenSize);
      return false;
    }
  }
  if (!finish(c, headsGiven, "num_heads", "head_dim", "n_groups", "expand", error))
    return false;
  out = c;
  return true;
}

/// mamba_ssm's MambaConfig with ssm_cfg.layer "Mamba2" and the Mamba2
/// mixer's keyword defaults (mamba_ssm/modules/mamba2.py).
bool parseMambaSsm(const json &cfg, Mamba2Config &out, std::string &error) {
  Mamba2Config c;
  c.nGroups = 1;
  c.tieWordEmbeddings = true;
  int64_t vocab = 0, pad = 8;
  if (!readInt(cfg, "d_model", true, 1, kMaxDim, c.hiddenSize, error) ||
      !readInt(cfg, "n_layer", true, 1, 4096, c.numLayers, error) ||
      !readInt(cfg, "vocab_size", true, 1, kMaxDim, vocab, error) ||
      !readInt(cfg, "pad_vocab_size_multiple", false, 1, 1 << 16, pad, error) ||
      !readBool(cfg, "tie_embeddings", c.tieWordEmbeddings, error) ||
      !readBool(cfg, "residual_in_fp32", c.residualInFp32, error))
    return false;
  c.vocabSize = (vocab + pad - 1) / pad * pad;
  int64_t dInter = 0;
  if (!readInt(cfg, "d_intermediate", false, 0, kMaxDim, dInter, error))
    return false;
  if (dInter != 0) {
    error = "field 'd_intermediate' is " + std::to_string(dInter) +
            ": blocks with an MLP after the mixer are not supported (only 0)";
    return false;
  }
  if (auto it = cfg.find("attn_layer_idx"); it != cfg.end() && !it->is_null() &&
      (!it->is_array() || !it->empty())) {
    error = "field 'attn_layer_idx' is " + it->dump() +
            ": hybrid models with attention layers are not supported (only [])";
    return false;
  }
  bool rmsNorm = true;
  if (!readBool(cfg, "rms_norm", rmsNorm, error))
    return false;
  if (!rmsNorm) {
    error = "field 'rms_norm' is false: only RMSNorm Mamba models are supported";
    return false;
  }
  json ssm = cfg.value("ssm_cfg", json::object());
  if (!ssm.is_object()) {
    error = "field 'ssm_cfg' must be an object, got " + typeName(ssm);
    return false;
  }
  auto sub = [&](bool ok) {
    if (!ok)
      error = "ssm_cfg: " + error;
    return ok;
  };
  bool gatedNorm = true, dHasHdim = false;
  bool headsGiven = false;
  int64_t dSsm = 0;
  // mamba_ssm's Mamba2 mixer keywords (ssm_cfg).
  if (!sub(readFields(ssm,
                      {Field::integer("d_state", c.stateSize, 1, 4096),
                       Field::integer("d_conv", c.convKernel, 2, 4),
                       Field::integer("expand", c.expand, 1, 64),
                       Field::integer("headdim", c.headDim, 1, kMaxDim),
                       Field::integer("ngroups", c.nGroups, 1, kMaxDim),
                       Field::integer("chunk_size", c.chunkSize, 1, 1 << 16),
                       Field::integer("d_ssm", dSsm, 1, kMaxDim),
                       Field::boolean("rmsnorm", gatedNorm),
                       Field::boolean("norm_before_gate", c.normBeforeGate),
                       Field::boolean("D_has_hdim", dHasHdim),
                       Field::boolean("bias", c.useBias),
                       Field::boolean("conv_bias", c.useConvBias)},
                      error)) ||
      !sub(readTimeStepLimit(ssm, "dt_limit", c.timeStepMin, c.timeStepMax, error)))
    return false;
  if (!gatedNorm) {
    error = "ssm_cfg: field 'rmsnorm' is false: only Mamba-2 models with the gated RMSNorm are "
            "supported";
    return false;
  }
  if (dHasHdim) {
    error = "ssm_cfg: field 'D_has_hdim' is true: only a D per head is supported";
    return false;
  }
  if (dSsm != 0 && dSsm != c.expand * c.hiddenSize) {
    error = "ssm_cfg: field 'd_ssm' is " + std::to_string(dSsm) +
            ": only d_ssm = expand * d_model (no MLP half in in_proj) is supported";
    return false;
  }
  if (!sub(finish(c, headsGiven, "nheads", "headdim", "ngroups", "expand", error)))
    return false;
  out = c;
  return true;
}

} // namespace

bool isMamba2Config(const json &cfg) {
  if (!cfg.is_object())
    return false;
  if (auto it = cfg.find("model_type"); it != cfg.end() && it->is_string() && *it == "mamba2")
    return true;
  if (auto it = cfg.find("architectures"); it != cfg.end() && it->is_array())
    for (const json &a : *it)
      if (a.is_string() && a == "Mamba2ForCausalLM")
        return true;
  if (auto it = cfg.find("ssm_cfg"); it != cfg.end() && it->is_object())
    if (auto l = it->find("layer"); l != it->end() && l->is_string() && *l == "Mamba2")
      return true;
  return false;
}

bool parseMamba2Config(const json &cfg, Mamba2Config &out, std::string &error,
                       MambaConfigFormat *format) {
  if (!cfg.is_object()) {
    error = "the config must be a JSON object, got " + typeName(cfg);
    return false;
  }
  const bool hf = cfg.contains("hidden_size"), ms = cfg.contains("d_model");
  if (hf == ms) {
    error = std::string(hf ? "both 'hidden_size' and 'd_model' are present"
                           : "missing field 'hidden_size'") +
            ": a Mamba-2 config.json is either transformers' Mamba2Config (hidden_size, "
            "num_hidden_layers, num_heads, ...) or mamba_ssm's (d_model, n_layer, vocab_size, "
            "ssm_cfg)";
    return false;
  }
  if (!(hf ? parseTransformers(cfg, out, error) : parseMambaSsm(cfg, out, error)))
    return false;
  if (format)
    *format = hf ? MambaConfigFormat::Transformers : MambaConfigFormat::MambaSsm;
  return true;
}

json mamba2ConfigToJson(const Mamba2Config &c) {
  json j = json::object();
  j["model_type"] = "mamba2";
  j["vocab_size"] = c.vocabSize;
  j["hidden_size"] = c.hiddenSize;
  j["state_size"] = c.stateSize;
  j["num_hidden_layers"] = c.numLayers;
  j["expand"] = c.expand;
  j["intermediate_size"] = c.intermediateSize;
  j["num_heads"] = c.numHeads;
  j["head_dim"] = c.headDim;
  j["n_groups"] = c.nGroups;
  j["conv_kernel"] = c.convKernel;
  j["chunk_size"] = c.chunkSize;
  j["layer_norm_epsilon"] = c.layerNormEpsilon;
  j["use_bias"] = c.useBias;
  j["use_conv_bias"] = c.useConvBias;
  j["tie_word_embeddings"] = c.tieWordEmbeddings;
  j["norm_before_gate"] = c.normBeforeGate;
  j["residual_in_fp32"] = c.residualInFp32;
  j["rms_norm"] = true;
  j["hidden_act"] = "silu";
  json hi = std::isinf(c.timeStepMax) ? json("Infinity") : json(c.timeStepMax);
  j["time_step_limit"] = json::array({c.timeStepMin, hi});
  return j;
}

std::vector<MambaParam> mamba2Params(const Mamba2Config &c) {
  const int64_t d = c.hiddenSize, di = c.intermediateSize, h = c.numHeads;
  std::vector<MambaParam> ps;
  ps.push_back({"backbone.embedding.weight", {c.vocabSize, d}});
  for (int64_t l = 0; l < c.numLayers; ++l) {
    std::string p = "backbone.layers." + std::to_string(l) + ".";
    std::string m = p + "mixer.";
    ps.push_back({p + "norm.weight", {d}});
    ps.push_back({m + "in_proj.weight", {c.inProjSize(), d}});
    if (c.useBias)
      ps.push_back({m + "in_proj.bias", {c.inProjSize()}});
    ps.push_back({m + "conv1d.weight", {c.convDim(), 1, c.convKernel}});
    if (c.useConvBias)
      ps.push_back({m + "conv1d.bias", {c.convDim()}});
    ps.push_back({m + "dt_bias", {h}});
    ps.push_back({m + "A_log", {h}});
    ps.push_back({m + "D", {h}});
    ps.push_back({m + "norm.weight", {di}});
    ps.push_back({m + "out_proj.weight", {d, di}});
    if (c.useBias)
      ps.push_back({m + "out_proj.bias", {d}});
  }
  ps.push_back({"backbone.norm_f.weight", {d}});
  if (!c.tieWordEmbeddings)
    ps.push_back({"lm_head.weight", {c.vocabSize, d}});
  return ps;
}

std::vector<MambaState> mamba2States(const Mamba2Config &c) {
  std::vector<MambaState> ss;
  for (int64_t l = 0; l < c.numLayers; ++l) {
    std::string p = "layers." + std::to_string(l) + ".";
    ss.push_back({p + "conv_state", {c.convDim(), c.convKernel - 1}, 0.0});
    ss.push_back({p + "ssm_state", {c.numHeads, c.headDim, c.stateSize}, 0.0});
  }
  return ss;
}

json mamba2ModelJson(const Mamba2Config &c, int64_t seqLen, const std::string &source,
                     int64_t batch) {
  json j;
  j["format"] = "ssm-opt-model";
  j["version"] = 1;
  j["architecture"] = "mamba2";
  j["config"] = mamba2ConfigToJson(c);
  j["byte_tokens"] = c.vocabSize == 256;
  j["source"] = source;
  j["seq_len"] = seqLen;
  j["functions"] = {{"sequence", "forward_sequence"}, {"step", "forward_step"}};
  if (batch > 0)
    j["functions"]["step_batched"] = {{"name", "forward_step_batched"}, {"batch", batch}};
  json states = json::array();
  for (const MambaState &s : mamba2States(c))
    states.push_back({{"name", s.name}, {"shape", s.shape}, {"init", s.init}});
  j["states"] = states;
  json params = json::array();
  for (const MambaParam &p : mamba2Params(c))
    params.push_back({{"name", p.name}, {"shape", p.shape}});
  j["params"] = params;
  return j;
}

} // namespace ssm::importer
