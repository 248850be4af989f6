// Packing host values into a function argument's dtype (runtime/TensorPacking.h).
#include "runtime/TensorPacking.h"
#include "runtime/Float16.h"

#include <cmath>

namespace ssm::rt {

bool packTensor(const double *values, size_t n, const std::vector<int64_t> &shape,
                const TensorInfo &info, HostTensor &t, std::string &error) {
  t.shape = shape;
  t.dtype = info.dtype;
  auto integral = [&](double lo, double hi, const char *what) {
    for (size_t i = 0; i < n; ++i)
      if (!(values[i] >= lo && values[i] <= hi) || values[i] != std::floor(values[i])) {
        error = "argument '" + info.name + "' is " + t.dtype + ", but its element " +
                std::to_string(i) + " is " + std::to_string(values[i]) + " (not an integer in " +
                what + ")";
        return false;
      }
    return true;
  };
  if (t.dtype == "int32") {
    t.assign<int32_t>(values, values + n); // the interpreter's i32 values, integers already
  } else if (t.dtype == "float16" || t.dtype == "bfloat16") {
    t.allocate<uint16_t>(n);
    uint16_t *out = t.owned<uint16_t>().data();
    for (size_t i = 0; i < n; ++i) {
      float f = static_cast<float>(values[i]);
      out[i] = t.dtype == "float16" ? floatToHalf(f) : floatToBf16(f);
    }
  } else if (t.dtype == "int8") {
    if (!integral(-128, 127, "[-128, 127]"))
      return false;
    t.allocate<int8_t>(n);
    int8_t *out = t.owned<int8_t>().data();
    for (size_t i = 0; i < n; ++i)
      out[i] = static_cast<int8_t>(values[i]);
  } else if (t.dtype == "float32") {
    t.assign<float>(values, values + n);
  } else {
    error = "argument '" + info.name + "' has dtype " + t.dtype +
            ", which host values cannot be packed into";
    return false;
  }
  return true;
}

} // namespace ssm::rt
