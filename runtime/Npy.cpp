// NumPy .npy reader and writer: preamble, a tiny parser for the header's Python dict, and conversions.
#include "runtime/Npy.h"
#include "runtime/AtomicFile.h"
#include "runtime/Shape.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

namespace ssm {

namespace {

using ssm::rt::shapeString;

constexpr char kMagic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

struct DtypeInfo {
  const char *descr; // normalised spelling
  char kind;         // 'f', 'i', 'u', 'b'
  size_t size;
};

constexpr DtypeInfo kDtypes[] = {
    {"<f4", 'f', 4}, {"<f8", 'f', 8}, {"|i1", 'i', 1}, {"<i2", 'i', 2},
    {"<i4", 'i', 4}, {"<i8", 'i', 8}, {"|u1", 'u', 1}, {"<u2", 'u', 2},
    {"<u4", 'u', 4}, {"<u8", 'u', 8}, {"|b1", 'b', 1},
};

/// Finds a dtype by any spelling NumPy may use on a little-endian machine.
const DtypeInfo *lookupDtype(const std::string &descr) {
  if (descr.size() < 3)
    return nullptr;
  char order = descr[0];
  std::string rest = descr.substr(1);
  for (const DtypeInfo &d : kDtypes) {
    if (rest != d.descr + 1)
      continue;
    // Byte order is meaningless for 1-byte types, so any prefix names them.
    if (d.size == 1 ? (order == '|' || order == '<' || order == '>' || order == '=')
                    : (order == '<' || order == '='))
      return &d;
  }
  return nullptr;
}

bool hostIsLittleEndian() {
  uint16_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

bool fail(std::string &error, const std::string &name, const std::string &problem) {
  error = name + ": " + problem;
  return false;
}

/// Multiplies sizes, refusing overflow past int64 (a fuzzed shape can hold
/// huge numbers that must not wrap into a small allocation).
bool checkedMul(int64_t a, int64_t b, int64_t &result) {
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a)
    return false;
  result = a * b;
  return true;
}

/// Fixed part of the file: magic, version, header length.
struct Preamble {
  int major = 0, minor = 0;
  size_t headerLen = 0;
  size_t headerOffset = 0; // where the dict text starts
};

/// `p` holds the first `n` bytes of the file (n may be small). Reports a bad
/// magic before a short file, so a 3-byte text file is called "not .npy".
bool parsePreamble(const unsigned char *p, size_t n, const std::string &name,
                   Preamble &pre, std::string &error) {
  size_t m = n < sizeof(kMagic) ? n : sizeof(kMagic);
  if (std::memcmp(p, kMagic, m) != 0)
    return fail(error, name, "not a .npy file (bad magic; expected \\x93NUMPY)");
  if (n < 8)
    return fail(error, name, "truncated header: file has only " + std::to_string(n) +
                                 " bytes");
  pre.major = p[6];
  pre.minor = p[7];
  if (!((pre.major == 1 || pre.major == 2 || pre.major == 3) && pre.minor == 0))
    return fail(error, name, "unsupported .npy format version " +
                                 std::to_string(pre.major) + "." +
                                 std::to_string(pre.minor) + " (1.0, 2.0, 3.0 are)");
  size_t lenBytes = pre.major == 1 ? 2 : 4;
  if (n < 8 + lenBytes)
    return fail(error, name, "truncated header: file has only " + std::to_string(n) +
                                 " bytes");
  pre.headerLen = 0;
  for (size_t i = 0; i < lenBytes; ++i)
    pre.headerLen |= size_t(p[8 + i]) << (8 * i);
  pre.headerOffset = 8 + lenBytes;
  return true;
}

/// Recursive-descent reader for the header, a Python dict literal such as
/// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
/// Every access goes through peek()/get(), which check the bound.
class HeaderParser {
public:
  HeaderParser(const char *textIn, size_t sizeIn) : text(textIn), size(sizeIn) {}

