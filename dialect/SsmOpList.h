// The list of ssm ops (from ODS) and the dispatch every layer uses over it.
//
// A layer that must handle each ssm op (the reference interpreter, the
// codegen lowerings, ssm-tune's space listing) goes through visitSsmOp or
// forEachSsmOpType with one overload per op. The list is GET_OP_LIST of
// SsmOps.td, so an op added there and not handled by a layer's overload set
// is a compile error whose instantiation names the op class
// ("requireHandler<ssm::Wkv7Op, ...>"): see docs/adding-an-op.md.
#ifndef SSM_DIALECT_SSMOPLIST_H
#define SSM_DIALECT_SSMOPLIST_H

#include "dialect/SsmOps.h"

#include <type_traits>

namespace ssm {

/// A list of op classes.
template <typename... Ops>
struct OpTypeList {};

/// Every op of the ssm dialect (GET_OP_LIST: sorted by class name).
using SsmOpList = OpTypeList<
#define GET_OP_LIST
#include "dialect/SsmOps.cpp.inc"
    >;

namespace detail {

/// Compiles only when `Handler` can be called with `Op` (and `Args`). The
/// error names the op: "requireHandler<ssm::XOp, ...>".
template <typename Op, typename Handler, typename... Args>
constexpr bool requireHandler() {
  static_assert(std::is_invocable_v<Handler, Op, Args...>,
                "an ssm op has no handler in this layer: the op is the first template "
                "argument of this requireHandler (see docs/adding-an-op.md)");
  return true;
}

template <typename R, typename Handler, typename Otherwise>
R visitEach(mlir::Operation *, Handler &, Otherwise &otherwise, OpTypeList<>) {
  return otherwise();
}

template <typename R, typename Handler, typename Otherwise, typename Op, typename... Rest>
R visitEach(mlir::Operation *op, Handler &handler, Otherwise &otherwise,
            OpTypeList<Op, Rest...>) {
  static_assert(requireHandler<Op, Handler &>());
  if (auto concrete = llvm::dyn_cast<Op>(op))
    return handler(concrete);
  return visitEach<R>(op, handler, otherwise, OpTypeList<Rest...>{});
}

template <typename Fn, typename... Ops>
void forEach(Fn &fn, OpTypeList<Ops...>) {
  (fn(static_cast<Ops *>(nullptr)), ...);
}

} // namespace detail

/// Calls `handler(concreteOp)` when `op` is an ssm op and returns its
/// result; `otherwise()` for any other op. `handler` (an overload set, e.g.
/// llvm::makeVisitor of lambdas) must accept every op of SsmOpList.
template <typename Handler, typename Otherwise>
std::invoke_result_t<Otherwise &> visitSsmOp(mlir::Operation *op, Handler &&handler,
                                             Otherwise &&otherwise) {
  using R = std::invoke_result_t<Otherwise &>;
  return detail::visitEach<R>(op, handler, otherwise, SsmOpList{});
}

/// Calls `fn(static_cast<Op *>(nullptr))` for each op class of SsmOpList,
/// in order: `using Op = std::remove_pointer_t<decltype(tag)>`. It checks
/// nothing itself: a caller that must handle every op asserts it per op
/// (detail::requireHandler, as codegen/lowerings/Ssm.cpp does).
template <typename Fn>
void forEachSsmOpType(Fn &&fn) {
  detail::forEach(fn, SsmOpList{});
}

/// The ScheduledOpInterface facts of ssm op `opName` ("ssm.wkv7"), without
/// an MLIRContext; false when no ssm op has that name.
struct SsmOpScheduling {
  llvm::ArrayRef<llvm::StringRef> fields;
  bool gpu = false;
};
inline bool lookupSsmOpScheduling(llvm::StringRef opName, SsmOpScheduling &out) {
  bool found = false;
  forEachSsmOpType([&](auto *tag) {
    using Op = std::remove_pointer_t<decltype(tag)>;
    if (!found && Op::getOperationName() == opName) {
      out = {Op::getScheduleFields(), Op::hasGpuSchedule()};
      found = true;
    }
  });
  return found;
}

} // namespace ssm

#endif
