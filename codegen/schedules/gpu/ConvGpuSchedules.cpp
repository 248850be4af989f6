// GPU schedules of the convolutions and elementwise ssm ops (causal_conv1d, lti_conv direct and fft, lti_kernel, discretize).
//
// One thread per output element (the taps or modes run inside the thread),
// blocks of gpu_threads elements.
#include "codegen/schedules/gpu/GpuSchedules.h"

namespace ssm::codegen {

using namespace Halide;

void scheduleCausalConv1dGpu(CausalConv1dKernel &k, const CpuSchedule &s, const Target &) {
  gpuRoot({k.out, k.finalStates}, s.gpuThreads);
}

void scheduleLtiConvGpu(LtiConvKernel &k, const CpuSchedule &s, const Target &) {
  gpuRoot({k.upad, k.acc, k.y}, s.gpuThreads);
}

void scheduleLtiConvFftGpu(LtiConvFftKernel &k, const CpuSchedule &s, const Target &) {
  // One launch per butterfly step (a thread per butterfly pair), the
  // twiddle tables, the spectral product, the half-length spectrum the
  // inverse transforms (LtiConvFftKernel.h) and the output.
  std::vector<Func> all = k.forward.stages;
  all.insert(all.end(), k.forward.twiddles.begin(), k.forward.twiddles.end());
  all.push_back(k.prod);
  all.push_back(k.halfSpectrum);
  all.insert(all.end(), k.inverse.stages.begin(), k.inverse.stages.end());
  all.insert(all.end(), k.inverse.twiddles.begin(), k.inverse.twiddles.end());
  all.push_back(k.y);
  gpuRoot(all, s.gpuThreads);
}

void scheduleLtiKernelGpu(LtiKernelKernel &k, const CpuSchedule &s, const Target &) {
  gpuRoot({k.coef, k.K}, s.gpuThreads);
}

void scheduleDiscretizeGpu(DiscretizeKernel &k, const CpuSchedule &s, const Target &) {
  gpuRoot({k.abar, k.bbar}, s.gpuThreads);
}

} // namespace ssm::codegen
