// Sampling (runtime/Sampling.h): penalties, top-k, top-p, min-p, temperature and the draw, in llama.cpp's order.
#include "runtime/Sampling.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

namespace ssm::rt {

namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

/// Largest logit first; equal logits by id, so that every order is the same
/// on every run.
/// (A function object: the sorts and selections inline it.)
constexpr auto before = [](const SampleCandidate &a, const SampleCandidate &b) {
  return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
};

} // namespace

std::string samplingParamsProblem(const SamplingParams &p) {
  if (!(std::isfinite(p.temperature) && p.temperature >= 0.0f))
    return "temperature must be a number >= 0 (0: greedy), got " + num(p.temperature);
  if (p.topK < 0)
    return "top_k must be >= 0 (0: no top-k filter), got " + std::to_string(p.topK);
  if (!(p.topP >= 0.0f && p.topP <= 1.0f))
    return "top_p must be in [0, 1] (1: no top-p filter), got " + num(p.topP);
  if (!(p.minP >= 0.0f && p.minP <= 1.0f))
    return "min_p must be in [0, 1] (0: no min-p filter), got " + num(p.minP);
  if (!(std::isfinite(p.repetitionPenalty) && p.repetitionPenalty > 0.0f))
    return "repetition_penalty must be a number > 0 (1: none), got " + num(p.repetitionPenalty);
  if (!std::isfinite(p.presencePenalty))
    return "presence_penalty must be a finite number, got " + num(p.presencePenalty);
  if (!std::isfinite(p.frequencyPenalty))
    return "frequency_penalty must be a finite number, got " + num(p.frequencyPenalty);
  if (p.penaltyLastN < -1)
    return "penalty_last_n must be >= -1 (-1: every token, 0: no penalties), got " +
           std::to_string(p.penaltyLastN);
  return "";
}

bool penaltiesNeutral(const SamplingParams &p) {
  return p.penaltyLastN == 0 ||
         (p.repetitionPenalty == 1.0f && p.presencePenalty == 0.0f && p.frequencyPenalty == 0.0f);
}

Sampler::Sampler(const SamplingParams &params) : params_(params), rng_(params.seed) {}

void Sampler::reset(uint64_t seed) {
  params_.seed = seed;
  rng_.seed(seed);
  window_.clear();
  counts_.clear();
}

void Sampler::accept(int32_t token) {
  if (params_.penaltyLastN == 0)
    return;
  window_.push_back(token);
  ++counts_[token];
  if (params_.penaltyLastN > 0 && window_.size() > static_cast<size_t>(params_.penaltyLastN)) {
    auto it = counts_.find(window_.front());
    if (--it->second == 0)
      counts_.erase(it);
    window_.pop_front();
  }
}

void Sampler::accept(const int32_t *tokens, size_t n) {
  for (size_t i = 0; i < n; ++i)
    accept(tokens[i]);
}

void Sampler::applyPenalties(float *logits, size_t n) const {
  if (penaltiesNeutral(params_))
    return;
  const float r = params_.repetitionPenalty;
  for (const auto &[id, count] : counts_) {
    if (id < 0 || static_cast<size_t>(id) >= n)
      continue;
    float &l = logits[id];
    // The CTRL paper's penalty with llama.cpp's fix for negative logits
    // (dividing one would make the token more likely).
    if (r != 1.0f)
      l = l <= 0.0f ? l * r : l / r;
    l -= static_cast<float>(count) * params_.frequencyPenalty +
         (count > 0 ? params_.presencePenalty : 0.0f);
  }
}

