// Segmented functions: a function that calls other functions runs as a
// sequence of kernel calls instead of one Halide pipeline.
//
// Model graphs call one private function per layer (ssm-import emits
// `func.call @block_sequence` once per block). Compiling the whole graph as a
// single pipeline makes Halide's compile time grow with the square of the
// number of stages (a 12-block RWKV-5 graph took over 15 minutes); compiling
// each callee once and calling it per layer takes as long as one block.
#ifndef SSM_CODEGEN_SEGMENTS_H
#define SSM_CODEGEN_SEGMENTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace ssm::codegen {

/// One kernel call of a segmented function. Values are numbered: the
/// function's arguments 0..n-1, then each step's results in order.
struct SegmentStep {
  std::string callee;       // a private func.func of the module (a callee or an outlined segment)
  std::vector<int> inputs;  // value ids, one per callee argument
  std::vector<int> outputs; // value ids, one per callee result
};

struct SegmentPlan {
  std::vector<SegmentStep> steps;
  std::vector<int> results; // value id of each function result
  int numValues = 0;
};

/// True when `func`'s body holds a func.call.
bool hasCalls(mlir::func::FuncOp func);

/// Splits `func` into steps: each func.call is a step calling its callee,
/// and each maximal run of other ops between calls is outlined into a new
/// private function `<func>__seg<k>` inserted into `module` (the caller
/// compiles on a copy of the user's module). Constants and tensor.empty ops
/// are cloned into every segment that uses them; every other value that
/// crosses a segment boundary becomes a buffer passed between kernel calls.
/// `func` itself is left unchanged.
///
/// Errors (emitted on the op): a call of an external or unknown function,
/// a callee that itself holds calls, a value of a non-tensor type crossing
/// a boundary.
mlir::FailureOr<SegmentPlan> planSegments(mlir::func::FuncOp func, mlir::ModuleOp module);

} // namespace ssm::codegen

#endif
