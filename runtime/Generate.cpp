// The generation loop (runtime/Generate.h).
#include "runtime/Generate.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace ssm::rt {

int32_t argmaxToken(const float *logits, size_t n) {
  if (n == 0)
    return -1;
  size_t best = 0;
  while (best < n && std::isnan(logits[best]))
    ++best;
  if (best == n)
    return 0;
  for (size_t i = best + 1; i < n; ++i)
    if (logits[i] > logits[best])
      best = i;
  return static_cast<int32_t>(best);
}

Status generate(TokenStream &stream, const GenerateOptions &options,
                const std::function<bool(int32_t token)> &onToken, GenerateResult *result) {
  GenerateResult local;
  GenerateResult &r = result ? *result : local;
  r = GenerateResult{};
  if (options.maxTokens < 0)
    return {Code::InvalidArgument,
            "the token count to generate is negative (" + std::to_string(options.maxTokens) + ")"};
  if (options.maxTokens == 0)
    return {};
  if (stream.logits().empty())
    return {Code::InvalidArgument, "generation needs the logits of a prompt: run one first"};
  const auto t0 = std::chrono::steady_clock::now();
  Status status;
  for (;;) {
    const std::vector<float> &logits = stream.logits();
    const int32_t next =
        options.choose ? options.choose(logits) : argmaxToken(logits.data(), logits.size());
    if (std::find(options.stopTokens.begin(), options.stopTokens.end(), next) !=
        options.stopTokens.end()) {
      r.stopped = true;
      break;
    }
    ++r.tokens;
    if (!onToken(next)) {
      r.stopped = true;
      break;
    }
    if (r.tokens == options.maxTokens)
      break;
    if (!(status = stream.step(next)))
      break;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return status;
}

} // namespace ssm::rt
