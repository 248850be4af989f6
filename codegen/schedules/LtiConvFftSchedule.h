// CPU schedule of ssm.lti_conv with algorithm = fft (codegen/kernels/LtiConvFftKernel.h).
#ifndef SSM_CODEGEN_SCHEDULES_LTICONVFFTSCHEDULE_H
#define SSM_CODEGEN_SCHEDULES_LTICONVFFTSCHEDULE_H

#include "codegen/kernels/LtiConvFftKernel.h"

namespace ssm::codegen {

/// One task per (b, h) (parallel when `s.parallel`): every other FFT step
/// (the rest inlined into the next), the product and the inverse steps are
/// computed inside it, so a channel's
/// transforms (8 n bytes per step) stay in that core's cache hierarchy;
/// each step vectorised by `s.vectorWidth` along its butterfly index (along
/// jhigh for the first steps, whose jlow extent is below the vector width);
/// the half-length spectrum of the real inverse is computed with the
/// product inlined; the twiddle tables are computed once per call at root.
void scheduleLtiConvFft(LtiConvFftKernel &k, const CpuSchedule &s, const Halide::Target &t);

} // namespace ssm::codegen

#endif
