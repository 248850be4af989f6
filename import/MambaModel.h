// Mamba-1 models: the config, the parameter list, the MLIR graph and the importer.
//
// Two checkpoint layouts are read, told apart by what the files hold:
//   transformers  MambaForCausalLM.save_pretrained: config.json with
//                 MambaConfig's field names (hidden_size, num_hidden_layers,
//                 state_size, ...), the table 'backbone.embeddings.weight'
//   mamba_ssm     state-spaces/mamba's MambaLMHeadModel: config.json with
//                 d_model, n_layer, vocab_size, ssm_cfg, ..., the table
//                 'backbone.embedding.weight'
// Every other tensor name is the same in both. The config format and the
// tensor layout are detected separately (converted checkpoints mix them).
//
// `ssm-import mamba <model.safetensors> --config config.json -o <dir>` calls
// importMamba, which writes
//   <dir>/model.mlir          buildMambaMLIR(config, seqLen): @forward_sequence
//                             (prefill, the selective scan) and @forward_step
//                             (decode, ssm.selective_update); with a step
//                             batch B (ssm-import --batch B) also
//                             @forward_step_batched (B streams, one token each)
//   <dir>/weights.safetensors every parameter the graph reads, F32 (F16, BF16
//                             and F64 sources are widened), keyed by its
//                             mamba_ssm name (mambaParams; a transformers
//                             checkpoint's 'backbone.embeddings.weight' is
//                             stored as 'backbone.embedding.weight'), shapes as
//                             PyTorch stores them, e.g. conv1d.weight (d_inner, 1, W)
//   <dir>/model.json          {"format": "ssm-opt-model", "version": 1,
//                             "architecture": "mamba1", "config", "byte_tokens",
//                             "source", "seq_len", "states", "params",
//                             "functions", "source_dtypes", "source_layout",
//                             "source_config"}
//
// Every function takes (tokens, states in model.json order, weights in
// mambaParams order) and returns (logits, states in the same order); tokens
// are i32 ids, states are tagged {ssm.state = "layers.N.conv_state" |
// "layers.N.ssm_state"}, weights {ssm.param = "<Hugging Face name>"}.
// @forward_step_batched takes tokens (B), each state with a leading batch
// dim, (B, d_inner, W-1) and (B, d_inner, N), and returns logits (B, vocab)
// and the states so: row i is what @forward_step returns for token i and
// row i of each state (model.json "functions": {"step_batched": {"name":
// "forward_step_batched", "batch": B}}).
#ifndef SSM_IMPORT_MAMBAMODEL_H
#define SSM_IMPORT_MAMBAMODEL_H

#include "import/ModelBuilder.h"
#include "import/WeightStore.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ssm::importer {

/// The fields of transformers' MambaConfig that define the computation.
/// Fields a config.json leaves out take MambaConfig's defaults, as
/// `MambaConfig.from_pretrained` does; vocab_size, hidden_size, state_size
/// and num_hidden_layers are required. A mamba_ssm config is translated into
/// the same fields (parseMambaConfig).
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

/// The config.json formats parseMambaConfig reads.
enum class MambaConfigFormat {
  Transformers, // MambaConfig field names: hidden_size, num_hidden_layers, state_size, ...
  MambaSsm,     // mamba_ssm's MambaConfig: d_model, n_layer, vocab_size, ssm_cfg, ...
};
/// "transformers", "mamba_ssm".
const char *mambaConfigFormatName(MambaConfigFormat f);

/// Reads and validates a Mamba-1 config (config.json's object) in either
/// format: `hidden_size` marks transformers', `d_model` mamba_ssm's (with
/// its defaults: ssm_cfg {d_state 16, d_conv 4, expand 2, dt_rank "auto",
/// conv_bias true, bias false}, tie_embeddings true, rms_norm true, norm
/// epsilon 1e-5, and vocab_size rounded up to pad_vocab_size_multiple,
/// default 8, as MambaLMHeadModel pads its embedding). A config with
/// neither field is refused with a message naming both. On failure returns
/// false with `error` naming the field and the problem; `format`, when
/// given, receives the format that was read.
bool parseMambaConfig(const nlohmann::json &config, MambaConfig &out, std::string &error,
                      MambaConfigFormat *format = nullptr);

