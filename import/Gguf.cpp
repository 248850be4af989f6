// GGUF reader and ggml dequantisation (import/Gguf.h).
//
// Block layouts (ggml's ggml-common.h, QK = 32 for the legacy types, QK_K =
// 256 for the K-quants; "half" is an IEEE binary16 scale):
//   Q4_0 {half d; u8 qs[16]}                 x = d * (nibble - 8)
//   Q4_1 {half d, m; u8 qs[16]}              x = d * nibble + m
//   Q5_0 {half d; u8 qh[4]; u8 qs[16]}       x = d * ((nibble | hbit << 4) - 16)
//   Q5_1 {half d, m; u8 qh[4]; u8 qs[16]}    x = d * (nibble | hbit << 4) + m
//   Q8_0 {half d; i8 qs[32]}                 x = d * q
//   Q8_1 {half d, s; i8 qs[32]}              x = d * q
//   (the low nibbles of qs are elements 0..15, the high ones 16..31; qh bit j
//    is element j's fifth bit)
//   Q2_K {u8 scales[16]; u8 qs[64]; half d, dmin}          16 sub-blocks of 16
//   Q3_K {u8 hmask[32]; u8 qs[64]; u8 scales[12]; half d}  16 sub-blocks of 16
//   Q4_K {half d, dmin; u8 scales[12]; u8 qs[128]}         8 sub-blocks of 32
//   Q5_K {half d, dmin; u8 scales[12]; u8 qh[32]; u8 qs[128]}
//   Q6_K {u8 ql[128]; u8 qh[64]; i8 scales[16]; half d}    16 sub-blocks of 16
//   Q8_K {f32 d; i8 qs[256]; i16 bsums[16]}
// Q4_K / Q5_K pack 8 six-bit scales and 8 six-bit mins into 12 bytes
// (scaleMinK4). Written from the format description, in the order of
// operations ggml's reference dequantize_row_* uses.
#include "import/Gguf.h"

#include "runtime/Float16.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

namespace ssm::importer {

const char *ggufValueTypeName(GgufValueType t) {
  switch (t) {
  case GgufValueType::U8: return "u8";
  case GgufValueType::I8: return "i8";
  case GgufValueType::U16: return "u16";
  case GgufValueType::I16: return "i16";
  case GgufValueType::U32: return "u32";
  case GgufValueType::I32: return "i32";
  case GgufValueType::F32: return "f32";
  case GgufValueType::Bool: return "bool";
  case GgufValueType::String: return "string";
  case GgufValueType::Array: return "array";
  case GgufValueType::U64: return "u64";
  case GgufValueType::I64: return "i64";
  case GgufValueType::F64: return "f64";
  }
  return "?";
}

namespace {

bool isIntegerType(GgufValueType t) {
  switch (t) {
  case GgufValueType::U8: case GgufValueType::I8: case GgufValueType::U16:
  case GgufValueType::I16: case GgufValueType::U32: case GgufValueType::I32:
  case GgufValueType::U64: case GgufValueType::I64: case GgufValueType::Bool:
    return true;
  default:
    return false;
  }
}

/// Bytes of a fixed-size scalar type; 0 for string / array / unknown.
size_t scalarSize(GgufValueType t) {
  switch (t) {
  case GgufValueType::U8: case GgufValueType::I8: case GgufValueType::Bool: return 1;
  case GgufValueType::U16: case GgufValueType::I16: return 2;
  case GgufValueType::U32: case GgufValueType::I32: case GgufValueType::F32: return 4;
  case GgufValueType::U64: case GgufValueType::I64: case GgufValueType::F64: return 8;
  default: return 0;
  }
}

bool knownValueType(uint32_t t) { return t <= 12; }

/// A cursor over the file with checked reads; errors name `what` and the offset.
struct Cursor {
  const uint8_t *p;
  size_t size, pos = 0;
  std::string &error;

