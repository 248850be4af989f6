// rwkv.cpp .bin reader and writer.
#include "import/RwkvFile.h"
#include "import/FileIO.h"
#include "import/Safetensors.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>

namespace ssm::importer {

std::vector<int64_t> RwkvTensor::shape() const {
  return std::vector<int64_t>(sizes.rbegin(), sizes.rend());
}

int64_t RwkvTensor::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

const RwkvTensor *RwkvFile::find(const std::string &name) const {
  auto it = index.find(name);
  return it == index.end() ? nullptr : &tensors[it->second];
}

std::string rwkvTypeName(uint32_t type) {
  // rwkv.cpp's format types (rwkv_file_format.inc).
  static const char *names[] = {"FP32", "FP16", "Q4_0", "Q4_1", "Q4_1_O", "Q4_2",
                                "Q4_3", "Q5_0", "Q5_1", "Q8_0", "Q8_1"};
  if (type < sizeof(names) / sizeof(names[0]))
    return names[type];
  return "unknown type " + std::to_string(type);
}

namespace {

class Cursor {
public:
  Cursor(const uint8_t *data, size_t size) : data(data), size(size) {}
  size_t pos = 0;
  size_t left() const { return size - pos; }
  bool u32(uint32_t &v) {
    if (left() < 4)
      return false;
    v = uint32_t(data[pos]) | uint32_t(data[pos + 1]) << 8 | uint32_t(data[pos + 2]) << 16 |
        uint32_t(data[pos + 3]) << 24;
    pos += 4;
    return true;
  }
  const uint8_t *data;
  size_t size;
};

void putU32(std::vector<uint8_t> &out, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out.push_back(uint8_t(v >> (8 * i)));
}

} // namespace

bool parseRwkvFile(const void *data, size_t size, RwkvFile &out, std::string &error,
                   const std::string &name) {
  out = RwkvFile();
  auto fail = [&](const std::string &msg) {
    error = name + ": " + msg;
    return false;
  };
  Cursor c(static_cast<const uint8_t *>(data), size);
  uint32_t magic = 0;
  if (size < 24)
    return fail("truncated: " + std::to_string(size) +
                " bytes, but the rwkv.cpp header takes 24 bytes");
  c.u32(magic);
  if (magic != kRwkvMagic) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", magic);
    return fail(std::string("wrong magic ") + buf + " at byte offset 0 (an rwkv.cpp file starts with 0x67676d66 \"ggmf\")");
  }
  c.u32(out.version);
  c.u32(out.nVocab);
  c.u32(out.nEmbed);
  c.u32(out.nLayer);
  c.u32(out.dataType);
  if (out.version < 100 || out.version > 101)
    return fail("unsupported file version " + std::to_string(out.version) +
                " at byte offset 4 (supported: 100, 101)");
  if (out.dataType > 1)
    return fail("data type " + rwkvTypeName(out.dataType) +
                " (header byte offset 20) is quantised: only FP32 and FP16 files are supported");
  if (out.nVocab == 0 || out.nEmbed == 0 || out.nLayer == 0)
    return fail("header has n_vocab " + std::to_string(out.nVocab) + ", n_embed " +
                std::to_string(out.nEmbed) + ", n_layer " + std::to_string(out.nLayer) +
                ": all must be positive");

