// GPU schedules of the scans (selective_scan, selective_update, affine_scan, ssd_scan, wkv4, wkv7, gated_delta_rule).
//
// One thread per independent lane, walking time serially: the scan's
// update runs its RDom (state index, token) inside the thread, and blocks
// of gpu_threads lanes cover the channels (heads x rows) and the batch.
#include "codegen/schedules/gpu/GpuSchedules.h"

namespace ssm::codegen {

using namespace Halide;

void scheduleSelectiveScanGpu(SelectiveScanKernel &k, const CpuSchedule &s, const Target &) {
  // Per (token, channel) values once, the state scratch (channel, slot,
  // batch) with one thread per (channel, batch) walking (token, n), then
  // the gated readout and the final state. A, constant B and C stay
  // inlined (index swaps of the inputs).
  gpuRoot({k.dt, k.pre, k.state, k.y, k.hLast}, s.gpuThreads);
}

void scheduleSelectiveUpdateGpu(SelectiveUpdateKernel &k, const CpuSchedule &s, const Target &) {
  gpuRoot({k.pre, k.state, k.newState, k.acc, k.y}, s.gpuThreads);
}

void scheduleAffineScanGpu(AffineScanKernel &k, const CpuSchedule &s, const Target &) {
  gpuRoot({k.h, k.hLast}, s.gpuThreads);
}

void scheduleSsdScanGpu(SsdScanKernel &k, const CpuSchedule &s, const Target &) {
  // Every stage of the chunked form (decays, chunk states, the carry over
  // chunks, the intra-chunk products) as a device stage of its own.
  gpuRoot({k.ac, k.cum, k.wB, k.wC, k.dC, k.xcS, k.bd, k.accS, k.st, k.fin, k.gm, k.gg, k.ggAcc,
           k.bt, k.diag, k.cumT, k.gk, k.cd, k.xcY, k.accY, k.yc, k.y},
          s.gpuThreads);
}

void scheduleWkv4Gpu(Wkv4Kernel &k, const CpuSchedule &s, const Target &) {
  gpuRoot({k.state, k.wkv, k.aa, k.bb, k.pp}, s.gpuThreads);
}

void scheduleWkv7Gpu(Wkv7Kernel &k, const CpuSchedule &s, const Target &) {
  // Chunked: one thread per element of each chunk-local stage (all chunks
  // at once), the pass one thread per (value row, head, stream).
  if (k.chunk == 0)
    gpuRoot({k.decay, k.sa0, k.scan, k.y, k.finalState}, s.gpuThreads);
  else
    gpuRoot({k.gcum, k.aC, k.bC, k.kC, k.rC, k.vC, k.bRows, k.kRows, k.ew, k.decRows,
             k.gramAB, k.gramAK, k.gramRB, k.gramRK, k.aab, k.tinv, k.rhsU, k.xu, k.at, k.xw,
             k.oloc, k.coef, k.kt, k.glast, k.pass.states, k.y, k.finalState},
            s.gpuThreads);
}

void scheduleGatedDeltaRuleGpu(GatedDeltaRuleKernel &k, const CpuSchedule &s, const Target &) {
  // Token by token: one thread per (value column, value head, stream)
  // walks (token, key row). Chunked: one thread per element of each
  // chunk-local stage (all chunks at once), its reduction inside; the pass
  // one thread per (value column, value head, stream) walking the chunks.
  if (k.chunk == 0)
    gpuRoot({k.decay, k.kv0, k.scan, k.out, k.finalState}, s.gpuThreads);
  else
    gpuRoot({k.gcum, k.kC, k.qC, k.kRows, k.gRows, k.gramKK, k.gramQK, k.ratioC, k.akk, k.pqk,
             k.eg, k.egl, k.tinv, k.rhsU, k.rhsW, k.xu, k.xw, k.glast, k.kt, k.qg, k.oloc, k.coefQ,
             k.coef, k.pass.states, k.out, k.finalState},
            s.gpuThreads);
}

} // namespace ssm::codegen
