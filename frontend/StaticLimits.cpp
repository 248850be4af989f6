// Static limits of user IR: tensor element counts and static slice bounds.
#include "frontend/StaticLimits.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace ssm {

std::optional<int64_t> checkedNumel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    if (s < 0 || __builtin_mul_overflow(n, s, &n))
      return std::nullopt;
  return n;
}

static std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::string checkTensorSize(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t)
    return "";
  std::vector<int64_t> shape;
  for (int64_t d : t.getShape()) {
    if (ShapedType::isDynamic(d))
      return ""; // dynamic: sized at run time, where the tools check again
    shape.push_back(d);
  }
  std::optional<int64_t> n = checkedNumel(shape);
  if (!n)
    return typeString(t) + " has more elements than int64 can count; the most a tensor may "
                           "have is 2147483647 (2^31 - 1)";
  if (*n > kMaxTensorElements)
    return llvm::formatv("{0} has {1} elements; the most a tensor may have is 2147483647 "
                         "(2^31 - 1)",
                         typeString(t), *n)
        .str();
  return "";
}

/// Checks one slice against the shape of the tensor it reads or writes.
static std::string checkWindow(ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                               ArrayRef<int64_t> strides, RankedTensorType big,
                               llvm::StringRef bigName) {
  if (offsets.size() != sizes.size() || sizes.size() != strides.size() ||
      int64_t(sizes.size()) != big.getRank())
    return ""; // the upstream verifier reports rank mismatches
  for (int64_t d = 0; d < big.getRank(); ++d) {
    int64_t off = offsets[d], size = sizes[d], stride = strides[d], dim = big.getDimSize(d);
    if (ShapedType::isDynamic(off) || ShapedType::isDynamic(size) ||
        ShapedType::isDynamic(stride) || ShapedType::isDynamic(dim))
      continue;
    if (off < 0)
      return llvm::formatv("offset {0} of dim {1} is negative", off, d).str();
    if (size < 0)
      return llvm::formatv("size {0} of dim {1} is negative", size, d).str();
    if (stride < 1)
      return llvm::formatv("stride {0} of dim {1} is not positive (only strides >= 1 are "
                           "supported)",
                           stride, d)
          .str();
    int64_t last = 0;
    bool overflow = size > 0 && (__builtin_mul_overflow(size - 1, stride, &last) ||
                                 __builtin_add_overflow(last, off, &last));
    bool outside = size == 0 ? off > dim : overflow || last >= dim;
    if (outside)
      return llvm::formatv("the slice of dim {0} (offset {1}, size {2}, stride {3}) reaches "
                           "index {4}, outside the {5} of size {6}",
                           d, off, size, stride,
                           overflow ? std::string("beyond 2^63") : std::to_string(size ? last : off),
                           bigName, dim)
          .str();
  }
  return "";
}

std::string checkSliceBounds(Operation *op) {
  if (auto s = dyn_cast<tensor::ExtractSliceOp>(op))
    return checkWindow(s.getStaticOffsets(), s.getStaticSizes(), s.getStaticStrides(),
                       s.getSourceType(), "source");
  if (auto s = dyn_cast<tensor::InsertSliceOp>(op))
    return checkWindow(s.getStaticOffsets(), s.getStaticSizes(), s.getStaticStrides(),
                       s.getDestType(), "destination");
  return "";
}

LogicalResult checkStaticLimits(Operation *root) {
  LogicalResult result = success();
  root->walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (std::string why = checkTensorSize(t); !why.empty()) {
        op->emitError() << why;
        result = failure();
        return WalkResult::interrupt();
      }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (std::string why = checkTensorSize(arg.getType()); !why.empty()) {
            op->emitError() << why;
            result = failure();
            return WalkResult::interrupt();
          }
    if (std::string why = checkSliceBounds(op); !why.empty()) {
      op->emitError() << why;
      result = failure();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result;
}

} // namespace ssm
