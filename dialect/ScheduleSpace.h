// The schedule search space: every field of every schedule attribute family with its legal values.
//
// One table, read by the attribute verifiers (dialect/SsmDialect.cpp), by
// the tuner (tuner/SearchSpace.cpp) and printed by `ssm-tune --print-space`;
// the field tables in the descriptions of dialect/SsmAttrs.td (the generated
// dialect docs) state the same ranges for readers, and test/lit/Tools/
// ssm-tune-space.mlir checks the two agree. Which fields a given op accepts
// is scheduleFieldsOf (ssm ops) or the family's table (matmuls, stages).
#ifndef SSM_DIALECT_SCHEDULESPACE_H
#define SSM_DIALECT_SCHEDULESPACE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mlir {
class Operation;
}

namespace ssm {

/// The attribute family of a schedule: #ssm.schedule (ssm ops), #ssm.matmul
/// (linalg matmuls), #ssm.stage (every other lowered op).
enum class ScheduleFamily { Ssm, Matmul, Stage };

/// "schedule", "matmul" or "stage": the attribute's mnemonic.
llvm::StringRef scheduleFamilyMnemonic(ScheduleFamily family);

enum class FieldKind { Int, Bool, Enum };

/// One field of a schedule attribute and its legal values.
struct ScheduleField {
  llvm::StringRef name;
  FieldKind kind;
  /// Int: the inclusive legal range.
  int64_t lo = 0, hi = 0;
  /// Int: when not empty, the only legal values (vector_width).
  llvm::ArrayRef<int64_t> values;
  /// Int: must be 1 or a multiple of the attribute's vector_width (with
  /// #ssm.matmul's algorithm = tiled only).
  bool multipleOfVectorWidth = false;
  /// #ssm.matmul Int: the upper bound with algorithm = dot, when it differs.
  int64_t dotHi = 0;
  /// Enum: the legal spellings, in the enum's order.
  llvm::ArrayRef<llvm::StringRef> enumValues;
  /// #ssm.matmul: read by one algorithm only ("tiled" or "dot"; an error
  /// with the other); empty: by both.
  llvm::StringRef onlyAlgorithm;
  /// Read by GPU targets only (cuda, opencl: codegen/schedules/gpu/); a CPU
  /// target ignores it, so the tuner (which measures CPU schedules) does
  /// not search it.
  bool gpuOnly = false;
  /// One line for users (ssm-tune --print-space).
  llvm::StringRef meaning;
};

/// The fields of `family`, in the attribute's parameter order.
llvm::ArrayRef<ScheduleField> scheduleFields(ScheduleFamily family);
/// The field `name` of `family`; null when it has none of that name.
const ScheduleField *findScheduleField(ScheduleFamily family, llvm::StringRef name);

/// True when integer `value` is legal for `field` on its own (the range or
/// value list, `dot`: with #ssm.matmul's algorithm = dot; not the
/// vector-width multiple, which needs the attribute).
bool isLegalValue(const ScheduleField &field, int64_t value, bool dot = false);

/// The family of the schedule `op` takes, or none for an op that takes no
/// schedule (constants, tensor.empty, func ops, ops without a tensor result).
std::optional<ScheduleFamily> scheduleFamilyOf(mlir::Operation *op);

} // namespace ssm

#endif
