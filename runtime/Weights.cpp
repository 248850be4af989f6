// Safetensors weights loaded once (read into huge-page memory, or mapped): header checks at open, f32 views (or one conversion) per tensor.
#include "runtime/Weights.h"
#include "runtime/Float16.h"
#include "runtime/MappedFaults.h"

#include "runtime/Shape.h"

#include "runtime/SafetensorsHeader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>
#include <cerrno>
#include <cstring>

namespace ssm::rt {

WeightFile::~WeightFile() {
  if (base_) {
    if (load_ == WeightLoad::Map)
      unregisterMappedFile(base_);
    munmap(const_cast<unsigned char *>(base_), region_);
  }
}

namespace {
/// `size` bytes of anonymous memory starting on a 2 MB boundary, with
/// transparent huge pages advised (honoured where THP is `madvise` or
/// `always`), rounded up to whole 2 MB pages; `region` gets that length.
/// Null where the memory cannot be had.
void *hugePageRegion(size_t size, size_t &region) {
  const size_t huge = size_t(2) << 20;
  region = (size + huge - 1) / huge * huge;
  void *raw = mmap(nullptr, region + huge, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED)
    return nullptr;
  uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (start + huge - 1) / huge * huge;
  if (aligned > start)
    munmap(raw, aligned - start);
  if (size_t tail = start + region + huge - (aligned + region))
    munmap(reinterpret_cast<void *>(aligned + region), tail);
  void *p = reinterpret_cast<void *>(aligned);
  madvise(p, region, MADV_HUGEPAGE); // advice only: without THP the pages are 4 KB
  return p;
}

/// Reads `size` bytes of `fd` from offset 0 into `dst`; false with errno set.
bool readWhole(int fd, unsigned char *dst, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd, dst + done, std::min<size_t>(size - done, size_t(1) << 30),
                        static_cast<off_t>(done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO; // the file shrank while it was read
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}
} // namespace

std::unique_ptr<WeightFile> WeightFile::open(const std::string &path, Status &status,
                                             WeightLoad load) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    status = {errno == ENOENT ? Code::NotFound : Code::InvalidFile,
              path + ": cannot open the file: " + std::strerror(errno)};
    return nullptr;
  }
  if (S_ISDIR(st.st_mode)) {
    status = {Code::InvalidFile, path + ": is a directory, not a safetensors file"};
    return nullptr;
  }
  if (st.st_size < 8) {
    status = {Code::InvalidFile, path + ": " + std::to_string(st.st_size) +
                                     " bytes, too short for a safetensors file"};
    return nullptr;
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    status = {Code::InvalidFile, path + ": cannot open the file: " + std::strerror(errno)};
    return nullptr;
  }
  size_t size = static_cast<size_t>(st.st_size);
  // The header first, from its own bytes (at most 8 + 100 MiB): a file that
  // is not what its header describes (trailing bytes: a 64 GiB sparse file
  // behind a good header) is refused before its data is read or mapped.
  // Before, the whole file was copied into memory first (24 GB, then the
  // kernel's OOM kill).
  {
    unsigned char len8[8];
    std::vector<unsigned char> head;
    std::string problem;
    if (!readWhole(fd, len8, 8)) {
      problem = std::string("cannot read the file: ") + std::strerror(errno);
    } else {
      uint64_t headerLen = 0;
      for (int i = 0; i < 8; ++i)
        headerLen |= uint64_t(len8[i]) << (8 * i);
      // A length parseHeader refuses is not read (it looks at the 8 bytes only).
      bool readable = headerLen <= (uint64_t(100) << 20) && headerLen <= size - 8;
      head.resize(8 + (readable ? headerLen : 0));
      if (!readWhole(fd, head.data(), head.size()))
        problem = std::string("cannot read the file: ") + std::strerror(errno);
    }
    safetensors::Header header;
    if (problem.empty())
      safetensors::parseHeader(head.data(), size, header, problem); // sets problem on failure
    if (!problem.empty()) {
      ::close(fd);
      status = {Code::InvalidFile, path + ": " + problem};
      return nullptr;
    }
  }
  size_t region = size;
  void *p = load == WeightLoad::Copy ? hugePageRegion(size, region) : nullptr;
  std::string failure;
  if (p) {
    if (readWhole(fd, static_cast<unsigned char *>(p), size)) {
      mprotect(p, region, PROT_READ); // the weights are read-only, as when mapped
    } else {
      failure = std::string("cannot read the file: ") + std::strerror(errno);
      munmap(p, region);
    }
  } else {
    load = WeightLoad::Map;
    region = size;
    p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED)
      failure = std::string("cannot map the file: ") + std::strerror(errno);
    else // a file truncated in place while mapped: a named error (MappedFaults.h)
      registerMappedFile(p, size, path);
  }
  ::close(fd);
  if (!failure.empty()) {
    status = {Code::InvalidFile, path + ": " + failure};
    return nullptr;
  }
  std::unique_ptr<WeightFile> w(new WeightFile());
  w->path_ = path;
  w->base_ = static_cast<const unsigned char *>(p);
  w->size_ = size;
  w->region_ = region;
  w->load_ = load;
  safetensors::Header header;
  std::string problem;
  if (!safetensors::parseHeader(w->base_, size, header, problem)) {
    status = {Code::InvalidFile, path + ": " + problem};
    return nullptr;
  }
  for (const safetensors::Entry &e : header.tensors) {
    Tensor t;
    t.dtype = e.dtype;
    t.shape = e.shape;
    t.numel = e.numel;
    t.offset = e.offset;
    t.bytes = e.bytes;
    w->tensors_.emplace(e.name, std::move(t));
  }
  status = Status::ok();
  return w;
}

