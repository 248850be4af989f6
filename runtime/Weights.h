// A safetensors weights file mapped read-only, its tensors handed to kernels as f32 views.
//
// The file (8-byte little-endian header length N, N bytes of JSON naming each
// tensor's dtype, shape and data_offsets, then the data) is mmap'd once. F32
// tensors are used where they lie, with no copy (their pages are shared with
// the page cache and counted once however many streams run); F16, BF16 and
// F64 tensors are converted to f32 the first time a kernel needs them, unless
// the kernel takes them as stored (getStored: 16-bit and int8 weights, used
// in place like F32). Every offset is checked against the file size when it
// is opened, so a truncated or malformed file is refused with a message
// naming the tensor. Integer tensors cannot be bound as f32 (an I8 weight
// is bound as stored, with its scales).
//
// import/Safetensors.h reads whole files into memory for the importers; this
// reader exists because the runtime must not copy the weights.
#ifndef SSM_RUNTIME_WEIGHTS_H
#define SSM_RUNTIME_WEIGHTS_H

#include "runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ssm::rt {

class WeightFile {
public:
  struct Tensor {
    std::string dtype; // as the file spells it: "F32", "F16", ...
    std::vector<int64_t> shape;
    int64_t numel = 0;
    size_t offset = 0, bytes = 0; // in the file
    /// The f32 values once bound: into the mapping (F32) or `converted`.
    const float *data = nullptr;
    std::vector<float> converted;
    /// The elements as stored (getStored): into the mapping, or a copy
    /// when the file's offset is not a multiple of the element size.
    const void *stored = nullptr;
    std::vector<uint64_t> storedCopy;
  };

  ~WeightFile();
  /// Maps `path` and checks its header. Errors: NotFound, InvalidFile ("<path>:
  /// is a directory, not a safetensors file", "...: tensor 'x' ends at byte b
  /// of a file of n (truncated?)").
  static std::unique_ptr<WeightFile> open(const std::string &path, Status &status);

  /// The f32 values of tensor `name` (converted on first use), or null with
  /// `status` set: no such tensor (NotFound), an integer dtype (Unsupported).
  /// Thread-safe.
  const Tensor *get(const std::string &name, Status &status);
  /// The elements of `name` as the file stores them, no conversion (F16,
  /// BF16 and I8 weights are bound this way, passes/WeightStorage.h), or
  /// null with `status` set (NotFound). Thread-safe.
  const Tensor *getStored(const std::string &name, Status &status);
  /// The tensor's header entry (nothing converted), or null.
  const Tensor *info(const std::string &name) const;
  const std::string &path() const { return path_; }
  std::vector<std::string> names() const;

  /// Bytes of the file; bytes of tensors used in place; bytes converted.
  size_t fileBytes() const { return size_; }
  size_t mappedBytes() const { return mapped_; }
  size_t convertedBytes() const { return converted_; }

private:
  WeightFile() = default;
  std::string path_;
  const unsigned char *base_ = nullptr;
  size_t size_ = 0, mapped_ = 0, converted_ = 0;
  std::map<std::string, Tensor> tensors_;
  std::mutex mutex_;
};

} // namespace ssm::rt

#endif
