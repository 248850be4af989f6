// GGUF models -> the Hugging Face checkpoint the hybrid and Mamba importers read.
//
// llama.cpp's converter (convert_hf_to_gguf.py, conversion/*.py) renames a
// checkpoint's tensors (gguf-py's tensor_mapping.py), reshapes and
// transforms some of them, and turns config.json into `<arch>.*` metadata.
// ggufToCheckpoint undoes that: it writes the config.json the model
// builders read (import/HybridModel.h) and every tensor under its Hugging
// Face name, as f32 (quantised tensors dequantised, import/Gguf.h; Q8_0
// matrices kept as int8 + f16 scales, F16 / BF16 ones as 16-bit), so a
// GGUF file becomes the same model folder as the safetensors checkpoint it
// was made from. Per `general.architecture`:
//
//   lfm2           -> lfm2 (Lfm2ForCausalLM): the short-conv kernel (C, K) back
//                     to (C, 1, K); layer kinds from attention.head_count_kv
//                     (0 = conv layer); token_embd_norm is the final norm.
//   granitehybrid  -> granitemoehybrid (dense shared MLP): ssm_a = -exp(A_log)
//                     back to A_log = log(-ssm_a), ssm_d / ssm_norm / conv1d
//                     reshaped back, ffn_gate and ffn_up concatenated into
//                     shared_mlp.input_linear, attn_q / attn_k rows un-permuted
//                     (the converter's LlamaModel.permute, for ggml's
//                     interleaved RoPE); rope.scaling.finetuned false (or,
//                     as llama.cpp reads it, true when absent) = NoPE; the gated
//                     norm per group of d_inner / n_groups channels, as
//                     llama.cpp computes it (transformers takes one RMS over
//                     all of d_inner; the same when n_groups is 1).
//   qwen35         -> qwen3_5_text (dense): the zero-centred norms stored + 1 back
//                     (all but linear_attn.norm), ssm_a -> A_log, the value heads
//                     the converter tiled (r, nk, hd) back to grouped (nk, r, hd) in
//                     in_proj_qkv's v rows, in_proj_z / _a / _b, conv1d's v channels,
//                     dt_bias, A_log and out_proj's columns; layer kinds from
//                     full_attention_interval; partial_rotary_factor from
//                     rope.dimension_count; q/k L2-normed as llama.cpp does,
//                     x / max(|x|, rms_norm_eps) (transformers: x rsqrt(|x|^2 + 1e-6);
//                     config key ssm_opt_l2norm_eps, import/Qwen35Model.cpp).
//   falcon-h1      -> falcon_h1 (FalconH1ForCausalLM): every mup multiplier 1 (the
//                     converter folded them into the weights: embedding, lm_head,
//                     attention in / out and key, ssm in / out, the five
//                     ssm_multipliers into in_proj's z, x, B, C, dt rows, the
//                     mlp ones into gate and down); attention.scale, when
//                     present, as key_multiplier x 1/sqrt(head_dim); q / k rows as
//                     they are (llama.cpp's NeoX RoPE); ssm_a -> A_log, A / D (H, 1)
//                     -> (H), ssm_norm (G, d_inner / G) -> (d_inner) with
//                     mamba_rms_norm true when present; gate then the grouped norm
//                     and dt not clamped (as llama.cpp computes: a Hugging Face
//                     model with mamba_norm_before_gate or a finite
//                     time_step_limit runs otherwise there). Attention biases
//                     refused (llama.cpp never adds attn_output.bias). The
//                     pre-feed-forward norm is blk.N.ffn_norm (no ".weight": gguf-py
//                     maps pre_ff_layernorm.weight whole).
//   mamba          -> mamba (MambaForCausalLM) under mamba_ssm's tensor names
//                     (backbone.embedding, backbone.layers.N.mixer.*, norm_f,
//                     lm_head; import/MambaModel.h): ssm_a = -exp(A_log) back to
//                     A_log, conv1d (d_inner, W) back to (d_inner, 1, W); dt_rank
//                     from ssm.time_step_rank; no in/out_proj biases (llama.cpp
//                     has none); ssm.dt_b_c_rms true (FalconMamba) refused.
//   mamba2         -> mamba2 (Mamba2ForCausalLM), the same names: heads from
//                     ssm.time_step_rank, head_dim = inner_size / heads, groups
//                     from ssm.group_count; A (H, 1) -> A_log (H), D (H, 1) -> (H),
//                     ssm_norm (G, d_inner / G) -> (d_inner), ssm_dt.bias ->
//                     dt_bias; y silu(z) then the RMS norm per group, dt not
//                     clamped (as llama.cpp computes). Both go to importMambaFrom
//                     (ssm-import), not the hybrid importers.
//   rwkv6          -> the rwkv.cpp tensors the RWKV importer reads (GgufCheckpoint::
//                     rwkv): llama.cpp's names back to BlinkDL's (blocks.N.att.*,
//                     ffn.*, ln0/ln1/ln2/ln_out, emb, head), time_mix_lerp_fused
//                     (C, 1, 1, 5) split back into time_maa_w/k/v/r/g,
//                     time_mix_first (H, S) and time_mix_decay (C) shaped
//                     (H, S, 1) as rwkv.cpp stores time_faaaa / time_decay; the
//                     low-rank w1 / w2 are the same transposes in both formats.
//                     rescale_every_n_layers > 0: the converter divided
//                     time_mix_output and channel_mix_value of layer l by
//                     2^(l / n) and llama.cpp halves the residual every n
//                     layers; the weights are multiplied back (exact) and the
//                     graph runs unscaled (the same up to the layer norms' eps).
//   rwkv7          -> the same: time_mix_lerp_fused (C, 1, 1, 6) back to x_rwkvag
//                     (r w k v a g), w0 / a0 / v0 / k_k / k_a / ffn.x_k as (1, 1, C),
//                     r_k as (heads, head_size), the low-rank pairs unchanged;
//                     layer 0's v0 / v1 / v2 (the converter's copies of a0 / a1 /
//                     a2) read and dropped; gate_lora_rank 0 (no gate) refused.
//
// Metadata and tensors are checked: a missing key or tensor, a value out of
// range, a tensor left over that the architecture does not use, a type not
// converted: an error naming it. An architecture not listed: "GGUF
// architecture 'X' is not one ssm-import reads (known: ...)".
#ifndef SSM_IMPORT_GGUFIMPORT_H
#define SSM_IMPORT_GGUFIMPORT_H

