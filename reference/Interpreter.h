// The reference interpreter: runs a func.func of ssm and upstream ops on host arrays.
//
// It defines the semantics every compiled path is checked against, so it is
// written for clarity: plain loops, f64 values throughout (f32 and integer
// tensors alike are held as double), one routine per op.
#ifndef SSM_REFERENCE_INTERPRETER_H
#define SSM_REFERENCE_INTERPRETER_H

#include "reference/Array.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace mlir {
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace ssm::ref {

/// Runs `func` on `args` (one per function argument, shapes matching the
/// argument types) and returns its results in order.
///
/// Supported: func (return, call), arith, math, tensor (empty, extract,
/// insert, expand/collapse_shape, concat, extract/insert_slice, cast, splat,
/// from_elements), every linalg structured op (named ops and linalg.generic,
/// including linalg.index), scf.for/yield, and every ssm op.
///
/// Errors (an llvm::StringError): an argument count or shape mismatch, an
/// unsupported op or dynamic shape, naming the op and its source location.
llvm::Expected<std::vector<Array>> runFunction(mlir::func::FuncOp func,
                                               const std::vector<Array> &args);

} // namespace ssm::ref

#endif
