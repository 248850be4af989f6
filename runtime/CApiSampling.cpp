// The C API's sampling and generation (ssm_runtime.h: ssm_sampler_*, ssm_stream_generate) over runtime/Sampling.h, Generate.h and TokenText.h.
#include "runtime/ssm_runtime.h"

#include "runtime/CApiHandles.h"
#include "runtime/CApiSupport.h"
#include "runtime/Generate.h"
#include "runtime/Sampling.h"
#include "runtime/TokenText.h"

#include <string>
#include <vector>

using ssm::rt::Status;
using ssm::rt::capi::fail;
using ssm::rt::capi::guarded;
using ssm::rt::capi::report;

namespace {

ssm::rt::SamplingParams fromC(const ssm_sampling_params_t &c) {
  ssm::rt::SamplingParams p;
  p.temperature = c.temperature;
  p.topK = c.top_k;
  p.topP = c.top_p;
  p.minP = c.min_p;
  p.repetitionPenalty = c.repetition_penalty;
  p.presencePenalty = c.presence_penalty;
  p.frequencyPenalty = c.frequency_penalty;
  p.penaltyLastN = c.penalty_last_n;
  p.seed = c.seed;
  return p;
}

} // namespace

extern "C" {

ssm_sampling_params_t ssm_sampling_params_default(void) {
  const ssm::rt::SamplingParams p;
  ssm_sampling_params_t c;
  c.temperature = p.temperature;
  c.top_k = p.topK;
  c.top_p = p.topP;
  c.min_p = p.minP;
  c.repetition_penalty = p.repetitionPenalty;
  c.presence_penalty = p.presencePenalty;
  c.frequency_penalty = p.frequencyPenalty;
  c.penalty_last_n = p.penaltyLastN;
  c.seed = p.seed;
  return c;
}

ssm_status_t ssm_sampler_create(const ssm_sampling_params_t *params, ssm_sampler_t **out) {
  SSM_REQUIRE(out, "out is NULL");
  *out = nullptr;
  SSM_REQUIRE(params, "params is NULL");
  const ssm::rt::SamplingParams p = fromC(*params);
  const std::string problem = ssm::rt::samplingParamsProblem(p);
  SSM_REQUIRE(problem.empty(), problem);
  return guarded([&] {
    *out = new ssm_sampler{ssm::rt::Sampler(p)};
    return SSM_OK;
  });
}

void ssm_sampler_free(ssm_sampler_t *sampler) { delete sampler; }

ssm_status_t ssm_sampler_reset(ssm_sampler_t *sampler, uint64_t seed) {
  SSM_REQUIRE(sampler, "sampler is NULL");
  sampler->impl.reset(seed);
  return SSM_OK;
}

ssm_status_t ssm_sampler_accept(ssm_sampler_t *sampler, const int32_t *tokens, size_t n) {
  SSM_REQUIRE(sampler, "sampler is NULL");
  SSM_REQUIRE(tokens || n == 0, "tokens is NULL");
  return guarded([&] {
    sampler->impl.accept(tokens, n);
    return SSM_OK;
  });
}

ssm_status_t ssm_sampler_sample(ssm_sampler_t *sampler, const float *logits, size_t n,
                                int32_t *token) {
  SSM_REQUIRE(token, "token is NULL");
  *token = -1;
  SSM_REQUIRE(sampler, "sampler is NULL");
  SSM_REQUIRE(logits, "logits is NULL");
  SSM_REQUIRE(n > 0, "no logits (n is 0)");
  SSM_REQUIRE(n <= static_cast<size_t>(INT32_MAX), "more logits than int32 token ids");
  return guarded([&] {
    *token = sampler->impl.sample(logits, n);
    return SSM_OK;
  });
}

ssm_status_t ssm_stream_generate(ssm_stream_t *stream, ssm_sampler_t *sampler,
                                 const ssm_tokenizer_t *tokenizer, int64_t max_tokens,
                                 const int32_t *stop_tokens, size_t n_stop_tokens,
                                 const char *const *stop_strings, size_t n_stop_strings,
                                 ssm_generate_callback_t callback, void *user_data,
                                 int64_t *n_generated, ssm_stop_reason_t *reason) {
  if (n_generated)
    *n_generated = 0;
  if (reason)
    *reason = SSM_STOP_MAX_TOKENS;
  SSM_REQUIRE(stream, "stream is NULL");
  SSM_REQUIRE(max_tokens >= 0, "max_tokens is negative (" + std::to_string(max_tokens) + ")");
  SSM_REQUIRE(stop_tokens || n_stop_tokens == 0, "stop_tokens is NULL");
  SSM_REQUIRE(stop_strings || n_stop_strings == 0, "stop_strings is NULL");
  for (size_t i = 0; i < n_stop_strings; ++i)
    SSM_REQUIRE(stop_strings[i], "stop_strings[" + std::to_string(i) + "] is NULL");
  const bool bytes = !tokenizer && stream->impl->model().spec().byteTokens;
  const bool hasText = tokenizer || bytes;
  SSM_REQUIRE(hasText || n_stop_strings == 0,
              "stop strings need the tokens' text: give a tokenizer (the model's tokens are not "
              "bytes)");
  if (max_tokens == 0)
    return SSM_OK;
  SSM_REQUIRE(!stream->impl->logits().empty(),
              "the stream has processed no token yet: prefill a prompt first");
  return guarded([&] {
    std::vector<std::string> stops(stop_strings, stop_strings + n_stop_strings);
    ssm::rt::TokenTextStream text(tokenizer ? tokenizer->impl.get() : nullptr, std::move(stops));
    ssm::rt::GenerateOptions options;
    options.maxTokens = max_tokens;
    options.stopTokens.assign(stop_tokens, stop_tokens + n_stop_tokens);
    if (tokenizer && tokenizer->impl->special().eos >= 0)
      options.stopTokens.push_back(tokenizer->impl->special().eos);
    if (sampler)
      options.choose = sampler->impl.chooser();
    bool byCallback = false;
    Status textStatus;
    ssm::rt::GenerateResult result;
    Status st = ssm::rt::generate(
        *stream->impl, options,
        [&](int32_t token) {
          std::string piece;
          if (hasText && !(textStatus = text.push(token, piece)))
            return false;
          if (callback && callback(user_data, token, piece.c_str(), piece.size()) != 0) {
            byCallback = true;
            return false;
          }
          return !text.stopped();
        },
        &result);
    if (hasText && textStatus.isOk() && !byCallback) {
      std::string rest;
      text.finish(rest);
      if (!rest.empty() && callback)
        callback(user_data, -1, rest.c_str(), rest.size());
    }
    if (n_generated)
      *n_generated = result.tokens;
    if (reason)
      *reason = text.stopped() ? SSM_STOP_STRING
                : byCallback   ? SSM_STOP_CALLBACK
                : result.stopped ? SSM_STOP_TOKEN
                                 : SSM_STOP_MAX_TOKENS;
    if (!textStatus)
      return report(textStatus);
    return report(st);
  });
}

} // extern "C"
