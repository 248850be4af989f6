// The search space of one kernel: its schedule fields with the values worth trying, and legal candidates only.
//
// Built from the field table of dialect/ScheduleSpace.h (the one the
// verifier reads) and the fields the op accepts. Each field becomes a
// dimension with an ordered list of values: every legal value for small
// ranges and booleans; for wide integer ranges the powers of two and their
// multiples by 3 up to the problem's extent (channels, columns, rows, the
// reduction length); fields that must be a multiple of vector_width are
// stepped in multiples of it; GPU-only fields (gpu_threads, gpu_tile) are
// left out, since candidates are measured on a CPU target. A candidate (Point) is rendered as the
// attribute text and kept only if MLIR parses it and the op verifies with it
// (SearchSpace::legal), so no illegal schedule is ever compiled.
//
// Legal is not always worth compiling: a matmul register tile is unrolled
// into one accumulator vector per (row, column vector), so an 11 x 256 tile
// (176 AVX-512 vectors) spills everything and takes Halide and LLVM minutes
// to compile. The search skips points whose accumulators exceed the
// target's vector register file (SearchSpace::accumulatorVectors,
// SearchSpace::vectorRegisters); the heuristic's tiles are well inside it.
#ifndef SSM_TUNER_SEARCHSPACE_H
#define SSM_TUNER_SEARCHSPACE_H

#include "dialect/ScheduleSpace.h"
#include "passes/TargetInfo.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Operation.h"

#include <optional>
#include <string>
#include <vector>

namespace ssm::tune {

struct Dim {
  const ScheduleField *field;
  /// Int: values (or multipliers of vector_width when
  /// field->multipleOfVectorWidth); Bool: 0, 1; Enum: indices.
  std::vector<int64_t> values;
};

/// One candidate: an index into each dimension's values.
using Point = std::vector<size_t>;

class SearchSpace {
public:
  /// The space of `op`, a tunable op (tuner/KernelKey.h) in a kernel module,
  /// for `target` (its native vector width and register count bound the
  /// register tiles; none: no bound). Fields named gpu_* are dimensions
  /// only for a GPU target.
  explicit SearchSpace(mlir::Operation *op, std::optional<TargetInfo> target = std::nullopt);

  const std::vector<Dim> &dims() const { return dims_; }
  ScheduleFamily family() const { return family_; }
  /// The attribute text of `p` (fields `p` does not use left out, e.g. the
  /// fields of the other #ssm.matmul algorithm).
  std::string render(const Point &p) const;
  /// The point of schedule `attr` (a #ssm.schedule/#ssm.matmul), adding its
  /// values to the dimensions where they are missing; nullopt when a field
  /// cannot be expressed (a multiple-of-vector-width field set to 1).
  std::optional<Point> pointOf(mlir::Attribute attr);
  /// The attribute of `text` when it parses and `op` verifies with it.
  mlir::Attribute legal(const std::string &text) const;
  /// The number of points (a product of the dimension sizes, saturating).
  double size() const;
  /// The vector registers the register tile of `p` keeps its accumulators
  /// in (#ssm.matmul: tiled, tile_rows x (tile_cols / vector_width) vectors;
  /// dot, tile_rows x tile_cols partial-sum vectors; each vector of
  /// vector_width lanes taking vector_width / native lanes registers); 0 for
  /// other families.
  int64_t accumulatorVectors(const Point &p) const;
  /// The target's vector registers (16: AVX2, SSE; 32: AVX-512, NEON); 0
  /// when the space has no target.
  int64_t vectorRegisters() const { return registers_; }
  /// False when `p`'s accumulators exceed the register file: legal, but
  /// never worth a compile (the search skips it).
  bool fitsRegisters(const Point &p) const {
    return !registers_ || accumulatorVectors(p) <= registers_;
  }

private:
  mlir::Operation *op_;
  ScheduleFamily family_;
  std::vector<Dim> dims_;
  int64_t nativeLanes_ = 0, registers_ = 0;
};

} // namespace ssm::tune

#endif
