// A tensor on the host: a shape, an element type, and one buffer of its elements, owned or borrowed.
#ifndef SSM_RUNTIME_HOSTTENSOR_H
#define SSM_RUNTIME_HOSTTENSOR_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

namespace ssm::rt {

/// Allocates 128-byte aligned storage: compiled kernels use aligned vector
/// loads and stores on the buffers they are given, as on Halide's own.
template <typename T> struct AlignedAllocator {
  using value_type = T;
  static constexpr std::size_t kAlignment = 128;
  AlignedAllocator() = default;
  template <typename U> AlignedAllocator(const AlignedAllocator<U> &) {}
  T *allocate(std::size_t n) {
    std::size_t bytes = ((n * sizeof(T) + kAlignment - 1) / kAlignment) * kAlignment;
    return static_cast<T *>(::operator new(bytes, std::align_val_t(kAlignment)));
  }
  void deallocate(T *p, std::size_t) { ::operator delete(p, std::align_val_t(kAlignment)); }
  template <typename U> bool operator==(const AlignedAllocator<U> &) const { return true; }
  template <typename U> bool operator!=(const AlignedAllocator<U> &) const { return false; }
};

/// A pointer and a count: the elements of a HostTensor as T.
template <typename T> struct Elements {
  T *ptr = nullptr;
  size_t count = 0;
  T *data() const { return ptr; }
  size_t size() const { return count; }
  bool empty() const { return count == 0; }
  T *begin() const { return ptr; }
  T *end() const { return ptr + count; }
  T &operator[](size_t i) const { return ptr[i]; }
};

/// A dense row-major tensor on the host: `shape`, `dtype` ("float32",
/// "int32" for token ids and positions, "float16", "bfloat16", "int8" for
/// weights kept in their storage type: passes/WeightStorage.h) and its
/// elements in one of three places:
///   * `storage`: elements the tensor owns, in its dtype, 128-byte aligned
///     (states, results, tokens, arguments packed by runtime/TensorPacking.h);
///   * `view`: read-only elements owned elsewhere (memory-mapped weights,
///     runtime/Weights.h, in any dtype): bind() passes the pointer;
///   * `external`: writable elements owned by the caller, in the dtype,
///     row-major, aligned to the element size: a result written there in
///     place, or an input (the C API's DLPack calls, runtime/CApiModule.cpp).
/// At most one of them is set; elements() says which.
struct HostTensor {
  std::vector<int64_t> shape;
  std::string dtype = "float32";
  std::vector<unsigned char, AlignedAllocator<unsigned char>> storage;
  const void *view = nullptr;
  void *external = nullptr;

  /// The owned elements as T (float for float32, int32_t for int32,
  /// uint16_t for float16 and bfloat16, int8_t for int8).
  template <typename T> Elements<T> owned() {
    return {reinterpret_cast<T *>(storage.data()), storage.size() / sizeof(T)};
  }
  template <typename T> Elements<const T> owned() const {
    return {reinterpret_cast<const T *>(storage.data()), storage.size() / sizeof(T)};
  }
  Elements<float> f32() { return owned<float>(); }
  Elements<const float> f32() const { return owned<float>(); }
  Elements<int32_t> i32() { return owned<int32_t>(); }
  Elements<const int32_t> i32() const { return owned<int32_t>(); }

  /// Owns `n` elements of T, each `fill`; the storage is reused when its size is the same.
  template <typename T> void allocate(size_t n, T fill = T()) {
    storage.resize(n * sizeof(T));
    std::fill(owned<T>().begin(), owned<T>().end(), fill);
  }
  /// Owns a copy of [first, last) converted to T.
  template <typename T, typename It> void assign(It first, It last) {
    storage.resize(static_cast<size_t>(std::distance(first, last)) * sizeof(T));
    std::copy(first, last, owned<T>().begin());
  }
  /// Where the elements are: `external`, else `view`, else the storage.
  const void *elements() const {
    return external ? external : view ? view : static_cast<const void *>(storage.data());
  }
};

} // namespace ssm::rt

#endif // SSM_RUNTIME_HOSTTENSOR_H
