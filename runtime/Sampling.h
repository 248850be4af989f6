// Sampling: the next token drawn from the logits (temperature, top-k, top-p, min-p, repetition / presence / frequency penalties, a seed), as a TokenChooser for the generation loop.
//
// The filters run in llama.cpp's order (its common sampler chain):
//   1. penalties   on the tokens of the last `penaltyLastN` accepted (prompt
//                  and generated) tokens, each counted c times:
//                    logit <= 0 ? logit * repetitionPenalty : logit / repetitionPenalty
//                    then logit -= c * frequencyPenalty + presencePenalty
//   2. top-k       the k largest logits (k <= 0: all);
//   3. top-p       the smallest prefix of the candidates, largest first, whose
//                  probabilities (softmax over the candidates top-k left) sum
//                  to >= p (p >= 1: all);
//   4. min-p       candidates whose probability is >= min_p times the largest's
//                  (logit >= max + log(min_p)); min_p <= 0: all;
//   5. temperature the survivors' logits divided by T;
//   6. the draw    from softmax over the survivors, with the sampler's own
//                  std::mt19937_64 (a uniform double from its 53 high bits,
//                  walked along the candidates in an order fixed by the logits).
// Temperature 0 is greedy: the argmax of the penalized logits (argmaxToken's
// tie and NaN rules; with neutral penalties exactly argmaxToken), no draw.
// NaN and -inf logits are never drawn; +inf ones share the draw alone.
//
// A Sampler belongs to one stream: it owns its random engine and its penalty
// window, so a seed reproduces a stream's tokens whatever other streams run,
// and whatever batch its steps run in.
#ifndef SSM_RUNTIME_SAMPLING_H
#define SSM_RUNTIME_SAMPLING_H

#include "runtime/Generate.h"
#include "runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace ssm::rt {

/// What to sample with. The defaults choose greedily and change nothing;
/// llama.cpp's own defaults are temperature 0.8, top_k 40, top_p 0.95,
/// min_p 0.05, repetition penalty 1 over the last 64 tokens.
struct SamplingParams {
  float temperature = 0.0f;       // 0: greedy; else > 0
  int32_t topK = 0;               // <= 0: no top-k filter
  float topP = 1.0f;              // in (0, 1]; 1: no top-p filter
  float minP = 0.0f;              // in [0, 1]; 0: no min-p filter
  float repetitionPenalty = 1.0f; // > 0; 1: none (llama.cpp's --repeat-penalty)
  float presencePenalty = 0.0f;   // subtracted once from a token in the window
  float frequencyPenalty = 0.0f;  // subtracted per occurrence in the window
  int32_t penaltyLastN = 64;      // the window: the last N tokens; 0: no penalties; -1: all
  uint64_t seed = 0;              // the random engine's seed
};

/// Empty when `p` is usable, else what is wrong, naming the field as the
/// flags spell it ("temperature must be >= 0 (got -1)").
std::string samplingParamsProblem(const SamplingParams &p);

/// True when the penalties change nothing (repetition 1, presence and
/// frequency 0, or an empty window).
bool penaltiesNeutral(const SamplingParams &p);

/// A candidate token after the filters: its id and its probability of being
/// drawn (softmax of the survivors' logits over the temperature).
struct SampleCandidate {
  int32_t id;
  float logit; // the penalized logit, not divided by the temperature
  double p;
};

class Sampler {
public:
  explicit Sampler(const SamplingParams &params = {});

  const SamplingParams &params() const { return params_; }

  /// Back to a new sampler's state: an empty penalty window and the engine
  /// reseeded with `seed`.
  void reset(uint64_t seed);
  /// Adds tokens to the penalty window (a prompt's tokens, before the first
  /// sample; sample() adds the tokens it chooses).
  void accept(int32_t token);
  void accept(const int32_t *tokens, size_t n);

  /// Chooses a token from `n` logits and accepts it. -1 for n = 0.
  int32_t sample(const float *logits, size_t n);
  int32_t sample(const std::vector<float> &logits) { return sample(logits.data(), logits.size()); }

  /// The logits after the penalties of the current window (as sample uses them).
  void applyPenalties(float *logits, size_t n) const;
  /// The candidates the filters leave, largest logit first, with their
  /// probabilities (no draw, nothing accepted). At temperature 0: the one
  /// greedy token with p = 1.
  std::vector<SampleCandidate> candidates(const float *logits, size_t n) const;

  /// Tokens in the penalty window, oldest first.
  const std::deque<int32_t> &window() const { return window_; }

  /// A TokenChooser for GenerateOptions::choose that samples with this
  /// sampler (which must outlive it).
  TokenChooser chooser();

private:
  /// The filters' survivors into `c`, unordered unless top-k sorted them.
  void filter(const float *logits, size_t n, std::vector<SampleCandidate> &c) const;

  SamplingParams params_;
  std::mt19937_64 rng_;
  std::deque<int32_t> window_;
  std::unordered_map<int32_t, int32_t> counts_; // occurrences in window_
  // Buffers kept between tokens (a vocabulary of 150k: 2.4 MB of candidates).
  mutable std::vector<float> penalized_, finite_;
  std::vector<SampleCandidate> scratch_;
};

} // namespace ssm::rt

#endif // SSM_RUNTIME_SAMPLING_H
