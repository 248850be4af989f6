// safetensors reader and writer: bounds-checked parsing of the JSON header and the data.
#include "import/Safetensors.h"
#include "runtime/SafetensorsHeader.h"
#include "runtime/Shape.h"
#include "import/FileIO.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>

namespace ssm::importer {

namespace {

struct DTypeInfo {
  StDType type;
  const char *name;
  size_t size;
};

constexpr DTypeInfo kDTypes[] = {
    {StDType::F64, "F64", 8}, {StDType::F32, "F32", 4},  {StDType::F16, "F16", 2},
    {StDType::BF16, "BF16", 2}, {StDType::I64, "I64", 8}, {StDType::I32, "I32", 4},
    {StDType::I16, "I16", 2}, {StDType::I8, "I8", 1},    {StDType::U8, "U8", 1},
    {StDType::Bool, "BOOL", 1},
};

const DTypeInfo &info(StDType t) {
  for (const DTypeInfo &d : kDTypes)
    if (d.type == t)
      return d;
  return kDTypes[1];
}

} // namespace

const char *stDTypeName(StDType t) { return info(t).name; }
size_t stDTypeSize(StDType t) { return info(t).size; }

bool parseStDType(const std::string &name, StDType &out) {
  for (const DTypeInfo &d : kDTypes)
    if (name == d.name) {
      out = d.type;
      return true;
    }
  return false;
}

int64_t StTensor::numel() const {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

const StTensor *StFile::find(const std::string &name) const {
  for (const StTensor &t : tensors)
    if (t.name == name)
      return &t;
  return nullptr;
}

StTensor makeF32Tensor(const std::string &name, const std::vector<int64_t> &shape,
                       const std::vector<float> &values) {
  StTensor t;
  t.name = name;
  t.dtype = StDType::F32;
  t.shape = shape;
  t.bytes.resize(values.size() * 4);
  if (!values.empty())
    std::memcpy(t.bytes.data(), values.data(), values.size() * 4); // little-endian host
  return t;
}

StTensor makeF16Tensor(const std::string &name, const std::vector<int64_t> &shape,
                       const std::vector<float> &values) {
  StTensor t;
  t.name = name;
  t.dtype = StDType::F16;
  t.shape = shape;
  t.bytes.resize(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) {
    uint16_t h = floatToHalf(values[i]);
    t.bytes[2 * i] = uint8_t(h & 0xff);
    t.bytes[2 * i + 1] = uint8_t(h >> 8);
  }
  return t;
}

StTensor makeBF16Tensor(const std::string &name, const std::vector<int64_t> &shape,
                        const std::vector<float> &values) {
  StTensor t;
  t.name = name;
  t.dtype = StDType::BF16;
  t.shape = shape;
  t.bytes.resize(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) {
    uint16_t h = floatToBf16(values[i]);
    t.bytes[2 * i] = uint8_t(h & 0xff);
    t.bytes[2 * i + 1] = uint8_t(h >> 8);
  }
  return t;
}

bool toFloats(const StTensor &t, std::vector<float> &out, std::string &error) {
  int64_t n;
  if ((n = rt::checkedNumel(t.shape, int64_t(1) << 62)) < 0 ||
      uint64_t(n) * stDTypeSize(t.dtype) != t.bytes.size()) {
    error = "tensor '" + t.name + "': " + std::to_string(t.bytes.size()) +
            " bytes do not match shape " + rt::shapeList(t.shape) + " of " + stDTypeName(t.dtype);
    return false;
  }
  out.resize(n);
  const uint8_t *b = t.bytes.data();
  switch (t.dtype) {
  case StDType::F32:
    if (n)
      std::memcpy(out.data(), b, n * 4);
    return true;
  case StDType::F16:
    for (int64_t i = 0; i < n; ++i)
      out[i] = halfToFloat(uint16_t(b[2 * i] | b[2 * i + 1] << 8));
    return true;
  case StDType::BF16:
    for (int64_t i = 0; i < n; ++i)
      out[i] = bf16ToFloat(uint16_t(b[2 * i] | b[2 * i + 1] << 8));
    return true;
  case StDType::F64:
    for (int64_t i = 0; i < n; ++i) {
      double d;
      std::memcpy(&d, b + 8 * i, 8);
      out[i] = float(d);
    }
    return true;
  default:
    error = "tensor '" + t.name + "' has dtype " + stDTypeName(t.dtype) +
            ", not a floating-point type";
    return false;
  }
}

bool serializeSafetensors(const StFile &file, std::vector<uint8_t> &out, std::string &error) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!file.metadata.empty()) {
    nlohmann::ordered_json meta = nlohmann::ordered_json::object();
    for (const auto &[k, v] : file.metadata)
      meta[k] = v;
    header["__metadata__"] = meta;
  }
  std::set<std::string> names;
  uint64_t offset = 0;
  for (const StTensor &t : file.tensors) {
    if (t.name.empty() || t.name == "__metadata__") {
      error = "invalid tensor name '" + t.name + "'";
      return false;
    }
    if (!names.insert(t.name).second) {
      error = "duplicate tensor name '" + t.name + "'";
      return false;
    }
    int64_t n;
    if ((n = rt::checkedNumel(t.shape, int64_t(1) << 62)) < 0 ||
        uint64_t(n) * stDTypeSize(t.dtype) != t.bytes.size()) {
      error = "tensor '" + t.name + "': " + std::to_string(t.bytes.size()) +
              " bytes do not match shape " + rt::shapeList(t.shape) + " of " +
              stDTypeName(t.dtype);
      return false;
    }
    nlohmann::ordered_json entry;
    entry["dtype"] = stDTypeName(t.dtype);
    entry["shape"] = t.shape;
    entry["data_offsets"] = {offset, offset + t.bytes.size()};
    header[t.name] = entry;
    offset += t.bytes.size();
  }
  std::string text = header.dump();
  while ((8 + text.size()) % 8 != 0)
    text += ' ';
  out.clear();
  out.reserve(8 + text.size() + offset);
  uint64_t len = text.size();
  for (int i = 0; i < 8; ++i)
    out.push_back(uint8_t(len >> (8 * i)));
  out.insert(out.end(), text.begin(), text.end());
  for (const StTensor &t : file.tensors)
    out.insert(out.end(), t.bytes.begin(), t.bytes.end());
  return true;
}