  bool need(size_t n, const std::string &what) {
    if (n > size - pos) {
      error = what + " at byte " + std::to_string(pos) + ": needs " + std::to_string(n) +
              " bytes but the file ends at " + std::to_string(size) + " (truncated?)";
      return false;
    }
    return true;
  }
  template <typename T> bool read(T &v, const std::string &what) {
    if (!need(sizeof(T), what))
      return false;
    std::memcpy(&v, p + pos, sizeof(T));
    pos += sizeof(T);
    return true;
  }
  bool readString(std::string &s, const std::string &what) {
    uint64_t n = 0;
    if (!read(n, what + " (length)"))
      return false;
    if (n > size - pos) {
      error = what + " at byte " + std::to_string(pos - 8) + ": length " + std::to_string(n) +
              " runs past the end of the file (" + std::to_string(size) + " bytes)";
      return false;
    }
    s.assign(reinterpret_cast<const char *>(p + pos), n);
    pos += n;
    return true;
  }
};

/// One scalar of type `t` into v.i / v.f.
bool readScalar(Cursor &c, GgufValueType t, int64_t &i, double &f, const std::string &what) {
  switch (t) {
  case GgufValueType::U8: { uint8_t x; if (!c.read(x, what)) return false; i = x; break; }
  case GgufValueType::I8: { int8_t x; if (!c.read(x, what)) return false; i = x; break; }
  case GgufValueType::Bool: {
    uint8_t x;
    if (!c.read(x, what))
      return false;
    if (x > 1) {
      c.error = what + ": a bool of value " + std::to_string(x) + " (0 or 1)";
      return false;
    }
    i = x;
    break;
  }
  case GgufValueType::U16: { uint16_t x; if (!c.read(x, what)) return false; i = x; break; }
  case GgufValueType::I16: { int16_t x; if (!c.read(x, what)) return false; i = x; break; }
  case GgufValueType::U32: { uint32_t x; if (!c.read(x, what)) return false; i = x; break; }
  case GgufValueType::I32: { int32_t x; if (!c.read(x, what)) return false; i = x; break; }
  case GgufValueType::U64: {
    uint64_t x;
    if (!c.read(x, what))
      return false;
    i = int64_t(x);
    f = double(x);
    return true;
  }
  case GgufValueType::I64: { int64_t x; if (!c.read(x, what)) return false; i = x; break; }
  case GgufValueType::F32: { float x; if (!c.read(x, what)) return false; f = x; return true; }
  case GgufValueType::F64: { double x; if (!c.read(x, what)) return false; f = x; return true; }
  default:
    c.error = what + ": not a scalar type";
    return false;
  }
  f = double(i);
  return true;
}

bool readValue(Cursor &c, GgufValue &v, const std::string &what) {
  uint32_t type = 0;
  if (!c.read(type, what + " (value type)"))
    return false;
  if (!knownValueType(type)) {
    c.error = what + ": unknown value type " + std::to_string(type) + " (GGUF defines 0 to 12)";
    return false;
  }
  v.type = GgufValueType(type);
  if (v.type == GgufValueType::String)
    return c.readString(v.s, what);
  if (v.type != GgufValueType::Array)
    return readScalar(c, v.type, v.i, v.f, what);
  uint32_t et = 0;
  uint64_t n = 0;
  if (!c.read(et, what + " (array element type)") || !c.read(n, what + " (array length)"))
    return false;
  if (!knownValueType(et)) {
    c.error = what + ": unknown array element type " + std::to_string(et);
    return false;
  }
  v.arrayType = GgufValueType(et);
  if (v.arrayType == GgufValueType::Array) {
    c.error = what + ": an array of arrays (not supported)";
    return false;
  }
  // Every element takes at least one byte (a string its 8-byte length), so
  // a count above what remains cannot be satisfied: refuse before allocating.
  size_t minElem = v.arrayType == GgufValueType::String ? 8 : scalarSize(v.arrayType);
  if (n > (c.size - c.pos) / minElem) {
    c.error = what + ": array of " + std::to_string(n) + " " + ggufValueTypeName(v.arrayType) +
              " elements runs past the end of the file (" + std::to_string(c.size) + " bytes)";
    return false;
  }
  if (v.arrayType == GgufValueType::String) {
    v.strings.resize(n);
    for (uint64_t k = 0; k < n; ++k)
      if (!c.readString(v.strings[k], what + "[" + std::to_string(k) + "]"))
        return false;
    return true;
  }
  bool integer = isIntegerType(v.arrayType);
  (integer ? v.ints.reserve(n) : v.floats.reserve(n));
  for (uint64_t k = 0; k < n; ++k) {
    int64_t i = 0;
    double f = 0;
    if (!readScalar(c, v.arrayType, i, f, what + "[" + std::to_string(k) + "]"))
      return false;
    if (integer)
      v.ints.push_back(i);
    else
      v.floats.push_back(f);
  }
  return true;
}

} // namespace

bool GgufValue::isInteger() const { return isIntegerType(type); }
bool GgufValue::isNumber() const {
  return isInteger() || type == GgufValueType::F32 || type == GgufValueType::F64;
}
size_t GgufValue::arraySize() const {
  return type != GgufValueType::Array ? 0
         : arrayType == GgufValueType::String ? strings.size()
         : isIntegerType(arrayType)          ? ints.size()
                                             : floats.size();
}

std::string ggmlTypeName(uint32_t type) {
  static const std::map<uint32_t, const char *> names = {
      {0, "F32"},     {1, "F16"},      {2, "Q4_0"},    {3, "Q4_1"},   {6, "Q5_0"},
      {7, "Q5_1"},    {8, "Q8_0"},     {9, "Q8_1"},    {10, "Q2_K"},  {11, "Q3_K"},
      {12, "Q4_K"},   {13, "Q5_K"},    {14, "Q6_K"},   {15, "Q8_K"},  {16, "IQ2_XXS"},
      {17, "IQ2_XS"}, {18, "IQ3_XXS"}, {19, "IQ1_S"},  {20, "IQ4_NL"}, {21, "IQ3_S"},
      {22, "IQ2_S"},  {23, "IQ4_XS"},  {24, "I8"},     {25, "I16"},   {26, "I32"},
      {27, "I64"},    {28, "F64"},     {29, "IQ1_M"},  {30, "BF16"},  {34, "TQ1_0"},
      {35, "TQ2_0"},  {39, "MXFP4"}};
  auto it = names.find(type);
  return it != names.end() ? it->second : "type " + std::to_string(type);
}

bool ggmlBlockLayout(uint32_t type, int64_t &blockElems, int64_t &blockBytes) {
  struct L { int64_t e, b; };
  static const std::map<uint32_t, L> layouts = {
      {0, {1, 4}},      {1, {1, 2}},      {30, {1, 2}},     {28, {1, 8}},
      {24, {1, 1}},     {25, {1, 2}},     {26, {1, 4}},     {27, {1, 8}},
      {2, {32, 18}},    {3, {32, 20}},    {6, {32, 22}},    {7, {32, 24}},
      {8, {32, 34}},    {9, {32, 36}},    {10, {256, 84}},  {11, {256, 110}},
      {12, {256, 144}}, {13, {256, 176}}, {14, {256, 210}}, {15, {256, 292}}};
  auto it = layouts.find(type);
  if (it == layouts.end())
    return false;
  blockElems = it->second.e;
  blockBytes = it->second.b;
  return true;
}

bool ggmlTypeDequantizable(uint32_t type) {
  switch (GgmlType(type)) {
  case GgmlType::F32: case GgmlType::F16: case GgmlType::BF16: case GgmlType::F64:
  case GgmlType::Q4_0: case GgmlType::Q4_1: case GgmlType::Q5_0: case GgmlType::Q5_1:
  case GgmlType::Q8_0: case GgmlType::Q8_1: case GgmlType::Q2_K: case GgmlType::Q3_K:
  case GgmlType::Q4_K: case GgmlType::Q5_K: case GgmlType::Q6_K: case GgmlType::Q8_K:
    return true;
  default:
    return false;
  }
}

int64_t GgufTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : ne)
    n *= d;
  return n;
}

