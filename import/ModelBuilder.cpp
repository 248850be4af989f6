// buildModelMLIR: dispatches on model.json's "architecture" to the importer that knows it.
#include "import/ModelBuilder.h"
#include "import/RwkvModel.h"

#include "import/HybridModel.h"
#include "import/Mamba2Model.h"
#include "import/MambaModel.h"
#include "import/ConfigFields.h"
#include "import/graph/ModelGraph.h"
#include "runtime/Shape.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace ssm::importer {

namespace {
/// model.json's functions.step_batched.batch (0 when there is no entry).
bool stepBatchOf(const nlohmann::json &j, int64_t &batch, std::string &error) {
  batch = 0;
  if (!j.contains("functions") || !j["functions"].is_object() ||
      !j["functions"].contains("step_batched"))
    return true;
  const nlohmann::json &e = j["functions"]["step_batched"];
  if (!e.is_object() || !e.contains("batch") || !e["batch"].is_number_integer() ||
      e["batch"].get<int64_t>() < 1 || e["batch"].get<int64_t>() > kMaxStepBatch) {
    error = "model.json functions.step_batched must be {\"name\": ..., \"batch\": 1 to " +
            std::to_string(kMaxStepBatch) + "}, got " + e.dump();
    return false;
  }
  batch = e["batch"].get<int64_t>();
  return true;
}
/// model.json's functions.sequence_batched.batch (0 when there is no entry).
bool sequenceBatchOf(const nlohmann::json &j, int64_t &batch, std::string &error) {
  batch = 0;
  if (!j.contains("functions") || !j["functions"].is_object() ||
      !j["functions"].contains("sequence_batched"))
    return true;
  const nlohmann::json &e = j["functions"]["sequence_batched"];
  if (!e.is_object() || !e.contains("batch") || !e["batch"].is_number_integer() ||
      e["batch"].get<int64_t>() < 1 || e["batch"].get<int64_t>() > kMaxStepBatch) {
    error = "model.json functions.sequence_batched must be {\"name\": ..., \"batch\": 1 to " +
            std::to_string(kMaxStepBatch) + "}, got " + e.dump();
    return false;
  }
  batch = e["batch"].get<int64_t>();
  return true;
}
/// A tensor model.json lists ("states" or "params"): its name and shape.
struct Listed {
  std::string name;
  std::vector<int64_t> shape;
};

/// model.json's `key` list, when present, must be `want` (names, shapes,
/// order): a config edited apart from its lists (num_hidden_layers 1 beside
/// two layers' weights) would otherwise run another model than the files
/// hold. With `extrasAllowed`, the list may also hold entries after or
/// between the wanted ones (states a graph does not read are harmless).
bool checkListed(const nlohmann::json &j, const char *key, const std::vector<Listed> &want,
                 const std::string &arch, std::string &error, bool extrasAllowed = false) {
  if (!j.contains(key))
    return true;
  const nlohmann::json &list = j[key];
  auto mismatch = [&](const std::string &what) {
    error = std::string("model.json's \"") + key + "\" do not match its " + arch +
            " \"config\": " + what + " (edit neither by hand: import the checkpoint again)";
    return false;
  };
  if (!list.is_array())
    return mismatch("\"" + std::string(key) + "\" is not an array");
  auto entry = [&](size_t i) {
    Listed got;
    const nlohmann::json &e = list[i];
    if (e.is_object() && e.contains("name") && e["name"].is_string())
      got.name = e["name"].get<std::string>();
    if (e.is_object() && e.contains("shape") && e["shape"].is_array())
      for (const nlohmann::json &d : e["shape"])
        got.shape.push_back(d.is_number_integer() ? d.get<int64_t>() : -1);
    return got;
  };
  size_t at = 0; // the next list entry
  for (const Listed &w : want) {
    if (extrasAllowed)
      while (at < list.size() && entry(at).name != w.name)
        ++at;
    if (at >= list.size())
      return mismatch("the config has '" + w.name + "' " + rt::shapeList(w.shape) +
                      ", which the list lacks");
    Listed got = entry(at);
    if (got.name != w.name || got.shape != w.shape)
      return mismatch("entry " + std::to_string(at) + " is '" + got.name + "' " +
                      rt::shapeList(got.shape) + ", the config has '" + w.name + "' " +
                      rt::shapeList(w.shape));
    ++at;
  }
  if (!extrasAllowed && at < list.size())
    return mismatch("the list has '" + entry(at).name + "', which the config does not");
  return true;
}

template <typename P, typename S>
bool checkLists(const nlohmann::json &j, const std::vector<P> &params, const std::vector<S> &states,
                const std::string &arch, std::string &error) {
  std::vector<Listed> p, s;
  for (const P &x : params)
    p.push_back({x.name, x.shape});
  for (const S &x : states)
    s.push_back({x.name, x.shape});
  return checkListed(j, "params", p, arch, error) &&
         checkListed(j, "states", s, arch, error, /*extrasAllowed=*/true);
}

} // namespace

