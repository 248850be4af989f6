// The cost model of ssm-lti-to-conv: per-form time estimates from measured per-operation costs.
#include "passes/LtiCostModel.h"

#include <cmath>

namespace ssm {

namespace {

// Nanoseconds per operation on one AVX-512 core (16 lanes), measured with
// bench/lti_bench.py on the development machine; see LtiCostModel.h.
// H 256, 2 threads: the fused scan 2.4 ms (L 1024) and 99.5 ms (L 16384) at
// N 16; ssm.lti_kernel (real A, N 16) 23.6 ms at L 1024, 924 ms at L 16384
// (its f64 phase per term dominates); the direct sum 12.3 ms (L 1024),
// 212 ms (L 4096); the FFT convolution 185 ms (L 16384) and about 1170 ms
// (L 65536), the machine otherwise idle.
constexpr double kScanPerStateStep = 1.3;
constexpr double kAffinePerElement = 0.5;
constexpr double kKernelPerTerm = 20.0;
constexpr double kMacPerTerm = 0.19;
constexpr double kFftPerButterflyInCache = 2.9;
constexpr double kFftPerButterflyOutOfCache = 4.1;
constexpr double kL2Bytes = 1 << 20;

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
