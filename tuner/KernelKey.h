// Kernels of a graph for tuning: each scheduled op in isolation, keyed by what decides its best schedule.
//
// A kernel is one op that takes a #ssm.schedule (ssm ops) or #ssm.matmul
// (linalg matmuls), cut out of its function into a module of its own:
//
//   func.func @kernel(<the op's operands>) -> (<the op's results>)
//
// with the constant producers of its operands (arith.constant, tensor.empty
// and linalg.fill of those: a matmul's zero accumulator) copied in, and no
// schedule. Its key is the op name and a hash of that module's generic text,
// which holds the op's attributes and every operand and result shape and
// dtype: two ops with equal keys get equal code from any one schedule, so the
// 24 identical layers of a model are tuned once. #ssm.stage ops (elementwise,
// reductions) are not tuned: they keep the heuristic's schedules.
#ifndef SSM_TUNER_KERNELKEY_H
#define SSM_TUNER_KERNELKEY_H

#include "dialect/ScheduleSpace.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace ssm::tune {

struct Kernel {
  std::string key;    // "<op name>:<16 hex digits>"
  std::string opName; // e.g. "ssm.selective_scan"
  ScheduleFamily family;
  std::string ir;      // the kernel module, generic form, no schedule
  std::string summary; // operand and result types, e.g. "512x768xf32, 3072x768xf32 -> 512x3072xf32"
  std::vector<mlir::Operation *> ops; // its occurrences in the graph, in order
  /// Per argument of the kernel module: true when (at its first occurrence)
  /// it is an argument of the enclosing function (a weight, a state, the
  /// layer's input), false when another op computes it (an activation, in
  /// the caches when the kernel runs inside the model).
  std::vector<bool> argumentIsFunctionArgument;
};

/// True for the ops ssm-tune tunes: ssm ops and linalg matmuls at the top
/// level of a function body, with static shapes.
bool isTunable(mlir::Operation *op);

/// The kernel module of `op` (a tunable op), in `op`'s context.
mlir::OwningOpRef<mlir::ModuleOp> buildKernelModule(mlir::Operation *op);

/// The key of `op` (isTunable), as collectKernels computes it.
std::string kernelKeyOf(mlir::Operation *op);

/// The tunable ops of every function of `module`, grouped by key, in the
/// order of their first occurrence.
std::vector<Kernel> collectKernels(mlir::ModuleOp module);

/// The op a kernel module (buildKernelModule) was built around.
mlir::Operation *kernelOp(mlir::ModuleOp kernelModule);

} // namespace ssm::tune

#endif