void Sampler::filter(const float *logits, size_t n, std::vector<SampleCandidate> &c) const {
  c.clear();
  if (!penaltiesNeutral(params_)) {
    penalized_.assign(logits, logits + n);
    applyPenalties(penalized_.data(), n);
    logits = penalized_.data();
  }
  auto greedy = [&] {
    const int32_t id = argmaxToken(logits, n);
    c.push_back({id, logits[id], 1.0});
  };
  if (params_.temperature == 0.0f)
    return greedy();

  // Candidates: the drawable tokens. When some logits are +inf, those alone
  // (as equals: their "logit" 0 below); NaN and -inf never.
  constexpr float inf = std::numeric_limits<float>::infinity();
  float largest = -inf;
  for (size_t i = 0; i < n; ++i)
    largest = std::max(largest, logits[i]); // a NaN never replaces it
  const bool infinite = largest == inf;
  const bool topP = params_.topP < 1.0f, minP = params_.minP > 0.0f;
  // Without top-k, min-p's cut is known now (the largest logit is the
  // survivors'): tokens under it are never candidates, and top-p's
  // normalizer, over every token, is summed here instead.
  const bool early = !infinite && params_.topK <= 0 && minP && largest > -inf;
  const float floor = early ? static_cast<float>(static_cast<double>(largest) +
                                                 std::log(static_cast<double>(params_.minP)))
                            : -inf;
  double z = 0.0;
  if (early && topP)
    for (size_t i = 0; i < n; ++i)
      if (logits[i] > -inf)
        z += std::exp(logits[i] - largest);
  // With top-k, the k-th largest logit first (a selection over floats), so
  // that only the k survivors become candidates: those above it, and the
  // lowest ids among those equal to it.
  size_t topK = params_.topK > 0 ? static_cast<size_t>(params_.topK) : 0;
  float kth = -inf;
  size_t tiesLeft = n;
  if (topK > 0 && !infinite) {
    finite_.resize(n);
    float *finite = finite_.data();
    size_t m = 0;
    for (size_t i = 0; i < n; ++i)
      if (logits[i] > -inf)
        finite[m++] = logits[i];
    if (topK < m) {
      std::nth_element(finite, finite + (topK - 1), finite + m, std::greater<float>());
      kth = finite[topK - 1];
      size_t above = 0;
      for (size_t i = 0; i < n; ++i)
        above += logits[i] > kth;
      tiesLeft = topK - above;
    } else {
      topK = 0;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const float l = logits[i];
    bool keep = infinite ? l == inf : (l > -inf && l >= floor); // false for NaN
    if (keep && topK > 0)
      keep = l > kth || (l == kth && tiesLeft > 0 && tiesLeft-- > 0);
    if (keep)
      c.push_back({static_cast<int32_t>(i), infinite ? 0.0f : l, 0.0});
  }
  if (c.empty())
    return greedy();

  // 2. top-k: the k first in `before`'s order (a selection, then a sort of k).
  if (params_.topK > 0 && static_cast<size_t>(params_.topK) < c.size()) {
    const auto k = static_cast<ptrdiff_t>(params_.topK);
    std::nth_element(c.begin(), c.begin() + k - 1, c.end(), before);
    c.resize(static_cast<size_t>(k));
    std::sort(c.begin(), c.end(), before);
  }

  float maxLogit = -inf;
  for (const SampleCandidate &x : c)
    maxLogit = std::max(maxLogit, x.logit);

  // 3. and 4. Both keep a prefix of the candidates in `before`'s order, so
  // what survives them is the shorter prefix: top-p's normalizer is taken
  // over every candidate top-k left, then the tokens min-p removes are
  // dropped (they are past its prefix whatever top-p keeps).
  if (topP)
    for (SampleCandidate &x : c) {
      x.p = std::exp(x.logit - maxLogit); // unnormalized, at T = 1
      if (!early)
        z += x.p;
    }
  if (minP && !early) {
    const double threshold =
        static_cast<double>(maxLogit) + std::log(static_cast<double>(params_.minP));
    c.erase(std::remove_if(c.begin(), c.end(),
                           [&](const SampleCandidate &x) { return x.logit < threshold; }),
            c.end());
  }
  if (topP && c.size() > 1) {
    // The first index whose running mass reaches p * z, without sorting
    // everything: halve the range [lo, hi) that holds it with nth_element
    // (everything before lo comes first in `before`'s order, with mass
    // `massBefore`), then sort what is left and walk it. O(n) expected.
    const double target = static_cast<double>(params_.topP) * z;
    size_t lo = 0, hi = c.size();
    double massBefore = 0.0;
    while (hi - lo > 64) {
      const size_t mid = lo + (hi - lo) / 2;
      std::nth_element(c.begin() + lo, c.begin() + mid, c.begin() + hi, before);
      double m = 0.0;
      for (size_t i = lo; i < mid; ++i)
        m += c[i].p;
      if (massBefore + m >= target) {
        hi = mid;
      } else {
        massBefore += m;
        lo = mid;
      }
    }
    std::sort(c.begin() + lo, c.begin() + hi, before);
    size_t keep = hi;
    double cum = massBefore;
    for (size_t i = lo; i < hi; ++i) {
      cum += c[i].p;
      if (cum >= target) {
        keep = i + 1;
        break;
      }
    }
    c.resize(std::max<size_t>(keep, 1));
  }

  // 5. temperature, and the probabilities.
  const float invT = 1.0f / params_.temperature;
  double total = 0.0;
  for (SampleCandidate &x : c) {
    x.p = std::exp((x.logit - maxLogit) * invT);
    total += x.p;
  }
  for (SampleCandidate &x : c) {
    x.p /= total;
    if (infinite)
      x.logit = inf;
  }
}

std::vector<SampleCandidate> Sampler::candidates(const float *logits, size_t n) const {
  if (n == 0)
    return {};
  std::vector<SampleCandidate> c;
  filter(logits, n, c);
  std::sort(c.begin(), c.end(), before);
  return c;
}

int32_t Sampler::sample(const float *logits, size_t n) {
  if (n == 0)
    return -1;
  std::vector<SampleCandidate> &c = scratch_;
  filter(logits, n, c);
  int32_t id = c.front().id;
  if (c.size() > 1) {
    // A uniform double in [0, 1) from the engine's 53 high bits: the same
    // draw with every standard library (std::uniform_real_distribution's
    // algorithm is not specified).
    const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    double cum = 0.0;
    bool drawn = false;
    for (const SampleCandidate &x : c) {
      cum += x.p;
      if (u < cum) {
        id = x.id;
        drawn = true;
        break;
      }
    }
    // u past the sum's rounding: the last token that can be drawn.
    for (size_t i = c.size(); !drawn && i-- > 0;)
      if (c[i].p > 0.0) {
        id = c[i].id;
        drawn = true;
      }
  }
  accept(id);
  return id;
}

TokenChooser Sampler::chooser() {
  return [this](const std::vector<float> &logits) { return sample(logits); };
}

} // namespace ssm::rt
