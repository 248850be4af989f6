// GGUF files (llama.cpp's / ggml's model format): a bounds-checked reader and
// the dequantisation of its common tensor types to f32.
//
// Layout (GGUF v2 and v3; ggml's docs/gguf.md, little endian):
//   "GGUF", u32 version, u64 tensor_count, u64 kv_count;
//   kv_count x { string key, u32 value_type, value }   (string = u64 length + bytes;
//     value types 0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32, 6 f32, 7 bool, 8 string,
//     9 array = u32 element type + u64 count + elements, 10 u64, 11 i64, 12 f64);
//   tensor_count x { string name, u32 n_dims, u64 ne[n_dims] (ne[0] innermost),
//     u32 ggml_type, u64 offset }   (offset relative to the data section);
//   padding to `general.alignment` (default 32), then the data section.
// A tensor's elements are C order over the REVERSED dims: ne = [64, 256] is
// the row-major (256, 64) matrix of PyTorch; `shape()` gives that order.
//
// Our own code: Debian packages no GGUF library (no libggml / gguf package in
// bookworm or trixie), and the format is small. Nothing here throws or trusts
// a count: every length, count, dim and offset is checked against the bytes
// that remain, and errors name the field or the tensor and the byte offset
// ("<file>: tensor 'blk.0.attn_q.weight': data [a, b) runs past the end of
// the file (N bytes)"). Nested arrays are refused (llama.cpp writes none).
#ifndef SSM_IMPORT_GGUF_H
#define SSM_IMPORT_GGUF_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ssm::importer {

enum class GgufValueType : uint32_t {
  U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, Bool = 7,
  String = 8, Array = 9, U64 = 10, I64 = 11, F64 = 12,
};
const char *ggufValueTypeName(GgufValueType t);

/// One metadata value. Scalars: integers and bools in `i` (u64 above 2^63-1
/// keeps its bits), floats in `f` (and integers also in `f`), strings in `s`.
/// Arrays: `arrayType`, and the elements in `ints` / `floats` (numbers) or
/// `strings`.
struct GgufValue {
  GgufValueType type = GgufValueType::U32;
  GgufValueType arrayType = GgufValueType::U32;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;

  bool isInteger() const; // u8 .. i64, bool
  bool isNumber() const;  // isInteger or f32 / f64
  size_t arraySize() const;
};

/// ggml tensor types (ggml.h's ggml_type numbering).
enum class GgmlType : uint32_t {
  F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9,
  Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15,
  IQ2_XXS = 16, IQ2_XS = 17, IQ3_XXS = 18, IQ1_S = 19, IQ4_NL = 20, IQ3_S = 21,
  IQ2_S = 22, IQ4_XS = 23, I8 = 24, I16 = 25, I32 = 26, I64 = 27, F64 = 28, IQ1_M = 29,
  BF16 = 30, TQ1_0 = 34, TQ2_0 = 35, MXFP4 = 39,
};
/// "F32", "Q4_K", ...; "type N" for a number ggml does not define.
std::string ggmlTypeName(uint32_t type);
/// Elements per block and bytes per block of the types whose layout we know
/// (every type above except the IQ / TQ / MXFP4 ones); false otherwise.
bool ggmlBlockLayout(uint32_t type, int64_t &blockElems, int64_t &blockBytes);
/// Whether ggufToFloats converts this type: F32, F16, BF16, F64, Q4_0, Q4_1,
/// Q5_0, Q5_1, Q8_0, Q2_K .. Q6_K.
bool ggmlTypeDequantizable(uint32_t type);

struct GgufTensor {
  std::string name;
  uint32_t type = 0;        // GgmlType
  std::vector<int64_t> ne;  // ggml order: ne[0] innermost
  uint64_t offset = 0;      // in the data section
  uint64_t nbytes = 0;
  const uint8_t *data = nullptr; // into GgufFile::bytes

  int64_t numel() const;
  /// The dims outermost first (PyTorch's order): ne reversed.
  std::vector<int64_t> shape() const;
};

struct GgufFile {
  std::string path; // for messages
  uint32_t version = 0;
  uint64_t alignment = 32;
  uint64_t dataOffset = 0; // byte offset of the data section
  std::vector<std::pair<std::string, GgufValue>> metadata; // file order
  std::vector<GgufTensor> tensors;                         // file order
  std::vector<uint8_t> bytes; // the whole file (tensors point into it)

  const GgufValue *find(const std::string &key) const;
  const GgufTensor *findTensor(const std::string &name) const;

  /// Typed getters: false with `error` naming the key when it is absent
  /// (and `required`) or of the wrong type / out of [lo, hi]. An absent
  /// optional key leaves `out` as it is and returns true.
  bool getInt(const std::string &key, bool required, int64_t lo, int64_t hi, int64_t &out,
              std::string &error) const;
  bool getFloat(const std::string &key, bool required, double &out, std::string &error) const;
  bool getBool(const std::string &key, bool required, bool &out, std::string &error) const;
  bool getString(const std::string &key, bool required, std::string &out,
                 std::string &error) const;
  /// An integer array, or (when `perLayer` > 0) a scalar repeated `perLayer` times.
  bool getIntArray(const std::string &key, bool required, size_t perLayer,
                   std::vector<int64_t> &out, std::string &error) const;
};

/// Parses a GGUF file held in `bytes` (moved into out.bytes); `name` stands
/// for the path in messages. Errors are "<name>: <problem>".
/// `metadataOnly`: the bytes may end after the tensor infos (the tensors'
/// data is not checked, and their `data` stays null).
bool parseGguf(std::vector<uint8_t> bytes, GgufFile &out, std::string &error,
               const std::string &name = "<buffer>", bool metadataOnly = false);
/// The metadata and tensor infos of `path` without its data: reads a growing
/// prefix of the file (from 1 MiB) until they parse (for ssm-tokenize, which
/// needs only the vocabulary of a multi-gigabyte file).
bool readGgufMetadata(const std::string &path, GgufFile &out, std::string &error);
/// Reads and parses `path`.
bool readGguf(const std::string &path, GgufFile &out, std::string &error);
/// Whether `path` starts with the GGUF magic (false when unreadable).
bool looksLikeGguf(const std::string &path);

/// The elements of `t` as f32, C order of t.shape(), dequantised as ggml's
/// dequantize_row_* does (ggml-quants.c; the block layouts of ggml-common.h),
/// in the same float operation order so the values are bit-identical. False
/// with a message naming the tensor and its type for types not converted.
bool ggufToFloats(const GgufTensor &t, std::vector<float> &out, std::string &error);

/// Dequantises `n` elements (a multiple of the block size) of `type` from
/// `src` (n / blockElems blocks); false for a type not converted. The
/// per-type routines ggufToFloats uses; exposed for tests.
bool dequantizeRow(uint32_t type, const uint8_t *src, int64_t n, float *dst);

/// Sub-block j's (0 .. 7) 6-bit scale `sc` and min `m` from the 12 packed
/// scale bytes of a Q4_K / Q5_K block (ggml's get_scale_min_k4): j < 4 in
/// the low 6 bits of bytes j and j + 4; j >= 4 from the nibbles of byte
/// j + 4 and the top 2 bits of bytes j - 4 and j.
void ggmlScaleMinK4(int j, const uint8_t *scales, uint8_t &sc, uint8_t &m);

} // namespace ssm::importer

#endif // SSM_IMPORT_GGUF_H