#include "import/Gguf.h"
#include "import/RwkvFile.h"
#include "import/Safetensors.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ssm::importer {

struct GgufCheckpoint {
  std::string ggufArchitecture; // general.architecture
  nlohmann::json config;        // config.json as transformers writes it
  StFile tensors;               // Hugging Face names; metadata "gguf:<hf name>" = GGUF name
  std::string sourceTypes;      // "F32", "Q8_0 x30 + F32 x20", ...
  /// Q8_0 matrices kept as our q8 storage: "<hf>" I8 (rows, K) with its
  /// blocks' int8 values and "<hf>_scale" F16 (rows, K / 32) with their
  /// scales, byte for byte (the importers store them as they are under
  /// --weights source or q8, import/HybridImport.cpp).
  int keptQ8 = 0;
  /// Q6_K matrices kept as int8 blocks of 16 with f32 scales: "<hf>" I8
  /// (rows, K) holding q - 32 and "<hf>_scale" F32 (rows, K / 16) holding
  /// d * sc, exactly the values ggml's dequantisation multiplies.
  int keptQ6K = 0;
  /// Q4_0 / Q5_0 matrices kept as our q8 storage (as Q8_0: I8 q - 8 or
  /// q - 16, F16 scales copied), the values of ggml's dequantisation.
  int keptQ4_0 = 0, keptQ5_0 = 0;
  /// Q4_K / Q5_K matrices kept as q8min (I8 q, F32 "<hf>_scale" d * sc and
  /// "<hf>_min" dmin * m per sub-block of 32), the values of ggml's
  /// dequantisation.
  int keptQ4_K = 0, keptQ5_K = 0;
  /// The ggml type of the GGUF tensor each output tensor came from, by
  /// output name (Hugging Face or rwkv.cpp), for the activation
  /// quantisation llama.cpp applies against it (passes/ActivationQuant.h).
  std::map<std::string, uint32_t> ggmlType;
  /// Quantised or 16-bit GGUF tensors stored as f32: "<gguf name> (<type>)".
  std::vector<std::string> widened;
  /// rwkv6, rwkv7: the model as the rwkv.cpp file the RWKV importer reads
  /// (import/RwkvModel.h; `tensors` and `config` stay empty), and the
  /// layer norms' epsilon from the file (rwkv.cpp's 1e-5 is the default).
  RwkvFile rwkv;
  double rwkvLayerNormEps = 1e-5;
};

/// The general.architecture values ggufToCheckpoint reads, comma-separated.
std::string ggufKnownArchitectures();

/// Converts `f` (read by readGguf); false with `error` "<file>: ..." naming
/// the key or tensor.
bool ggufToCheckpoint(const GgufFile &f, GgufCheckpoint &out, std::string &error);

} // namespace ssm::importer

#endif // SSM_IMPORT_GGUFIMPORT_H