  bool parse(std::string &descr, bool &fortranOrder, std::vector<int64_t> &shape,
             std::string &problem) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    skipSpace();
    if (!consume('{'))
      return err(problem, "header is not a Python dict");
    for (;;) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key))
        return err(problem, "expected a quoted key in the header dict");
      skipSpace();
      if (!consume(':'))
        return err(problem, "expected ':' after key '" + key + "'");
      skipSpace();
      if (key == "descr") {
        if (peek() == '[')
          return err(problem, "unsupported dtype: structured arrays are not supported");
        if (!parseString(descr))
          return err(problem, "'descr' is not a string");
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (!parseBool(fortranOrder))
          return err(problem, "'fortran_order' is not True or False");
        haveOrder = true;
      } else if (key == "shape") {
        if (!parseShape(shape))
          return err(problem, "'shape' is not a tuple of non-negative integers");
        haveShape = true;
      } else {
        return err(problem, "unexpected key '" + key + "' in the header");
      }
      skipSpace();
      if (consume('}'))
        break;
      if (!consume(','))
        return err(problem, "expected ',' or '}' in the header dict");
    }
    if (!haveDescr || !haveOrder || !haveShape)
      return err(problem, "header lacks one of 'descr', 'fortran_order', 'shape'");
    skipSpace();
    if (pos != size)
      return err(problem, "unexpected text after the header dict");
    return true;
  }

