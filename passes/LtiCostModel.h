// The cost model of ssm-lti-to-conv: time estimates of the scan, direct and FFT forms of an LTI layer.
#ifndef SSM_PASSES_LTICOSTMODEL_H
#define SSM_PASSES_LTICOSTMODEL_H

#include "passes/TargetInfo.h"

#include <cstdint>

namespace ssm {

/// The shape of a time-invariant layer: `batch` sequences of `length`
/// steps over `channels` channels, each a diagonal SSM with `stateSize`
/// real states; `readout` when the states are summed into one output per
/// channel (a selective scan, y = C h), false for a bare affine scan whose
/// output is every state (then each state is a channel of its own).
struct LtiShape {
  int64_t batch = 1, channels = 1, stateSize = 1, length = 1;
  bool readout = true;
};

enum class LtiForm { Direct, Fft, Scan };

/// Estimated time of each form in nanoseconds on one core of `target`:
///
/// * scan: the fused selective scan, c_scan per (batch, channel, state,
///   step); a bare affine scan c_affine per element;
/// * direct: ssm.lti_kernel (c_kernel per channel x state x step) plus
///   c_mac per multiply-add of the causal sum, batch x channels x
///   L (L + 1) / 2;
/// * fft: ssm.lti_kernel plus c_fft per unit of n log2 n (per (batch,
///   channel) a complex transform of length n = 2^ceil(log2 2L) and a real
///   inverse of half that length), with a higher c_fft once a channel's
///   transform (8 n bytes) leaves the L2 cache.
///
/// The constants were measured on the development machine (AVX-512, 16
/// f32 lanes; LtiCostModel.cpp lists the runs) and scale with 16 / vector
/// width on other CPUs. Cores do not enter: every form parallelises over channels.
double ltiFormCost(LtiForm form, const LtiShape &shape, const TargetInfo &target);

/// The form of least estimated time.
LtiForm cheapestLtiForm(const LtiShape &shape, const TargetInfo &target);

const char *ltiFormName(LtiForm form);

} // namespace ssm

#endif
