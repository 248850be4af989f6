// Mamba-1 configs (transformers' and mamba_ssm's): validation, defaults, and the parameter and state lists they imply.
#include "import/ConfigFields.h"
#include "import/MambaModel.h"

#include <cmath>
#include <limits>

namespace ssm::importer {

namespace {

using nlohmann::json;
using namespace config_fields;


/// transformers' MambaConfig field names.
bool parseTransformersConfig(const json &cfg, MambaConfig &out, std::string &error) {
  if (auto it = cfg.find("model_type"); it != cfg.end() && !it->is_null()) {
    if (!it->is_string()) {
      error = "field 'model_type' must be a string, got " + typeName(*it);
      return false;
    }
    if (it->get<std::string>() != "mamba") {
      error = "field 'model_type' is '" + it->get<std::string>() +
              "', expected 'mamba' (a Mamba-1 checkpoint)";
      return false;
    }
  }
  MambaConfig c;
  // transformers' MambaConfig: key, where it goes, what it may hold.
  // ssm.causal_conv1d takes widths 2 to 4, as causal-conv1d's kernels do.
  if (!readFields(cfg,
                  {Field::integer("vocab_size", c.vocabSize, 1, kMaxDim, true),
                   Field::integer("hidden_size", c.hiddenSize, 1, kMaxDim, true),
                   Field::integer("state_size", c.stateSize, 1, 4096, true),
                   Field::integer("num_hidden_layers", c.numLayers, 1, 4096, true),
                   Field::integer("expand", c.expand, 1, 64),
                   Field::integer("conv_kernel", c.convKernel, 2, 4)},
                  error))
    return false;
  c.intermediateSize = c.expand * c.hiddenSize;
  if (c.intermediateSize > kMaxDim) {
    error = "expand * hidden_size = " + std::to_string(c.intermediateSize) + " is too large";
    return false;
  }
  if (auto it = cfg.find("intermediate_size"); it != cfg.end() && !it->is_null()) {
    int64_t inter = 0;
    if (!readInt(cfg, "intermediate_size", true, 1, kMaxDim, inter, error))
      return false;
    if (inter != c.intermediateSize) {
      error = "field 'intermediate_size' is " + std::to_string(inter) +
              " but expand * hidden_size is " + std::to_string(c.intermediateSize);
      return false;
    }
  }
  // time_step_rank: an integer or "auto" (MambaConfig: ceil(hidden_size / 16)).
  c.timeStepRank = (c.hiddenSize + 15) / 16;
  if (auto it = cfg.find("time_step_rank"); it != cfg.end() && !it->is_null()) {
    if (it->is_string()) {
      if (it->get<std::string>() != "auto") {
        error = "field 'time_step_rank' must be an integer or \"auto\", got " + typeName(*it);
        return false;
      }
    } else if (!readInt(cfg, "time_step_rank", true, 1, kMaxDim, c.timeStepRank, error)) {
      return false;
    }
  }
  if (auto it = cfg.find("layer_norm_epsilon"); it != cfg.end() && !it->is_null()) {
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0) {
      error = "field 'layer_norm_epsilon' must be a number >= 0, got " +
              (it->is_number() ? it->dump() : typeName(*it));
      return false;
    }
    // The graph holds it as an f32 constant: beyond FLT_MAX it would print
    // as `inf`, which MLIR does not parse.
    if (it->get<double>() > std::numeric_limits<float>::max()) {
      error = "field 'layer_norm_epsilon' is " + it->dump() +
              ", beyond float32 (the model's type holds at most 3.4e38)";
      return false;
    }
    c.layerNormEpsilon = it->get<double>();
  }
  if (!readBool(cfg, "use_bias", c.useBias, error) ||
      !readBool(cfg, "use_conv_bias", c.useConvBias, error) ||
      !readBool(cfg, "tie_word_embeddings", c.tieWordEmbeddings, error) ||
      !readBool(cfg, "residual_in_fp32", c.residualInFp32, error))
    return false;
  if (auto it = cfg.find("hidden_act"); it != cfg.end() && !it->is_null()) {
    if (!it->is_string() || it->get<std::string>() != "silu") {
      error = "field 'hidden_act' must be \"silu\" (the activation Mamba-1's conv and gate "
              "use), got " + typeName(*it);
      return false;
    }
  }
  if (auto it = cfg.find("rms_norm"); it != cfg.end() && it->is_boolean() && !it->get<bool>()) {
    error = "field 'rms_norm' is false: only RMSNorm Mamba models are supported";
    return false;
  }
  out = c;
  return true;
}

/// mamba_ssm's MambaConfig (mamba_ssm/models/config_mamba.py) and the
/// Mamba-1 mixer's keyword defaults (mamba_ssm/modules/mamba_simple.py).
bool parseMambaSsmConfig(const json &cfg, MambaConfig &out, std::string &error) {
  MambaConfig c;
  c.timeStepRank = 0;
  c.tieWordEmbeddings = true;
  int64_t vocab = 0, pad = 8;
  if (!readInt(cfg, "d_model", true, 1, kMaxDim, c.hiddenSize, error) ||
      !readInt(cfg, "n_layer", true, 1, 4096, c.numLayers, error) ||
      !readInt(cfg, "vocab_size", true, 1, kMaxDim, vocab, error) ||
      !readInt(cfg, "pad_vocab_size_multiple", false, 1, 1 << 16, pad, error))
    return false;
  // MambaLMHeadModel pads the vocabulary (the embedding and the head rows).
  c.vocabSize = (vocab + pad - 1) / pad * pad;
  if (auto it = cfg.find("d_intermediate"); it != cfg.end() && !it->is_null()) {
    int64_t dInter = 0;
    if (!readInt(cfg, "d_intermediate", true, 0, kMaxDim, dInter, error))
      return false;
    if (dInter != 0) {
      error = "field 'd_intermediate' is " + std::to_string(dInter) +
              ": blocks with an MLP after the mixer are not supported (only 0)";
      return false;
    }
  }
  if (auto it = cfg.find("attn_layer_idx"); it != cfg.end() && !it->is_null()) {
    if (!it->is_array() || !it->empty()) {
      error = "field 'attn_layer_idx' is " + it->dump() +
              ": hybrid models with attention layers are not supported (only [])";
      return false;
    }
  }
  bool rmsNorm = true, fusedAddNorm = false;
  if (!readBool(cfg, "rms_norm", rmsNorm, error) ||
      !readBool(cfg, "residual_in_fp32", c.residualInFp32, error) ||
      !readBool(cfg, "fused_add_norm", fusedAddNorm, error) ||
      !readBool(cfg, "tie_embeddings", c.tieWordEmbeddings, error))
    return false;
  if (!rmsNorm) {
    error = "field 'rms_norm' is false: only RMSNorm Mamba models are supported";
    return false;
  }
  json ssm = json::object();
  if (auto it = cfg.find("ssm_cfg"); it != cfg.end() && !it->is_null()) {
    if (!it->is_object()) {
      error = "field 'ssm_cfg' must be an object, got " + typeName(*it);
      return false;
    }
    ssm = *it;
  }
  if (auto it = ssm.find("layer"); it != ssm.end() && !it->is_null()) {
    if (!it->is_string() || it->get<std::string>() != "Mamba1") {
      error = "field 'ssm_cfg.layer' is " + it->dump() + ", expected \"Mamba1\" (a Mamba-1 checkpoint)";
      return false;
    }
  }
  // ssm_cfg's fields carry their own names in messages.
  auto sub = [&](bool ok) {
    if (!ok)
      error = "ssm_cfg: " + error;
    return ok;
  };
  if (!sub(readInt(ssm, "d_state", false, 1, 4096, c.stateSize, error)) ||
      !sub(readInt(ssm, "d_conv", false, 2, 4, c.convKernel, error)) ||
      !sub(readInt(ssm, "expand", false, 1, 64, c.expand, error)) ||
      !sub(readBool(ssm, "conv_bias", c.useConvBias, error)) ||
      !sub(readBool(ssm, "bias", c.useBias, error)))
    return false;
  c.intermediateSize = c.expand * c.hiddenSize;
  if (c.intermediateSize > kMaxDim) {
    error = "ssm_cfg.expand * d_model = " + std::to_string(c.intermediateSize) + " is too large";
    return false;
  }
  c.timeStepRank = (c.hiddenSize + 15) / 16; // dt_rank "auto": ceil(d_model / 16)
  if (auto it = ssm.find("dt_rank"); it != ssm.end() && !it->is_null()) {
    if (it->is_string()) {
      if (it->get<std::string>() != "auto") {
        error = "ssm_cfg: field 'dt_rank' must be an integer or \"auto\", got " + typeName(*it);
        return false;
      }
    } else if (!sub(readInt(ssm, "dt_rank", true, 1, kMaxDim, c.timeStepRank, error))) {
      return false;
    }
  }
  out = c;
  return true;
}

} // namespace

