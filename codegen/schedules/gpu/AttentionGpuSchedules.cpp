// GPU branches of ssm.attention and ssm.rope (codegen/schedules/gpu/GpuSchedules.h).
#include "codegen/schedules/gpu/GpuSchedules.h"

namespace ssm::codegen {

using namespace Halide;

void scheduleRopeGpu(RopeKernel &k, const CpuSchedule &s, const Target &) {
  // The angle table needs f64 (not every OpenCL device has it): it stays on
  // the host, (R/2) x L x batch values, and the rotation runs on the device.
  k.table.compute_root();
  gpuRoot(k.out, s.gpuThreads);
}

void scheduleAttentionGpu(AttentionKernel &k, const CpuSchedule &s, const Target &) {
  // One thread per (key, head, query) score and per (channel, head, query)
  // output; the score matrix is kept whole in device memory (the tiled,
  // shared-memory form is issue 38's).
  gpuRoot({k.kNew, k.vNew, k.score, k.rowMax, k.weight, k.rowSum, k.acc, k.out}, s.gpuThreads);
}

} // namespace ssm::codegen
