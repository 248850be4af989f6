// The schedule search space table (see ScheduleSpace.h).
#include "dialect/ScheduleSpace.h"

#include "dialect/ScheduleDefaults.h"
#include "dialect/SsmDialect.h"

#include "mlir/IR/Operation.h"

namespace ssm {
namespace {

const int64_t kVectorWidths[] = {1, 2, 4, 8, 16, 32};
const llvm::StringRef kMatmulAlgorithms[] = {"tiled", "dot"};
const llvm::StringRef kComputeLevels[] = {"root", "inline"};

ScheduleField intField(llvm::StringRef name, int64_t lo, int64_t hi, llvm::StringRef meaning,
                       bool multiple = false, llvm::StringRef only = "") {
  ScheduleField f{name, FieldKind::Int};
  f.lo = lo;
  f.hi = hi;
  f.multipleOfVectorWidth = multiple;
  f.onlyAlgorithm = only;
  f.meaning = meaning;
  return f;
}
ScheduleField gpuField(llvm::StringRef name, int64_t lo, int64_t hi, llvm::StringRef meaning) {
  ScheduleField f = intField(name, lo, hi, meaning);
  f.gpuOnly = true;
  return f;
}
ScheduleField vectorWidth() {
  ScheduleField f{"vector_width", FieldKind::Int};
  f.lo = 1;
  f.hi = 32;
  f.values = kVectorWidths;
  f.meaning = "f32 lanes of the innermost vectorised loop";
  return f;
}
ScheduleField boolField(llvm::StringRef name, llvm::StringRef meaning, llvm::StringRef only = "") {
  ScheduleField f{name, FieldKind::Bool};
  f.lo = 0;
  f.hi = 1;
  f.onlyAlgorithm = only;
  f.meaning = meaning;
  return f;
}
ScheduleField enumField(llvm::StringRef name, llvm::ArrayRef<llvm::StringRef> values,
                        llvm::StringRef meaning) {
  ScheduleField f{name, FieldKind::Enum};
  f.lo = 0;
  f.hi = static_cast<int64_t>(values.size()) - 1;
  f.enumValues = values;
  f.meaning = meaning;
  return f;
}

} // namespace

llvm::StringRef scheduleFamilyMnemonic(ScheduleFamily family) {
  switch (family) {
  case ScheduleFamily::Ssm:
    return "schedule";
  case ScheduleFamily::Matmul:
    return "matmul";
  case ScheduleFamily::Stage:
    return "stage";
  }
  return "";
}

llvm::ArrayRef<ScheduleField> scheduleFields(ScheduleFamily family) {
  static const ScheduleField ssmFields[] = {
      vectorWidth(),
      intField("channel_tile", 1, 65536, "channels (or heads x head dim) per parallel task",
               /*multiple=*/true),
      boolField("parallel", "run the tiles on the thread pool"),
      boolField("unroll_state", "unroll the state dim N (keeps the state in registers)"),
      intField("chunk", 0, 1024,
               "tokens per chunk of the chunked form of a scan (0: token by token)"),
      gpuField("gpu_threads", 1, 1024, "GPU targets: threads per block along the channels"),
  };
  static const ScheduleField matmulFields[] = {
      enumField("algorithm", kMatmulAlgorithms,
                "tiled outer products, or dot products along K (linalg.matmul_transpose_b only)"),
      vectorWidth(),
      intField("tile_rows", 1, 16, "rows of the register tile"),
      [] {
        ScheduleField f = intField("tile_cols", 1, 4096,
                                   "columns of the register tile (tiled: a multiple of "
                                   "vector_width; dot: weight rows, 1 .. 64)",
                                   /*multiple=*/true);
        f.dotHi = 64;
        return f;
      }(),
      intField("tile_k", 0, 65536,
               "the K block (0 or 1: not blocked); tiled: reduction steps per unrolled block; "
               "dot: K elements per cache block, a multiple of vector_width"),
      intField("row_tiles", 1, 1024, "row tiles per parallel task"),
      intField("col_tiles", 1, 4096, "column tiles per parallel task", false, "dot"),
      boolField("pack_b", "k-major copy of B", "tiled"),
      boolField("parallel", "use the thread pool"),
      gpuField("gpu_tile", 1, 32, "GPU targets: output tile side of a block"),
  };
  static const ScheduleField stageFields[] = {
      enumField("compute", kComputeLevels, "own loop nest (root) or fused into its consumer"),
      vectorWidth(),
      boolField("parallel", "split the outer dim into parallel tasks"),
      intField("task_elements", 1, int64_t(1) << 30, "least elements of one parallel task"),
      gpuField("gpu_threads", 1, 1024, "GPU targets: threads per block over the elements"),
  };
  switch (family) {
  case ScheduleFamily::Ssm:
    return ssmFields;
  case ScheduleFamily::Matmul:
    return matmulFields;
  case ScheduleFamily::Stage:
    return stageFields;
  }
  return {};
}

const ScheduleField *findScheduleField(ScheduleFamily family, llvm::StringRef name) {
  for (const ScheduleField &f : scheduleFields(family))
    if (f.name == name)
      return &f;
  return nullptr;
}

bool isLegalValue(const ScheduleField &field, int64_t value, bool dot) {
  if (!field.values.empty())
    return llvm::is_contained(field.values, value);
  return value >= field.lo && value <= (dot && field.dotHi ? field.dotHi : field.hi);
}

std::optional<ScheduleFamily> scheduleFamilyOf(mlir::Operation *op) {
  llvm::StringRef name = op->getName().getStringRef();
  if (name.starts_with("ssm."))
    return ScheduleFamily::Ssm;
  if (isScheduledMatmul(name))
    return ScheduleFamily::Matmul;
  if (takesStageSchedule(op))
    return ScheduleFamily::Stage;
  return std::nullopt;
}

} // namespace ssm