const char *mambaConfigFormatName(MambaConfigFormat f) {
  return f == MambaConfigFormat::Transformers ? "transformers" : "mamba_ssm";
}

bool parseMambaConfig(const json &cfg, MambaConfig &out, std::string &error,
                      MambaConfigFormat *format) {
  if (!cfg.is_object()) {
    error = "the config must be a JSON object, got " + typeName(cfg);
    return false;
  }
  const bool hf = cfg.contains("hidden_size"), ms = cfg.contains("d_model");
  if (hf == ms) {
    error = std::string(hf ? "both 'hidden_size' and 'd_model' are present"
                           : "missing field 'hidden_size'") +
            ": a Mamba config.json is either transformers' MambaConfig (hidden_size, "
            "num_hidden_layers, state_size, ...) or mamba_ssm's (d_model, n_layer, vocab_size, "
            "ssm_cfg)";
    return false;
  }
  MambaConfigFormat f = hf ? MambaConfigFormat::Transformers : MambaConfigFormat::MambaSsm;
  if (!(hf ? parseTransformersConfig(cfg, out, error) : parseMambaSsmConfig(cfg, out, error)))
    return false;
  if (format)
    *format = f;
  return true;
}

json mambaConfigToJson(const MambaConfig &c) {
  json j = json::object();
  j["model_type"] = "mamba";
  j["vocab_size"] = c.vocabSize;
  j["hidden_size"] = c.hiddenSize;
  j["state_size"] = c.stateSize;
  j["num_hidden_layers"] = c.numLayers;
  j["expand"] = c.expand;
  j["intermediate_size"] = c.intermediateSize;
  j["conv_kernel"] = c.convKernel;
  j["time_step_rank"] = c.timeStepRank;
  j["layer_norm_epsilon"] = c.layerNormEpsilon;
  j["use_bias"] = c.useBias;
  j["use_conv_bias"] = c.useConvBias;
  j["tie_word_embeddings"] = c.tieWordEmbeddings;
  j["residual_in_fp32"] = c.residualInFp32;
  j["hidden_act"] = "silu";
  return j;
}