const WeightFile::Tensor *WeightFile::info(const std::string &name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

std::vector<std::string> WeightFile::names() const {
  std::vector<std::string> out;
  for (const auto &[name, t] : tensors_)
    out.push_back(name);
  return out;
}

const WeightFile::Tensor *WeightFile::get(const std::string &name, Status &status) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = tensors_.find(name);
  if (it == tensors_.end()) {
    status = {Code::NotFound, path_ + " has no tensor '" + name + "'"};
    return nullptr;
  }
  Tensor &t = it->second;
  if (t.data)
    return &t;
  const unsigned char *src = base_ + t.offset;
  // Little-endian host (x86-64, AArch64): F32 data is used in place when it
  // is 4-byte aligned, as files written with an 8-byte aligned header are.
  if (t.dtype == "F32" && reinterpret_cast<uintptr_t>(src) % alignof(float) == 0) {
    t.data = reinterpret_cast<const float *>(src);
    mapped_ += t.bytes;
    return &t;
  }
  if (t.dtype != "F32" && t.dtype != "F16" && t.dtype != "BF16" && t.dtype != "F64") {
    std::string hint = t.dtype == "I8" ? " (an I8 weight is read with its F16 scales '" + name +
                                             "_scale', one per block of 32; is that tensor missing?)"
                                       : "";
    status = {Code::Unsupported, path_ + ": tensor '" + name + "' has dtype " + t.dtype +
                                     "; weights must be F32, F16, BF16 or F64" + hint};
    return nullptr;
  }
  t.converted.resize(static_cast<size_t>(t.numel));
  for (int64_t i = 0; i < t.numel; ++i) {
    float v;
    if (t.dtype == "F32") {
      std::memcpy(&v, src + 4 * i, 4);
    } else if (t.dtype == "F64") {
      double d;
      std::memcpy(&d, src + 8 * i, 8);
      v = static_cast<float>(d);
    } else {
      uint16_t h;
      std::memcpy(&h, src + 2 * i, 2);
      v = t.dtype == "F16" ? ssm::halfToFloat(h) : ssm::bf16ToFloat(h);
    }
    t.converted[i] = v;
  }
  t.data = t.converted.data();
  converted_ += t.converted.size() * sizeof(float);
  return &t;
}

const WeightFile::Tensor *WeightFile::getStored(const std::string &name, Status &status) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = tensors_.find(name);
  if (it == tensors_.end()) {
    status = {Code::NotFound, path_ + " has no tensor '" + name + "'"};
    return nullptr;
  }
  Tensor &t = it->second;
  if (t.stored)
    return &t;
  const unsigned char *src = base_ + t.offset;
  size_t elem = safetensors::dtypeSize(t.dtype);
  if (elem && reinterpret_cast<uintptr_t>(src) % elem == 0) {
    t.stored = src;
    mapped_ += t.bytes;
  } else {
    t.storedCopy.resize((t.bytes + 7) / 8);
    std::memcpy(t.storedCopy.data(), src, t.bytes);
    t.stored = t.storedCopy.data();
    converted_ += t.bytes;
  }
  return &t;
}

} // namespace ssm::rt
