// RWKV-4, 5.1, 5.2, 6 and 7 models from rwkv.cpp files: architecture detection,
// tensor checks, the model directory's model.json, and the MLIR graph.
//
// What the graphs compute is ../shared/models/rwkv/README.md ("What the
// models compute"), checked against rwkv.cpp's logits. No MLIR link: the
// graph is written as text (the tools parse and verify it).
#ifndef SSM_IMPORT_RWKVMODEL_H
#define SSM_IMPORT_RWKVMODEL_H

#include "import/ModelBuilder.h"
#include "import/RwkvFile.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ssm::importer {

/// A graph parameter: the rwkv.cpp tensor name and its row-major (PyTorch)
/// shape, as stored in weights.safetensors.
struct RwkvParam {
  std::string name;
  std::vector<int64_t> shape;
};

/// A carried state: per layer, in rwkv.cpp's order, RWKV-4
/// [ffn_xx, att_xx, aa, bb, pp] (each (n_embed)), RWKV-5 and 6 [ffn_xx,
/// att_xx, att_state (heads, head_size, head_size) indexed [head][key i][value j]],
/// RWKV-7 the same with att_state indexed [head][value i][key j] (ggml's
/// rwkv_wkv7 layout, as rwkv.cpp keeps it).
struct RwkvState {
  std::string name;
  std::vector<int64_t> shape;
  double init = 0.0; // pp starts at -1e30, all others at 0
};

struct RwkvConfig {
  std::string architecture; // "rwkv4", "rwkv5.1", "rwkv5.2", "rwkv6", "rwkv7"
  int64_t nVocab = 0, nEmbed = 0, nLayer = 0;
  int64_t heads = 0, headSize = 0; // RWKV-5, 6, 7 (0 for RWKV-4)
  int64_t ffnDim = 0;              // rows of ffn.key.weight
  int64_t fileVersion = 0;
  std::string dataType;            // "FP32" or "FP16" (the file's header)
  double layerNormEps = 1e-5;
  double groupNormEps = 1e-5;      // ln_x, per head: 1e-5 (RWKV-5), 64e-5 (RWKV-6, 7)
  /// Every parameter the graph reads, in argument order.
  std::vector<RwkvParam> params;

  /// Heads with a matrix state: RWKV-5 and later.
  bool isV5() const { return architecture != "rwkv4"; }
  bool isV6() const { return architecture == "rwkv6"; }
  bool isV7() const { return architecture == "rwkv7"; }
};

/// Decides the architecture from the tensor names (README: k_k means RWKV-7,
/// time_maa_x RWKV-6; ln_x RWKV-5, 5.2 with a gate, 5.1 without; else
/// RWKV-4) and checks
/// that every tensor the graph needs is present with the expected shape.
/// Messages name the tensor and, for a bad shape, the byte offset of its record.
bool analyseRwkv(const RwkvFile &file, RwkvConfig &config, std::string &error);

/// The states of a configuration, in argument order.
std::vector<RwkvState> rwkvStates(const RwkvConfig &config);

/// model.json: {"format": "ssm-opt-model", "version": 1, "architecture",
/// "config", "byte_tokens": true, "source", "states", "params"}.
/// `batch` > 0 records functions.step_batched {"name": "forward_step_batched", "batch"}.
std::string rwkvModelJson(const RwkvConfig &config, const std::string &source,
                          int64_t batch = 0);

/// Reads back the configuration from model.json text.
bool rwkvConfigFromJson(const std::string &modelJsonText, RwkvConfig &config,
                        std::string &error);

/// The module with @forward_sequence (seqLen tokens) and @forward_step (one
/// token); see import/ModelBuilder.h for the calling convention and `rows`.
/// `batch` > 0 adds @forward_step_batched: one token of each of `batch`
/// streams (tokens (batch), every state with a leading dim batch, logits
/// (batch, vocab)), the recurrences as the sequence form's ops with batch
/// dim `batch` and length 1.
bool buildRwkvMLIR(const RwkvConfig &config, int64_t seqLen, std::string &mlir,
                   std::string &error, LogitsRows rows = LogitsRows::Last, int64_t batch = 0);

} // namespace ssm::importer

#endif // SSM_IMPORT_RWKVMODEL_H
