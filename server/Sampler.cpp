// Token choice through rt::Sampler (runtime/Sampling.h).
#include "server/Sampler.h"

#include "runtime/Sampling.h"

#include <memory>

namespace ssm::server {

rt::TokenChooser makeTokenChooser(const SamplingSettings &s, const std::vector<int32_t> &prompt,
                                  std::string &error) {
  rt::SamplingParams p;
  p.temperature = static_cast<float>(s.temperature);
  p.topK = static_cast<int32_t>(s.topK);
  p.topP = static_cast<float>(s.topP);
  p.minP = static_cast<float>(s.minP);
  p.presencePenalty = static_cast<float>(s.presencePenalty);
  p.frequencyPenalty = static_cast<float>(s.frequencyPenalty);
  p.repetitionPenalty = static_cast<float>(s.repetitionPenalty);
  p.seed = s.seed;
  if (std::string why = rt::samplingParamsProblem(p); !why.empty()) {
    error = why;
    return {};
  }
  auto sampler = std::make_shared<rt::Sampler>(p);
  sampler->accept(prompt.data(), prompt.size());
  return [sampler](const std::vector<float> &logits) { return sampler->sample(logits); };
}

} // namespace ssm::server