std::vector<int64_t> GgufTensor::shape() const { return {ne.rbegin(), ne.rend()}; }

const GgufValue *GgufFile::find(const std::string &key) const {
  for (const auto &kv : metadata)
    if (kv.first == key)
      return &kv.second;
  return nullptr;
}

const GgufTensor *GgufFile::findTensor(const std::string &name) const {
  for (const GgufTensor &t : tensors)
    if (t.name == name)
      return &t;
  return nullptr;
}

namespace {
bool absent(const GgufFile &f, const std::string &key, bool required, std::string &error) {
  if (required)
    error = f.path + ": metadata key '" + key + "' is missing";
  return !required;
}
std::string typeOf(const GgufValue &v) {
  return v.type == GgufValueType::Array
             ? std::string("array of ") + ggufValueTypeName(v.arrayType)
             : ggufValueTypeName(v.type);
}
} // namespace

bool GgufFile::getInt(const std::string &key, bool required, int64_t lo, int64_t hi,
                      int64_t &out, std::string &error) const {
  const GgufValue *v = find(key);
  if (!v)
    return absent(*this, key, required, error);
  if (!v->isInteger() || v->type == GgufValueType::Bool) {
    error = path + ": metadata key '" + key + "' is a " + typeOf(*v) + ", not an integer";
    return false;
  }
  bool bigU64 = v->type == GgufValueType::U64 && v->i < 0;
  if (bigU64 || v->i < lo || v->i > hi) {
    error = path + ": metadata key '" + key + "' is " +
            (bigU64 ? std::to_string(uint64_t(v->i)) : std::to_string(v->i)) +
            ", outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    return false;
  }
  out = v->i;
  return true;
}

