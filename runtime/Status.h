// Errors of the model library: a code (the C API's ssm_status_t) and a message naming the problem.
#ifndef SSM_RUNTIME_STATUS_H
#define SSM_RUNTIME_STATUS_H

#include <string>
#include <utility>

namespace ssm::rt {

/// Kinds of failure; the values are the C API's (ssm_runtime.h), which
/// documents each.
enum class Code {
  Ok = 0,
  InvalidArgument = 1, // a bad value from the caller (null, size, token, name)
  NotFound = 2,        // a file or folder that does not exist
  InvalidFile = 3,     // a file that exists but is malformed, truncated or foreign
  Mismatch = 4,        // files that do not belong together (module, state file, weights)
  Unsupported = 5,     // nothing compiled for this request, an unsupported dtype
  KernelFailed = 6,    // a compiled kernel returned an error
  OutOfMemory = 7,
  Internal = 8,
  ContextFull = 9,     // a cache state (KV cache) would hold more positions than its capacity
};

/// The outcome of a call: ok, or a code with a message ("<file>: <problem>").
class Status {
public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok() { return Status(); }

  bool isOk() const { return code_ == Code::Ok; }
  explicit operator bool() const { return isOk(); }
  Code code() const { return code_; }
  const std::string &message() const { return message_; }

private:
  Code code_ = Code::Ok;
  std::string message_;
};

} // namespace ssm::rt

#endif
