// safetensors files (the Hugging Face weight format): a small reader and writer.
//
// Layout: an 8-byte little-endian header length N, N bytes of JSON
// {"<name>": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]},
//  ..., "__metadata__": {"key": "value"}}, then the data, little endian,
// C order, offsets relative to the first byte after the header.
//
// Our own because Debian packages no safetensors library. Errors are
// returned, never thrown, and every offset is bounds-checked against the
// file: a truncated file or a bad header produces a message naming the
// tensor or the byte offset, never a crash. No MLIR: the runtime may use it.
#ifndef SSM_IMPORT_SAFETENSORS_H
#define SSM_IMPORT_SAFETENSORS_H

#include "runtime/Float16.h"
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ssm::importer {

/// Element types of the format. Reading accepts all of them; conversion to
/// f32 (toFloats) supports the floating-point ones.
enum class StDType { F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool };

/// "F32", "F16", ... as the format spells them.
const char *stDTypeName(StDType t);
/// Bytes per element.
size_t stDTypeSize(StDType t);
/// Parses a dtype name; false if unknown.
bool parseStDType(const std::string &name, StDType &out);

/// One tensor: its raw little-endian bytes.
struct StTensor {
  std::string name;
  StDType dtype = StDType::F32;
  std::vector<int64_t> shape; // () for a scalar
  std::vector<uint8_t> bytes; // numel() * stDTypeSize(dtype)

  int64_t numel() const;
};

/// A whole file in memory, tensors in the order of their data offsets.
struct StFile {
  std::vector<StTensor> tensors;
  std::map<std::string, std::string> metadata;

  /// The tensor called `name`, or nullptr.
  const StTensor *find(const std::string &name) const;
};

/// Builds an F32 tensor from floats (numel(shape) values).
StTensor makeF32Tensor(const std::string &name, const std::vector<int64_t> &shape,
                       const std::vector<float> &values);
/// Builds an F16 tensor, rounding each float to nearest even.
StTensor makeF16Tensor(const std::string &name, const std::vector<int64_t> &shape,
                       const std::vector<float> &values);

/// Builds a BF16 tensor, rounding each float to nearest even.
StTensor makeBF16Tensor(const std::string &name, const std::vector<int64_t> &shape,
                        const std::vector<float> &values);

/// The elements of `t` as floats (F32, F16, BF16, F64). False with a message
/// naming the tensor for other dtypes or a size that does not match the shape.
bool toFloats(const StTensor &t, std::vector<float> &out, std::string &error);

/// IEEE half and bfloat16 <-> single: runtime/Float16.h, the project's one converter.
using ssm::bf16ToFloat;
using ssm::floatToBf16;
using ssm::floatToHalf;
using ssm::halfToFloat;

/// Serialises tensors (names unique and non-empty, bytes matching shapes)
/// and string metadata into the file format; the header is padded with
/// spaces to a multiple of 8 bytes so the data starts aligned.
bool serializeSafetensors(const StFile &file, std::vector<uint8_t> &out, std::string &error);
/// serializeSafetensors, then writes `path` (overwriting it: the caller
/// decides whether that is allowed).
bool writeSafetensors(const std::string &path, const StFile &file, std::string &error);

/// Parses a whole file held in memory; `name` stands for the path in messages.
bool parseSafetensors(const void *data, size_t size, StFile &out, std::string &error,
                      const std::string &name = "<buffer>");
/// Reads and parses `path`. Messages are "<path>: <problem>". A path ending
/// in ".safetensors.index.json" is a sharded checkpoint's index (Hugging
/// Face's model.safetensors.index.json: "weight_map", tensor name -> shard
/// file beside it): every shard is read and the tensors merged, each checked
/// to be in the shard the index names (one missing, extra or in two shards
/// is an error naming it).
bool readSafetensors(const std::string &path, StFile &out, std::string &error);

/// A sharded checkpoint's index: its shard files in first-mention order and
/// the shard of each tensor.
struct ShardIndex {
  std::vector<std::string> shards;
  std::map<std::string, std::string> tensorShard;
};
/// Reads model.safetensors.index.json (shards must be plain file names).
bool readShardIndex(const std::string &indexPath, ShardIndex &out, std::string &error);

/// A tensor converted to f32: its shape and values in C order.
struct FloatTensor {
  std::vector<int64_t> shape;
  std::vector<float> data;
};
/// readSafetensors, then every tensor through toFloats (F32, F16, BF16,
/// F64). Messages are "<path>: <problem>" naming the tensor.
bool readSafetensorsAsFloats(const std::string &path, std::map<std::string, FloatTensor> &out,
                             std::string &error);

} // namespace ssm::importer

#endif // SSM_IMPORT_SAFETENSORS_H
