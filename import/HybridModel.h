// Hybrid models (recurrent layers beside attention layers) from Hugging Face checkpoints: LFM2 / LFM2.5, Granite 4.0-H, Falcon-H1, Qwen3.5 / Qwen3-Next.
//
// Each architecture is a HybridArch: the config.json `model_type` it reads,
// the architecture name model.json records, and `describe`, which reads the
// config (checking every field the graph depends on, naming the field on
// error) into a HybridDesc: every weight (Hugging Face names, argument
// order), every state (per layer; attention layers' KV caches are
// "kind": "cache" states of C positions), and a writer of the module
// (import/graph/ModelGraph.h). model.json's "config" is the checkpoint's
// config.json plus "context_length" (C), so the runner regenerates the same
// graph from it (import/ModelBuilder.h).
//
//   lfm2              Lfm2ForCausalLM (transformers models/lfm2/modeling_lfm2.py;
//                     llama.cpp src/models/lfm2.cpp): per `layer_types` (or
//                     `full_attn_idxs`) a gated short conv out_proj(C * conv(B * x))
//                     or GQA attention with per-head q/k RMSNorm and NeoX RoPE; then
//                     a SwiGLU; model.embedding_norm is the final norm.
//   granitemoehybrid  GraniteMoeHybridForCausalLM with a dense shared MLP (Granite
//                     4.0-H; transformers models/granitemoehybrid/; llama.cpp
//                     src/models/granite-hybrid.cpp): per `layer_types` Mamba-2
//                     (gated norm over all of d_inner) or GQA attention (NoPE or
//                     RoPE), with embedding_multiplier, attention_multiplier (the
//                     softmax scale), residual_multiplier and logits_scaling (the
//                     logits are divided by it). Experts (num_local_experts > 0)
//                     are refused naming the field.
//   falcon_h1         FalconH1ForCausalLM (transformers models/falcon_h1/; llama.cpp
//                     src/models/falcon-h1.cpp): Mamba-2 and GQA attention (NeoX RoPE)
//                     side by side in every layer on the same normed input, summed,
//                     with Falcon's mup multipliers (embedding, lm_head, key,
//                     attention in/out, ssm in/out, the five ssm_multipliers of
//                     in_proj's z, x, B, C, dt columns, mlp gate/down); the Mamba gate
//                     is y silu(z) or, with mamba_rms_norm, the gated RMSNorm over
//                     mamba_n_groups groups (import/FalconH1Model.cpp).
//   qwen3_5_text      Qwen3_5ForCausalLM (transformers models/qwen3_5/; llama.cpp
//   qwen3_5           src/models/qwen35.cpp), and the text model of
//   qwen3_next        Qwen3_5ForConditionalGeneration (a text_config, weights under
//                     model.language_model.), and dense Qwen3-Next (fused
//                     in_proj_qkvz / in_proj_ba): per `layer_types` (or
//                     full_attention_interval) Gated DeltaNet (ssm.gated_delta_rule)
//                     or gated GQA attention, zero-centred RMSNorms, a SwiGLU
//                     (import/Qwen35Model.cpp). Experts (qwen3_5_moe, num_experts)
//                     are refused naming the field.
#ifndef SSM_IMPORT_HYBRIDMODEL_H
#define SSM_IMPORT_HYBRIDMODEL_H

#include "import/ModelBuilder.h"
#include "import/WeightStore.h"
#include "import/graph/ModelGraph.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ssm::importer {

/// The default KV capacity: the config's max_position_embeddings, at most this.
constexpr int64_t kDefaultContext = 4096;

struct HybridState {
  std::string name;
  std::vector<int64_t> shape;
  bool cache = false; // a KV cache: shape[0] is the position axis (capacity)
};

struct HybridDesc {
  std::vector<graph::TensorDecl> params; // Hugging Face names, argument order
  std::vector<HybridState> states;       // model.json order
  int64_t numLayers = 0, vocab = 0;
  std::string summary; // one line for ssm-import's report ("6 layers: 4 conv, 2 attention")
  /// The module (import/ModelBuilder.h's functions) for `seqLen` tokens.
  std::function<bool(int64_t seqLen, LogitsRows rows, int64_t batch, std::string &mlir,
                     std::string &error)>
      write;
};

struct HybridArch {
  const char *modelType;    // config.json's model_type
  const char *architecture; // model.json's
  /// Reads `config` with KV capacity `context` (0: the default); false with
  /// `error` naming the field.
  bool (*describe)(const nlohmann::json &config, int64_t context, HybridDesc &out,
                   std::string &error);
};

/// The architectures above.
const std::vector<HybridArch> &hybridArchs();
/// The one reading config.json's model_type `modelType` (or named
/// `architecture` in model.json), or nullptr.
const HybridArch *findHybridByModelType(const std::string &modelType);
const HybridArch *findHybridByArchitecture(const std::string &architecture);

bool describeLfm2(const nlohmann::json &config, int64_t context, HybridDesc &out,
                  std::string &error);
bool describeGraniteHybrid(const nlohmann::json &config, int64_t context, HybridDesc &out,
                           std::string &error);
bool describeFalconH1(const nlohmann::json &config, int64_t context, HybridDesc &out,
                      std::string &error);
bool describeQwen35(const nlohmann::json &config, int64_t context, HybridDesc &out,
                    std::string &error);

/// The weights of one layer, `params` whose names start with `layerPrefix`
/// (e.g. "model.layers.3."), named without it: a graph::BlockKind's params
/// from the first layer of its kind.
std::vector<graph::TensorDecl> layerParams(const std::vector<graph::TensorDecl> &params,
                                           const std::string &layerPrefix);

/// model.json's config of a hybrid: what describe needs again.
nlohmann::json hybridModelJson(const HybridArch &arch, const nlohmann::json &config,
                               const HybridDesc &desc, int64_t context, int64_t seqLen,
                               const std::string &source, int64_t batch);

/// Imports a checkpoint folder's config.json + model.safetensors (or the
/// given files): weights in `weightsMode`, model.mlir, model.json. Errors
/// name the file and the tensor or field. `stored` receives the written
/// tensors (no data).
bool importHybrid(const std::string &safetensorsPath, const std::string &configPath,
                  const std::string &outDir, int64_t seqLen, int64_t context, std::string &error,
                  LogitsRows rows, WeightsMode weightsMode, StFile *stored, int64_t batch,
                  std::string *summary = nullptr);

/// importHybrid from a config and tensors already in memory (the GGUF
/// import builds both from a .gguf file): `source` names the input in
/// model.json and in messages, `configName` the config in messages. A
/// tensor's metadata entry "gguf:<name>" (the GGUF tensor it came from) is
/// named beside it in shape errors.
bool importHybridFrom(const nlohmann::json &config, const StFile &in, const std::string &source,
                      const std::string &configName, const std::string &outDir, int64_t seqLen,
                      int64_t context, std::string &error, LogitsRows rows,
                      WeightsMode weightsMode, StFile *stored, int64_t batch,
                      std::string *summary = nullptr);

} // namespace ssm::importer

#endif // SSM_IMPORT_HYBRIDMODEL_H
