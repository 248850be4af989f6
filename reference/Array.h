// Array: the dense row-major f64 tensor that the reference kernels compute on.
#ifndef SSM_REFERENCE_ARRAY_H
#define SSM_REFERENCE_ARRAY_H

#include <cassert>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ssm::ref {

/// The element count of `shape`, saturating: INT64_MAX when the product
/// overflows int64, and -1 when a dim is negative (dynamic). Callers that
/// allocate check sizes first (frontend/StaticLimits.h); saturation only
/// keeps an unchecked caller from a wrapped-around, small, wrong count.
inline int64_t numelOf(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    if (s < 0)
      return -1;
    if (__builtin_mul_overflow(n, s, &n))
      n = INT64_MAX;
  }
  return n;
}

/// Prints a shape the way diagnostics and NumPy do: "(2, 4, 33)", "(3,)", "()".
inline std::string shapeToString(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// f64 storage whatever the source dtype: the reference is the oracle, so it
/// accumulates in the widest precision the host has cheaply.
struct Array {
  std::vector<int64_t> shape;
  std::vector<double> data;

  Array() = default;
  explicit Array(std::vector<int64_t> shapeIn)
      : shape(std::move(shapeIn)), data(numelOf(shape), 0.0) {}
  Array(std::vector<int64_t> shapeIn, std::vector<double> dataIn)
      : shape(std::move(shapeIn)), data(std::move(dataIn)) {
    assert(int64_t(data.size()) == numelOf(shape));
  }

  int64_t rank() const { return int64_t(shape.size()); }
  int64_t numel() const { return numelOf(shape); }
  int64_t dim(int64_t i) const { return shape[i]; }

  /// Element strides (not bytes) for C order.
  std::vector<int64_t> strides() const {
    std::vector<int64_t> st(shape.size(), 1);
    for (int64_t i = rank() - 2; i >= 0; --i)
      st[i] = st[i + 1] * shape[i + 1];
    return st;
  }

  int64_t offset(const std::vector<int64_t> &index) const {
    assert(int64_t(index.size()) == rank());
    int64_t off = 0;
    for (size_t i = 0; i < index.size(); ++i) {
      assert(index[i] >= 0 && index[i] < shape[i]);
      off = off * shape[i] + index[i];
    }
    return off;
  }

  template <typename... Idx> int64_t offsetOf(Idx... idx) const {
    static_assert(sizeof...(Idx) > 0, "use data[0] for rank-0 arrays");
    assert(int64_t(sizeof...(Idx)) == rank());
    int64_t off = 0, k = 0;
    ((assert(int64_t(idx) >= 0 && int64_t(idx) < shape[k]),
      off = off * shape[k++] + int64_t(idx)),
     ...);
    return off;
  }

  template <typename... Idx> double &at(Idx... idx) {
    return data[offsetOf(idx...)];
  }
  template <typename... Idx> double at(Idx... idx) const {
    return data[offsetOf(idx...)];
  }

  double &operator[](int64_t i) { return data[i]; }
  double operator[](int64_t i) const { return data[i]; }

  bool sameShape(const Array &other) const { return shape == other.shape; }
};

} // namespace ssm::ref

#endif // SSM_REFERENCE_ARRAY_H
