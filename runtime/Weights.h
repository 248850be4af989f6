// A safetensors weights file loaded once (read into memory, or mapped), its tensors handed to kernels as f32 views.
//
// The file (8-byte little-endian header length N, N bytes of JSON naming each
// tensor's dtype, shape and data_offsets, then the data) is loaded once per
// process (WeightLoad): read into anonymous memory on 2 MB boundaries with
// transparent huge pages advised (the default, as rwkv.cpp and llama.cpp's
// --no-mmap load), or mmap'd read-only (its pages shared with the page cache
// and with other processes). Decode streams every weight once per token, and
// read from the copy it ran about 12% faster on an AMD EPYC (Zen 5) VM
// (`ssm-run <dir> --mode step --tokens <64 tokens> --repeat 3`, F32, 2
// threads, 6 alternating rounds): RWKV-4 169M 9.7-10.7 ms/token read against
// 11.2-12.3 mapped, mamba-130m 9.5-10.7 against 10.9-12.3 (why is not shown;
// page walks over 4 KB page-cache pages under the VM's nested paging are a
// guess). F32 tensors are used where they lie, with no further copy (one
// load, counted once however many streams of the process run); F16, BF16 and
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

/// How a weights file is brought into memory: Copy reads it into anonymous
/// memory (2 MB aligned, MADV_HUGEPAGE), Map maps it read-only.
enum class WeightLoad { Copy, Map };

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
  /// Loads `path` as `load` says and checks its header. Errors: NotFound,
  /// InvalidFile ("<path>: is a directory, not a safetensors file", "...:
  /// tensor 'x' ends at byte b of a file of n (truncated?)", "...: cannot
  /// read the file: <reason>"). Where anonymous memory cannot be had (ENOMEM),
  /// a Copy load maps the file instead.
  static std::unique_ptr<WeightFile> open(const std::string &path, Status &status,
                                          WeightLoad load = WeightLoad::Copy);
  /// How the file was loaded (Map where a Copy fell back to mapping).
  WeightLoad load() const { return load_; }

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
  size_t region_ = 0; // bytes of the mapping at base_ (size_ rounded up for a Copy)
  WeightLoad load_ = WeightLoad::Map;
  std::map<std::string, Tensor> tensors_;
  std::mutex mutex_;
};

} // namespace ssm::rt

#endif
