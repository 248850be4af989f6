// Named pass pipelines: what ssm-compile runs before codegen, runnable and printable with ssm-opt.
#ifndef SSM_PASSES_PIPELINES_H
#define SSM_PASSES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace ssm {

struct CpuPipelineOptions : public mlir::PassPipelineOptions<CpuPipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("Halide target string (host, x86-64-linux-avx2, "
                                            "x86-64-linux-avx512_skylake, arm-64-linux, ...)"),
                             llvm::cl::init("host")};
  Option<int64_t> timeChunk{*this, "time-chunk",
                            llvm::cl::desc("time steps per kernel call of long selective scans"),
                            llvm::cl::init(512)};
  Option<bool> fuse{*this, "fuse", llvm::cl::desc("run ssm-fuse (inline single-use producers)"),
                    llvm::cl::init(true)};
};

/// `ssm-cpu-pipeline`: ssm-chunk-time, ssm-fuse, ssm-assign-schedules on
/// every function, in that order: every decision codegen follows for a CPU
/// target, in the IR. ssm-compile runs it (unless given --pass-pipeline).
void buildCpuPipeline(mlir::OpPassManager &pm, const CpuPipelineOptions &options);

struct GpuPipelineOptions : public mlir::PassPipelineOptions<GpuPipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("Halide GPU target string (host-opencl, "
                                            "host-cuda-cuda_capability_80, "
                                            "x86-64-linux-cuda-cuda_capability_80, ...)"),
                             llvm::cl::init("host-opencl")};
  Option<bool> fuse{*this, "fuse", llvm::cl::desc("run ssm-fuse (inline single-use producers)"),
                    llvm::cl::init(true)};
};

/// `ssm-gpu-pipeline`: ssm-fuse and ssm-assign-schedules (GPU fields) on
/// every function. No ssm-chunk-time: a GPU kernel walks the whole sequence
/// in one launch (its scratch is O(batch x channels x (N + L)) on the
/// device), so the host does not loop over time chunks.
void buildGpuPipeline(mlir::OpPassManager &pm, const GpuPipelineOptions &options);

/// Registers the named pipelines with MLIR's pass registry.
void registerPipelines();

} // namespace ssm

#endif