private:
  const char *text;
  size_t size;
  size_t pos = 0;

  static bool err(std::string &problem, const std::string &what) {
    problem = what;
    return false;
  }
  char peek() const { return pos < size ? text[pos] : '\0'; }
  bool consume(char c) {
    if (pos < size && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool consumeWord(const char *word) {
    size_t len = std::strlen(word);
    if (size - pos < len || std::memcmp(text + pos, word, len) != 0)
      return false;
    pos += len;
    return true;
  }
  void skipSpace() {
    while (pos < size && (text[pos] == ' ' || text[pos] == '\t' ||
                          text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }
  bool parseString(std::string &out) {
    char quote = peek();
    if (quote != '\'' && quote != '"')
      return false;
    ++pos;
    out.clear();
    // Escapes never appear in the keys and dtypes we accept, so a backslash
    // is refused rather than interpreted.
    while (pos < size && text[pos] != quote) {
      if (text[pos] == '\\' || out.size() > 64)
        return false;
      out += text[pos++];
    }
    return consume(quote);
  }
  bool parseBool(bool &out) {
    if (consumeWord("True"))
      return out = true, true;
    if (consumeWord("False"))
      return out = false, true;
    return false;
  }
  bool parseInt(int64_t &out) {
    if (!(peek() >= '0' && peek() <= '9'))
      return false;
    out = 0;
    while (peek() >= '0' && peek() <= '9') {
      int64_t digit = text[pos++] - '0';
      if (out > (std::numeric_limits<int64_t>::max() - digit) / 10)
        return false;
      out = out * 10 + digit;
    }
    consume('L'); // Python 2 era files write 3L
    return true;
  }
  bool parseShape(std::vector<int64_t> &shape) {
    shape.clear();
    if (!consume('('))
      return false;
    for (;;) {
      skipSpace();
      if (consume(')'))
        return true;
      int64_t dim;
      if (shape.size() >= 64 || !parseInt(dim))
        return false;
      shape.push_back(dim);
      skipSpace();
      if (consume(')'))
        return true;
      if (!consume(','))
        return false;
    }
  }
};

/// Parses the dict text and fills dtype/shape; computes the data size.
bool parseHeader(const char *text, size_t size, const std::string &name,
                 NpyArray &out, size_t &dataBytes, std::string &error) {
  std::string descr, problem;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  HeaderParser parser(text, size);
  if (!parser.parse(descr, fortranOrder, shape, problem))
    return fail(error, name, "malformed header: " + problem);
  const DtypeInfo *info = lookupDtype(descr);
  if (!info) {
    if (!descr.empty() && descr[0] == '>')
      return fail(error, name, "big-endian dtype '" + descr +
                                   "' is not supported; save it as little-endian ('<')");
    return fail(error, name, "unsupported dtype '" + descr +
                                 "' (supported: f4, f8, i1, i2, i4, i8, u1, u2, u4, u8, b1)");
  }
  if (fortranOrder && shape.size() > 1)
    return fail(error, name, "fortran_order True is not supported; save the array "
                             "in C order (numpy.ascontiguousarray)");
  int64_t total = 1;
  for (int64_t d : shape)
    if (!checkedMul(total, d, total))
      return fail(error, name, "shape " + shapeString(shape) + " is too large");
  if (!checkedMul(total, int64_t(info->size), total))
    return fail(error, name, "shape " + shapeString(shape) + " is too large");
  out.dtype = info->descr;
  out.shape = std::move(shape);
  dataBytes = size_t(total);
  return true;
}

std::string dataSizeProblem(const NpyArray &a, size_t expected, size_t actual) {
  return std::string(actual < expected ? "truncated data" : "trailing bytes after the data") +
         ": shape " + shapeString(a.shape) + " of " + a.dtype + " needs " +
         std::to_string(expected) + " bytes, the file has " + std::to_string(actual) +
         " after the header";
}

template <typename T> T load(const char *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename Out>
bool convertTo(const NpyArray &a, std::vector<Out> &out, std::string &error) {
  const DtypeInfo *info = lookupDtype(a.dtype);
  if (!info)
    return fail(error, "npy", "unsupported dtype '" + a.dtype + "'");
  int64_t n = a.numel();
  if (n < 0 || a.bytes.size() != size_t(n) * info->size)
    return fail(error, "npy", "array of shape " + shapeString(a.shape) + " holds " +
                                  std::to_string(a.bytes.size()) + " bytes");
  out.resize(size_t(n));
  const char *p = a.bytes.data();
  for (int64_t i = 0; i < n; ++i, p += info->size) {
    double v = 0;
    switch (info->kind) {
    case 'f':
      v = info->size == 4 ? double(load<float>(p)) : load<double>(p);
      break;
    case 'i':
      v = info->size == 1   ? double(load<int8_t>(p))
          : info->size == 2 ? double(load<int16_t>(p))
          : info->size == 4 ? double(load<int32_t>(p))
                            : double(load<int64_t>(p));
      break;
    case 'u':
      v = info->size == 1   ? double(load<uint8_t>(p))
          : info->size == 2 ? double(load<uint16_t>(p))
          : info->size == 4 ? double(load<uint32_t>(p))
                            : double(load<uint64_t>(p));
      break;
    case 'b':
      v = *p != 0 ? 1.0 : 0.0;
      break;
    }
    out[i] = Out(v);
  }
  return true;
}

template <typename T> void store(char *p, T v) { std::memcpy(p, &v, sizeof(T)); }

/// Rounds to an integer of type T, refusing values that do not fit (a cast of
/// an out-of-range double is undefined behaviour). The upper bound 2^digits is
/// exact in double, unlike max() for 64-bit types.
template <typename T> bool storeInt(char *p, double v) {
  double r = std::nearbyint(v);
  if (!(r >= double(std::numeric_limits<T>::min()) &&
        r < std::ldexp(1.0, std::numeric_limits<T>::digits)))
    return false;
  store<T>(p, T(r));
  return true;
}

} // namespace

int64_t NpyArray::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

size_t npyItemSize(const std::string &dtype) {
  const DtypeInfo *info = lookupDtype(dtype);
  return info ? info->size : 0;
}

bool parseNpy(const void *data, size_t size, NpyArray &out, std::string &error,
              const std::string &name) {
  if (!hostIsLittleEndian())
    return fail(error, name, "big-endian hosts are not supported");
  if (size == 0 || !data)
    return fail(error, name, "truncated header: the file is empty");
  const auto *p = static_cast<const unsigned char *>(data);
  Preamble pre;
  if (!parsePreamble(p, size, name, pre, error))
    return false;
  if (size - pre.headerOffset < pre.headerLen)
    return fail(error, name, "truncated header: it declares " +
                                 std::to_string(pre.headerLen) + " bytes, the file has " +
                                 std::to_string(size - pre.headerOffset));
  size_t dataBytes = 0;
  NpyArray result;
  if (!parseHeader(reinterpret_cast<const char *>(p) + pre.headerOffset, pre.headerLen,
                   name, result, dataBytes, error))
    return false;
  size_t dataOffset = pre.headerOffset + pre.headerLen;
  if (size - dataOffset != dataBytes)
    return fail(error, name, dataSizeProblem(result, dataBytes, size - dataOffset));
  result.bytes.assign(reinterpret_cast<const char *>(p) + dataOffset,
                      reinterpret_cast<const char *>(p) + size);
  out = std::move(result);
  return true;
}

bool readNpy(const std::string &path, NpyArray &out, std::string &error) {
  if (!hostIsLittleEndian())
    return fail(error, path, "big-endian hosts are not supported");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return fail(error, path, "is a directory, not a .npy file");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail(error, path, std::string("cannot open file: ") +
                                 (errno ? std::strerror(errno) : "unknown error"));
  in.seekg(0, std::ios::end);
  std::streamoff fileSize = in.tellg();
  in.seekg(0, std::ios::beg);
  if (fileSize < 0 || !in)
    return fail(error, path, "cannot determine the file size (not a regular file?)");

  unsigned char fixed[12] = {};
  size_t fixedLen = size_t(fileSize < 12 ? fileSize : 12);
  in.read(reinterpret_cast<char *>(fixed), std::streamsize(fixedLen));
  if (!in)
    return fail(error, path, "read error");
  Preamble pre;
  if (!parsePreamble(fixed, fixedLen, path, pre, error))
    return false;
  size_t afterPreamble = size_t(fileSize) - pre.headerOffset;
  if (afterPreamble < pre.headerLen)
    return fail(error, path, "truncated header: it declares " +
                                 std::to_string(pre.headerLen) + " bytes, the file has " +
                                 std::to_string(afterPreamble));
  std::vector<char> header(pre.headerLen);
  in.seekg(std::streamoff(pre.headerOffset), std::ios::beg);
  in.read(header.data(), std::streamsize(header.size()));
  if (!in)
    return fail(error, path, "read error in the header");
  size_t dataBytes = 0;
  NpyArray result;
  if (!parseHeader(header.data(), header.size(), path, result, dataBytes, error))
    return false;
  size_t available = afterPreamble - pre.headerLen;
  // Compared before allocating, so a header claiming terabytes costs nothing.
  if (available != dataBytes)
    return fail(error, path, dataSizeProblem(result, dataBytes, available));
  result.bytes.resize(dataBytes);
  in.read(result.bytes.data(), std::streamsize(dataBytes));
  if (!in && dataBytes != 0)
    return fail(error, path, "read error in the data");
  out = std::move(result);
  return true;
}

bool writeNpy(const std::string &path, const std::string &dtype,
              const std::vector<int64_t> &shape, const void *data,
              std::string &error) {
  if (!hostIsLittleEndian())
    return fail(error, path, "big-endian hosts are not supported");
  const DtypeInfo *info = lookupDtype(dtype);
  if (!info)
    return fail(error, path, "unsupported dtype '" + dtype + "'");
  int64_t total = 1;
  for (int64_t d : shape)
    if (d < 0 || !checkedMul(total, d, total))
      return fail(error, path, "invalid shape " + shapeString(shape));
  if (!checkedMul(total, int64_t(info->size), total))
    return fail(error, path, "shape " + shapeString(shape) + " is too large");
  if (total > 0 && !data)
    return fail(error, path, "no data to write");

  std::string dict = std::string("{'descr': '") + info->descr +
                     "', 'fortran_order': False, 'shape': " + shapeString(shape) + ", }";
  // NumPy pads with spaces and a newline so the data starts 64-byte aligned.
  int major = 1;
  size_t preamble = 10;
  size_t headerLen = (dict.size() + 1 + preamble + 63) / 64 * 64 - preamble;
  if (headerLen > 0xFFFF) {
    major = 2;
    preamble = 12;
    headerLen = (dict.size() + 1 + preamble + 63) / 64 * 64 - preamble;
  }
  dict.append(headerLen - dict.size() - 1, ' ');
  dict += '\n';

  std::string head(kMagic, sizeof(kMagic));
  head += char(major);
  head += char(0);
  for (size_t i = 0; i < preamble - 8; ++i)
    head += char((headerLen >> (8 * i)) & 0xFF);
  head += dict;

  // Whole or not at all (AtomicFile.h): a failed write (a full disk, a file
  // size limit) leaves an older file at `path` as it was.
  std::string why;
  if (!writeFileAtomically(path,
                           {FileChunk{head.data(), head.size()},
                            FileChunk{data, total > 0 ? size_t(total) : 0}},
                           why)) {
    error = why;
    return false;
  }
  return true;
}

bool writeNpy(const std::string &path, const NpyArray &array, std::string &error) {
  size_t itemSize = npyItemSize(array.dtype);
  int64_t n = array.numel();
  if (itemSize == 0)
    return fail(error, path, "unsupported dtype '" + array.dtype + "'");
  if (n < 0 || array.bytes.size() != size_t(n) * itemSize)
    return fail(error, path, "array of shape " + shapeString(array.shape) + " holds " +
                                 std::to_string(array.bytes.size()) + " bytes");
  return writeNpy(path, array.dtype, array.shape, array.bytes.data(), error);
}

bool npyToDoubles(const NpyArray &array, std::vector<double> &out, std::string &error) {
  return convertTo(array, out, error);
}

bool npyToFloats(const NpyArray &array, std::vector<float> &out, std::string &error) {
  return convertTo(array, out, error);
}

bool npyFromDoubles(const std::string &dtype, const std::vector<int64_t> &shape,
                    const std::vector<double> &values, NpyArray &out,
                    std::string &error) {
  const DtypeInfo *info = lookupDtype(dtype);
  if (!info)
    return fail(error, "npy", "unsupported dtype '" + dtype + "'");
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || !checkedMul(n, d, n))
      return fail(error, "npy", "invalid shape " + shapeString(shape));
  if (values.size() != size_t(n))
    return fail(error, "npy", std::to_string(values.size()) + " values for shape " +
                                  shapeString(shape));
  NpyArray result;
  result.dtype = info->descr;
  result.shape = shape;
  result.bytes.resize(size_t(n) * info->size);
  char *p = result.bytes.data();
  for (size_t i = 0; i < values.size(); ++i, p += info->size) {
    double v = values[i];
    bool ok = true;
    switch (info->kind) {
    case 'f':
      if (info->size == 4)
        store<float>(p, float(v));
      else
        store<double>(p, v);
      break;
    case 'i':
      ok = info->size == 1   ? storeInt<int8_t>(p, v)
           : info->size == 2 ? storeInt<int16_t>(p, v)
           : info->size == 4 ? storeInt<int32_t>(p, v)
                             : storeInt<int64_t>(p, v);
      break;
    case 'u':
      ok = info->size == 1   ? storeInt<uint8_t>(p, v)
           : info->size == 2 ? storeInt<uint16_t>(p, v)
           : info->size == 4 ? storeInt<uint32_t>(p, v)
                             : storeInt<uint64_t>(p, v);
      break;
    case 'b':
      *p = v != 0.0 ? 1 : 0;
      break;
    }
    if (!ok)
      return fail(error, "npy", "value " + std::to_string(v) + " at index " +
                                    std::to_string(i) + " does not fit " + info->descr);
  }
  out = std::move(result);
  return true;
}

bool writeNpyDoubles(const std::string &path, const std::string &dtype,
                     const std::vector<int64_t> &shape,
                     const std::vector<double> &values, std::string &error) {
  NpyArray array;
  std::string problem;
  if (!npyFromDoubles(dtype, shape, values, array, problem))
    return fail(error, path, problem.substr(problem.find(": ") + 2));
  return writeNpy(path, array, error);
}

bool readTokenIds(const std::string &path, std::vector<int32_t> &tokens, std::string &error) {
  NpyArray npy;
  std::vector<double> v;
  if (!readNpy(path, npy, error) || !npyToDoubles(npy, v, error))
    return false;
  if (npy.shape.size() != 1 || (npy.dtype != "<i4" && npy.dtype != "<i8")) {
    error = path + ": token ids must be an int32 (or int64) vector";
    return false;
  }
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] < -2147483648.0 || v[i] > 2147483647.0) {
      error = path + ": token " + std::to_string(static_cast<long long>(v[i])) + " at position " +
              std::to_string(i) + " does not fit in int32";
      return false;
    }
  tokens.assign(v.begin(), v.end());
  return true;
}

} // namespace ssm
