// Splitting a function at its func.call ops into kernel calls (Segments.h).
#include "codegen/Segments.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace ssm::codegen {
namespace {

/// Ops cheaper to repeat in each segment than to pass as a buffer:
/// constants, tensor.empty, and linalg.fill of those.
bool isRematerializable(Operation *op) {
  if (!op)
    return false;
  if (op->getNumOperands() == 0 && op->getNumRegions() == 0)
    return op->hasTrait<OpTrait::ConstantLike>() || isa<tensor::EmptyOp>(op);
  if (!isa<linalg::FillOp>(op))
    return false;
  return llvm::all_of(op->getOperands(),
                      [](Value v) { return isRematerializable(v.getDefiningOp()); });
}

/// Clones `op` and the rematerialisable ops it reads (first) at `b`.
void cloneWithOperands(Operation *op, OpBuilder &b, IRMapping &map) {
  if (map.contains(op->getResult(0)))
    return;
  for (Value v : op->getOperands())
    cloneWithOperands(v.getDefiningOp(), b, map);
  b.clone(*op, map);
}

/// The values of the entry block that `op` (or an op nested in it) reads.
void collectEntryUses(Operation *op, Block &entry, llvm::SetVector<Value> &uses) {
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (v.getParentBlock() == &entry)
        uses.insert(v);
  });
}

} // namespace

bool hasCalls(func::FuncOp func) {
  return !func.isExternal() && !func.getBody().front().getOps<func::CallOp>().empty();
}

FailureOr<SegmentPlan> planSegments(func::FuncOp func, ModuleOp module) {
  Block &entry = func.getBody().front();
  SegmentPlan plan;
  llvm::DenseMap<Value, int> ids;
  for (BlockArgument a : entry.getArguments())
    ids[a] = plan.numValues++;

  // Items in order: a run of non-call ops, or one call.
  struct Item {
    std::vector<Operation *> ops;
    func::CallOp call;
  };
  std::vector<Item> items;
  for (Operation &op : entry.without_terminator()) {
    if (auto call = dyn_cast<func::CallOp>(op)) {
      items.push_back({{}, call});
      continue;
    }
    if (items.empty() || items.back().call)
      items.push_back({});
    items.back().ops.push_back(&op);
  }
  llvm::DenseMap<Operation *, size_t> itemOf;
  for (size_t i = 0; i < items.size(); ++i) {
    for (Operation *op : items[i].ops)
      itemOf[op] = i;
    if (items[i].call)
      itemOf[items[i].call] = i;
  }
  auto ret = cast<func::ReturnOp>(entry.getTerminator());

  auto tensorOrError = [&](Value v, Operation *where) -> LogicalResult {
    if (isa<RankedTensorType>(v.getType()))
      return success();
    return where->emitError() << "a value of type " << v.getType()
                              << " crosses a kernel boundary; only tensors can be passed "
                                 "between the kernels of a function with calls";
  };

  SymbolTable symbols(module);
  int segCount = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    Item &item = items[i];
    if (item.call) {
      auto callee = symbols.lookup<func::FuncOp>(item.call.getCallee());
      if (!callee || callee.isExternal())
        return item.call.emitError() << "calls @" << item.call.getCallee()
                                     << ", which has no body to compile";
      if (hasCalls(callee))
        return item.call.emitError() << "calls @" << item.call.getCallee()
                                     << ", which itself holds calls; compiled engines support "
                                        "one level of calls";
      SegmentStep step;
      step.callee = callee.getSymName().str();
      for (Value v : item.call.getOperands()) {
        auto it = ids.find(v);
        if (it == ids.end())
          return item.call.emitError() << "operand #" << step.inputs.size()
                                       << " is not a tensor computed by a kernel";
        step.inputs.push_back(it->second);
      }
      for (Value r : item.call.getResults()) {
        if (failed(tensorOrError(r, item.call)))
          return failure();
        ids[r] = plan.numValues;
        step.outputs.push_back(plan.numValues++);
      }
      plan.steps.push_back(std::move(step));
      continue;
    }

    // A run of ops: its inputs are the entry-block values it reads that are
    // defined outside it (rematerialisable ones are cloned instead); its
    // outputs are the values it defines that something outside reads.
    llvm::SetVector<Value> uses;
    for (Operation *op : item.ops)
      collectEntryUses(op, entry, uses);
    std::vector<Value> inputs;
    std::vector<Operation *> cloned;
    for (Value v : uses) {
      Operation *def = v.getDefiningOp();
      if (def && itemOf.count(def) && itemOf[def] == i)
        continue;
      if (isRematerializable(def)) {
        cloned.push_back(def);
        continue;
      }
      if (failed(tensorOrError(v, item.ops.front())))
        return failure();
      if (!ids.count(v))
        return item.ops.front()->emitError("reads a value no earlier kernel computes");
      inputs.push_back(v);
    }
    std::vector<Value> outputs;
    for (Operation *op : item.ops)
      for (Value r : op->getResults()) {
        bool needed = false;
        for (OpOperand &use : r.getUses()) {
          Operation *user = use.getOwner();
          while (user->getBlock() != &entry)
            user = user->getParentOp();
          if (user == ret.getOperation() || isa<func::CallOp>(user) ||
              (itemOf.lookup(user) != i && !isRematerializable(op)))
            needed = true;
        }
        if (!needed)
          continue;
        if (failed(tensorOrError(r, op)))
          return failure();
        outputs.push_back(r);
      }
    if (outputs.empty())
      continue; // nothing it computes is used

    SmallVector<Type> inTypes, outTypes;
    for (Value v : inputs)
      inTypes.push_back(v.getType());
    for (Value v : outputs)
      outTypes.push_back(v.getType());
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    std::string name = (func.getSymName() + "__seg" + std::to_string(segCount++)).str();
    while (symbols.lookup(name))
      name += "_";
    auto seg = b.create<func::FuncOp>(func.getLoc(), name, b.getFunctionType(inTypes, outTypes));
    seg.setPrivate();
    symbols.insert(seg);
    Block *body = seg.addEntryBlock();
    IRMapping map;
    for (size_t k = 0; k < inputs.size(); ++k)
      map.map(inputs[k], body->getArgument(k));
    OpBuilder ib = OpBuilder::atBlockEnd(body);
    for (Operation *op : cloned)
      cloneWithOperands(op, ib, map);
    for (Operation *op : item.ops)
      ib.clone(*op, map);
    SmallVector<Value> rets;
    for (Value v : outputs)
      rets.push_back(map.lookup(v));
    ib.create<func::ReturnOp>(func.getLoc(), rets);

    SegmentStep step;
    step.callee = name;
    for (Value v : inputs)
      step.inputs.push_back(ids[v]);
    for (Value v : outputs) {
      ids[v] = plan.numValues;
      step.outputs.push_back(plan.numValues++);
    }
    plan.steps.push_back(std::move(step));
  }

  for (Value v : ret.getOperands()) {
    auto it = ids.find(v);
    if (it == ids.end())
      return ret.emitError("returns a value no kernel computes (a constant?); compute it in a "
                           "linalg op");
    plan.results.push_back(it->second);
  }
  return plan;
}

} // namespace ssm::codegen
