// Mamba-2 models (transformers' Mamba2ForCausalLM, mamba_ssm's Mamba2 mixer): the config, the parameter and state lists, the MLIR graph.
//
// `ssm-import mamba` reads Mamba-2 checkpoints as it reads Mamba-1 ones
// (import/MambaModel.h: either tensor layout, either config.json format,
// F32/F16/BF16), choosing Mamba-2 from the config: transformers' model_type
// "mamba2", or mamba_ssm's ssm_cfg.layer "Mamba2". model.json's
// "architecture" is then "mamba2".
//
// The block computes what mamba_ssm's Mamba2 (mamba_ssm/modules/mamba2.py)
// and transformers' Mamba2Mixer compute, in f32:
//   in_proj(RMSNorm(h)) split into [z (d_inner) | xBC (d_inner + 2 G N) | dt (H)]
//   xBC = silu(causal_conv1d(xBC))          depthwise, width W, with bias
//   x, B, C = split(xBC)                    x (L, H, P), B and C (L, G, N)
//   dt = softplus(dt + dt_bias), clamped to time_step_limit when it is not (0, inf)
//   A = -exp(A_log)                         a scalar per head
//   y = SSD(x dt, A dt, B, C) + D x         head h reads group h / (H / G)
//   y = RMSNormGated(y, z)                  per group of d_inner / G channels:
//       norm_before_gate false: rmsnorm(y silu(z)) w; true: rmsnorm(y) w silu(z)
//   h = h + out_proj(y)
// with the embedding in front and norm_f and the LM head behind. The
// sequence form runs the SSD as ssm.ssd_scan (chunked, chunk_size from the
// config) from the carried state; the step form as ssm.selective_update
// with heads. Both start the conv from the carried window.
//
// Functions, states and weights as for Mamba-1 (import/ModelBuilder.h):
// states "layers.N.conv_state" (d_inner + 2 G N, W - 1) and
// "layers.N.ssm_state" (H, P, N), both zero at the start; weights keyed by
// mamba_ssm's names (mamba2Params).
#ifndef SSM_IMPORT_MAMBA2MODEL_H
#define SSM_IMPORT_MAMBA2MODEL_H

#include "import/MambaModel.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ssm::importer {

/// The fields of transformers' Mamba2Config that define the computation
/// (defaults as there where a config.json leaves them out; vocab_size,
/// hidden_size and num_hidden_layers are required). A mamba_ssm config is
/// translated into the same fields.
struct Mamba2Config {
  int64_t vocabSize = 0;
  int64_t hiddenSize = 0;       // d_model
  int64_t stateSize = 128;      // N
  int64_t numLayers = 0;
  int64_t expand = 2;
  int64_t intermediateSize = 0; // d_inner = expand * hidden_size = H * P
  int64_t numHeads = 0;         // H (default d_inner / head_dim)
  int64_t headDim = 64;         // P
  int64_t nGroups = 8;          // G, divides H (transformers' default 8, mamba_ssm's 1)
  int64_t convKernel = 4;       // W
  int64_t chunkSize = 256;      // the SSD chunk length (does not change the result)
  double layerNormEpsilon = 1e-5; // the block norms and the gated norm
  bool useBias = false;         // in_proj and out_proj biases
  bool useConvBias = true;
  bool tieWordEmbeddings = false;
  bool normBeforeGate = false;
  bool residualInFp32 = true;   // no effect on an f32 graph
  int64_t normGroups = 0;       // groups of the gated RMSNorm (0: nGroups; Granite 4.0-H: 1)
  double timeStepMin = 0.0;     // time_step_limit: dt clamped to [min, max]
  double timeStepMax = std::numeric_limits<double>::infinity();
  // Falcon-H1's variations (the defaults leave Mamba-2 and Granite as they are):
  bool gatedNorm = true;        // false: y * silu(z), no norm and no norm.weight (mamba_rms_norm false)
  double inputMultiplier = 1.0; // in_proj reads xn times this (ssm_in_multiplier)
  std::array<double, 5> zxbcdtMultipliers{1.0, 1.0, 1.0, 1.0, 1.0}; // in_proj's z, x, B, C, dt
                                // columns times these, bias included (ssm_multipliers, the mup vector)

