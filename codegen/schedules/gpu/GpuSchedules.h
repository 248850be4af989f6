// GPU schedules (cuda, opencl targets): the GPU branch of every op's schedule function.
//
// Each CPU schedule function (codegen/schedules/<Op>Schedule.cpp) sends a
// GPU target here first. The schedules apply the same algorithms (the
// kernel builders' Funcs) with one GPU thread per independent lane: for the
// scans one thread per (batch, channel[, head, state row]) that walks time
// serially (the RDom loops run inside the thread), as mamba_ssm's
// selective-scan kernel does; for elementwise and generic stages one thread
// per element (a reduction runs inside its thread); for matmuls one thread
// per output element of a gpu_tile x gpu_tile block, its reduction in a
// private accumulator. Every stage a kernel defines is computed at root on
// the device, so Halide's runtime moves only the pipeline's inputs and
// outputs between host and device. The fields read: #ssm.schedule
// gpu_threads, #ssm.stage gpu_threads (and compute), #ssm.matmul gpu_tile
// (dialect/SsmAttrs.td); the CPU fields are ignored on a GPU target.
//
// Not done yet (see docs/gpu.md): the state in registers rather than in the
// kernel's scratch buffer, shared-memory staging of the matmul operands,
// SSD chunks as shared-memory matrix products, and fusing elementwise
// groups into the matmuls (ssm-fuse's inlined producers are fused already).
#ifndef SSM_CODEGEN_SCHEDULES_GPU_GPUSCHEDULES_H
#define SSM_CODEGEN_SCHEDULES_GPU_GPUSCHEDULES_H

#include "codegen/kernels/LtiConvFftKernel.h"
#include "codegen/kernels/Wkv7Kernel.h"
#include "codegen/schedules/Schedules.h"

#include <vector>

namespace ssm::codegen {

/// Computes `f` at root on the GPU: in each of its definitions (pure and
/// updates) the pure vars that the definition keeps at their own position
/// are fused into one loop and split into blocks of `threads` threads
/// (GuardWithIf tails); its RVars run serially inside each thread. A
/// definition without such a var runs as one GPU thread. An undefined `f`
/// is skipped.
void gpuRoot(Halide::Func f, int threads);
/// gpuRoot on each of `fs`.
void gpuRoot(const std::vector<Halide::Func> &fs, int threads);

void scheduleAffineScanGpu(AffineScanKernel &k, const CpuSchedule &s, const Halide::Target &t);
void scheduleCausalConv1dGpu(CausalConv1dKernel &k, const CpuSchedule &s,
                             const Halide::Target &t);
void scheduleDiscretizeGpu(DiscretizeKernel &k, const CpuSchedule &s, const Halide::Target &t);
void scheduleLtiConvGpu(LtiConvKernel &k, const CpuSchedule &s, const Halide::Target &t);
void scheduleLtiConvFftGpu(LtiConvFftKernel &k, const CpuSchedule &s, const Halide::Target &t);
void scheduleLtiKernelGpu(LtiKernelKernel &k, const CpuSchedule &s, const Halide::Target &t);
void scheduleSelectiveScanGpu(SelectiveScanKernel &k, const CpuSchedule &s,
                              const Halide::Target &t);
void scheduleSelectiveUpdateGpu(SelectiveUpdateKernel &k, const CpuSchedule &s,
                                const Halide::Target &t);
void scheduleSsdScanGpu(SsdScanKernel &k, const CpuSchedule &s, const Halide::Target &t);
void scheduleWkv4Gpu(Wkv4Kernel &k, const CpuSchedule &s, const Halide::Target &t);
void scheduleWkv7Gpu(Wkv7Kernel &k, const CpuSchedule &s, const Halide::Target &t);
void scheduleGatedDeltaRuleGpu(GatedDeltaRuleKernel &k, const CpuSchedule &s,
                               const Halide::Target &t);
void scheduleRopeGpu(RopeKernel &k, const CpuSchedule &s, const Halide::Target &t);
void scheduleAttentionGpu(AttentionKernel &k, const CpuSchedule &s, const Halide::Target &t);

void scheduleMatmulGpu(MatmulStages &mm, const MatmulSchedule &s, const Halide::Target &t);
void scheduleDotGpu(DotStages &d, const MatmulSchedule &s, const Halide::Target &t);

/// An elementwise, generic or tensor stage: inlined, or gpuRoot with
/// s.gpuThreads threads (fewer when the stage is smaller).
void scheduleStageGpu(Halide::Func f, const std::vector<Halide::Expr> &shape,
                      const StageSchedule &s, const Halide::Target &t);

} // namespace ssm::codegen

#endif
