// Reference ssm.dequantize (see Dequantize.h).
#include "reference/kernels/Dequantize.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace ssm::ref {

namespace {

/// Rounds `f` to the nearest IEEE half (ties to even), returned as a float.
float roundToHalf(float f) {
  if (!std::isfinite(f))
    return f;
  float a = std::fabs(f);
  if (a >= 65520.0f) // rounds past the largest half (65504)
    return std::copysign(INFINITY, f);
  // Spacing of halves near `a`: 2^(e - 10) for normals (e >= -14), 2^-24 below.
  int e = a > 0 ? std::ilogb(a) : -24;
  if (e < -14)
    e = -14;
  float ulp = std::ldexp(1.0f, e - 10);
  return std::copysign(std::nearbyint(a / ulp) * ulp, f); // nearbyint: ties to even
}

float roundToBf16(float f) {
  if (std::isnan(f))
    return f;
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits += 0x7fffu + ((bits >> 16) & 1u); // nearest even on the dropped half
  bits &= 0xffff0000u;
  std::memcpy(&f, &bits, 4);
  return f;
}

} // namespace

double roundToStorage(double v, WeightStorage s) {
  switch (s) {
  case WeightStorage::F32: return static_cast<float>(v);
  case WeightStorage::F16: return roundToHalf(static_cast<float>(v));
  case WeightStorage::BF16: return roundToBf16(static_cast<float>(v));
  case WeightStorage::I8: {
    double r = std::nearbyint(v);
    return r < -128 ? -128 : r > 127 ? 127 : r;
  }
  }
  return v;
}

std::string dequantize(const DequantizeArgs &a, Array &result) {
  const Array &in = *a.input;
  result = Array(in.shape);
  if (a.storage != WeightStorage::I8) {
    for (int64_t i = 0; i < in.numel(); ++i)
      result.data[i] = roundToStorage(in.data[i], a.storage);
    return "";
  }
  if (!a.scale || in.rank() < 1 || a.blockSize < 1)
    return "an i8 'input' needs a 'scale' and a positive block_size";
  const int64_t k = in.shape.back(), blocks = (k + a.blockSize - 1) / a.blockSize;
  std::vector<int64_t> want = in.shape;
  want.back() = blocks;
  if (a.scale->shape != want)
    return "operand 'scale' has shape " + shapeToString(a.scale->shape) + " but must be " +
           shapeToString(want);
  if (a.min && a.min->shape != want)
    return "operand 'min' has shape " + shapeToString(a.min->shape) + " but must be " +
           shapeToString(want);
  const int64_t rows = k ? in.numel() / k : 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < k; ++j) {
      // The product as f32 computes it: both factors exact in f32, one rounding.
      double s = roundToStorage(a.scale->data[r * blocks + j / a.blockSize], a.scaleStorage);
      double q = roundToStorage(in.data[r * k + j], WeightStorage::I8);
      const float w = static_cast<float>(q * s);
      if (!a.min) {
        result.data[r * k + j] = w;
        continue;
      }
      // ggml's d1 * q - m1: the f32 product, then one f32 rounding of the
      // difference (exact in double, so rounding it once is f32's result).
      float mn = static_cast<float>(
          roundToStorage(a.min->data[r * blocks + j / a.blockSize], a.minStorage));
      result.data[r * k + j] = static_cast<float>(double(w) - double(mn));
    }
  return "";
}

} // namespace ssm::ref
