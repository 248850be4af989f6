// Reference ssm.quantize_activations (see QuantizeActivations.h). Written
// from the formats' definitions (ggml-quants.c quantize_row_q8_0_ref /
// quantize_row_q8_K_ref, ggml-cpu's x86 quantize_row_q8_0), in plain
// scalar f32 arithmetic.
#include "reference/kernels/QuantizeActivations.h"

#include "reference/kernels/Dequantize.h"

#include <cmath>

namespace ssm::ref {

std::string quantizeActivations(const Array &input, const std::string &format, Array &result) {
  const bool q80 = format == "q8_0" || format == "q8_1", q8k = format == "q8_K";
  const bool f16 = format == "f16", bf16 = format == "bf16";
  if (!q80 && !q8k && !f16 && !bf16)
    return "unknown format '" + format + "' (q8_0, q8_1, q8_K, f16, bf16)";
  if (input.rank() < 1)
    return "operand 'input' must have rank 1 or more";
  result = Array(input.shape);
  if (f16 || bf16) {
    for (int64_t i = 0; i < input.numel(); ++i)
      result.data[i] = roundToStorage(input.data[i], f16 ? WeightStorage::F16 : WeightStorage::BF16);
    return "";
  }
  const int64_t block = q8k ? 256 : 32, k = input.shape.back();
  if (k % block != 0)
    return "operand 'input' has a last dim of " + std::to_string(k) + ", not a multiple of " +
           std::to_string(block);
  for (int64_t start = 0; start < input.numel(); start += block) {
    float x[256];
    for (int64_t j = 0; j < block; ++j)
      x[j] = static_cast<float>(input.data[start + j]);
    if (q80) {
      float amax = 0.0f;
      for (int64_t j = 0; j < block; ++j)
        amax = std::fmax(amax, std::fabs(x[j]));
      const float d = static_cast<float>(roundToStorage(amax / 127.0f, WeightStorage::F16));
      const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
      // d == 0 (amax under 127 * 2^-25): every q * d is 0, as in ggml, also
      // where 127 / amax overflows (amax < 127 / FLT_MAX) and q would be
      // infinite (ggml's int8 conversion saturates it; inf * 0 is NaN).
      for (int64_t j = 0; j < block; ++j)
        result.data[start + j] =
            d == 0.0f ? 0.0 : static_cast<float>(std::nearbyint(x[j] * id) * d);
      continue;
    }
    float amax = 0.0f, max = 0.0f; // the first x of largest |x|, its sign kept
    for (int64_t j = 0; j < block; ++j)
      if (std::fabs(x[j]) > amax) {
        amax = std::fabs(x[j]);
        max = x[j];
      }
    if (amax == 0.0f) {
      for (int64_t j = 0; j < block; ++j)
        result.data[start + j] = 0.0;
      continue;
    }
    const float iscale = -127.0f / max, d = 1.0f / iscale;
    if (d == 0.0f) { // -127 / max overflowed (|max| < 127 / FLT_MAX): q * d is 0
      for (int64_t j = 0; j < block; ++j)
        result.data[start + j] = 0.0;
      continue;
    }
    for (int64_t j = 0; j < block; ++j) {
      float q = std::fmin(127.0f, std::nearbyint(iscale * x[j]));
      result.data[start + j] = static_cast<float>(q * d);
    }
  }
  return "";
}

} // namespace ssm::ref
