// buildModelMLIR: dispatches on model.json's "architecture" to the importer that knows it.
#include "import/ModelBuilder.h"
#include "import/RwkvModel.h"

#include "import/Mamba2Model.h"
#include "import/MambaModel.h"

#include <nlohmann/json.hpp>

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
    return arch == "mamba1" ? buildMambaMLIR(j["config"], seqLen, mlir, error, rows, batch)
                            : buildMamba2MLIR(j["config"], seqLen, mlir, error, rows, batch);
  }
  error = "unknown architecture '" + arch +
          "' in model.json (known: rwkv4, rwkv5.1, rwkv5.2, rwkv6, rwkv7, mamba1, mamba2)";
  return false;
}

} // namespace ssm::importer
