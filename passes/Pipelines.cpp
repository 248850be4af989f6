// Named pass pipelines (PassPipelineRegistration): ssm-cpu-pipeline, ssm-gpu-pipeline.
#include "passes/Pipelines.h"

#include "passes/Passes.h"

#include "mlir/Pass/PassRegistry.h"

namespace ssm {

void buildCpuPipeline(mlir::OpPassManager &pm, const CpuPipelineOptions &options) {
  SsmChunkTimeOptions chunk;
  chunk.chunk = options.timeChunk;
  pm.addNestedPass<mlir::func::FuncOp>(createSsmChunkTime(chunk));
  if (options.fuse)
    pm.addNestedPass<mlir::func::FuncOp>(createSsmFuse());
  SsmAssignSchedulesOptions assign;
  assign.target = options.target;
  pm.addNestedPass<mlir::func::FuncOp>(createSsmAssignSchedules(assign));
}

void buildGpuPipeline(mlir::OpPassManager &pm, const GpuPipelineOptions &options) {
  if (options.fuse)
    pm.addNestedPass<mlir::func::FuncOp>(createSsmFuse());
  SsmAssignSchedulesOptions assign;
  assign.target = options.target;
  pm.addNestedPass<mlir::func::FuncOp>(createSsmAssignSchedules(assign));
}

void registerPipelines() {
  mlir::PassPipelineRegistration<CpuPipelineOptions>(
      "ssm-cpu-pipeline",
      "The decisions ssm-compile makes for a CPU target, as IR: time chunking (ssm-chunk-time), "
      "fusion groups (ssm-fuse) and a schedule on every op (ssm-assign-schedules)",
      buildCpuPipeline);
  mlir::PassPipelineRegistration<GpuPipelineOptions>(
      "ssm-gpu-pipeline",
      "The decisions ssm-compile makes for a GPU target (cuda, opencl), as IR: fusion groups "
      "(ssm-fuse) and a GPU schedule on every op (ssm-assign-schedules)",
      buildGpuPipeline);
}

} // namespace ssm