bool buildModelMLIR(const std::string &modelJsonText, int64_t seqLen, std::string &mlir,
                    std::string &error, LogitsRows rows) {
  if (seqLen < 1) {
    error = "sequence length must be at least 1, got " + std::to_string(seqLen);
    return false;
  }
  nlohmann::json j = nlohmann::json::parse(modelJsonText, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    error = "model.json is not a JSON object";
    return false;
  }
  if (!j.contains("architecture") || !j["architecture"].is_string()) {
    error = "model.json has no string \"architecture\"";
    return false;
  }
  std::string arch = j["architecture"].get<std::string>();
  int64_t batch = 0;
  if (!stepBatchOf(j, batch, error))
    return false;
  int64_t prefillBatch = 0;
  if (!sequenceBatchOf(j, prefillBatch, error))
    return false;
  graph::SequenceBatchScope prefillScope(prefillBatch);
  if (arch == "rwkv4" || arch == "rwkv5.1" || arch == "rwkv5.2" || arch == "rwkv6" ||
      arch == "rwkv7") {
    RwkvConfig config;
    if (!rwkvConfigFromJson(modelJsonText, config, error))
      return false;
    return buildRwkvMLIR(config, seqLen, mlir, error, rows, batch);
  }
  if (arch == "mamba1" || arch == "mamba2") {
    if (!j.contains("config") || !j["config"].is_object()) {
      error = "model.json has no object \"config\"";
      return false;
    }
    if (arch == "mamba1") {
      MambaConfig c;
      return parseMambaConfig(j["config"], c, error) &&
             checkLists(j, mambaParams(c), mambaStates(c), arch, error) &&
             writeMambaModule(c, seqLen, rows, batch, mlir, error);
    }
    Mamba2Config c;
    return parseMamba2Config(j["config"], c, error) &&
           checkLists(j, mamba2Params(c), mamba2States(c), arch, error) &&
           writeMamba2Module(c, seqLen, rows, batch, mlir, error);
  }
  if (const HybridArch *h = findHybridByArchitecture(arch)) {
    if (!j.contains("config") || !j["config"].is_object()) {
      error = "model.json has no object \"config\"";
      return false;
    }
    int64_t context = 0;
    if (!config_fields::readInt(j["config"], "context_length", true, 1, int64_t(1) << 30, context,
                                error)) {
      error = "model.json config: " + error;
      return false;
    }
    HybridDesc desc;
    if (!h->describe(j["config"], context, desc, error)) {
      error = "model.json config: " + error;
      return false;
    }
    std::vector<Listed> p, s;
    for (const graph::TensorDecl &x : desc.params)
      p.push_back({x.name, x.shape});
    for (const HybridState &x : desc.states)
      s.push_back({x.name, x.shape});
    return checkListed(j, "params", p, arch, error) &&
           checkListed(j, "states", s, arch, error, /*extrasAllowed=*/true) &&
           desc.write(seqLen, rows, batch, mlir, error);
  }
  std::string known = "rwkv4, rwkv5.1, rwkv5.2, rwkv6, rwkv7, mamba1, mamba2";
  for (const HybridArch &h : hybridArchs())
    known += std::string(", ") + h.architecture;
  error = "unknown architecture '" + arch + "' in model.json (known: " + known + ")";
  return false;
}

} // namespace ssm::importer
