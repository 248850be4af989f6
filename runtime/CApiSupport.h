// What the C API's source files share (runtime/CApi.cpp: models and streams;
// runtime/CApiModule.cpp: kernel modules): the calling thread's last message,
// status codes from Status, and the guard that keeps C++ exceptions out of C.
#ifndef SSM_RUNTIME_CAPISUPPORT_H
#define SSM_RUNTIME_CAPISUPPORT_H

#include "runtime/Status.h"
#include "runtime/ssm_runtime.h"

#include <exception>
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

} // namespace ssm::rt::capi

/// Returns SSM_ERROR_INVALID_ARGUMENT, naming the C function, unless `cond`.
#define SSM_REQUIRE(cond, what)                                                                    \
  if (!(cond))                                                                                     \
  return ::ssm::rt::capi::fail(SSM_ERROR_INVALID_ARGUMENT, std::string(__func__) + ": " + (what))

#endif