/// The tensor layouts of a Mamba checkpoint (see the file comment).
enum class MambaLayout {
  Transformers, // 'backbone.embeddings.weight'
  MambaSsm,     // 'backbone.embedding.weight'
};
/// "transformers", "mamba_ssm".
const char *mambaLayoutName(MambaLayout l);

/// The layout of a checkpoint, from the names of the tensors it holds.
/// False with `error` naming both layouts' embedding tensors when it holds
/// neither, or both.
bool detectMambaLayout(const std::vector<std::string> &tensorNames, MambaLayout &out,
                       std::string &error);

/// The name a parameter of mambaParams (mamba_ssm's names) has in a
/// checkpoint of `layout`.
std::string mambaTensorName(const std::string &paramName, MambaLayout layout);

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

/// The model graph (module text) for sequences of `seqLen` tokens;
/// @forward_sequence returns the logits of `rows` (import/ModelBuilder.h).
/// `batch` > 0 adds @forward_step_batched for that many streams. False
/// with `error` for seqLen or batch out of range.
bool writeMambaModule(const MambaConfig &config, int64_t seqLen, LogitsRows rows, int64_t batch,
                      std::string &mlir, std::string &error);

/// writeMambaModule from a Hugging Face config (or model.json's "config").
/// Returns false with `error` on an invalid config, seqLen < 1, or a batch
/// outside 0 (none) to kMaxStepBatch.
bool buildMambaMLIR(const nlohmann::json &config, int64_t seqLen, std::string &mlir,
                    std::string &error, LogitsRows rows = LogitsRows::Last, int64_t batch = 0);

/// The model.json document of an import; `batch` > 0 adds
/// functions.step_batched {"name": "forward_step_batched", "batch": batch}.
nlohmann::json mambaModelJson(const MambaConfig &config, int64_t seqLen,
                              const std::string &source, int64_t batch = 0);

/// Imports a Mamba-1 checkpoint (either layout, either config format) into
/// `outDir` (see the file comment), or a Mamba-2 one when the config says
/// so (isMamba2Config; import/Mamba2Model.h; model.json's architecture
/// "mamba2"). `outDir` is created; an existing
/// non-empty one is refused unless `force`. Every tensor the graph needs must
/// be present with its exact shape (F32, F16, BF16 or F64; written as
/// `weights` says, import/WeightStore.h). On failure returns false with
/// `error` naming the file, field or tensor. model.mlir's @forward_sequence
/// returns the logits of `rows`; its weight arguments are f32 (the caller
/// types them as stored: passes/WeightStorage.h). `stored`, if given, gets
/// the names, dtypes and shapes of the tensors written (no data). `batch`
/// > 0 (Mamba-1 only; a Mamba-2 config is refused naming the option) adds
/// @forward_step_batched for that many streams.
bool importMamba(const std::string &safetensorsPath, const std::string &configPath,
                 const std::string &outDir, bool force, int64_t seqLen, std::string &error,
                 LogitsRows rows = LogitsRows::Last, WeightsMode weights = WeightsMode::Source,
                 StFile *stored = nullptr, int64_t batch = 0);

/// importMamba from a config.json already parsed (`rawConfig`, either
/// format) and tensors already read (`in`, either layout), as the GGUF
/// import hands them over (import/GgufImport.h): `sourceName` and
/// `configName` name them in errors and model.json. A weight held in `in`
/// as int8 blocks with a "<name>_scale" (isStoredQ8, import/WeightStore.h:
/// a GGUF's Q8_0 / Q6_K matrices) is stored by storeQ8Weight, byte for byte
/// under --weights source / q8.
bool importMambaFrom(const nlohmann::json &rawConfig, const StFile &in,
                     const std::string &sourceName, const std::string &configName,
                     const std::string &outDir, bool force, int64_t seqLen, std::string &error,
                     LogitsRows rows = LogitsRows::Last, WeightsMode weights = WeightsMode::Source,
                     StFile *stored = nullptr, int64_t batch = 0);

} // namespace ssm::importer

#endif // SSM_IMPORT_MAMBAMODEL_H
