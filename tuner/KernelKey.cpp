// Kernels and their keys (see KernelKey.h).
#include "tuner/KernelKey.h"

#include "dialect/SsmDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mlir;

namespace ssm::tune {
namespace {

/// Ops whose value is known without inputs: copied into the kernel.
bool isConstantProducer(Operation *op) {
  llvm::StringRef n = op->getName().getStringRef();
  if (n == "arith.constant" || n == "tensor.empty")
    return true;
  if (n == "linalg.fill")
    return llvm::all_of(op->getOperands(), [](Value v) {
      Operation *d = v.getDefiningOp();
      return d && isConstantProducer(d);
    });
  return false;
}

void collectProducers(Value v, llvm::SetVector<Operation *> &producers) {
  Operation *d = v.getDefiningOp();
  if (!d || !isConstantProducer(d) || producers.contains(d))
    return;
  for (Value o : d->getOperands())
    collectProducers(o, producers);
  producers.insert(d);
}

std::string typeText(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto r = dyn_cast<RankedTensorType>(t)) {
    for (int64_t d : r.getShape())
      os << d << "x";
    os << r.getElementType();
  } else {
    os << t;
  }
  return s;
}

} // namespace

bool isTunable(Operation *op) {
  std::optional<ScheduleFamily> f = scheduleFamilyOf(op);
  if (!f || *f == ScheduleFamily::Stage)
    return false;
  if (!isa_and_nonnull<func::FuncOp>(op->getParentOp()))
    return false;
  auto isStatic = [](Type t) {
    auto r = dyn_cast<RankedTensorType>(t);
    return !r || r.hasStaticShape();
  };
  return llvm::all_of(op->getOperandTypes(), isStatic) &&
         llvm::all_of(op->getResultTypes(), isStatic);
}

namespace {
/// The values a kernel module takes as arguments, in order (the op's
/// operands less those computed from constants, which it copies in, each
/// once), and those constant producers.
llvm::SetVector<Value> kernelArguments(Operation *op, llvm::SetVector<Operation *> *producers) {
  llvm::SetVector<Value> args;
  for (Value v : op->getOperands()) {
    Operation *d = v.getDefiningOp();
    if (d && isConstantProducer(d)) {
      if (producers)
        collectProducers(v, *producers);
    } else {
      args.insert(v);
    }
  }
  return args;
}
} // namespace

OwningOpRef<ModuleOp> buildKernelModule(Operation *op) {
  MLIRContext *ctx = op->getContext();
  Location loc = UnknownLoc::get(ctx);
  llvm::SetVector<Operation *> producers;
  llvm::SetVector<Value> args = kernelArguments(op, &producers);
  OpBuilder b(ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  SmallVector<Type> argTypes;
  for (Value v : args)
    argTypes.push_back(v.getType());
  auto fn = b.create<func::FuncOp>(loc, "kernel",
                                   b.getFunctionType(argTypes, op->getResultTypes()));
  Block *entry = fn.addEntryBlock();
  IRMapping map;
  for (auto [v, a] : llvm::zip(args, entry->getArguments()))
    map.map(v, a);
  b.setInsertionPointToStart(entry);
  // Producers in their order in the block (they dominate op).
  SmallVector<Operation *> ordered(producers.begin(), producers.end());
  llvm::sort(ordered, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  for (Operation *p : ordered) {
    Operation *c = b.clone(*p, map);
    c->removeAttr(kScheduleAttrName);
    c->setLoc(loc);
  }
  Operation *c = b.clone(*op, map);
  c->removeAttr(kScheduleAttrName);
  c->setLoc(loc);
  b.create<func::ReturnOp>(loc, c->getResults());
  return module;
}

Operation *kernelOp(ModuleOp kernelModule) {
  Operation *found = nullptr;
  kernelModule.walk([&](Operation *op) {
    if (!found && isTunable(op))
      found = op;
  });
  return found;
}

namespace {
std::string keyOfModule(Operation *op, ModuleOp kernel, std::string *irOut) {
  std::string ir;
  llvm::raw_string_ostream os(ir);
  kernel->print(os, OpPrintingFlags().printGenericOpForm());
  os.flush();
  std::array<uint8_t, 32> h = llvm::SHA256::hash(llvm::arrayRefFromStringRef(ir));
  std::string key = op->getName().getStringRef().str() + ":" +
                    llvm::toHex(llvm::ArrayRef<uint8_t>(h.data(), 8), /*LowerCase=*/true);
  if (irOut)
    *irOut = std::move(ir);
  return key;
}
} // namespace

std::string kernelKeyOf(Operation *op) {
  OwningOpRef<ModuleOp> k = buildKernelModule(op);
  return keyOfModule(op, *k, nullptr);
}

std::vector<Kernel> collectKernels(ModuleOp module) {
  std::vector<Kernel> kernels;
  std::map<std::string, size_t> index;
  module.walk([&](Operation *op) {
    if (!isTunable(op))
      return;
    OwningOpRef<ModuleOp> k = buildKernelModule(op);
    std::string ir;
    std::string key = keyOfModule(op, *k, &ir);
    auto [it, added] = index.emplace(key, kernels.size());
    if (added) {
      Kernel kn;
      kn.key = key;
      kn.opName = op->getName().getStringRef().str();
      kn.family = *scheduleFamilyOf(op);
      kn.ir = std::move(ir);
      std::string s;
      llvm::raw_string_ostream os(s);
      llvm::interleaveComma(op->getOperandTypes(), os, [&](Type t) { os << typeText(t); });
      os << " -> ";
      llvm::interleaveComma(op->getResultTypes(), os, [&](Type t) { os << typeText(t); });
      kn.summary = os.str();
      for (Value v : kernelArguments(op, nullptr))
        kn.argumentIsFunctionArgument.push_back(isa<BlockArgument>(v));
      kernels.push_back(std::move(kn));
    }
    kernels[it->second].ops.push_back(op);
  });
  return kernels;
}

} // namespace ssm::tune
