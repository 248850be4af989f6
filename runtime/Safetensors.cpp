// A bounds-checked safetensors reader.
#include "runtime/Safetensors.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>
#include <iterator>

namespace ssm {
namespace {

float halfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else { // subnormal: normalise
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) {
        mant <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

} // namespace

bool readSafetensors(const std::string &path, std::map<std::string, SafeTensor> &out,
                     std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open";
    return false;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 8) {
    error = path + ": truncated: " + std::to_string(bytes.size()) + " bytes, no header length";
    return false;
  }
  uint64_t headerLen = 0;
  for (int i = 7; i >= 0; --i)
    headerLen = (headerLen << 8) | static_cast<unsigned char>(bytes[i]);
  if (headerLen > bytes.size() - 8) {
    error = path + ": truncated: the header claims " + std::to_string(headerLen) +
            " bytes but the file has " + std::to_string(bytes.size() - 8) + " after byte 8";
    return false;
  }
  nlohmann::json header =
      nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + headerLen, nullptr, false);
  if (header.is_discarded() || !header.is_object()) {
    error = path + ": the JSON header (bytes 8.." + std::to_string(8 + headerLen) + ") is malformed";
    return false;
  }
  const uint64_t dataStart = 8 + headerLen, dataSize = bytes.size() - dataStart;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__")
      continue;
    const std::string where = path + ": tensor '" + it.key() + "'";
    const auto &t = it.value();
    if (!t.is_object() || !t.contains("dtype") || !t["dtype"].is_string() || !t.contains("shape") ||
        !t["shape"].is_array() || !t.contains("data_offsets") || !t["data_offsets"].is_array() ||
        t["data_offsets"].size() != 2) {
      error = where + ": malformed entry (needs dtype, shape, data_offsets)";
      return false;
    }
    std::string dtype = t["dtype"].get<std::string>();
    size_t item = dtype == "F32" ? 4 : dtype == "F16" || dtype == "BF16" ? 2 : dtype == "F64" ? 8 : 0;
    if (!item) {
      error = where + ": unsupported dtype " + dtype + " (F32, F16, BF16, F64 are read)";
      return false;
    }
    SafeTensor st;
    uint64_t numel = 1;
    for (const auto &d : t["shape"]) {
      if (!d.is_number_unsigned() || d.get<uint64_t>() > (1ull << 40)) {
        error = where + ": bad shape";
        return false;
      }
      st.shape.push_back(d.get<int64_t>());
      numel *= d.get<uint64_t>();
    }
    const auto &off = t["data_offsets"];
    if (!off[0].is_number_unsigned() || !off[1].is_number_unsigned()) {
      error = where + ": bad data_offsets";
      return false;
    }
    uint64_t begin = off[0].get<uint64_t>(), end = off[1].get<uint64_t>();
    if (begin > end || end > dataSize) {
      error = where + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
              ") run past the end of the data (" + std::to_string(dataSize) +
              " bytes from byte " + std::to_string(dataStart) + "): truncated file?";
      return false;
    }
    if (end - begin != numel * item) {
      error = where + ": " + std::to_string(end - begin) + " bytes of data but shape and dtype " +
              dtype + " need " + std::to_string(numel * item);
      return false;
    }
    const char *p = bytes.data() + dataStart + begin;
    st.data.resize(numel);
    for (uint64_t i = 0; i < numel; ++i) {
      if (dtype == "F32") {
        std::memcpy(&st.data[i], p + 4 * i, 4);
      } else if (dtype == "F64") {
        double v;
        std::memcpy(&v, p + 8 * i, 8);
        st.data[i] = static_cast<float>(v);
      } else {
        uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        if (dtype == "F16") {
          st.data[i] = halfToFloat(h);
        } else {
          uint32_t bits = static_cast<uint32_t>(h) << 16;
          std::memcpy(&st.data[i], &bits, 4);
        }
      }
    }
    out[it.key()] = std::move(st);
  }
  return true;
}

} // namespace ssm
