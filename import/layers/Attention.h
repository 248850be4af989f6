// Causal self-attention with a KV cache as a layer of the model skeleton: projections, q/k norms, RoPE, GQA (ssm.rope, ssm.attention).
//
// transformers' LlamaAttention family (Lfm2Attention, GraniteMoeHybridAttention,
// FalconH1Attention) and llama.cpp's build_attn, in f32:
//   q, k, v = x Wq^T, x Wk^T, x Wv^T            heads H, Hkv; head size D
//   q, gate = the two halves of each head's 2D rows of x Wq^T, when the model
//       gates its output (Qwen3-Next, Qwen3.5: q_proj is (H * 2D, width))
//   q, k = RMSNorm_D(q), RMSNorm_D(k)           per head, when the model has q/k norms (LFM2, Qwen3;
//       weights w + normWeightOffset: 1 for Qwen3.5's zero-centred norms)
//   q, k = RoPE(q), RoPE(k) at the stream's positions, when the model has RoPE
//   o = attention(q, k, v, caches) (ssm.attention: the call's keys and values
//       written to the caches at the stream's position, causal, GQA)
//   o = o * sigmoid(gate), when the model gates its output
//   returns o Wo^T
// The layer's kind must set takesPosition and declare attentionStates(c).
#ifndef SSM_IMPORT_LAYERS_ATTENTION_H
#define SSM_IMPORT_LAYERS_ATTENTION_H

#include "import/graph/ModelGraph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ssm::importer::layers {

struct AttentionConfig {
  int64_t heads = 0, kvHeads = 0, headDim = 0, valueDim = 0; // H, Hkv, D, Dv
  int64_t capacity = 0;   // C, the positions a stream's caches hold
  double scale = 0.0;     // multiplies q . k (1/sqrt(D) for most models)
  int64_t window = 0;     // sliding window (0: none)
  bool rope = false;      // rotary embedding on q and k
  double ropeTheta = 10000.0;
  int64_t rotaryDim = 0;  // rotated channels of each head (<= D, even)
  bool ropeNeox = true;   // neox (rotate_half, Hugging Face layout) or normal pairing
  bool qkNorm = false;    // per-head RMSNorm of q and k (weights (D))
  double normEpsilon = 1e-5;
  double normWeightOffset = 0.0; // q/k norms multiply by (offset + w): 1 for zero-centred weights
  bool outputGate = false; // q_proj gives [query D | gate D] per head; o * sigmoid(gate) (needs Dv = D)
  bool bias = false;      // q/k/v/o projection biases ("<proj>.bias")
  // The weights, after the layer's prefix.
  std::string q = "self_attn.q_proj.weight", k = "self_attn.k_proj.weight",
              v = "self_attn.v_proj.weight", o = "self_attn.o_proj.weight";
  std::string qNorm = "self_attn.q_norm.weight", kNorm = "self_attn.k_norm.weight";
};

/// The layer's weights (suffixes and shapes) for model width `width`.
std::vector<graph::TensorDecl> attentionParams(const AttentionConfig &c, int64_t width);
/// The states "k_cache" (C, Hkv, D) and "v_cache" (C, Hkv, Dv).
std::vector<graph::TensorDecl> attentionStates(const AttentionConfig &c);

/// Attention on x (rows, width), already normed; appends the two new caches
/// to s.newStates and returns the output projection (rows, width).
TValue attention(graph::BlockScope &s, const AttentionConfig &c, const TValue &x);

/// The SwiGLU feed-forward down(silu(gate) * up) on x (rows, width), with
/// gate and up either two weights (F, width) (LFM2's w1, w3; Llama's gate_proj,
/// up_proj) or, when `up` is empty, one (2F, width) weight whose first F rows
/// are the gate (Granite's shared_mlp.input_linear). down is (width, F).
/// Added to *addTo when given.
TValue swiglu(graph::BlockScope &s, const TValue &x, const std::string &gate,
              const std::string &up, const std::string &down, const TValue *addTo = nullptr);

} // namespace ssm::importer::layers

#endif // SSM_IMPORT_LAYERS_ATTENTION_H
