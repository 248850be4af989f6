// Static limits of user IR: tensor sizes the tools can hold, slices within their tensors.
#ifndef SSM_FRONTEND_STATICLIMITS_H
#define SSM_FRONTEND_STATICLIMITS_H

#include "mlir/Support/LogicalResult.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class Operation;
class Type;
} // namespace mlir

namespace ssm {

/// The most elements one tensor may have: 2^31 - 1. Halide buffers index
/// each dimension with int32, the reference interpreter holds every element
/// as an f64 (this limit is 16 GiB there), and MLIR's own folders multiply
/// shapes in int64 without overflow checks.
constexpr int64_t kMaxTensorElements = (int64_t(1) << 31) - 1;

/// Element count of `shape` without overflow: nothing when a dim is negative
/// (dynamic) or the product exceeds int64.
std::optional<int64_t> checkedNumel(const std::vector<int64_t> &shape);

/// "" when `type` (any type; only ranked tensors are checked) has a static
/// shape of at most kMaxTensorElements elements, else why not, e.g.
/// "tensor<4294967296x4294967296xf32> has 18446744073709551616 elements ...".
std::string checkTensorSize(mlir::Type type);

/// "" when a static tensor.extract_slice / tensor.insert_slice stays inside
/// its source (destination): for each dim d, offset >= 0, size >= 0,
/// stride >= 1 and offset + (size - 1) * stride < dim(d), computed without
/// overflow. Other ops, and dynamic offsets/sizes/strides, give "".
std::string checkSliceBounds(mlir::Operation *op);

/// Walks `root`: the size of every result and block-argument type
/// (checkTensorSize) and the bounds of every static slice
/// (checkSliceBounds). Emits an error at the first offending op and fails.
/// MLIR 19's verifiers accept all of these; the tools run this after
/// parsing.
mlir::LogicalResult checkStaticLimits(mlir::Operation *root);

} // namespace ssm

#endif
