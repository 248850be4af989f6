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
  // One thread per score, tile partial and output element; the query, key
  // and value tiles are read in place (inlined); every stage in device
  // memory (the shared-memory form of the tiles is issue 38's).
  gpuRoot({k.kNew, k.vNew, k.s, k.mt, k.pt, k.part, k.m, k.fac, k.comb, k.out}, s.gpuThreads);
}

} // namespace ssm::codegen