bool GgufFile::getFloat(const std::string &key, bool required, double &out,
                        std::string &error) const {
  const GgufValue *v = find(key);
  if (!v)
    return absent(*this, key, required, error);
  if (!v->isNumber() || v->type == GgufValueType::Bool) {
    error = path + ": metadata key '" + key + "' is a " + typeOf(*v) + ", not a number";
    return false;
  }
  out = v->f;
  return true;
}

bool GgufFile::getBool(const std::string &key, bool required, bool &out,
                       std::string &error) const {
  const GgufValue *v = find(key);
  if (!v)
    return absent(*this, key, required, error);
  if (v->type != GgufValueType::Bool) {
    error = path + ": metadata key '" + key + "' is a " + typeOf(*v) + ", not a bool";
    return false;
  }
  out = v->i != 0;
  return true;
}

bool GgufFile::getString(const std::string &key, bool required, std::string &out,
                         std::string &error) const {
  const GgufValue *v = find(key);
  if (!v)
    return absent(*this, key, required, error);
  if (v->type != GgufValueType::String) {
    error = path + ": metadata key '" + key + "' is a " + typeOf(*v) + ", not a string";
    return false;
  }
  out = v->s;
  return true;
}

bool GgufFile::getIntArray(const std::string &key, bool required, size_t perLayer,
                           std::vector<int64_t> &out, std::string &error) const {
  const GgufValue *v = find(key);
  if (!v)
    return absent(*this, key, required, error);
  if (perLayer > 0 && v->isInteger() && v->type != GgufValueType::Bool) {
    out.assign(perLayer, v->i);
    return true;
  }
  if (v->type != GgufValueType::Array || !isIntegerType(v->arrayType)) {
    error = path + ": metadata key '" + key + "' is a " + typeOf(*v) +
            ", not an array of integers";
    return false;
  }
  if (perLayer > 0 && v->ints.size() != perLayer) {
    error = path + ": metadata key '" + key + "' has " + std::to_string(v->ints.size()) +
            " entries, expected one per layer (" + std::to_string(perLayer) + ")";
    return false;
  }
  out = v->ints;
  return true;
}

