// rwkv.cpp model files (.bin, "ggmf" magic, versions 100 and 101): a bounds-checked reader.
//
// Format (../shared/models/rwkv/README.md): a 24-byte header of
// little-endian uint32 (magic 0x67676d66, file version, n_vocab, n_embed,
// n_layer, data type 0 = FP32 / 1 = FP16), then tensors until the end of
// the file, each: dim_count (1..3), name length, data type, dim_count sizes
// fastest-varying first (ggml order: a PyTorch (out, in) weight is stored
// with sizes [in, out], the same bytes as a row-major (out, in) array), the
// name, the raw data. Quantised types are refused. No MLIR.
#ifndef SSM_IMPORT_RWKVFILE_H
#define SSM_IMPORT_RWKVFILE_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ssm::importer {

constexpr uint32_t kRwkvMagic = 0x67676d66;

struct RwkvTensor {
  std::string name;
  uint32_t type = 0;           // 0 FP32, 1 FP16 as stored
  std::vector<int64_t> sizes;  // ggml order, fastest-varying first
  uint64_t offset = 0;         // byte offset of the tensor's record in the file
  uint64_t dataOffset = 0;     // byte offset of its data
  std::vector<float> data;     // converted to f32, C order of shape()

  /// PyTorch (row-major) shape: sizes reversed.
  std::vector<int64_t> shape() const;
  int64_t numel() const;
};

struct RwkvFile {
  uint32_t version = 0;
  uint32_t nVocab = 0, nEmbed = 0, nLayer = 0;
  uint32_t dataType = 0; // the header's: 0 FP32, 1 FP16
  std::vector<RwkvTensor> tensors; // in file order
  std::map<std::string, size_t> index;

  const RwkvTensor *find(const std::string &name) const;
};

/// "FP32", "FP16", or the name of a quantised ggml format ("Q4_0", ...).
std::string rwkvTypeName(uint32_t type);

/// Parses a whole file held in memory. On failure returns false and sets
/// `error` to "<name>: <problem>", naming the byte offset and, inside a
/// tensor record, the tensor.
bool parseRwkvFile(const void *data, size_t size, RwkvFile &out, std::string &error,
                   const std::string &name = "<buffer>");
bool readRwkvFile(const std::string &path, RwkvFile &out, std::string &error);

/// Writes an rwkv.cpp file (FP32 or FP16 data per tensor) for tests and tools.
/// `tensors` carry sizes in ggml order and data in f32.
bool serializeRwkvFile(const RwkvFile &file, std::vector<uint8_t> &out, std::string &error);

} // namespace ssm::importer

#endif // SSM_IMPORT_RWKVFILE_H
