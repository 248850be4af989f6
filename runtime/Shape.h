// Tensor shapes in the runtime: element counts (overflow-checked) and the (a, b,) and [a, b] spellings of messages.
#ifndef SSM_RUNTIME_SHAPE_H
#define SSM_RUNTIME_SHAPE_H

#include <cstdint>
#include <string>
#include <vector>

namespace ssm::rt {

/// Elements of `shape`, or -1 when a dimension is negative or the count
/// exceeds `limit`.
inline int64_t checkedNumel(const std::vector<int64_t> &shape, int64_t limit = int64_t(1) << 40) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && n > limit / d))
      return -1;
    n *= d;
  }
  return n;
}

/// "(2, 3)", "(4,)", "()": Python's spelling, as the other tools print shapes.
inline std::string shapeString(const std::vector<int64_t> &s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

/// "[2, 3]", "[4]", "[]": the JSON spelling, as safetensors headers and
/// model.json hold shapes.
inline std::string shapeList(const std::vector<int64_t> &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

} // namespace ssm::rt

#endif