bool writeSafetensors(const std::string &path, const StFile &file, std::string &error) {
  std::vector<uint8_t> bytes;
  if (!serializeSafetensors(file, bytes, error)) {
    error = path + ": " + error;
    return false;
  }
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  if (!os) {
    error = path + ": cannot open for writing: " + std::strerror(errno);
    return false;
  }
  os.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
  os.close();
  if (!os) {
    error = path + ": write failed";
    return false;
  }
  return true;
}

bool parseSafetensors(const void *data, size_t size, StFile &out, std::string &error,
                      const std::string &name) {
  auto fail = [&](const std::string &msg) {
    error = name + ": " + msg;
    return false;
  };
  out = StFile();
  safetensors::Header header;
  std::string problem;
  if (!safetensors::parseHeader(data, size, header, problem))
    return fail(problem);
  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  out.metadata = header.metadata;
  for (const safetensors::Entry &e : header.tensors) {
    StTensor t;
    t.name = e.name;
    if (!parseStDType(e.dtype, t.dtype))
      return fail("bad header: tensor '" + e.name + "' has unknown dtype '" + e.dtype + "'");
    t.shape = e.shape;
    t.bytes.assign(bytes + e.offset, bytes + e.offset + e.bytes);
    out.tensors.push_back(std::move(t));
  }
  return true;
}

bool readShardIndex(const std::string &indexPath, ShardIndex &out, std::string &error) {
  std::vector<char> bytes;
  if (!readWholeFile(indexPath, "a JSON file", bytes, error))
    return false;
  nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object()) {
    error = indexPath + ": not a safetensors index (a JSON object with a \"weight_map\" object "
                        "of tensor name -> shard file)";
    return false;
  }
  out = ShardIndex();
  std::set<std::string> seen;
  for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
    if (!it.value().is_string()) {
      error = indexPath + ": weight_map['" + it.key() + "'] is not a file name";
      return false;
    }
    std::string shard = it.value().get<std::string>();
    // A shard beside the index: no folders, so an index cannot name other files.
    if (shard.empty() || shard.find('/') != std::string::npos || shard == "." || shard == "..") {
      error = indexPath + ": weight_map['" + it.key() + "'] names '" + shard +
              "', not a file in the index's folder";
      return false;
    }
    out.tensorShard[it.key()] = shard;
    if (seen.insert(shard).second)
      out.shards.push_back(shard);
  }
  if (out.shards.empty()) {
    error = indexPath + ": its weight_map is empty";
    return false;
  }
  return true;
}

