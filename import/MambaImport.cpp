// importMamba: a Mamba-1 or Mamba-2 checkpoint (config.json + safetensors, transformers' or mamba_ssm's layout) into model.mlir, weights.safetensors, model.json.
#include "import/ConfigFields.h"
#include "runtime/Shape.h"
#include "import/FileIO.h"
#include "import/Mamba2Model.h"
#include "import/MambaModel.h"
#include "import/Safetensors.h"
#include "import/WeightStore.h"

#include <filesystem>
#include <fstream>
#include <set>

namespace ssm::importer {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using ssm::rt::shapeString;

bool readJsonFile(const std::string &path, json &out, std::string &error) {
  std::vector<char> bytes;
  if (!readWholeFile(path, "a JSON file", bytes, error))
    return false;
  // Python's json writes Infinity bare (transformers' time_step_limit).
  out = json::parse(config_fields::jsonWithNonFiniteAsStrings(std::string(bytes.begin(), bytes.end())),
                    nullptr, /*allow_exceptions=*/false);
  if (out.is_discarded()) {
    error = path + ": not valid JSON";
    return false;
  }
  return true;
}

/// "backbone.layers.N." -> N, or -1.
int64_t layerIndex(const std::string &name) {
  const std::string pre = "backbone.layers.";
  if (name.rfind(pre, 0) != 0)
    return -1;
  size_t end = name.find('.', pre.size());
  std::string num = name.substr(pre.size(), end - pre.size());
  if (num.empty() || num.size() > 9 || num.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stoll(num);
}

} // namespace

json mambaModelJson(const MambaConfig &c, int64_t seqLen, const std::string &source,
                    int64_t batch) {
  json j;
  j["format"] = "ssm-opt-model";
  j["version"] = 1;
  j["architecture"] = "mamba1";
  j["config"] = mambaConfigToJson(c);
  j["byte_tokens"] = c.vocabSize == 256;
  j["source"] = source;
  j["seq_len"] = seqLen;
  j["functions"] = {{"sequence", "forward_sequence"}, {"step", "forward_step"}};
  if (batch > 0)
    j["functions"]["step_batched"] = {{"name", "forward_step_batched"}, {"batch", batch}};
  json states = json::array();
  for (const MambaState &s : mambaStates(c))
    states.push_back({{"name", s.name}, {"shape", s.shape}, {"init", s.init}});
  j["states"] = states;
  json params = json::array();
  for (const MambaParam &p : mambaParams(c))
    params.push_back({{"name", p.name}, {"shape", p.shape}});
  j["params"] = params;
  return j;
}

bool importMamba(const std::string &safetensorsPath, const std::string &configPath,
                 const std::string &outDir, bool force, int64_t seqLen, std::string &error,
                 LogitsRows rows, WeightsMode weightsMode, StFile *stored, int64_t batch) {
  json rawConfig;
  if (!readJsonFile(configPath, rawConfig, error))
    return false;
  StFile in;
  if (seqLen >= 1 && seqLen <= (int64_t(1) << 24) && !readSafetensors(safetensorsPath, in, error))
    return false;
  return importMambaFrom(rawConfig, in, safetensorsPath, configPath, outDir, force, seqLen, error,
                         rows, weightsMode, stored, batch);
}

bool importMambaFrom(const json &rawConfig, const StFile &in, const std::string &safetensorsPath,
                     const std::string &configPath, const std::string &outDir, bool force,
                     int64_t seqLen, std::string &error, LogitsRows rows, WeightsMode weightsMode,
                     StFile *stored, int64_t batch) {
  if (seqLen < 1 || seqLen > (int64_t(1) << 24)) {
    error = "sequence length " + std::to_string(seqLen) + " is out of range (1 to 16777216)";
    return false;
  }

  // Mamba-1 or Mamba-2, from the config: what the graph needs.
  const bool mamba2 = isMamba2Config(rawConfig);
  MambaConfigFormat configFormat;
  std::vector<MambaParam> params;
  std::string mlir;
  json model;
  int64_t numLayers = 0;
  if (mamba2) {
    Mamba2Config cfg;
    if (!parseMamba2Config(rawConfig, cfg, error, &configFormat)) {
      error = configPath + ": " + error;
      return false;
    }
    params = mamba2Params(cfg);
    if (!writeMamba2Module(cfg, seqLen, rows, batch, mlir, error))
      return false;
    model = mamba2ModelJson(cfg, seqLen, safetensorsPath, batch);
    numLayers = cfg.numLayers;
  } else {
    MambaConfig cfg;
    if (!parseMambaConfig(rawConfig, cfg, error, &configFormat)) {
      error = configPath + ": " + error;
      return false;
    }
    if (!buildMambaMLIR(mambaConfigToJson(cfg), seqLen, mlir, error, rows, batch))
      return false;
    params = mambaParams(cfg);
    model = mambaModelJson(cfg, seqLen, safetensorsPath, batch);
    numLayers = cfg.numLayers;
  }
  std::vector<std::string> names;
  for (const StTensor &t : in.tensors)
    names.push_back(t.name);
  MambaLayout layout;
  if (!detectMambaLayout(names, layout, error)) {
    error = safetensorsPath + ": " + error;
    return false;
  }
  // A checkpoint of the other generation than the config's: say which,
  // not only that some tensor is missing.
  const bool holdsMamba2 = in.find("backbone.layers.0.mixer.dt_bias") &&
                           !in.find("backbone.layers.0.mixer.x_proj.weight");
  const bool holdsMamba1 = in.find("backbone.layers.0.mixer.x_proj.weight") != nullptr;
  if ((holdsMamba2 && !mamba2) || (holdsMamba1 && mamba2)) {
    error = safetensorsPath + ": holds Mamba-" + (holdsMamba2 ? "2" : "1") + " tensors (" +
            (holdsMamba2 ? "mixer.dt_bias, no mixer.x_proj" : "mixer.x_proj") + ") but " +
            configPath + " describes a Mamba-" + (mamba2 ? "2" : "1") + " model";
    return false;
  }

  // A checkpoint with more layers than the config says is the wrong config,
  // not extra data to skip.
  for (const StTensor &t : in.tensors) {
    int64_t l = layerIndex(t.name);
    if (l >= numLayers) {
      error = safetensorsPath + ": tensor '" + t.name + "' belongs to layer " +
              std::to_string(l) + " but " + configPath + " says " +
              (configFormat == MambaConfigFormat::Transformers ? "num_hidden_layers" : "n_layer") +
              " = " +
              std::to_string(numLayers);
      return false;
    }
  }

  StFile out;
  std::set<std::string> sourceDtypes;
  for (const MambaParam &p : params) {
    const std::string source = mambaTensorName(p.name, layout);
    const StTensor *t = in.find(source);
    if (!t) {
      error = safetensorsPath + ": missing tensor '" + source + "' (expected shape " +
              shapeString(p.shape) + ")";
      if (p.name == "lm_head.weight")
        error += std::string("; the config has ") +
                 (configFormat == MambaConfigFormat::Transformers ? "tie_word_embeddings"
                                                                  : "tie_embeddings") +
                 " = false";
      return false;
    }
    if (t->shape != p.shape) {
      // A GGUF's tensors carry the name they had in the file (import/GgufImport.h).
      auto gguf = in.metadata.find("gguf:" + source);
      error = safetensorsPath + ": tensor '" + source + "'" +
              (gguf != in.metadata.end() ? " (GGUF '" + gguf->second + "')" : std::string()) +
              " has shape " + shapeString(t->shape) + " but the config implies " +
              shapeString(p.shape);
      if (p.name == "backbone.embedding.weight" &&
          configFormat == MambaConfigFormat::MambaSsm && t->shape.size() == 2 &&
          t->shape[1] == p.shape[1])
        error += " (vocab_size rounded up to pad_vocab_size_multiple)";
      return false;
    }
    // Int8 blocks from a GGUF's Q8_0 / Q6_K matrices (import/GgufImport.h).
    const StTensor *scale = nullptr, *min = nullptr;
    if (isStoredQ8(in, *t, scale, &min)) {
      sourceDtypes.insert(std::string("I8 blocks (") +
                          (min ? "q8min" : scale->dtype == StDType::F16 ? "q8" : "q8b16") + ")");
      storeQ8Weight(out, *t, *scale, weightsMode, min);
      continue;
    }
    std::vector<float> values;
    if (!toFloats(*t, values, error)) {
      error = safetensorsPath + ": " + error;
      return false;
    }
    sourceDtypes.insert(stDTypeName(t->dtype));
    storeWeight(out, p.name, p.shape, values, t->dtype, weightsMode);
  }
  std::string dtypes;
  for (const std::string &d : sourceDtypes)
    dtypes += (dtypes.empty() ? "" : ",") + d;
  out.metadata["format"] = "pt";
  out.metadata["source"] = fs::path(safetensorsPath).filename().string();
  out.metadata["source_dtypes"] = dtypes;
  out.metadata["source_layout"] = mambaLayoutName(layout);

  if (!prepareOutputDir(outDir, force, error))
    return false;
  fs::path dir(outDir);
  out.metadata["weight_storage"] = weightsModeName(weightsMode);
  if (!writeSafetensors((dir / "weights.safetensors").string(), out, error))
    return false;
  if (stored)
    for (const StTensor &t : out.tensors)
      stored->tensors.push_back(StTensor{t.name, t.dtype, t.shape, {}});
  if (!writeTextFile(dir / "model.mlir", mlir, error))
    return false;
  model["source_dtypes"] = dtypes;
  model["source_layout"] = mambaLayoutName(layout);
  model["source_config"] = mambaConfigFormatName(configFormat);
  if (!writeTextFile(dir / "model.json", model.dump(2) + "\n", error))
    return false;
  return true;
}

} // namespace ssm::importer
