// Shared vocabulary of the Halide kernel builders and schedules: tensors as Funcs, CPU schedules.
//
// Algorithm and schedule apart, as Halide's apps write them. A kernel
// builder (codegen/kernels/<Op>Kernel.cpp) turns one ssm op into Halide
// Funcs: it receives each operand as a TensorFunc and returns an <Op>Kernel
// struct holding its results (KernelResult) and every stage a schedule may
// touch, with no scheduling call at all. The op's schedule function
// (codegen/schedules/<Op>Schedule.cpp) applies the op's #ssm.schedule for
// the target it is given, one branch per target family. With
// `ssm-compile --autoschedule` no schedule function runs and Halide's
// autoscheduler schedules the whole pipeline instead. The translator
// (codegen/Translate.cpp) computes every returned result at root, so a
// schedule must not call compute_at on them.
#ifndef SSM_CODEGEN_KERNELS_KERNEL_H
#define SSM_CODEGEN_KERNELS_KERNEL_H

#include "Halide.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ssm::codegen {

/// A tensor value inside a Halide pipeline. `func` is indexed innermost
/// first: for an MLIR tensor of shape (s_0, ..., s_{r-1}) (row-major, the last
/// dim contiguous), the element [i_0, ..., i_{r-1}] is func(i_{r-1}, ..., i_0),
/// Halide's convention that dim 0 is the contiguous one. `shape` holds the
/// extents in MLIR order; an extent may be symbolic (the time extent of a
/// kernel that the runtime calls once per time chunk).
struct TensorFunc {
  Halide::Func func;
  std::vector<Halide::Expr> shape;

  int rank() const { return static_cast<int>(shape.size()); }
  /// The extent of MLIR dim `i` (negative counts from the end).
  Halide::Expr dim(int i) const { return shape[i < 0 ? shape.size() + i : i]; }
};

/// `e` as a constant integer after simplification (an extent known at
/// compile time), or nullopt when it is undefined or symbolic.
inline std::optional<int64_t> constInt(const Halide::Expr &e) {
  if (!e.defined())
    return std::nullopt;
  Halide::Expr s = Halide::Internal::simplify(Halide::cast<int>(e));
  if (const int64_t *p = Halide::Internal::as_const_int(s))
    return *p;
  return std::nullopt;
}

/// Throws Halide::CompileError "<op>: <name> must have rank R, got rank r"
/// when operand `x` has another rank, or "<op>: <name> has no Func".
inline void checkOperandRank(const char *op, const TensorFunc &x, const char *name, int rank) {
  if (x.rank() != rank)
    throw Halide::CompileError(std::string(op) + ": " + name + " must have rank " +
                               std::to_string(rank) + ", got rank " + std::to_string(x.rank()));
  if (!x.func.defined())
    throw Halide::CompileError(std::string(op) + ": " + name + " has no Func");
}

/// The CPU coordinates of `#ssm.schedule` (dialect/SsmAttrs.td documents
/// each field's legal range), with the fields left out set to their
/// defaults for the target. Schedules read only the fields that apply.
struct CpuSchedule {
  int vectorWidth = 8;  // lanes of f32 vectors: 4 (NEON, SSE), 8 (AVX2), 16 (AVX-512)
  int channelTile = 64; // channels (or heads x head_dim) per parallel task
  bool parallel = true; // parallelise over batch x channel tiles
  bool unrollState = true; // unroll the state dim N (keeps the state in registers)
  int chunk = -1;           // tokens per chunk of a chunked scan; 0 token by token, -1 the op's default
  int gpuThreads = 128;     // GPU targets only: threads per block (schedules/gpu/)
};

/// The families of targets that have schedule functions of their own.
enum class TargetFamily { X86, Arm, Gpu };

/// The family of `t`: GPU when it has a CUDA, OpenCL, Metal or Vulkan
/// feature, else by its architecture (x86, or Arm; other CPUs take the Arm
/// branch, whose schedules assume 32 vector registers).
TargetFamily targetFamily(const Halide::Target &t);

/// Throws Halide::CompileError naming `op` when `t` is a GPU target: a GPU
/// target never gets a CPU schedule silently (the schedule functions send
/// GPU targets to their GPU branch, codegen/schedules/gpu/, before this).
void requireCpuSchedule(const Halide::Target &t, const char *op);

} // namespace ssm::codegen

#endif
