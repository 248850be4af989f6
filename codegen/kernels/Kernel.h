// Shared vocabulary of the Halide kernel builders: tensors as Funcs, CPU schedules.
//
// A kernel builder turns one ssm op into Halide Funcs. It receives each
// operand as a TensorFunc and returns its results as TensorFuncs; it schedules
// the Funcs it creates, and may set vectorize/parallel on the results it
// returns. The translator (codegen/Translate.cpp) computes every returned
// result at root, so a builder must not call compute_at on them.
#ifndef SSM_CODEGEN_KERNELS_KERNEL_H
#define SSM_CODEGEN_KERNELS_KERNEL_H

#include "Halide.h"

#include <optional>
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

/// The CPU coordinates of `#ssm.schedule` (dialect/SsmAttrs.td documents
/// each field's legal range). Builders read only the fields that apply.
struct CpuSchedule {
  int vectorWidth = 8;  // lanes of f32 vectors: 4 (NEON, SSE), 8 (AVX2), 16 (AVX-512)
  int channelTile = 64; // channels (or heads x head_dim) per parallel task
  int timeChunk = 512;  // time steps per kernel call; the runtime loops over chunks
  bool parallel = true; // parallelise over batch x channel tiles
  bool unrollState = true; // unroll the state dim N (keeps the state in registers)
};

} // namespace ssm::codegen

#endif