namespace {
/// Every shard an index names, each tensor from the shard the index gives it:
/// a tensor missing from its shard, one the index does not name, or one in
/// two shards is an error naming it.
bool readShardedSafetensors(const std::string &indexPath, StFile &out, std::string &error) {
  ShardIndex index;
  if (!readShardIndex(indexPath, index, error))
    return false;
  std::string dir = indexPath.substr(0, indexPath.find_last_of('/') + 1);
  out = StFile();
  std::set<std::string> names;
  for (const std::string &shard : index.shards) {
    StFile part;
    if (!readSafetensors(dir + shard, part, error))
      return false;
    for (StTensor &t : part.tensors) {
      auto it = index.tensorShard.find(t.name);
      if (it == index.tensorShard.end()) {
        error = dir + shard + ": tensor '" + t.name + "' is not in " + indexPath + "'s weight_map";
        return false;
      }
      if (it->second != shard || !names.insert(t.name).second) {
        error = dir + shard + ": tensor '" + t.name + "' is also in " + it->second +
                " (the index gives it to " + it->second + ")";
        return false;
      }
      out.tensors.push_back(std::move(t));
    }
    for (auto &[k, v] : part.metadata)
      out.metadata.emplace(k, v);
  }
  for (const auto &[name, shard] : index.tensorShard)
    if (!names.count(name)) {
      error = indexPath + ": tensor '" + name + "' is not in " + dir + shard + " (truncated or "
              "another checkpoint's shard?)";
      return false;
    }
  return true;
}
} // namespace

namespace {
/// The header of a regular file checked from its own bytes (at most 8 + 100
/// MiB) before the file is read whole: a file that is not what its header
/// describes (trailing bytes: a 64 GiB sparse file behind a good header) is
/// refused unread. Before, it was read into memory first (the reference
/// engine of ssm-run: 24 GB, then the OOM killer). Other files (a pipe) are
/// checked after reading, as before.
bool headerFirst(const std::string &path, std::string &error) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return true;
  uintmax_t size = std::filesystem::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  if (ec || !in)
    return true; // readWholeFile names the problem
  std::vector<char> head(8);
  if (size < 8 || !in.read(head.data(), 8))
    return true;
  uint64_t headerLen = 0;
  for (int i = 0; i < 8; ++i)
    headerLen |= uint64_t(static_cast<unsigned char>(head[i])) << (8 * i);
  if (headerLen <= (uint64_t(100) << 20) && headerLen <= size - 8) {
    head.resize(8 + headerLen);
    if (!in.read(head.data() + 8, static_cast<std::streamsize>(headerLen)))
      return true;
  }
  safetensors::Header header;
  std::string problem;
  if (safetensors::parseHeader(head.data(), static_cast<size_t>(size), header, problem))
    return true;
  error = path + ": " + problem;
  return false;
}
} // namespace

bool readSafetensors(const std::string &path, StFile &out, std::string &error) {
  const std::string suffix = ".safetensors.index.json";
  if (path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
    return readShardedSafetensors(path, out, error);
  if (!headerFirst(path, error))
    return false;
  std::vector<char> buf;
  if (!readWholeFile(path, "a safetensors file", buf, error))
    return false;
  return parseSafetensors(buf.data(), buf.size(), out, error, path);
}

bool readSafetensorsAsFloats(const std::string &path, std::map<std::string, FloatTensor> &out,
                             std::string &error) {
  StFile file;
  if (!readSafetensors(path, file, error))
    return false;
  out.clear();
  for (const StTensor &t : file.tensors) {
    FloatTensor f;
    f.shape = t.shape;
    if (!toFloats(t, f.data, error)) {
      error = path + ": " + error;
      return false;
    }
    out.emplace(t.name, std::move(f));
  }
  return true;
}

} // namespace ssm::importer