  while (c.left() > 0) {
    RwkvTensor t;
    t.offset = c.pos;
    std::string at = " at byte offset " + std::to_string(c.pos);
    uint32_t dims = 0, nameLen = 0, type = 0;
    if (!c.u32(dims) || !c.u32(nameLen) || !c.u32(type))
      return fail("truncated tensor header" + at + ": " + std::to_string(size - t.offset) +
                  " bytes left, 12 needed");
    if (dims < 1 || dims > 3)
      return fail("bad tensor header" + at + ": dim_count " + std::to_string(dims) +
                  " is not 1..3");
    if (nameLen == 0 || nameLen > 1024)
      return fail("bad tensor header" + at + ": name length " + std::to_string(nameLen));
    int64_t numel = 1;
    for (uint32_t d = 0; d < dims; ++d) {
      uint32_t s;
      if (!c.u32(s))
        return fail("truncated tensor header" + at + ": the sizes are cut off");
      if (s == 0 || s > (1u << 30))
        return fail("bad tensor header" + at + ": size " + std::to_string(s));
      t.sizes.push_back(s);
      // At most 2^40 elements: checked before the product can overflow
      // (three sizes of up to 2^30 would; found by fuzz-rwkv under UBSan).
      if (numel > (int64_t(1) << 40) / s)
        return fail("bad tensor header" + at + ": sizes of more than 2^40 elements");
      numel *= s;
    }
    if (c.left() < nameLen)
      return fail("truncated tensor header" + at + ": the name (" + std::to_string(nameLen) +
                  " bytes) is cut off");
    t.name.assign(reinterpret_cast<const char *>(c.data + c.pos), nameLen);
    c.pos += nameLen;
    std::string what = "tensor '" + t.name + "'" + at;
    if (type > 1)
      return fail(what + " has data type " + rwkvTypeName(type) +
                  ": quantised tensors are not supported (only FP32 and FP16)");
    t.type = type;
    if (numel > (int64_t(1) << 40))
      return fail(what + " is too large");
    uint64_t bytes = uint64_t(numel) * (type == 0 ? 4 : 2);
    t.dataOffset = c.pos;
    if (c.left() < bytes)
      return fail("truncated: " + what + " needs " + std::to_string(bytes) +
                  " bytes of data from byte offset " + std::to_string(c.pos) + ", but only " +
                  std::to_string(c.left()) + " remain");
    t.data.resize(numel);
    const uint8_t *p = c.data + c.pos;
    if (type == 0) {
      std::memcpy(t.data.data(), p, bytes); // little-endian host
    } else {
      for (int64_t i = 0; i < numel; ++i)
        t.data[i] = halfToFloat(uint16_t(p[2 * i] | p[2 * i + 1] << 8));
    }
    c.pos += bytes;
    if (out.index.count(t.name))
      return fail("duplicate " + what);
    out.index[t.name] = out.tensors.size();
    out.tensors.push_back(std::move(t));
  }
  if (out.tensors.empty())
    return fail("no tensors after the 24-byte header");
  return true;
}

bool readRwkvFile(const std::string &path, RwkvFile &out, std::string &error) {
  std::vector<char> buf;
  if (!readWholeFile(path, "an rwkv.cpp model file", buf, error))
    return false;
  return parseRwkvFile(buf.data(), buf.size(), out, error, path);
}

bool serializeRwkvFile(const RwkvFile &file, std::vector<uint8_t> &out, std::string &error) {
  out.clear();
  putU32(out, kRwkvMagic);
  putU32(out, file.version);
  putU32(out, file.nVocab);
  putU32(out, file.nEmbed);
  putU32(out, file.nLayer);
  putU32(out, file.dataType);
  for (const RwkvTensor &t : file.tensors) {
    if (t.type > 1 || t.sizes.empty() || t.sizes.size() > 3 ||
        int64_t(t.data.size()) != t.numel()) {
      error = "tensor '" + t.name + "': bad type, dims or data size";
      return false;
    }
    putU32(out, uint32_t(t.sizes.size()));
    putU32(out, uint32_t(t.name.size()));
    putU32(out, t.type);
    for (int64_t s : t.sizes)
      putU32(out, uint32_t(s));
    out.insert(out.end(), t.name.begin(), t.name.end());
    if (t.type == 0) {
      size_t at = out.size();
      out.resize(at + 4 * t.data.size());
      std::memcpy(out.data() + at, t.data.data(), 4 * t.data.size());
    } else {
      for (float f : t.data) {
        uint16_t h = floatToHalf(f);
        out.push_back(uint8_t(h & 0xff));
        out.push_back(uint8_t(h >> 8));
      }
    }
  }
  return true;
}

} // namespace ssm::importer
