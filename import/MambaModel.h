// Mamba-1 models in the Hugging Face layout: the config, the parameter list, the MLIR graph and the importer.
//
// `ssm-import mamba <model.safetensors> --config config.json -o <dir>` calls
// importMamba, which writes
//   <dir>/model.mlir          buildMambaMLIR(config, seqLen): @forward_sequence
//                             (prefill, the selective scan) and @forward_step
//                             (decode, ssm.selective_update)
//   <dir>/weights.safetensors every parameter the graph reads, F32, keyed by
//                             its Hugging Face name (shapes as Hugging Face
//                             stores them, e.g. conv1d.weight (d_inner, 1, W))
//   <dir>/model.json          {"format": "ssm-opt-model", "version": 1,
//                             "architecture": "mamba1", "config", "byte_tokens",
//                             "source", "seq_len", "states", "params",
//                             "functions", "source_dtypes"}
//
// Both functions take (tokens, states in model.json order, weights in
// mambaParams order) and return (logits, states in the same order); tokens
// are i32 ids, states are tagged {ssm.state = "layers.N.conv_state" |
// "layers.N.ssm_state"}, weights {ssm.param = "<Hugging Face name>"}.
#ifndef SSM_IMPORT_MAMBAMODEL_H
#define SSM_IMPORT_MAMBAMODEL_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ssm::importer {

/// The fields of Hugging Face's MambaConfig that define the computation.
/// Fields a config.json leaves out take MambaConfig's defaults, as
/// `MambaConfig.from_pretrained` does; vocab_size, hidden_size, state_size
/// and num_hidden_layers are required.
struct MambaConfig {
  int64_t vocabSize = 0;
  int64_t hiddenSize = 0;       // d_model
  int64_t stateSize = 16;       // N
  int64_t numLayers = 0;
  int64_t expand = 2;
  int64_t intermediateSize = 0; // d_inner = expand * hidden_size
  int64_t convKernel = 4;       // W
  int64_t timeStepRank = 0;     // dt_rank ("auto": ceil(hidden_size / 16))
  double layerNormEpsilon = 1e-5;
  bool useBias = false;         // in_proj and out_proj biases
  bool useConvBias = true;
  bool tieWordEmbeddings = true; // lm_head reads backbone.embedding.weight
  bool residualInFp32 = true;    // no effect on an f32 graph; kept for the record
};

/// Reads and validates a Hugging Face Mamba config (config.json's object).
/// On failure returns false with `error` naming the field and the problem.
bool parseMambaConfig(const nlohmann::json &config, MambaConfig &out, std::string &error);

/// The resolved config in Hugging Face's field names (every field written,
/// "auto" resolved): what model.json's "config" holds. parseMambaConfig
/// reads it back to the same MambaConfig.
nlohmann::json mambaConfigToJson(const MambaConfig &config);

/// One parameter of the graph: its Hugging Face name and shape.
struct MambaParam {
  std::string name;
  std::vector<int64_t> shape;
};

/// Every parameter the graph reads, in argument order: the embedding; per
/// layer norm, in_proj (weight, bias if use_bias), conv1d (weight, bias if
/// use_conv_bias), x_proj, dt_proj (weight, bias), A_log, D, out_proj
/// (weight, bias if use_bias); norm_f; lm_head unless tied.
std::vector<MambaParam> mambaParams(const MambaConfig &config);

/// One streaming state: its name, shape (no batch dim) and initial value.
struct MambaState {
  std::string name;
  std::vector<int64_t> shape;
  double init = 0.0;
};

/// Per layer: "layers.N.conv_state" (d_inner, W-1), then
/// "layers.N.ssm_state" (d_inner, N); both start at zero.
std::vector<MambaState> mambaStates(const MambaConfig &config);

/// The model graph (module text) for sequences of `seqLen` tokens.
std::string buildMambaModule(const MambaConfig &config, int64_t seqLen);

/// buildMambaModule from a Hugging Face config (or model.json's "config").
/// Returns false with `error` on an invalid config or seqLen < 1.
bool buildMambaMLIR(const nlohmann::json &config, int64_t seqLen, std::string &mlir,
                    std::string &error);

/// The model.json document of an import.
nlohmann::json mambaModelJson(const MambaConfig &config, int64_t seqLen,
                              const std::string &source);

/// Imports a Hugging Face Mamba-1 checkpoint into `outDir` (see the file
/// comment). `outDir` is created; an existing non-empty one is refused unless
/// `force`. Every tensor the graph needs must be present with its exact shape
/// (F32, F16, BF16 or F64; written as F32). On failure returns false with
/// `error` naming the file, field or tensor.
bool importMamba(const std::string &safetensorsPath, const std::string &configPath,
                 const std::string &outDir, bool force, int64_t seqLen, std::string &error);

} // namespace ssm::importer

#endif // SSM_IMPORT_MAMBAMODEL_H
