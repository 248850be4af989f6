// Sampling (runtime/Sampling.h): penalties, top-k, top-p, min-p, temperature and the draw, in llama.cpp's order.
#include "runtime/Sampling.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
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
bool before(const SampleCandidate &a, const SampleCandidate &b) {
  return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
}

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

std::vector<SampleCandidate> Sampler::filter(const float *logits, size_t n) const {
  std::vector<float> penalized;
  if (!penaltiesNeutral(params_)) {
    penalized.assign(logits, logits + n);
    applyPenalties(penalized.data(), n);
    logits = penalized.data();
  }
  auto greedy = [&]() -> std::vector<SampleCandidate> {
    const int32_t id = argmaxToken(logits, n);
    return {{id, logits[id], 1.0}};
  };
  if (params_.temperature == 0.0f)
    return greedy();

  // Candidates: the drawable tokens. When some logits are +inf, those alone
  // (as equals: their "logit" 0 below); NaN and -inf never.
  constexpr float inf = std::numeric_limits<float>::infinity();
  std::vector<SampleCandidate> c;
  const bool infinite = std::any_of(logits, logits + n, [](float l) { return l == inf; });
  c.reserve(infinite ? 16 : n);
  for (size_t i = 0; i < n; ++i) {
    const float l = logits[i];
    if (infinite ? l == inf : (!std::isnan(l) && l != -inf))
      c.push_back({static_cast<int32_t>(i), infinite ? 0.0f : l, 0.0});
  }
  if (c.empty())
    return greedy();

  // 2. top-k.
  bool sorted = false;
  if (params_.topK > 0 && static_cast<size_t>(params_.topK) < c.size()) {
    std::partial_sort(c.begin(), c.begin() + params_.topK, c.end(), before);
    c.resize(static_cast<size_t>(params_.topK));
    sorted = true;
  }

  float maxLogit = -inf;
  for (const SampleCandidate &x : c)
    maxLogit = std::max(maxLogit, x.logit);

  // 3. and 4. Both keep a prefix of the candidates largest first, so what
  // survives them is the shorter prefix: top-p's normalizer is taken over
  // every candidate top-k left, then the tokens min-p removes are dropped
  // before the sort (they are past its prefix whatever top-p keeps).
  const bool topP = params_.topP < 1.0f, minP = params_.minP > 0.0f;
  double z = 0.0;
  if (topP)
    for (const SampleCandidate &x : c)
      z += std::exp(static_cast<double>(x.logit) - maxLogit);
  if (minP) {
    const double threshold = static_cast<double>(maxLogit) + std::log(static_cast<double>(params_.minP));
    c.erase(std::remove_if(c.begin(), c.end(),
                           [&](const SampleCandidate &x) { return x.logit < threshold; }),
            c.end());
  }
  if (topP) {
    // Sorted a block at a time: a peaked distribution reaches p in a few tokens.
    double cum = 0.0;
    size_t done = 0, block = 64, keep = c.size();
    while (done < c.size() && keep == c.size()) {
      const size_t upto = std::min(c.size(), done + block);
      if (!sorted)
        std::partial_sort(c.begin() + done, c.begin() + upto, c.end(), before);
      for (size_t i = done; i < upto; ++i) {
        cum += std::exp(static_cast<double>(c[i].logit) - maxLogit) / z;
        if (cum >= params_.topP) {
          keep = i + 1;
          break;
        }
      }
      done = upto;
      block *= 4;
    }
    c.resize(std::max<size_t>(keep, 1));
  }

  // 5. temperature, and the probabilities.
  const double t = params_.temperature;
  double total = 0.0;
  for (SampleCandidate &x : c) {
    x.p = std::exp((static_cast<double>(x.logit) - maxLogit) / t);
    total += x.p;
  }
  for (SampleCandidate &x : c) {
    x.p /= total;
    if (infinite)
      x.logit = inf;
  }
  return c;
}

std::vector<SampleCandidate> Sampler::candidates(const float *logits, size_t n) const {
  if (n == 0)
    return {};
  std::vector<SampleCandidate> c = filter(logits, n);
  std::sort(c.begin(), c.end(), before);
  return c;
}

int32_t Sampler::sample(const float *logits, size_t n) {
  if (n == 0)
    return -1;
  std::vector<SampleCandidate> c = filter(logits, n);
  int32_t id = c.front().id;
  if (c.size() > 1) {
    // A uniform double in [0, 1) from the engine's 53 high bits: the same
    // draw with every standard library (std::uniform_real_distribution's
    // algorithm is not specified).
    const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    double cum = 0.0;
    id = c.back().id;
    for (const SampleCandidate &x : c) {
      cum += x.p;
      if (u < cum) {
        id = x.id;
        break;
      }
    }
  }
  accept(id);
  return id;
}

TokenChooser Sampler::chooser() {
  return [this](const std::vector<float> &logits) { return sample(logits); };
}

} // namespace ssm::rt
