// Reference ssm.attention: causal grouped-query softmax attention over a KV cache, in f64.
#ifndef SSM_REFERENCE_KERNELS_ATTENTION_H
#define SSM_REFERENCE_KERNELS_ATTENTION_H

#include "reference/Array.h"

#include <string>

namespace ssm::ref {

struct AttentionArgs {
  const Array *q = nullptr;        // (batch, L, H, D)
  const Array *k = nullptr;        // (batch, L, Hkv, D)
  const Array *v = nullptr;        // (batch, L, Hkv, Dv)
  const Array *kCache = nullptr;   // (batch, C, Hkv, D)
  const Array *vCache = nullptr;   // (batch, C, Hkv, Dv)
  const Array *position = nullptr; // (batch): rows already in the caches
  double scale = 1.0;              // multiplies q . k
  int64_t window = 0;              // > 0: query at p reads rows j with p - j < window
};

/// out (batch, L, H, Dv), kCacheNew / vCacheNew (the caches' shapes): the
/// new keys and values are written to rows position[b] .. position[b] + L - 1,
/// then query i of head h (position p = position[b] + i) reads KV head
/// h / (H / Hkv) at rows j <= p (and p - j < window when window > 0):
/// out = sum_j softmax_j(scale q . K_j) V_j (transformers'
/// eager_attention_forward with a cache; llama.cpp build_attn). Errors name
/// the operand: shapes, H not a multiple of Hkv, a call past the capacity.
std::string attention(const AttentionArgs &args, Array &out, Array &kCacheNew, Array &vCacheNew);

} // namespace ssm::ref

#endif // SSM_REFERENCE_KERNELS_ATTENTION_H