bool parseGguf(std::vector<uint8_t> bytes, GgufFile &out, std::string &error,
               const std::string &name, bool metadataOnly) {
  out = GgufFile();
  out.path = name;
  out.bytes = std::move(bytes);
  std::string err;
  Cursor c{out.bytes.data(), out.bytes.size(), 0, err};
  auto fail = [&]() {
    error = name + ": " + err;
    return false;
  };
  char magic[4];
  if (!c.read(magic, "the GGUF header"))
    return fail();
  if (std::memcmp(magic, "GGUF", 4) != 0) {
    error = name + ": not a GGUF file (the first 4 bytes are not \"GGUF\")";
    return false;
  }
  uint64_t nTensors = 0, nKv = 0;
  if (!c.read(out.version, "the GGUF version"))
    return fail();
  if (out.version != 2 && out.version != 3) {
    error = name + ": GGUF version " + std::to_string(out.version) +
            " is not supported (versions 2 and 3 are read)";
    return false;
  }
  if (!c.read(nTensors, "tensor_count") || !c.read(nKv, "metadata_kv_count"))
    return fail();
  // A key-value takes at least 13 bytes, a tensor info at least 24.
  if (nKv > (c.size - c.pos) / 13) {
    error = name + ": metadata_kv_count " + std::to_string(nKv) +
            " is more than the file can hold (" + std::to_string(c.size) + " bytes)";
    return false;
  }
  if (nTensors > (c.size - c.pos) / 24) {
    error = name + ": tensor_count " + std::to_string(nTensors) +
            " is more than the file can hold (" + std::to_string(c.size) + " bytes)";
    return false;
  }
  std::set<std::string> keys;
  out.metadata.reserve(nKv);
  for (uint64_t k = 0; k < nKv; ++k) {
    std::string key;
    if (!c.readString(key, "metadata key " + std::to_string(k)))
      return fail();
    if (!keys.insert(key).second) {
      error = name + ": metadata key '" + key + "' appears twice";
      return false;
    }
    GgufValue v;
    if (!readValue(c, v, "metadata '" + key + "'"))
      return fail();
    out.metadata.emplace_back(key, std::move(v));
  }
  if (const GgufValue *a = out.find("general.alignment")) {
    if (!a->isInteger() || a->type == GgufValueType::Bool || a->i <= 0 || a->i > (1 << 30) ||
        (a->i & (a->i - 1)) != 0) {
      error = name + ": general.alignment must be a power of two integer, got " +
              (a->isInteger() ? std::to_string(a->i) : typeOf(*a));
      return false;
    }
    out.alignment = uint64_t(a->i);
  }
  std::set<std::string> names;
  out.tensors.resize(nTensors);
  for (uint64_t k = 0; k < nTensors; ++k) {
    GgufTensor &t = out.tensors[k];
    std::string what = "tensor info " + std::to_string(k);
    if (!c.readString(t.name, what + " (name)"))
      return fail();
    what = "tensor '" + t.name + "'";
    if (!names.insert(t.name).second) {
      error = name + ": tensor '" + t.name + "' appears twice";
      return false;
    }
    uint32_t nDims = 0;
    if (!c.read(nDims, what + " (n_dims)"))
      return fail();
    if (nDims < 1 || nDims > 4) {
      error = name + ": " + what + " has n_dims " + std::to_string(nDims) + " (1 to 4)";
      return false;
    }
    t.ne.resize(nDims);
    int64_t numel = 1;
    for (uint32_t d = 0; d < nDims; ++d) {
      uint64_t n = 0;
      if (!c.read(n, what + " (ne[" + std::to_string(d) + "])"))
        return fail();
      if (n == 0 || n > (uint64_t(1) << 40) ||
          uint64_t(numel) > (uint64_t(1) << 50) / n) {
        error = name + ": " + what + " has dim ne[" + std::to_string(d) + "] = " +
                std::to_string(n) + " (each dim from 1, at most 2^50 elements in all)";
        return false;
      }
      t.ne[d] = int64_t(n);
      numel *= int64_t(n);
    }
    if (!c.read(t.type, what + " (type)") || !c.read(t.offset, what + " (offset)"))
      return fail();
    int64_t be = 0, bb = 0;
    if (!ggmlBlockLayout(t.type, be, bb)) {
      const std::string tn = ggmlTypeName(t.type); // "type <n>" for a number with no name
      error = name + ": " + what + " has tensor " + (tn.rfind("type ", 0) == 0 ? "" : "type ") +
              tn + ", which this reader does not know the layout of";
      return false;
    }
    if (t.ne[0] % be) {
      error = name + ": " + what + " of type " + ggmlTypeName(t.type) + " has ne[0] = " +
              std::to_string(t.ne[0]) + ", not a multiple of its block of " + std::to_string(be);
      return false;
    }
    t.nbytes = uint64_t(numel / be) * uint64_t(bb);
    if (t.offset % out.alignment) {
      error = name + ": " + what + " has data offset " + std::to_string(t.offset) +
              ", not a multiple of the alignment " + std::to_string(out.alignment);
      return false;
    }
  }
  uint64_t pad = (out.alignment - c.pos % out.alignment) % out.alignment;
  out.dataOffset = c.pos + pad;
  if (metadataOnly)
    return true;
  if (nTensors > 0 && out.dataOffset > c.size) {
    error = name + ": the data section (at byte " + std::to_string(out.dataOffset) +
            ") starts past the end of the file (" + std::to_string(c.size) + " bytes)";
    return false;
  }
  uint64_t dataSize = nTensors > 0 ? c.size - out.dataOffset : 0;
  for (GgufTensor &t : out.tensors) {
    if (t.offset > dataSize || t.nbytes > dataSize - t.offset) {
      error = name + ": tensor '" + t.name + "' (" + ggmlTypeName(t.type) + ") data [" +
              std::to_string(t.offset) + ", " + std::to_string(t.offset + t.nbytes) +
              ") runs past the end of the data section (" + std::to_string(dataSize) +
              " bytes; truncated?)";
      return false;
    }
    t.data = out.bytes.data() + out.dataOffset + t.offset;
  }
  return true;
}