std::vector<MambaParam> mambaParams(const MambaConfig &c) {
  const int64_t d = c.hiddenSize, di = c.intermediateSize, n = c.stateSize,
                r = c.timeStepRank, w = c.convKernel;
  std::vector<MambaParam> ps;
  ps.push_back({"backbone.embedding.weight", {c.vocabSize, d}});
  for (int64_t l = 0; l < c.numLayers; ++l) {
    std::string p = "backbone.layers." + std::to_string(l) + ".";
    std::string m = p + "mixer.";
    ps.push_back({p + "norm.weight", {d}});
    ps.push_back({m + "in_proj.weight", {2 * di, d}});
    if (c.useBias)
      ps.push_back({m + "in_proj.bias", {2 * di}});
    // nn.Conv1d(groups = d_inner) stores (out_channels, in_channels / groups, W).
    ps.push_back({m + "conv1d.weight", {di, 1, w}});
    if (c.useConvBias)
      ps.push_back({m + "conv1d.bias", {di}});
    ps.push_back({m + "x_proj.weight", {r + 2 * n, di}});
    ps.push_back({m + "dt_proj.weight", {di, r}});
    ps.push_back({m + "dt_proj.bias", {di}});
    ps.push_back({m + "A_log", {di, n}});
    ps.push_back({m + "D", {di}});
    ps.push_back({m + "out_proj.weight", {d, di}});
    if (c.useBias)
      ps.push_back({m + "out_proj.bias", {d}});
  }
  ps.push_back({"backbone.norm_f.weight", {d}});
  if (!c.tieWordEmbeddings)
    ps.push_back({"lm_head.weight", {c.vocabSize, d}});
  return ps;
}

std::vector<MambaState> mambaStates(const MambaConfig &c) {
  std::vector<MambaState> ss;
  for (int64_t l = 0; l < c.numLayers; ++l) {
    std::string p = "layers." + std::to_string(l) + ".";
    ss.push_back({p + "conv_state", {c.intermediateSize, c.convKernel - 1}, 0.0});
    ss.push_back({p + "ssm_state", {c.intermediateSize, c.stateSize}, 0.0});
  }
  return ss;
}

} // namespace ssm::importer
