// Reference ssm.rope: rotary position embedding in f64.
#ifndef SSM_REFERENCE_KERNELS_ROPE_H
#define SSM_REFERENCE_KERNELS_ROPE_H

#include "dialect/SsmEnums.h"
#include "reference/Array.h"

#include <string>

namespace ssm::ref {

struct RopeArgs {
  const Array *x = nullptr;        // (batch, L, H, D)
  const Array *position = nullptr; // (batch): integer positions (before token 0 of the call)
  double theta = 10000.0;          // base of the frequencies, > 0
  int64_t rotaryDim = 0;           // R: even, 0 < R <= D; channels >= R pass unchanged
  RopeStyle style = RopeStyle::normal;
};

/// out (batch, L, H, D): for token t of stream b at p = position[b] + t and
/// i < R/2, a_i = p theta^(-2i/R); the pair (x0, x1) = (x[2i], x[2i+1])
/// (normal) or (x[i], x[i + R/2]) (neox) becomes (x0 cos a_i - x1 sin a_i,
/// x0 sin a_i + x1 cos a_i) (RoFormer; transformers' apply_rotary_pos_emb,
/// llama.cpp's ggml_rope_ext). Errors name the operand or attribute.
std::string rope(const RopeArgs &args, Array &out);

} // namespace ssm::ref

#endif // SSM_REFERENCE_KERNELS_ROPE_H
