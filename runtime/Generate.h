// The generation loop: choose a token from the logits, hand it to the caller, step it, until enough tokens or a stop token.
//
// One loop for every front end (ssm-run --generate, the C API, a server),
// over any TokenStream (runtime/TokenStream.h). Token choice is greedy
// (argmax) here; sampling (temperature, top-k, top-p, min-p with a seed)
// plugs in as another TokenChooser.
#ifndef SSM_RUNTIME_GENERATE_H
#define SSM_RUNTIME_GENERATE_H

#include "runtime/TokenStream.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ssm::rt {

/// The most likely token: the index of the largest of `n` logits, the
/// lowest index among equal maxima; NaNs never win (all NaN: 0). -1 for n = 0.
int32_t argmaxToken(const float *logits, size_t n);

/// Chooses the next token from the logits after the last one.
using TokenChooser = std::function<int32_t(const std::vector<float> &logits)>;

/// What to generate.
struct GenerateOptions {
  int64_t maxTokens = 0;           // at most this many tokens are handed out
  std::vector<int32_t> stopTokens; // a chosen stop token ends the loop, not handed out
  TokenChooser choose;             // empty: argmaxToken
};

/// How a generation ended.
struct GenerateResult {
  int64_t tokens = 0;    // tokens handed to onToken
  bool stopped = false;  // a stop token was chosen, or onToken returned false
  double seconds = 0.0;  // wall time of the loop (steps and choices)
};

/// From `stream`'s current logits (after a prompt; InvalidArgument when it
/// has none): chooses a token, hands it to `onToken` (which returns false
/// to stop), and steps it unless it was the last one wanted; so n tokens
/// cost n - 1 steps. A step's error ends the loop and is returned (the
/// tokens handed out so far stay counted in `result`).
Status generate(TokenStream &stream, const GenerateOptions &options,
                const std::function<bool(int32_t token)> &onToken,
                GenerateResult *result = nullptr);

} // namespace ssm::rt

#endif // SSM_RUNTIME_GENERATE_H
