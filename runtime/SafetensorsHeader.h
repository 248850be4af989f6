// The header of a safetensors file (the Hugging Face weight format), parsed and checked once for every reader: the importers' (import/Safetensors.h) and the runtime's weights (runtime/Weights.h).
//
// Layout: an 8-byte little-endian header length N, N bytes of JSON
// {"<name>": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]},
//  ..., "__metadata__": {"key": "value"}}, then the data, little endian,
// C order, offsets relative to the first byte after the header
// (https://github.com/huggingface/safetensors, the format's reference
// implementation, whose checks this follows: a 100 MiB header limit, sizes
// that match shapes, no overlapping data, a data section that ends with the
// last tensor). Our own because Debian packages
// no safetensors library; the JSON is nlohmann-json's.
#ifndef SSM_RUNTIME_SAFETENSORSHEADER_H
#define SSM_RUNTIME_SAFETENSORSHEADER_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ssm::safetensors {

/// One tensor of the header.
struct Entry {
  std::string name;
  std::string dtype;          // as the file spells it: "F32", "BF16", "I8", ...
  std::vector<int64_t> shape; // () for a scalar
  int64_t numel = 0;
  uint64_t offset = 0;        // of its first byte, from the start of the file
  uint64_t bytes = 0;         // numel * dtypeSize(dtype)
};

struct Header {
  std::vector<Entry> tensors; // in the order of their data
  std::map<std::string, std::string> metadata;
  uint64_t dataStart = 0;     // 8 + the header length
};

/// Bytes per element of a dtype name (F64 F32 F16 BF16, I64 I32 I16 I8,
/// U64 U32 U16 U8, BOOL); 0 for any other name.
size_t dtypeSize(const std::string &dtype);

/// Parses and checks the header of a file of `size` bytes whose first
/// bytes are `data` (at least min(size, 8 + header length) of them must be
/// readable; the tensor data is not read). False with `error` naming the
/// byte offset or the tensor (no path: the caller prefixes it) when the
/// file is shorter than its header says, the header is not a JSON object,
/// an entry is malformed, has an unknown dtype or an oversized shape, its
/// data_offsets do not hold its shape, its data lies past the end of the
/// file, the data of two tensors overlap, or the file goes on past the
/// last tensor's data.
bool parseHeader(const void *data, size_t size, Header &out, std::string &error);

} // namespace ssm::safetensors

#endif // SSM_RUNTIME_SAFETENSORSHEADER_H
