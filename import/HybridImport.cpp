// importHybrid and the table of hybrid architectures (import/HybridModel.h).
#include "import/ConfigFields.h"
#include "import/FileIO.h"
#include "import/HybridModel.h"
#include "import/Safetensors.h"
#include "runtime/Shape.h"

#include <filesystem>
#include <set>

namespace ssm::importer {

namespace fs = std::filesystem;
using nlohmann::json;

const std::vector<HybridArch> &hybridArchs() {
  static const std::vector<HybridArch> archs = {
      {"lfm2", "lfm2", describeLfm2},
      {"granitemoehybrid", "granitehybrid", describeGraniteHybrid},
      {"falcon_h1", "falcon_h1", describeFalconH1},
      {"qwen3_5_text", "qwen35", describeQwen35},
      {"qwen3_5", "qwen35", describeQwen35},
      {"qwen3_next", "qwen3_next", describeQwen35},
      // Refused by describeQwen35 with a named message (experts).
      {"qwen3_5_moe_text", "qwen35_moe", describeQwen35},
      {"qwen3_5_moe", "qwen35_moe", describeQwen35},
  };
  return archs;
}

const HybridArch *findHybridByModelType(const std::string &modelType) {
  for (const HybridArch &a : hybridArchs())
    if (modelType == a.modelType)
      return &a;
  return nullptr;
}

const HybridArch *findHybridByArchitecture(const std::string &architecture) {
  for (const HybridArch &a : hybridArchs())
    if (architecture == a.architecture)
      return &a;
  return nullptr;
}

std::vector<graph::TensorDecl> layerParams(const std::vector<graph::TensorDecl> &params,
                                           const std::string &layerPrefix) {
  std::vector<graph::TensorDecl> out;
  for (const graph::TensorDecl &t : params)
    if (t.name.rfind(layerPrefix, 0) == 0)
      out.push_back({t.name.substr(layerPrefix.size()), t.shape});
  return out;
}

json hybridModelJson(const HybridArch &arch, const json &config, const HybridDesc &desc,
                     int64_t context, int64_t seqLen, const std::string &source, int64_t batch) {
  json j;
  j["format"] = "ssm-opt-model";
  j["version"] = 1;
  j["architecture"] = arch.architecture;
  json cfg = config;
  cfg["context_length"] = context;
  j["config"] = cfg;
  j["byte_tokens"] = desc.vocab == 256;
  j["source"] = source;
  j["seq_len"] = seqLen;
  j["functions"] = {{"sequence", "forward_sequence"}, {"step", "forward_step"}};
  if (batch > 0)
    j["functions"]["step_batched"] = {{"name", "forward_step_batched"}, {"batch", batch}};
  json states = json::array();
  for (const HybridState &s : desc.states) {
    json e = {{"name", s.name}, {"shape", s.shape}, {"init", 0.0}};
    if (s.cache) {
      e["kind"] = "cache";
      e["axis"] = 0;
    }
    states.push_back(e);
  }
  j["states"] = states;
  json params = json::array();
  for (const graph::TensorDecl &p : desc.params)
    params.push_back({{"name", p.name}, {"shape", p.shape}});
  j["params"] = params;
  return j;
}

namespace {

/// "model.layers.N." -> N, or -1.
int64_t layerIndex(const std::string &name) {
  const std::string pre = "model.layers.";
  if (name.rfind(pre, 0) != 0)
    return -1;
  size_t end = name.find('.', pre.size());
  std::string num = name.substr(pre.size(), end - pre.size());
  if (num.empty() || num.size() > 9 || num.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stoll(num);
}

} // namespace

bool importHybrid(const std::string &safetensorsPath, const std::string &configPath,
                  const std::string &outDir, int64_t seqLen, int64_t context, std::string &error,
                  LogitsRows rows, WeightsMode weightsMode, StFile *stored, int64_t batch,
                  std::string *summary) {
  std::vector<char> bytes;
  if (!readWholeFile(configPath, "a JSON file", bytes, error))
    return false;
  json config = json::parse(
      config_fields::jsonWithNonFiniteAsStrings(std::string(bytes.begin(), bytes.end())), nullptr,
      /*allow_exceptions=*/false);
  if (config.is_discarded() || !config.is_object()) {
    error = configPath + ": not a JSON object";
    return false;
  }
  StFile in;
  // The config is checked before the weights are read (a bad config fails fast).
  std::string modelType = config.value("model_type", std::string());
  const HybridArch *arch = findHybridByModelType(modelType);
  if (!arch) {
    error = configPath + ": model_type '" + modelType + "' is not a hybrid this importer knows";
    return false;
  }
  HybridDesc check;
  if (!arch->describe(config, context, check, error)) {
    error = configPath + ": " + error;
    return false;
  }
  if (!readSafetensors(safetensorsPath, in, error))
    return false;
  return importHybridFrom(config, in, safetensorsPath, configPath, outDir, seqLen, context, error,
                          rows, weightsMode, stored, batch, summary);
}

bool importHybridFrom(const json &config, const StFile &in, const std::string &safetensorsPath,
                      const std::string &configPath, const std::string &outDir, int64_t seqLen,
                      int64_t context, std::string &error, LogitsRows rows,
                      WeightsMode weightsMode, StFile *stored, int64_t batch,
                      std::string *summary) {
  std::string modelType = config.value("model_type", std::string());
  const HybridArch *arch = findHybridByModelType(modelType);
  if (!arch) {
    error = configPath + ": model_type '" + modelType + "' is not a hybrid this importer knows";
    return false;
  }
  HybridDesc desc;
  if (!arch->describe(config, context, desc, error)) {
    error = configPath + ": " + error;
    return false;
  }
  // The capacity describe chose (the default when context is 0).
  for (const HybridState &s : desc.states)
    if (s.cache) {
      context = s.shape[0];
      break;
    }
  // A sequence call writes its tokens into the caches: it cannot hold more
  // than they do (ssm.attention's verifier would refuse the graph).
  if (context > 0 && seqLen > context) {
    error = "a sequence of " + std::to_string(seqLen) + " tokens (--seq-len) is longer than the " +
            std::to_string(context) + " positions the KV caches hold (--context): give --seq-len " +
            "at most " + std::to_string(context) + " or a longer --context";
    return false;
  }
  std::string mlir;
  if (!desc.write(seqLen, rows, batch, mlir, error))
    return false;
  for (const StTensor &t : in.tensors) {
    int64_t l = layerIndex(t.name);
    if (l >= desc.numLayers) {
      error = safetensorsPath + ": tensor '" + t.name + "' belongs to layer " + std::to_string(l) +
              " but " + configPath + " says num_hidden_layers = " + std::to_string(desc.numLayers);
      return false;
    }
  }
  StFile out;
  std::set<std::string> sourceDtypes;
  for (const graph::TensorDecl &p : desc.params) {
    const StTensor *t = in.find(p.name);
    if (!t) {
      error = safetensorsPath + ": missing tensor '" + p.name + "' (expected shape " +
              rt::shapeString(p.shape) + ")";
      if (p.name == "lm_head.weight")
        error += "; the config has tie_word_embeddings = false";
      return false;
    }
    if (t->shape != p.shape) {
      auto g = in.metadata.find("gguf:" + p.name);
      error = safetensorsPath + ": tensor '" + p.name + "'" +
              (g != in.metadata.end() ? " (GGUF '" + g->second + "')" : std::string()) +
              " has shape " + rt::shapeString(t->shape) + " but the config implies " +
              rt::shapeString(p.shape);
      return false;
    }
    sourceDtypes.insert(stDTypeName(t->dtype));
    const StTensor *scale = nullptr, *min = nullptr;
    if (isStoredQ8(in, *t, scale, &min)) { // int8 blocks (a GGUF's Q8_0): kept as they are
      storeQ8Weight(out, *t, *scale, weightsMode, min);
      continue;
    }
    std::vector<float> values;
    if (!toFloats(*t, values, error)) {
      error = safetensorsPath + ": " + error;
      return false;
    }
    storeWeight(out, p.name, p.shape, values, t->dtype, weightsMode);
  }
  std::string dtypes;
  for (const std::string &d : sourceDtypes)
    dtypes += (dtypes.empty() ? "" : ",") + d;
  out.metadata["format"] = "pt";
  out.metadata["source"] = fs::path(safetensorsPath).filename().string();
  out.metadata["source_dtypes"] = dtypes;
  out.metadata["weight_storage"] = weightsModeName(weightsMode);
  if (!prepareOutputDir(outDir, /*force=*/true, error))
    return false;
  fs::path dir(outDir);
  if (!writeSafetensors((dir / "weights.safetensors").string(), out, error))
    return false;
  if (stored)
    for (const StTensor &t : out.tensors)
      stored->tensors.push_back(StTensor{t.name, t.dtype, t.shape, {}});
  if (!writeTextFile(dir / "model.mlir", mlir, error))
    return false;
  json model = hybridModelJson(*arch, config, desc, context, seqLen, safetensorsPath, batch);
  model["source_dtypes"] = dtypes;
  if (!writeTextFile(dir / "model.json", model.dump(2) + "\n", error))
    return false;
  if (summary)
    *summary = std::string(arch->architecture) + ", " + desc.summary + ", " + dtypes;
  return true;
}

} // namespace ssm::importer