bool readGguf(const std::string &path, GgufFile &out, std::string &error) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    error = path + ": is a directory, not a GGUF file";
    return false;
  }
  errno = 0;
  std::ifstream is(path, std::ios::binary | std::ios::ate);
  if (!is) {
    error = path + ": cannot open the file: " + (errno ? std::strerror(errno) : "unknown error");
    return false;
  }
  std::streamoff size = is.tellg();
  if (size < 0) {
    error = path + ": cannot tell the file's size";
    return false;
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  is.seekg(0);
  if (size > 0 && !is.read(reinterpret_cast<char *>(bytes.data()), size)) {
    error = path + ": read failed";
    return false;
  }
  return parseGguf(std::move(bytes), out, error, path);
}

bool readGgufMetadata(const std::string &path, GgufFile &out, std::string &error) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    error = path + ": is a directory, not a GGUF file";
    return false;
  }
  errno = 0;
  std::ifstream is(path, std::ios::binary | std::ios::ate);
  if (!is) {
    error = path + ": cannot open the file: " + (errno ? std::strerror(errno) : "unknown error");
    return false;
  }
  const std::streamoff size = is.tellg();
  for (std::streamoff want = std::streamoff(1) << 20;; want *= 4) {
    std::streamoff n = std::min(want, size);
    std::vector<uint8_t> bytes(static_cast<size_t>(n));
    is.seekg(0);
    if (n > 0 && !is.read(reinterpret_cast<char *>(bytes.data()), n)) {
      error = path + ": read failed";
      return false;
    }
    if (parseGguf(std::move(bytes), out, error, path, /*metadataOnly=*/true))
      return true;
    if (n == size)
      return false;
  }
}

bool looksLikeGguf(const std::string &path) {
  std::ifstream is(path, std::ios::binary);
  char magic[4] = {};
  return is && is.read(magic, 4) && std::memcmp(magic, "GGUF", 4) == 0;
}

// ---------------------------------------------------------------------------
// Dequantisation.

