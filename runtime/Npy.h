// NumPy .npy files: reading and writing the arrays that inputs, outputs and golden cases use.
//
// Our own reader because Debian packages no C++ .npy library (cnpy, libnpy are
// not in the archive) and the format is one small header. Errors are returned,
// never thrown, and every read of a header is bounds-checked: these files come
// from users and a fuzzed header must produce a message, not a crash.
#ifndef SSM_RUNTIME_NPY_H
#define SSM_RUNTIME_NPY_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ssm {

/// One array as stored: little-endian, C order.
struct NpyArray {
  /// Normalised descr: "<f4", "<f8", "|i1", "<i2", "<i4", "<i8", "|u1",
  /// "<u2", "<u4", "<u8" or "|b1".
  std::string dtype;
  std::vector<int64_t> shape; // () for a scalar
  std::vector<char> bytes;    // numel() * itemsize, C order

  int64_t numel() const;
};

/// Bytes per element of a supported dtype, accepting the spellings NumPy
/// writes ("<f4", "|u1") and byte-order-free ones for 1-byte types ("<u1",
/// "|b1"); 0 when unsupported (including big-endian ">f4").
size_t npyItemSize(const std::string &dtype);

/// Reads a .npy file of format version 1.0, 2.0 or 3.0. Refuses
/// fortran_order True, big-endian and structured dtypes. On failure returns
/// false and sets `error` to "<path>: <problem>".
bool readNpy(const std::string &path, NpyArray &out, std::string &error);

/// The same from a buffer holding a whole file; `name` stands for the path in
/// messages.
bool parseNpy(const void *data, size_t size, NpyArray &out, std::string &error,
              const std::string &name = "<buffer>");

/// Writes `data` (numel(shape) elements of `dtype`, C order) as a version 1.0
/// file, or 2.0 when the header outgrows 1.0's 64 KiB. Replaces `path` whole
/// or not at all (runtime/AtomicFile.h: a temporary beside it, fsync'd and
/// renamed; on failure an older file stays as it was): the tools decide
/// whether replacing is allowed.
bool writeNpy(const std::string &path, const std::string &dtype,
              const std::vector<int64_t> &shape, const void *data,
              std::string &error);
bool writeNpy(const std::string &path, const NpyArray &array, std::string &error);

/// Element conversions; bool is 0/1. Integers beyond 2^53 lose digits in double.
bool npyToDoubles(const NpyArray &array, std::vector<double> &out, std::string &error);
bool npyToFloats(const NpyArray &array, std::vector<float> &out, std::string &error);
/// Token ids from a .npy vector of int32 or int64; false with `error` ("<path>:
/// <problem>") for another dtype or rank, or an id that does not fit int32.
bool readTokenIds(const std::string &path, std::vector<int32_t> &tokens, std::string &error);

/// Builds an array of `dtype` from doubles. Integer dtypes round to nearest and
/// refuse NaN and out-of-range values; bool stores value != 0.
bool npyFromDoubles(const std::string &dtype, const std::vector<int64_t> &shape,
                    const std::vector<double> &values, NpyArray &out,
                    std::string &error);

/// npyFromDoubles then writeNpy; dtype "<f4" is what the goldens hold.
bool writeNpyDoubles(const std::string &path, const std::string &dtype,
                     const std::vector<int64_t> &shape,
                     const std::vector<double> &values, std::string &error);

} // namespace ssm

#endif // SSM_RUNTIME_NPY_H
