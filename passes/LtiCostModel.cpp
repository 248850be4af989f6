// The cost model of ssm-lti-to-conv: per-form time estimates from measured per-operation costs.
#include "passes/LtiCostModel.h"

#include <cmath>

namespace ssm {

namespace {

// Nanoseconds per operation on one AVX-512 core (16 lanes): twice the
// 2-thread times of `bench/lti_bench.py --threads 2 --rounds 3 --repeat 3`
// (H 256, batch 1, N 16, run under chrt on the development machine,
// 2026-12-01) divided by the operation counts below:
// * the fused scan: 1.39 ms (L 1024), 22.0 ms (L 16384), 86.4 ms (L 65536)
//   -> 0.64 to 0.66 per (channel, state, step);
// * ssm.lti_kernel (real A, N 16): the layer's fft form minus the conv alone,
//   4.5 ms (L 1024), 67 ms (L 16384), 258 ms (L 65536) -> 1.9 to 2.1 per term;
// * the direct sum: 2.04 ms (L 1024), 563 ms (L 16384), 8721 ms (L 65536)
//   -> 0.030 to 0.033 per multiply-add;
// * the FFT convolution (a complex transform of length n and one of n / 2):
//   1.75 ms (L 1024), 53.6 ms (L 16384), 263 ms (L 65536) -> 0.61, 0.85 and
//   0.92 per unit of n log2 n; a channel's transform above the L2 cache
//   (not measured here: 8 n bytes = 1 MB at L 65536 still fits) is assumed
//   1.4x slower, the ratio an earlier radix-2 build showed.
constexpr double kScanPerStateStep = 0.65;
constexpr double kAffinePerElement = 0.5; // not re-measured
constexpr double kKernelPerTerm = 2.0;
constexpr double kMacPerTerm = 0.032;
constexpr double kFftPerButterflyInCache = 0.9;
constexpr double kFftPerButterflyOutOfCache = 1.25;
constexpr double kL2Bytes = 2 << 20;

int64_t fftLength(int64_t length) {
  int64_t n = 2;
  while (n < 2 * length)
    n *= 2;
  return n;
}

} // namespace

double ltiFormCost(LtiForm form, const LtiShape &s, const TargetInfo &target) {
  const double scale = 16.0 / static_cast<double>(target.vectorWidth > 0 ? target.vectorWidth : 8);
  const double b = static_cast<double>(s.batch), l = static_cast<double>(s.length);
  // The conv forms see one channel per channel (readout) or per state.
  const double convChannels = static_cast<double>(s.channels) *
                              static_cast<double>(s.readout ? 1 : s.stateSize);
  const double kernel = static_cast<double>(s.channels) * static_cast<double>(s.stateSize) * l *
                        kKernelPerTerm;
  switch (form) {
  case LtiForm::Scan:
    return scale * b * static_cast<double>(s.channels) * static_cast<double>(s.stateSize) * l *
           (s.readout ? kScanPerStateStep : kAffinePerElement);
  case LtiForm::Direct:
    return scale * (kernel + b * convChannels * l * (l + 1) / 2 * kMacPerTerm);
  case LtiForm::Fft: {
    const double n = static_cast<double>(fftLength(s.length));
    const double perButterfly =
        8.0 * n > kL2Bytes ? kFftPerButterflyOutOfCache : kFftPerButterflyInCache;
    return scale * (kernel + b * convChannels * n * std::log2(n) * perButterfly);
  }
  }
  return 0;
}

LtiForm cheapestLtiForm(const LtiShape &shape, const TargetInfo &target) {
  LtiForm best = LtiForm::Scan;
  for (LtiForm f : {LtiForm::Direct, LtiForm::Fft})
    if (ltiFormCost(f, shape, target) < ltiFormCost(best, shape, target))
      best = f;
  return best;
}

const char *ltiFormName(LtiForm form) {
  switch (form) {
  case LtiForm::Direct: return "direct";
  case LtiForm::Fft: return "fft";
  case LtiForm::Scan: return "scan";
  }
  return "scan";
}

} // namespace ssm
