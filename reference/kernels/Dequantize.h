// Reference ssm.dequantize: a weight in 16-bit or block-scaled int8 storage, read as f32.
#ifndef SSM_REFERENCE_KERNELS_DEQUANTIZE_H
#define SSM_REFERENCE_KERNELS_DEQUANTIZE_H

#include "reference/Array.h"

#include <string>

namespace ssm::ref {

/// The storage type of ssm.dequantize's `input` (and of its scale).
enum class WeightStorage { F32, F16, BF16, I8 };

/// `v` rounded to the nearest value of `s` (nearest even for F16 and BF16,
/// as the compiled kernels' loads see it; I8 rounds and saturates to
/// [-128, 127]); F32 rounds to single precision.
double roundToStorage(double v, WeightStorage s);

struct DequantizeArgs {
  const Array *input = nullptr;  // (..., K) in `storage`
  WeightStorage storage = WeightStorage::F16;
  const Array *scale = nullptr;  // (..., ceil(K / blockSize)) for I8, else null
  WeightStorage scaleStorage = WeightStorage::F16;
  const Array *min = nullptr;    // scale's shape, or null: blocks with an offset (Q4_K)
  WeightStorage minStorage = WeightStorage::F32;
  int64_t blockSize = 32;
};

/// result[..., k] = input[..., k] (F16, BF16) or
/// input[..., k] * scale[..., k / blockSize] (I8), each operand first rounded
/// to its storage type, so the function is the one the compiled kernels
/// compute whatever values the caller bound (ggml's Q8_0 for I8 with blocks
/// of 32 and F16 scales). With `min`: f32(q * scale) - min[..., k /
/// blockSize], the product and the difference each rounded to f32, as
/// ggml's dequantize_row_q4_K / _q5_K compute `d1 * q - m1` (scale and min
/// being the f32 products d * sc and dmin * m). Errors name the operand
/// whose shape is wrong.
std::string dequantize(const DequantizeArgs &args, Array &result);

} // namespace ssm::ref

#endif // SSM_REFERENCE_KERNELS_DEQUANTIZE_H
