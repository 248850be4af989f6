// What a generation loop, a server or a tool needs of a model stream, whatever runs it: the compiled kernels (rt::Stream, runtime/Model.h) or the reference interpreter (ref::ModelStream, reference/ModelStream.h).
#ifndef SSM_RUNTIME_TOKENSTREAM_H
#define SSM_RUNTIME_TOKENSTREAM_H

#include "runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ssm::rt {

/// A stream of tokens through a model: its states (fixed-size recurrent
/// states and growing caches, model.json order) and the logits after the
/// last token.
class TokenStream {
public:
  virtual ~TokenStream() = default;
  /// Every state back to its model.json init; position 0, no logits.
  virtual void reset() = 0;
  /// Runs `n` >= 1 tokens from the current state. With `allLogits`, it
  /// receives n x vocab values (every position's logits), row-major.
  /// Errors: a token outside the vocabulary (InvalidArgument), the context
  /// full (ContextFull), no function for the call (Unsupported), a kernel
  /// or interpreter failure. On error the state is undefined: reset it.
  virtual Status prefill(const int32_t *tokens, size_t n,
                         std::vector<float> *allLogits = nullptr) = 0;
  /// One token through the step function.
  virtual Status step(int32_t token) = 0;
  /// The logits after the last token (vocab values; empty at position 0).
  virtual const std::vector<float> &logits() const = 0;
  /// Tokens run since the start or the last reset.
  virtual int64_t position() const = 0;
};

} // namespace ssm::rt

#endif // SSM_RUNTIME_TOKENSTREAM_H
