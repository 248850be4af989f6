// Mamba checkpoint layouts (transformers' and mamba_ssm's tensor names): detection and name mapping.
#include "import/MambaModel.h"

#include <algorithm>

namespace ssm::importer {

namespace {
const char *const kMambaSsmEmbedding = "backbone.embedding.weight";
const char *const kTransformersEmbedding = "backbone.embeddings.weight";
} // namespace

const char *mambaLayoutName(MambaLayout l) {
  return l == MambaLayout::Transformers ? "transformers" : "mamba_ssm";
}

bool detectMambaLayout(const std::vector<std::string> &names, MambaLayout &out,
                       std::string &error) {
  auto has = [&](const char *n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  const bool hf = has(kTransformersEmbedding), ms = has(kMambaSsmEmbedding);
  if (hf && ms) {
    error = std::string("holds both '") + kTransformersEmbedding + "' (transformers' layout) and '" +
            kMambaSsmEmbedding + "' (mamba_ssm's layout); which embedding is meant is unclear";
    return false;
  }
  if (!hf && !ms) {
    error = std::string("holds neither '") + kTransformersEmbedding +
            "' (the layout of transformers' MambaForCausalLM / Mamba2ForCausalLM) nor '" +
            kMambaSsmEmbedding + "' (the layout of mamba_ssm's MambaLMHeadModel): not a Mamba "
            "checkpoint, or one in a layout ssm-import does not know";
    return false;
  }
  out = hf ? MambaLayout::Transformers : MambaLayout::MambaSsm;
  return true;
}

std::string mambaTensorName(const std::string &paramName, MambaLayout layout) {
  if (layout == MambaLayout::Transformers && paramName == kMambaSsmEmbedding)
    return kTransformersEmbedding;
  return paramName;
}

} // namespace ssm::importer
