// Shape checks for the reference kernels: each returns "" or a message naming the op and operand.
#ifndef SSM_REFERENCE_KERNELS_SHAPECHECK_H
#define SSM_REFERENCE_KERNELS_SHAPECHECK_H

#include "reference/Array.h"

#include <string>
#include <vector>

namespace ssm::ref::detail {

inline std::string missing(const char *op, const char *name) {
  return std::string(op) + ": missing required operand '" + name + "'";
}

inline std::string badShape(const char *op, const char *name, const Array &a,
                            const std::string &expected) {
  return std::string(op) + ": operand '" + name + "' has shape " +
         shapeToString(a.shape) + ", expected " + expected;
}

/// Also rejects arrays whose data does not match their shape, so a kernel
/// never indexes past the end of a hand-built Array.
inline std::string checkShape(const char *op, const char *name, const Array *a,
                              const std::vector<int64_t> &expected) {
  if (!a)
    return missing(op, name);
  if (a->shape != expected)
    return badShape(op, name, *a, shapeToString(expected));
  if (int64_t(a->data.size()) != a->numel())
    return std::string(op) + ": operand '" + name + "' holds " +
           std::to_string(a->data.size()) + " values for shape " +
           shapeToString(a->shape);
  return "";
}

inline std::string checkData(const char *op, const char *name, const Array *a) {
  if (!a)
    return missing(op, name);
  for (int64_t s : a->shape)
    if (s < 0)
      return badShape(op, name, *a, "non-negative sizes");
  if (int64_t(a->data.size()) != a->numel())
    return std::string(op) + ": operand '" + name + "' holds " +
           std::to_string(a->data.size()) + " values for shape " +
           shapeToString(a->shape);
  return "";
}

} // namespace ssm::ref::detail

#endif // SSM_REFERENCE_KERNELS_SHAPECHECK_H
