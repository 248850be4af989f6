// IEEE half (binary16) and bfloat16 <-> float32: the one converter the runtime, the importers and the tools use.
//
// Half goes through FP16 (Debian libfp16-dev, MIT; Marat Dukhan's header-only
// library that PyTorch and XNNPACK use): subnormals, infinities and NaN are
// kept, float -> half rounds to nearest even and overflows to infinity.
// bfloat16 is the top half of an IEEE single (FP16 does not cover it):
// float -> bf16 rounds to nearest even, overflows to infinity and keeps a
// NaN a (quiet) NaN.
#ifndef SSM_RUNTIME_FLOAT16_H
#define SSM_RUNTIME_FLOAT16_H

#include <fp16.h>

#include <cstdint>
#include <cstring>

namespace ssm {

inline float halfToFloat(uint16_t h) { return fp16_ieee_to_fp32_value(h); }
inline uint16_t floatToHalf(float f) { return fp16_ieee_from_fp32_value(f); }

inline float bf16ToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t floatToBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) // NaN: keep it quiet, never round to infinity
    return uint16_t((x >> 16) | 0x40u);
  return uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

} // namespace ssm

#endif
