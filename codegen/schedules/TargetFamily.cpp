// Target families of the schedule functions: x86, Arm, GPU.
#include "codegen/kernels/Kernel.h"

#include <string>

namespace ssm::codegen {

TargetFamily targetFamily(const Halide::Target &t) {
  if (t.has_gpu_feature())
    return TargetFamily::Gpu;
  if (t.arch == Halide::Target::X86)
    return TargetFamily::X86;
  return TargetFamily::Arm;
}

void requireCpuSchedule(const Halide::Target &t, const char *op) {
  if (targetFamily(t) == TargetFamily::Gpu)
    throw Halide::CompileError(std::string(op) + " has no GPU schedule for target " +
                               t.to_string() +
                               " (GPU schedules are not implemented yet; compile for a CPU target)");
}

} // namespace ssm::codegen
