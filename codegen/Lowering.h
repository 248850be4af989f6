// The translation state from MLIR values to Halide Funcs, and the table of per-op lowerings.
#ifndef SSM_CODEGEN_LOWERING_H
#define SSM_CODEGEN_LOWERING_H

#include "codegen/kernels/Kernel.h"
#include "codegen/schedules/Schedules.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <string>
#include <vector>

namespace ssm::codegen {

/// Everything one function's translation accumulates.
class LoweringState {
public:
  explicit LoweringState(Halide::Target target, bool manualSchedules = true)
      : target(std::move(target)), manualSchedules(manualSchedules) {}

  Halide::Target target;
  /// True: every op's schedule function applies its attribute; false: the
  /// Funcs stay unscheduled for Halide's autoscheduler.
  bool manualSchedules = true;
  llvm::DenseMap<mlir::Value, TensorFunc> values;
  /// The ImageParam of each function argument (codegen/Translate.cpp), for
  /// lowerings that address an input's memory directly (prefetches).
  llvm::DenseMap<mlir::Value, Halide::Internal::Parameter> argumentBuffers;
  /// Funcs created by generic (non-kernel) lowerings, with the op that
  /// defined each: the translator applies the op's #ssm.stage to them.
  std::vector<TensorFunc> genericStages;
  std::vector<mlir::Operation *> genericStageOps;
  /// The op being lowered (set by the translator around each lowering).
  mlir::Operation *currentOp = nullptr;
  /// Results of kernel builders: computed at root, scheduled by the kernel.
  std::vector<TensorFunc> kernelOutputs;
  /// The initial state of a time-chunked scan that has no h0 operand.
  std::optional<TensorFunc> carriedState;

  /// The TensorFunc of `v`; every operand was lowered before its users.
  const TensorFunc &get(mlir::Value v) const;
  bool has(mlir::Value v) const { return values.count(v); }
  void set(mlir::Value v, TensorFunc t) { values[v] = std::move(t); }

  /// A fresh Halide name built from `base` (letters, digits, underscores).
  std::string uniqueName(llvm::StringRef base);

  /// The CPU schedule of ssm op `op`: its #ssm.schedule's fields, the
  /// others at their defaults for this target.
  CpuSchedule scheduleOf(mlir::Operation *op) const;
  /// The #ssm.matmul of a matmul `op` computing (m x k) (k x n), fields left
  /// out at defaultMatmulSchedule's values.
  MatmulSchedule matmulScheduleOf(mlir::Operation *op, int64_t m, int64_t n, int64_t k,
                                  bool transposeB) const;
  /// The #ssm.stage of `op` (null: none) for a stage of `shape` (MLIR
  /// order); fields left out at their defaults (compute at root; parallel
  /// from 16K elements).
  StageSchedule stageScheduleOf(mlir::Operation *op, const std::vector<Halide::Expr> &shape) const;
  int vectorWidth() const;

  /// Records `t` as a generic stage of the op being lowered.
  void addGenericStage(const TensorFunc &t);

  /// Defines a new Func of `shape` (MLIR order) with `body(idx)`, idx in
  /// MLIR order, and records it as a generic stage.
  /// `inlined` stages (constants, zeros) are left for Halide to inline.
  TensorFunc define(llvm::StringRef name, const std::vector<Halide::Expr> &shape,
                    const std::function<Halide::Expr(const std::vector<Halide::Expr> &)> &body,
                    bool inlined = false);

private:
  unsigned counter = 0;
};

/// Reads element idx (MLIR order) of `t`.
Halide::Expr at(const TensorFunc &t, const std::vector<Halide::Expr> &idx);
/// Static extents of a ranked tensor type as Exprs.
std::vector<Halide::Expr> shapeExprs(mlir::Type type);
/// The Halide type of an MLIR element type (f32, i1, integers, index).
std::optional<Halide::Type> halideType(mlir::Type elementType);

/// Lowers one op: reads its operands from `state`, sets its results.
/// Failures are reported with op->emitError and return failure().
using LowerFn = std::function<mlir::LogicalResult(mlir::Operation *, LoweringState &)>;

/// The table of lowerings, keyed by op name ("ssm.selective_scan",
/// "linalg.generic", ...). Filled once by the register* functions below.
const llvm::StringMap<LowerFn> &loweringTable();

void registerArithMathLowerings(llvm::StringMap<LowerFn> &table);
void registerLinalgLowerings(llvm::StringMap<LowerFn> &table);
void registerMatmulLowerings(llvm::StringMap<LowerFn> &table); // after linalg: overrides

void registerTensorLowerings(llvm::StringMap<LowerFn> &table);
void registerSsmLowerings(llvm::StringMap<LowerFn> &table);

/// The scalar Halide expression of an arith/math op applied to `operands`
/// (shared by elementwise tensor ops and linalg bodies); an undefined Expr
/// when the op is not a supported scalar op. `target`: the module's target
/// (math.roundeven rounds ties to even on each, as the reference
/// interpreter's nearbyint: kernels/RoundEven.h; math.round ties away from
/// zero, MLIR's meaning and the reference's std::round).
Halide::Expr scalarExpr(mlir::Operation *op, const std::vector<Halide::Expr> &operands,
                        const Halide::Target &target);

} // namespace ssm::codegen

#endif
