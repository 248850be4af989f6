// Weight storage: ssm-import's q8 quantiser and storage rules (import/WeightStore.h)
// and the reference ssm.dequantize (reference/kernels/Dequantize.h), against
// values worked out by hand.
#include "import/Safetensors.h"
#include "import/WeightStore.h"
#include "reference/kernels/Dequantize.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ssm;

TEST(WeightStoreTest, Q8BlocksOf32) {
  // Two rows of 64: block b holds (i - 16) * 0.01 * (b + 1), block 3 zeros.
  std::vector<float> w(128);
  for (int b = 0; b < 4; ++b)
    for (int i = 0; i < 32; ++i)
      w[b * 32 + i] = b == 3 ? 0.0f : (i - 16) * 0.01f * (b + 1);
  std::vector<uint16_t> scales;
  std::vector<int8_t> q = importer::quantizeQ8(w, 64, scales);
  ASSERT_EQ(scales.size(), 4u);
  for (int b = 0; b < 4; ++b) {
    float d = importer::halfToFloat(scales[b]);
    float amax = b == 3 ? 0.0f : 0.16f * (b + 1);
    // d = max|w| / 127 rounded to f16.
    EXPECT_EQ(scales[b], importer::floatToHalf(amax / 127.0f)) << "block " << b;
    for (int i = 0; i < 32; ++i) {
      float v = w[b * 32 + i];
      if (d == 0) {
        EXPECT_EQ(q[b * 32 + i], 0);
        continue;
      }
      EXPECT_LE(std::abs(q[b * 32 + i]), 127);
      EXPECT_EQ(q[b * 32 + i], static_cast<int>(std::nearbyint(v / d))) << b << " " << i;
      EXPECT_LE(std::fabs(q[b * 32 + i] * d - v), 0.5f * d * 1.0001f);
    }
  }
  // The largest magnitude maps to +-127 (or 126/128 clamped by the f16 rounding of d).
  EXPECT_GE(std::abs(q[0]), 126);
}

TEST(WeightStoreTest, WhichTensorsAreStoredHow) {
  using importer::StDType;
  using importer::WeightsMode;
  std::vector<float> m(32 * 2, 0.5f), v(32, 1.0f), odd(3 * 4, 0.25f);
  importer::StFile f;
  importer::storeWeight(f, "x.weight", {2, 32}, m, StDType::F32, WeightsMode::Q8);
  importer::storeWeight(f, "x.bias", {32}, v, StDType::F32, WeightsMode::Q8);
  importer::storeWeight(f, "dt.weight", {3, 4}, odd, StDType::F32, WeightsMode::Q8);
  importer::storeWeight(f, "h.weight", {2, 32}, m, StDType::F16, WeightsMode::Source);
  importer::storeWeight(f, "n.weight", {32}, v, StDType::BF16, WeightsMode::Source);
  importer::storeWeight(f, "k.weight", {2, 32}, m, StDType::F16, WeightsMode::F32);
  importer::storeWeight(f, "b.weight", {2, 32}, m, StDType::F32, WeightsMode::BF16);
  importer::storeWeight(f, "A_log", {2, 32}, m, StDType::F32, WeightsMode::F16);
  std::vector<std::pair<std::string, StDType>> want = {
      {"x.weight", StDType::I8},  {"x.weight_scale", StDType::F16}, {"x.bias", StDType::F32},
      {"dt.weight", StDType::F32}, {"h.weight", StDType::F16},       {"n.weight", StDType::BF16},
      {"k.weight", StDType::F32},  {"b.weight", StDType::BF16},      {"A_log", StDType::F32}};
  ASSERT_EQ(f.tensors.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(f.tensors[i].name, want[i].first);
    EXPECT_EQ(f.tensors[i].dtype, want[i].second) << want[i].first;
  }
  EXPECT_EQ(f.tensors[1].shape, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(importer::storedDtypeSummary(f), "BF16 x2 + F16 x2 + F32 x4 + I8 x1");
}

TEST(DequantizeReferenceTest, RoundsToTheStorageType) {
  using ref::WeightStorage;
  EXPECT_EQ(ref::roundToStorage(1.0 + std::ldexp(1.0, -10), WeightStorage::F16),
            1.0 + std::ldexp(1.0, -10));
  EXPECT_EQ(ref::roundToStorage(1.0 + std::ldexp(1.0, -11), WeightStorage::F16), 1.0); // tie: even
  EXPECT_EQ(ref::roundToStorage(1.0 + 3 * std::ldexp(1.0, -11), WeightStorage::F16),
            1.0 + std::ldexp(1.0, -9));
  EXPECT_EQ(ref::roundToStorage(std::ldexp(1.0, -24), WeightStorage::F16), std::ldexp(1.0, -24));
  EXPECT_TRUE(std::isinf(ref::roundToStorage(70000.0, WeightStorage::F16)));
  EXPECT_EQ(ref::roundToStorage(1.0 + std::ldexp(1.0, -8), WeightStorage::BF16), 1.0); // tie: even
  EXPECT_EQ(ref::roundToStorage(1.0 + 3 * std::ldexp(1.0, -8), WeightStorage::BF16),
            1.0 + std::ldexp(1.0, -6));
  EXPECT_EQ(ref::roundToStorage(200.0, WeightStorage::I8), 127.0);
  EXPECT_EQ(ref::roundToStorage(-200.0, WeightStorage::I8), -128.0);
}

TEST(DequantizeReferenceTest, BlockScales) {
  // (2, 3) int8 with blocks of 2 along the last dim: scales (2, 2).
  ref::Array q({2, 3}, {1, -2, 3, 4, 5, -6});
  ref::Array s({2, 2}, {0.5, 0.25, 2, -1});
  ref::DequantizeArgs a;
  a.input = &q;
  a.storage = ref::WeightStorage::I8;
  a.scale = &s;
  a.blockSize = 2;
  ref::Array out;
  ASSERT_EQ(ref::dequantize(a, out), "");
  EXPECT_EQ(out.data, (std::vector<double>{0.5, -1, 0.75, 8, 10, 6}));
  ref::Array bad({2, 3});
  a.scale = &bad;
  EXPECT_NE(ref::dequantize(a, out).find("operand 'scale' has shape (2, 3)"), std::string::npos);
}

TEST(DequantizeReferenceTest, BlockMins) {
  // Blocks with an offset (ggml's Q4_K: w = f32(q * s) - mn, each step
  // rounded to f32). (1, 4) with blocks of 2.
  ref::Array q({1, 4}, {0, 15, 3, 7});
  ref::Array s({1, 2}, {0.5, 0.1f});
  ref::Array mn({1, 2}, {2, 0.2f});
  ref::DequantizeArgs a;
  a.input = &q;
  a.storage = ref::WeightStorage::I8;
  a.scale = &s;
  a.scaleStorage = ref::WeightStorage::F32;
  a.min = &mn;
  a.blockSize = 2;
  ref::Array out;
  ASSERT_EQ(ref::dequantize(a, out), "");
  // 3 * 0.1f rounds to f32 first (0.3000000119...), then minus 0.2f rounds again.
  const float p3 = 3.0f * 0.1f, p7 = 7.0f * 0.1f;
  EXPECT_EQ(out.data, (std::vector<double>{-2, 5.5, static_cast<float>(p3 - 0.2f),
                                           static_cast<float>(p7 - 0.2f)}));
  ref::Array bad({1, 3});
  a.min = &bad;
  EXPECT_NE(ref::dequantize(a, out).find("operand 'min' has shape (1, 3)"), std::string::npos);
}