  int64_t convDim() const { return intermediateSize + 2 * nGroups * stateSize; }
  int64_t inProjSize() const { return 2 * intermediateSize + 2 * nGroups * stateSize + numHeads; }
  bool hasTimeStepLimit() const {
    return timeStepMin > 0.0 || timeStepMax != std::numeric_limits<double>::infinity();
  }
};

/// Reads a (min, max) pair (time_step_limit, dt_limit; Infinity allowed as
/// in import/ConfigFields.h) into lo, hi; missing or null leaves them. False
/// with `error` naming `key` for anything else or min > max.
bool readTimeStepLimit(const nlohmann::json &cfg, const char *key, double &lo, double &hi,
                       std::string &error);

/// True when a config.json describes a Mamba-2 model: model_type "mamba2",
/// architectures naming Mamba2ForCausalLM, or ssm_cfg.layer "Mamba2".
bool isMamba2Config(const nlohmann::json &config);

/// Reads and validates a Mamba-2 config in either format (transformers'
/// Mamba2Config: hidden_size, num_heads, head_dim, n_groups, state_size,
/// chunk_size, time_step_limit, ...; mamba_ssm's: d_model, n_layer,
/// vocab_size padded to pad_vocab_size_multiple, ssm_cfg {layer "Mamba2",
/// d_state 128, d_conv 4, expand 2, headdim 64, ngroups 1, chunk_size 256,
/// dt_limit, norm_before_gate, bias, conv_bias}). time_step_limit may hold
/// Infinity (as a number or the string "Infinity"). False with `error`
/// naming the field.
bool parseMamba2Config(const nlohmann::json &config, Mamba2Config &out, std::string &error,
                       MambaConfigFormat *format = nullptr);

/// The resolved config in transformers' field names (an infinite time-step
/// limit written as the string "Infinity"): model.json's "config".
nlohmann::json mamba2ConfigToJson(const Mamba2Config &config);

/// Every parameter the graph reads, in argument order: the embedding; per
/// layer norm, in_proj (weight, bias if use_bias), conv1d (weight (conv_dim,
/// 1, W), bias if use_conv_bias), dt_bias (H), A_log (H), D (H), the gated
/// norm's weight (d_inner), out_proj (weight, bias if use_bias); norm_f;
/// lm_head unless tied.
std::vector<MambaParam> mamba2Params(const Mamba2Config &config);

/// Per layer "layers.N.conv_state" (conv_dim, W - 1), "layers.N.ssm_state" (H, P, N).
std::vector<MambaState> mamba2States(const Mamba2Config &config);

/// The model graph (module text) for sequences of `seqLen` tokens;
/// @forward_sequence returns the logits of `rows` (import/ModelBuilder.h).
/// `batch` > 0 adds @forward_step_batched: one token of each of `batch`
/// streams (tokens (batch), every state with a leading dim batch, logits
/// (batch, vocab)), the step's ops with batch dim `batch`. False with
/// `error` for seqLen or batch out of range.
bool writeMamba2Module(const Mamba2Config &config, int64_t seqLen, LogitsRows rows,
                       int64_t batch, std::string &mlir, std::string &error);

/// writeMamba2Module from a config (or model.json's "config"); false with
/// `error` on an invalid config or seqLen out of range.
bool buildMamba2MLIR(const nlohmann::json &config, int64_t seqLen, std::string &mlir,
                     std::string &error, LogitsRows rows = LogitsRows::Last, int64_t batch = 0);

/// The model.json document of an import (`batch` > 0: functions.step_batched).
nlohmann::json mamba2ModelJson(const Mamba2Config &config, int64_t seqLen,
                               const std::string &source, int64_t batch = 0);

} // namespace ssm::importer

#endif // SSM_IMPORT_MAMBA2MODEL_H
