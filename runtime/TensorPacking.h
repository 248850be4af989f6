// Values into a HostTensor of a function argument's dtype: the one place that packs host data into the element types compiled functions take.
#ifndef SSM_RUNTIME_TENSORPACKING_H
#define SSM_RUNTIME_TENSORPACKING_H

#include "runtime/Module.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ssm::rt {

/// Gives `t` `shape` and the dtype of `info` and fills its own storage
/// with the `n` values (n = the product of `shape`) in that dtype: float32
/// and int32 converted, float16 and bfloat16 each rounded to nearest even
/// (runtime/Float16.h), int8 as integers. Fails, naming the argument and the
/// element, on an int8 value that is not an integer in [-128, 127], and on
/// any other dtype.
bool packTensor(const double *values, size_t n, const std::vector<int64_t> &shape,
                const TensorInfo &info, HostTensor &t, std::string &error);

} // namespace ssm::rt

#endif // SSM_RUNTIME_TENSORPACKING_H
