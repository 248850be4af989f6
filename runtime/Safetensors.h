// Reading safetensors files (the Hugging Face weight format) into host tensors.
//
// Format: an 8-byte little-endian header length, a JSON header mapping each
// tensor name to {dtype, shape, data_offsets [begin, end)} relative to the
// data that follows, and optional "__metadata__". Our own small reader:
// Debian packages no safetensors library for C++.
#ifndef SSM_RUNTIME_SAFETENSORS_H
#define SSM_RUNTIME_SAFETENSORS_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ssm {

struct SafeTensor {
  std::vector<int64_t> shape;
  std::vector<float> data; // converted to f32 (F32, F16, BF16 and F64 are read)
};

/// Reads every tensor of `path`. Errors name the file and the tensor or byte
/// offset: missing file, truncated header or data, malformed JSON, an
/// unsupported dtype, offsets outside the file or not matching the shape.
bool readSafetensors(const std::string &path, std::map<std::string, SafeTensor> &out,
                     std::string &error);

} // namespace ssm

#endif
