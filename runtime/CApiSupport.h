// What the C API's source files share (runtime/CApi.cpp: models and streams;
// runtime/CApiModule.cpp: kernel modules): the calling thread's last message,
// status codes from Status, and the guard that keeps C++ exceptions out of C.
#ifndef SSM_RUNTIME_CAPISUPPORT_H
#define SSM_RUNTIME_CAPISUPPORT_H

#include "runtime/Status.h"
#include "runtime/ssm_runtime.h"

#include <dlpack/dlpack.h>

#include <algorithm>
#include <exception>
#include <cstdint>
#include <new>
#include <string>

namespace ssm::rt::capi {

/// Sets the calling thread's ssm_last_error() message and returns `code`.
ssm_status_t fail(ssm_status_t code, std::string message);

/// SSM_OK for an ok Status, else its code with its message.
inline ssm_status_t report(const Status &s) {
  if (s.isOk())
    return SSM_OK;
  return fail(static_cast<ssm_status_t>(s.code()), s.message());
}

/// Runs `body`, turning any exception into a status: none may cross into C.
template <typename F> ssm_status_t guarded(F &&body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return fail(SSM_ERROR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception &e) {
    return fail(SSM_ERROR_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(SSM_ERROR_INTERNAL, "internal error");
  }
}

/// Empty when `t`'s shape is well formed and `t` is row-major contiguous
/// (strides NULL, or each the product of the later dims; dims of size 1 may
/// have any stride), else what is wrong ("has a negative dimension -3 (dim 1)",
/// "not contiguous (row-major): stride 16 of dim 2, expected 1"). Refused: a
/// negative ndim or one past 64, a NULL shape with ndim > 0, a negative
/// dimension, and an element count or byte size that overflows int64 (checked
/// multiplication: a huge shape must not wrap to a small count). `numel`
/// receives the element count (0 on failure).
inline std::string shapeProblem(const DLTensor &t, int64_t &numel) {
  numel = 0;
  if (t.ndim < 0 || t.ndim > 64)
    return "of ndim " + std::to_string(t.ndim) + " (0 to 64 dims are taken)";
  if (t.ndim > 0 && !t.shape)
    return "without a shape (shape is NULL, ndim " + std::to_string(t.ndim) + ")";
  int64_t n = 1;
  for (int k = 0; k < t.ndim; ++k) {
    if (t.shape[k] < 0)
      return "of negative dimension " + std::to_string(t.shape[k]) + " (dim " + std::to_string(k) +
             ")";
    if (__builtin_mul_overflow(n, t.shape[k], &n))
      return "too large: its element count overflows int64 (dim " + std::to_string(k) + " is " +
             std::to_string(t.shape[k]) + ")";
  }
  int64_t bytes = 0;
  const int64_t elementBytes = (int64_t(t.dtype.bits) * std::max<int64_t>(t.dtype.lanes, 1) + 7) / 8;
  if (__builtin_mul_overflow(n, elementBytes, &bytes))
    return "too large: its byte size overflows int64 (" + std::to_string(n) + " elements)";
  numel = n;
  return "";
}

/// shapeProblem, then the strides: NULL, or row-major (`numel` 0 on failure).
inline std::string rowMajorProblem(const DLTensor &t, int64_t &numel) {
  if (std::string why = shapeProblem(t, numel); !why.empty())
    return why;
  if (numel == 0)
    return ""; // no element: any strides will do
  int64_t expect = 1;
  for (int k = t.ndim - 1; k >= 0; --k) {
    if (t.strides && t.shape[k] > 1 && t.strides[k] != expect) {
      numel = 0;
      return "not contiguous (row-major): stride " + std::to_string(t.strides[k]) + " of dim " +
             std::to_string(k) + ", expected " + std::to_string(expect);
    }
    expect *= t.shape[k]; // no overflow: the product of every dim fits (shapeProblem)
  }
  return "";
}

} // namespace ssm::rt::capi

/// Returns SSM_ERROR_INVALID_ARGUMENT, naming the C function, unless `cond`.
#define SSM_REQUIRE(cond, what)                                                                    \
  if (!(cond))                                                                                     \
  return ::ssm::rt::capi::fail(SSM_ERROR_INVALID_ARGUMENT, std::string(__func__) + ": " + (what))

#endif
