// The search space of one kernel: its schedule fields with the values worth trying, and legal candidates only.
//
// Built from the field table of dialect/ScheduleSpace.h (the one the
// verifier reads) and the fields the op accepts. Each field becomes a
// dimension with an ordered list of values: every legal value for small
// ranges and booleans; for wide integer ranges the powers of two and their
// multiples by 3 up to the problem's extent (channels, columns, rows, the
// reduction length); fields that must be a multiple of vector_width are
// stepped in multiples of it. A candidate (Point) is rendered as the
// attribute text and kept only if MLIR parses it and the op verifies with it
// (SearchSpace::legal), so no illegal schedule is ever compiled.
#ifndef SSM_TUNER_SEARCHSPACE_H
#define SSM_TUNER_SEARCHSPACE_H

#include "dialect/ScheduleSpace.h"

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
  /// The space of `op`, a tunable op (tuner/KernelKey.h) in a kernel module.
  explicit SearchSpace(mlir::Operation *op);

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

private:
  mlir::Operation *op_;
  ScheduleFamily family_;
  std::vector<Dim> dims_;
};

} // namespace ssm::tune

#endif
