// The safetensors header parser (runtime/SafetensorsHeader.h).
#include "runtime/SafetensorsHeader.h"
#include "runtime/Shape.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace ssm::safetensors {

namespace {

/// Hard limit on the JSON header (the reference implementation uses 100 MB).
constexpr uint64_t kMaxHeader = 100u << 20;

} // namespace

size_t dtypeSize(const std::string &d) {
  if (d == "F64" || d == "I64" || d == "U64")
    return 8;
  if (d == "F32" || d == "I32" || d == "U32")
    return 4;
  if (d == "F16" || d == "BF16" || d == "I16" || d == "U16")
    return 2;
  if (d == "I8" || d == "U8" || d == "BOOL")
    return 1;
  return 0;
}

bool parseHeader(const void *data, size_t size, Header &out, std::string &error) {
  auto fail = [&](const std::string &msg) {
    error = msg;
    return false;
  };
  out = Header();
  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  if (size < 8)
    return fail("truncated: " + std::to_string(size) +
                " bytes, but the header length alone takes 8 bytes");
  uint64_t headerLen = 0;
  for (int i = 0; i < 8; ++i)
    headerLen |= uint64_t(bytes[i]) << (8 * i);
  if (headerLen > kMaxHeader)
    return fail("header length " + std::to_string(headerLen) +
                " (bytes 0-7) exceeds the 100 MiB limit: not a safetensors file?");
  if (headerLen > size - 8)
    return fail("truncated: the header length (bytes 0-7) says " + std::to_string(headerLen) +
                " bytes of JSON, but only " + std::to_string(size - 8) + " bytes follow");
  if (headerLen < 2 || bytes[8] != '{')
    return fail("bad header at byte offset 8: the JSON header must be an object starting with '{'");

  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes + 8, bytes + 8 + headerLen);
  } catch (const nlohmann::json::parse_error &e) {
    return fail("bad JSON header at byte offset " + std::to_string(8 + e.byte - (e.byte > 0)) +
                ": " + e.what());
  } catch (const nlohmann::json::exception &e) {
    // Not only parse_error: a number too large for a double throws
    // out_of_range (406) from the parser (found by fuzz/fuzz-safetensors).
    return fail(std::string("bad JSON header at byte offset 8: ") + e.what());
  }
  if (!header.is_object())
    return fail("bad header at byte offset 8: the JSON header is not an object");

  out.dataStart = 8 + headerLen;
  const uint64_t dataSize = size - out.dataStart;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string &key = it.key();
    const nlohmann::json &v = it.value();
    if (key == "__metadata__") {
      if (!v.is_object())
        return fail("bad header: \"__metadata__\" must be an object of strings");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string())
          return fail("bad header: \"__metadata__\" entry '" + m.key() + "' is not a string");
        out.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    std::string where = "tensor '" + key + "'";
    if (!v.is_object())
      return fail("bad header: " + where + " is not an object");
    if (!v.contains("dtype") || !v["dtype"].is_string())
      return fail("bad header: " + where + " has no string \"dtype\"");
    Entry t;
    t.name = key;
    t.dtype = v["dtype"].get<std::string>();
    const size_t elem = dtypeSize(t.dtype);
    if (!elem)
      return fail("bad header: " + where + " has unknown dtype '" + t.dtype + "'");
    if (!v.contains("shape") || !v["shape"].is_array())
      return fail("bad header: " + where + " has no \"shape\" array");
    for (const nlohmann::json &s : v["shape"]) {
      if (!s.is_number_integer() || s.get<int64_t>() < 0)
        return fail("bad header: " + where +
                    " has a shape entry that is not a non-negative integer");
      t.shape.push_back(s.get<int64_t>());
    }
    if (!v.contains("data_offsets") || !v["data_offsets"].is_array() ||
        v["data_offsets"].size() != 2 || !v["data_offsets"][0].is_number_unsigned() ||
        !v["data_offsets"][1].is_number_unsigned())
      return fail("bad header: " + where +
                  " needs \"data_offsets\": [begin, end] of non-negative integers");
    const uint64_t begin = v["data_offsets"][0].get<uint64_t>();
    const uint64_t end = v["data_offsets"][1].get<uint64_t>();
    if (end < begin)
      return fail("bad header: " + where + " has data_offsets [" + std::to_string(begin) + ", " +
                  std::to_string(end) + "] with end before begin");
    // At most 2^62 elements: byte counts stay far from uint64 overflow.
    t.numel = rt::checkedNumel(t.shape, int64_t(1) << 62);
    if (t.numel < 0)
      return fail("bad header: " + where + " has an oversized shape " + rt::shapeList(t.shape));
    const uint64_t want = uint64_t(t.numel) * elem;
    if (end - begin != want)
      return fail("bad header: " + where + " has data_offsets [" + std::to_string(begin) + ", " +
                  std::to_string(end) + "] (" + std::to_string(end - begin) +
                  " bytes) but shape " + rt::shapeList(t.shape) + " of " + t.dtype + " needs " +
                  std::to_string(want) + " bytes");
    if (end > dataSize)
      return fail("truncated: " + where + " occupies bytes " +
                  std::to_string(out.dataStart + begin) + " to " +
                  std::to_string(out.dataStart + end) + " of the file, but the file has " +
                  std::to_string(size) + " bytes");
    t.offset = out.dataStart + begin;
    t.bytes = want;
    out.tensors.push_back(std::move(t));
  }
  // Tensors in data order; overlapping data is malformed.
  std::stable_sort(out.tensors.begin(), out.tensors.end(),
                   [](const Entry &a, const Entry &b) { return a.offset < b.offset; });
  uint64_t end = out.dataStart;
  for (size_t k = 0; k < out.tensors.size(); ++k) {
    const Entry &cur = out.tensors[k];
    if (k > 0) {
      const Entry &prev = out.tensors[k - 1];
      if (cur.offset < prev.offset + prev.bytes && cur.bytes > 0 && prev.bytes > 0)
        return fail("bad header: the data of tensors '" + prev.name + "' and '" + cur.name +
                    "' overlap");
    }
    end = std::max(end, cur.offset + cur.bytes);
  }
  // The data section ends where the last tensor does, as the reference
  // implementation requires: a header length a few bytes short still parses
  // (the JSON is padded with spaces) but would shift every tensor.
  if (end != size)
    return fail("bad header: the tensors' data ends at byte " + std::to_string(end) +
                " but the file has " + std::to_string(size) +
                " bytes (a wrong header length in bytes 0-7, or bytes after the last tensor)");
  return true;
}

} // namespace ssm::safetensors
