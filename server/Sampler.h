// Token choice for a request: the sampling settings a request carries and the rt::TokenChooser made from them (runtime/Sampling.h).
//
// Kept behind this small interface so the scheduler does not depend on how
// tokens are chosen. Each request gets its own rt::Sampler (its own seeded
// generator, its penalty window started with the prompt's tokens, as
// ssm-run --generate does), so a seed reproduces a request's tokens whatever
// other requests share its decode steps.
#ifndef SSM_SERVER_SAMPLER_H
#define SSM_SERVER_SAMPLER_H

#include "runtime/Generate.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ssm::server {

struct SamplingSettings {
  double temperature = 1.0; // OpenAI's default; 0: greedy
  double topP = 1.0;        // (0, 1]; 1: off
  int64_t topK = 0;         // 0: off
  double minP = 0.0;        // [0, 1]; 0: off
  double presencePenalty = 0.0, frequencyPenalty = 0.0; // [-2, 2], OpenAI's
  double repetitionPenalty = 1.0;                       // > 0 (llama.cpp's, vLLM's); 1: off
  uint64_t seed = 0;
  bool hasSeed = false;     // without one the server draws a seed per request
};

/// The chooser for `s`, its penalty window started with `prompt`; empty with
/// `error` set when the settings are unusable.
rt::TokenChooser makeTokenChooser(const SamplingSettings &s, const std::vector<int32_t> &prompt,
                                  std::string &error);

} // namespace ssm::server

#endif
