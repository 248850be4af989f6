// GPU schedules of the convolutions and elementwise ssm ops (causal_conv1d, lti_conv, lti_kernel, discretize).
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

void scheduleLtiKernelGpu(LtiKernelKernel &k, const CpuSchedule &s, const Target &) {
  gpuRoot({k.coef, k.K}, s.gpuThreads);
}

void scheduleDiscretizeGpu(DiscretizeKernel &k, const CpuSchedule &s, const Target &) {
  gpuRoot({k.abar, k.bbar}, s.gpuThreads);
}

} // namespace ssm::codegen
