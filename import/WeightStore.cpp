// ssm-import's weight storage (see WeightStore.h).
#include "import/WeightStore.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace ssm::importer {

bool parseWeightsMode(const std::string &s, WeightsMode &out) {
  static const std::map<std::string, WeightsMode> modes = {
      {"source", WeightsMode::Source}, {"f32", WeightsMode::F32}, {"f16", WeightsMode::F16},
      {"bf16", WeightsMode::BF16},     {"q8", WeightsMode::Q8}};
  auto it = modes.find(s);
  if (it == modes.end())
    return false;
  out = it->second;
  return true;
}

const char *weightsModeName(WeightsMode m) {
  switch (m) {
  case WeightsMode::Source: return "source";
  case WeightsMode::F32: return "f32";
  case WeightsMode::F16: return "f16";
  case WeightsMode::BF16: return "bf16";
  case WeightsMode::Q8: return "q8";
  }
  return "source";
}

namespace {

/// A weight matrix: what matmuls (and the embedding lookup) read.
bool isMatrix(const std::string &name, const std::vector<int64_t> &shape) {
  const std::string suffix = ".weight";
  return shape.size() == 2 && name.size() > suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

StTensor rawTensor(const std::string &name, StDType dtype, const std::vector<int64_t> &shape,
                   const void *data, size_t bytes) {
  StTensor t;
  t.name = name;
  t.dtype = dtype;
  t.shape = shape;
  t.bytes.resize(bytes);
  std::copy_n(static_cast<const uint8_t *>(data), bytes, t.bytes.begin());
  return t;
}

} // namespace

std::vector<int8_t> quantizeQ8(const std::vector<float> &values, int64_t k,
                               std::vector<uint16_t> &scales) {
  const int64_t block = 32, n = static_cast<int64_t>(values.size());
  std::vector<int8_t> q(values.size(), 0);
  scales.assign(k > 0 ? n / block : 0, 0);
  for (int64_t b = 0; b * block < n; ++b) {
    const float *w = values.data() + b * block;
    float amax = 0;
    for (int64_t i = 0; i < block; ++i)
      amax = std::max(amax, std::fabs(w[i]));
    uint16_t d16 = floatToHalf(amax / 127.0f);
    float d = halfToFloat(d16);
    scales[b] = d16;
    if (d == 0 || !std::isfinite(d))
      continue;
    for (int64_t i = 0; i < block; ++i)
      q[b * block + i] = static_cast<int8_t>(std::clamp(std::nearbyint(w[i] / d), -127.0f, 127.0f));
  }
  return q;
}

void storeWeight(StFile &out, const std::string &name, const std::vector<int64_t> &shape,
                 const std::vector<float> &values, StDType source, WeightsMode mode) {
  const bool matrix = isMatrix(name, shape);
  switch (mode) {
  case WeightsMode::Source:
    // Widening to f32 at read time was exact, so this rounding gives back
    // the file's own 16-bit values.
    if (source == StDType::F16)
      return out.tensors.push_back(makeF16Tensor(name, shape, values));
    if (source == StDType::BF16)
      return out.tensors.push_back(makeBF16Tensor(name, shape, values));
    break;
  case WeightsMode::F16:
    if (matrix)
      return out.tensors.push_back(makeF16Tensor(name, shape, values));
    break;
  case WeightsMode::BF16:
    if (matrix)
      return out.tensors.push_back(makeBF16Tensor(name, shape, values));
    break;
  case WeightsMode::Q8:
    if (matrix && shape.back() % 32 == 0) {
      std::vector<uint16_t> scales;
      std::vector<int8_t> q = quantizeQ8(values, shape.back(), scales);
      out.tensors.push_back(rawTensor(name, StDType::I8, shape, q.data(), q.size()));
      std::vector<int64_t> sShape = shape;
      sShape.back() /= 32;
      StTensor s = rawTensor(name + "_scale", StDType::F16, sShape, nullptr, 0);
      for (uint16_t h : scales) {
        s.bytes.push_back(uint8_t(h & 0xff));
        s.bytes.push_back(uint8_t(h >> 8));
      }
      return out.tensors.push_back(std::move(s));
    }
    break;
  case WeightsMode::F32:
    break;
  }
  out.tensors.push_back(makeF32Tensor(name, shape, values));
}

bool isStoredQ8(const StFile &in, const StTensor &t, const StTensor *&scale,
                const StTensor **min) {
  scale = nullptr;
  if (min)
    *min = nullptr;
  const StTensor *s = in.find(t.name + "_scale");
  if (t.dtype != StDType::I8 || t.shape.empty() || !s ||
      (s->dtype != StDType::F16 && s->dtype != StDType::F32))
    return false;
  const StTensor *mn = in.find(t.name + "_min");
  if (mn && (mn->dtype != StDType::F32 || s->dtype != StDType::F32 || !min))
    mn = nullptr;
  const int64_t block = s->dtype == StDType::F16 || mn ? 32 : 16;
  std::vector<int64_t> sShape = t.shape;
  sShape.back() /= block;
  if (t.shape.back() % block != 0 || s->shape != sShape || (mn && mn->shape != sShape))
    return false;
  scale = s;
  if (min)
    *min = mn;
  return true;
}

bool storeQ8Weight(StFile &out, const StTensor &t, const StTensor &scale, WeightsMode mode,
                   const StTensor *min) {
  if ((mode == WeightsMode::Source || mode == WeightsMode::Q8) && isMatrix(t.name, t.shape)) {
    out.tensors.push_back(t);
    out.tensors.push_back(scale);
    if (min)
      out.tensors.push_back(*min);
    return true;
  }
  const int64_t n = int64_t(t.bytes.size());
  std::vector<float> values(t.bytes.size());
  const bool f16 = scale.dtype == StDType::F16;
  for (int64_t i = 0; i < n; ++i) {
    float d;
    if (f16) {
      size_t b = size_t(i / 32) * 2;
      d = halfToFloat(uint16_t(scale.bytes[b] | (scale.bytes[b + 1] << 8)));
    } else {
      std::memcpy(&d, &scale.bytes[size_t(i / (min ? 32 : 16)) * 4], 4);
    }
    values[size_t(i)] = float(int8_t(t.bytes[size_t(i)])) * d;
    if (min) { // ggml's d1 * q - m1 (dequantize_row_q4_K)
      float m;
      std::memcpy(&m, &min->bytes[size_t(i / 32) * 4], 4);
      values[size_t(i)] -= m;
    }
  }
  storeWeight(out, t.name, t.shape, values, StDType::F32, mode);
  return false;
}

std::string storedDtypeSummary(const StFile &f) {
  std::map<std::string, int> counts;
  for (const StTensor &t : f.tensors)
    ++counts[stDTypeName(t.dtype)];
  if (counts.size() == 1)
    return counts.begin()->first;
  std::string s;
  for (const auto &[d, n] : counts)
    s += (s.empty() ? "" : " + ") + d + " x" + std::to_string(n);
  return s;
}

} // namespace ssm::importer