namespace {

float half(const uint8_t *p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return ssm::halfToFloat(h);
}

/// Sub-block j's 6-bit scale and min of a Q4_K / Q5_K block's 12 scale
/// bytes: j < 4 in the low 6 bits of bytes j and j + 4; j >= 4 from the
/// nibbles of byte j + 4 and the top 2 bits of bytes j - 4 and j.
void scaleMinK4(int j, const uint8_t *q, uint8_t &sc, uint8_t &m) {
  if (j < 4) {
    sc = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    sc = uint8_t((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    m = uint8_t((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

void deqQ4_0(const uint8_t *b, float *y) {
  const float d = half(b);
  const uint8_t *qs = b + 2;
  for (int j = 0; j < 16; ++j) {
    y[j] = float((qs[j] & 0x0F) - 8) * d;
    y[j + 16] = float((qs[j] >> 4) - 8) * d;
  }
}

void deqQ4_1(const uint8_t *b, float *y) {
  const float d = half(b), m = half(b + 2);
  const uint8_t *qs = b + 4;
  for (int j = 0; j < 16; ++j) {
    y[j] = float(qs[j] & 0x0F) * d + m;
    y[j + 16] = float(qs[j] >> 4) * d + m;
  }
}

void deqQ5_0(const uint8_t *b, float *y) {
  const float d = half(b);
  uint32_t qh;
  std::memcpy(&qh, b + 2, 4);
  const uint8_t *qs = b + 6;
  for (int j = 0; j < 16; ++j) {
    int lo = (qs[j] & 0x0F) | int(((qh >> j) & 1) << 4);
    int hi = (qs[j] >> 4) | int(((qh >> (j + 16)) & 1) << 4);
    y[j] = float(lo - 16) * d;
    y[j + 16] = float(hi - 16) * d;
  }
}

void deqQ5_1(const uint8_t *b, float *y) {
  const float d = half(b), m = half(b + 2);
  uint32_t qh;
  std::memcpy(&qh, b + 4, 4);
  const uint8_t *qs = b + 8;
  for (int j = 0; j < 16; ++j) {
    int lo = (qs[j] & 0x0F) | int(((qh >> j) & 1) << 4);
    int hi = (qs[j] >> 4) | int(((qh >> (j + 16)) & 1) << 4);
    y[j] = float(lo) * d + m;
    y[j + 16] = float(hi) * d + m;
  }
}

void deqQ8_0(const uint8_t *b, float *y, int headerBytes) {
  const float d = half(b);
  const int8_t *qs = reinterpret_cast<const int8_t *>(b + headerBytes);
  for (int j = 0; j < 32; ++j)
    y[j] = float(qs[j]) * d;
}

void deqQ2_K(const uint8_t *b, float *y) {
  const uint8_t *scales = b, *q = b + 16;
  const float d = half(b + 80), dmin = half(b + 82);
  int is = 0;
  for (int n = 0; n < 256; n += 128) {
    for (int shift = 0; shift < 8; shift += 2) {
      for (int half16 = 0; half16 < 2; ++half16) {
        uint8_t sc = scales[is++];
        const float dl = d * float(sc & 0xF), ml = dmin * float(sc >> 4);
        for (int l = 0; l < 16; ++l)
          *y++ = dl * float((q[l + 16 * half16] >> shift) & 3) - ml;
      }
    }
    q += 32;
  }
}

void deqQ3_K(const uint8_t *b, float *y) {
  const uint8_t *hm = b, *q = b + 32, *s = b + 96;
  const float dAll = half(b + 108);
  // 16 six-bit scales: the low 4 bits from the nibbles of bytes 0..7 (scale
  // j < 8 the low nibble of byte j, j >= 8 the high nibble of byte j - 8),
  // the top 2 bits from bytes 8..11 (scale j: byte 8 + j % 4, bits 2 (j / 4)).
  int scales[16];
  for (int j = 0; j < 16; ++j) {
    int low = j < 8 ? (s[j] & 0xF) : (s[j - 8] >> 4);
    int high = (s[8 + j % 4] >> (2 * (j / 4))) & 3;
    scales[j] = (low | (high << 4)) - 32;
  }
  int is = 0;
  uint8_t m = 1;
  for (int n = 0; n < 256; n += 128) {
    for (int shift = 0; shift < 8; shift += 2) {
      for (int half16 = 0; half16 < 2; ++half16) {
        const float dl = dAll * float(scales[is++]);
        for (int l = 0; l < 16; ++l) {
          int i = l + 16 * half16;
          int v = int((q[i] >> shift) & 3) - ((hm[i] & m) ? 0 : 4);
          *y++ = dl * float(v);
        }
      }
      m = uint8_t(m << 1);
    }
    q += 32;
  }
}

void deqQ4_K(const uint8_t *b, float *y) {
  const float d = half(b), dmin = half(b + 2);
  const uint8_t *scales = b + 4, *q = b + 16;
  for (int is = 0; is < 8; is += 2) {
    uint8_t sc, m;
    scaleMinK4(is, scales, sc, m);
    const float d1 = d * float(sc), m1 = dmin * float(m);
    scaleMinK4(is + 1, scales, sc, m);
    const float d2 = d * float(sc), m2 = dmin * float(m);
    for (int l = 0; l < 32; ++l)
      *y++ = d1 * float(q[l] & 0xF) - m1;
    for (int l = 0; l < 32; ++l)
      *y++ = d2 * float(q[l] >> 4) - m2;
    q += 32;
  }
}

void deqQ5_K(const uint8_t *b, float *y) {
  const float d = half(b), dmin = half(b + 2);
  const uint8_t *scales = b + 4, *qh = b + 16, *ql = b + 48;
  uint8_t u1 = 1, u2 = 2;
  for (int is = 0; is < 8; is += 2) {
    uint8_t sc, m;
    scaleMinK4(is, scales, sc, m);
    const float d1 = d * float(sc), m1 = dmin * float(m);
    scaleMinK4(is + 1, scales, sc, m);
    const float d2 = d * float(sc), m2 = dmin * float(m);
    for (int l = 0; l < 32; ++l)
      *y++ = d1 * float((ql[l] & 0xF) + ((qh[l] & u1) ? 16 : 0)) - m1;
    for (int l = 0; l < 32; ++l)
      *y++ = d2 * float((ql[l] >> 4) + ((qh[l] & u2) ? 16 : 0)) - m2;
    ql += 32;
    u1 = uint8_t(u1 << 2);
    u2 = uint8_t(u2 << 2);
  }
}

void deqQ6_K(const uint8_t *b, float *y) {
  const uint8_t *ql = b, *qh = b + 128;
  const int8_t *sc = reinterpret_cast<const int8_t *>(b + 192);
  const float d = half(b + 208);
  for (int n = 0; n < 256; n += 128) {
    for (int l = 0; l < 32; ++l) {
      int is = l / 16;
      int q1 = int((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
      int q2 = int((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
      int q3 = int((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      int q4 = int((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      y[l] = d * float(sc[is + 0]) * float(q1);
      y[l + 32] = d * float(sc[is + 2]) * float(q2);
      y[l + 64] = d * float(sc[is + 4]) * float(q3);
      y[l + 96] = d * float(sc[is + 6]) * float(q4);
    }
    y += 128;
    ql += 64;
    qh += 32;
    sc += 8;
  }
}

void deqQ8_K(const uint8_t *b, float *y) {
  float d;
  std::memcpy(&d, b, 4);
  const int8_t *qs = reinterpret_cast<const int8_t *>(b + 4);
  for (int j = 0; j < 256; ++j)
    y[j] = d * float(qs[j]);
}

} // namespace

void ggmlScaleMinK4(int j, const uint8_t *scales, uint8_t &sc, uint8_t &m) {
  scaleMinK4(j, scales, sc, m);
}

bool dequantizeRow(uint32_t type, const uint8_t *src, int64_t n, float *dst) {
  int64_t be = 0, bb = 0;
  if (!ggmlTypeDequantizable(type) || !ggmlBlockLayout(type, be, bb) || n % be)
    return false;
  const int64_t blocks = n / be;
  switch (GgmlType(type)) {
  case GgmlType::F32:
    std::memcpy(dst, src, size_t(n) * 4);
    return true;
  case GgmlType::F64:
    for (int64_t i = 0; i < n; ++i) {
      double v;
      std::memcpy(&v, src + 8 * i, 8);
      dst[i] = float(v);
    }
    return true;
  case GgmlType::F16:
  case GgmlType::BF16:
    for (int64_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, src + 2 * i, 2);
      dst[i] = GgmlType(type) == GgmlType::F16 ? ssm::halfToFloat(h) : ssm::bf16ToFloat(h);
    }
    return true;
  default:
    break;
  }
  for (int64_t k = 0; k < blocks; ++k) {
    const uint8_t *b = src + k * bb;
    float *y = dst + k * be;
    switch (GgmlType(type)) {
    case GgmlType::Q4_0: deqQ4_0(b, y); break;
    case GgmlType::Q4_1: deqQ4_1(b, y); break;
    case GgmlType::Q5_0: deqQ5_0(b, y); break;
    case GgmlType::Q5_1: deqQ5_1(b, y); break;
    case GgmlType::Q8_0: deqQ8_0(b, y, 2); break;
    case GgmlType::Q8_1: deqQ8_0(b, y, 4); break;
    case GgmlType::Q2_K: deqQ2_K(b, y); break;
    case GgmlType::Q3_K: deqQ3_K(b, y); break;
    case GgmlType::Q4_K: deqQ4_K(b, y); break;
    case GgmlType::Q5_K: deqQ5_K(b, y); break;
    case GgmlType::Q6_K: deqQ6_K(b, y); break;
    case GgmlType::Q8_K: deqQ8_K(b, y); break;
    default: return false;
    }
  }
  return true;
}

bool ggufToFloats(const GgufTensor &t, std::vector<float> &out, std::string &error) {
  if (!ggmlTypeDequantizable(t.type)) {
    error = "tensor '" + t.name + "' has type " + ggmlTypeName(t.type) +
            ", which ssm-import does not convert (F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, "
            "Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K are)";
    return false;
  }
  out.resize(size_t(t.numel()));
  if (!t.data || !dequantizeRow(t.type, t.data, t.numel(), out.data())) {
    error = "tensor '" + t.name + "': cannot convert its " + ggmlTypeName(t.type) + " data";
    return false;
  }
  return true;
}

} // namespace ssm::importer
