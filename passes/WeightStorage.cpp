// Weight storage: retyping weight arguments and placing ssm.dequantize (see WeightStorage.h).
#include "passes/WeightStorage.h"
#include "passes/ModuleText.h"

#include "dialect/SsmOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mlir;

namespace ssm {

const char *weightStorageName(WeightStorage s) {
  switch (s) {
  case WeightStorage::F32: return "f32";
  case WeightStorage::F16: return "f16";
  case WeightStorage::BF16: return "bf16";
  case WeightStorage::Q8: return "q8";
  case WeightStorage::Q8B16: return "q8b16";
  case WeightStorage::Q8Min: return "q8min";
  }
  return "f32";
}

namespace {

Type storageElementType(MLIRContext *ctx, WeightStorage s) {
  switch (s) {
  case WeightStorage::F16: return Float16Type::get(ctx);
  case WeightStorage::BF16: return BFloat16Type::get(ctx);
  case WeightStorage::Q8:
  case WeightStorage::Q8B16:
  case WeightStorage::Q8Min: return IntegerType::get(ctx, 8);
  case WeightStorage::F32: break;
  }
  return Float32Type::get(ctx);
}

int64_t blockSize(WeightStorage s) {
  return s == WeightStorage::Q8B16 ? kQ8B16BlockSize : kQ8BlockSize;
}

RankedTensorType scaleType(RankedTensorType weight, WeightStorage s) {
  SmallVector<int64_t> shape(weight.getShape().begin(), weight.getShape().end());
  shape.back() = (shape.back() + blockSize(s) - 1) / blockSize(s);
  MLIRContext *ctx = weight.getContext();
  return RankedTensorType::get(shape, s == WeightStorage::Q8 ? Type(Float16Type::get(ctx))
                                                             : Type(Float32Type::get(ctx)));
}

} // namespace

LogicalResult applyWeightStorage(ModuleOp module,
                                 llvm::function_ref<WeightStorage(llvm::StringRef)> storageOf) {
  MLIRContext *ctx = module.getContext();
  SymbolTable symbols(module);
  std::vector<func::FuncOp> funcs;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal())
      funcs.push_back(f);

  // 1. The storage of every argument: public functions from their
  // ssm.param, private ones from what all their calls pass.
  std::map<Operation *, std::vector<WeightStorage>> storage;
  for (func::FuncOp f : funcs) {
    std::vector<WeightStorage> &s = storage[f];
    s.assign(f.getNumArguments(), WeightStorage::F32);
    if (f.isPrivate())
      continue;
    for (unsigned i = 0; i < f.getNumArguments(); ++i)
      if (auto p = f.getArgAttrOfType<StringAttr>(i, "ssm.param"))
        if (isa<RankedTensorType>(f.getArgument(i).getType()))
          s[i] = storageOf(p.getValue());
  }
  auto operandStorage = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || !arg.getOwner()->isEntryBlock())
      return WeightStorage::F32;
    auto owner = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (!owner || !storage.count(owner))
      return WeightStorage::F32;
    return storage[owner][arg.getArgNumber()];
  };
  for (size_t round = 0; round <= funcs.size(); ++round) {
    bool changed = false;
    for (func::FuncOp callee : funcs) {
      if (!callee.isPrivate())
        continue;
      std::optional<SymbolTable::UseRange> uses = symbols.getSymbolUses(callee, module);
      if (!uses)
        continue;
      std::vector<std::optional<WeightStorage>> common(callee.getNumArguments());
      std::vector<bool> mixed(callee.getNumArguments(), false);
      bool any = false, other = false;
      for (const SymbolTable::SymbolUse &u : *uses) {
        auto call = dyn_cast<func::CallOp>(u.getUser());
        if (!call) { // taken by other means: its signature stays
          other = true;
          break;
        }
        any = true;
        for (unsigned i = 0; i < call.getNumOperands() && i < common.size(); ++i) {
          WeightStorage s = operandStorage(call.getOperand(i));
          if (common[i] && *common[i] != s)
            mixed[i] = true;
          common[i] = s;
        }
      }
      if (!any || other)
        continue;
      for (unsigned i = 0; i < common.size(); ++i) {
        WeightStorage s = mixed[i] || !common[i] ? WeightStorage::F32 : *common[i];
        if (storage[callee][i] != s) {
          storage[callee][i] = s;
          changed = true;
        }
      }
    }
    if (!changed)
      break;
  }

  // 2. Retype the arguments (a Q8 weight gets its scale argument right
  // after it, a Q8Min one its scale and then its min) and read each through
  // ssm.dequantize before each user, except calls whose callee takes the
  // narrow form.
  llvm::DenseMap<Value, Value> scaleOf, minOf; // narrow Q8 argument -> its scale / min argument
  for (func::FuncOp f : funcs) {
    std::vector<WeightStorage> &s = storage[f];
    Block &entry = f.getBody().front();
    std::vector<BlockArgument> raw(entry.getArguments().begin(), entry.getArguments().end());
    std::vector<Type> f32Types(s.size());
    for (int i = static_cast<int>(s.size()) - 1; i >= 0; --i) {
      if (s[i] == WeightStorage::F32)
        continue;
      auto type = cast<RankedTensorType>(raw[i].getType());
      f32Types[i] = type;
      if (isBlockScaled(s[i])) {
        if (type.getRank() == 0)
          return f.emitError() << "weight storage: argument " << i
                               << " is a scalar, which cannot be stored as q8 blocks";
        SmallVector<NamedAttribute> attrs;
        if (auto p = f.getArgAttrOfType<StringAttr>(i, "ssm.param"))
          attrs.push_back(NamedAttribute(StringAttr::get(ctx, "ssm.param"),
                                         StringAttr::get(ctx, q8ScaleName(p.getValue()))));
        f.insertArgument(i + 1, scaleType(type, s[i]), DictionaryAttr::get(ctx, attrs),
                         raw[i].getLoc());
        scaleOf[raw[i]] = entry.getArgument(i + 1);
        if (s[i] == WeightStorage::Q8Min) {
          SmallVector<NamedAttribute> minAttrs;
          if (auto p = f.getArgAttrOfType<StringAttr>(i, "ssm.param"))
            minAttrs.push_back(NamedAttribute(StringAttr::get(ctx, "ssm.param"),
                                              StringAttr::get(ctx, q8MinName(p.getValue()))));
          f.insertArgument(i + 2, scaleType(type, s[i]), DictionaryAttr::get(ctx, minAttrs),
                           raw[i].getLoc());
          minOf[raw[i]] = entry.getArgument(i + 2);
        }
      }
    }
    for (size_t i = 0; i < s.size(); ++i)
      if (s[i] != WeightStorage::F32) {
        auto type = cast<RankedTensorType>(f32Types[i]);
        raw[i].setType(RankedTensorType::get(type.getShape(), storageElementType(ctx, s[i])));
      }
    f.setFunctionType(FunctionType::get(ctx, entry.getArgumentTypes(),
                                        f.getFunctionType().getResults()));
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == WeightStorage::F32)
        continue;
      std::vector<OpOperand *> uses;
      for (OpOperand &u : raw[i].getUses())
        uses.push_back(&u);
      llvm::DenseMap<Operation *, Value> perUser;
      for (OpOperand *u : uses) {
        Operation *user = u->getOwner();
        if (auto call = dyn_cast<func::CallOp>(user)) {
          auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
          if (callee && storage.count(callee) && u->getOperandNumber() < storage[callee].size() &&
              storage[callee][u->getOperandNumber()] == s[i])
            continue; // passed on narrow: rewritten in step 3
        }
        // Before the op of the function body that holds the use (a
        // tensor.extract in a linalg body is read by the linalg op).
        Operation *top = entry.findAncestorOpInBlock(*user);
        Value &deq = perUser[top];
        if (!deq) {
          OpBuilder b(top);
          Value scale = isBlockScaled(s[i]) ? scaleOf[raw[i]] : Value();
          Value min = s[i] == WeightStorage::Q8Min ? minOf[raw[i]] : Value();
          deq = b.create<DequantizeOp>(raw[i].getLoc(), f32Types[i], raw[i], scale, min,
                                       b.getI64IntegerAttr(blockSize(s[i])));
        }
        u->set(deq);
      }
    }
  }

  // 3. Calls that pass narrow weights: their Q8 scales follow each weight.
  for (func::FuncOp f : funcs) {
    std::vector<func::CallOp> calls;
    f.walk([&](func::CallOp c) { calls.push_back(c); });
    for (func::CallOp call : calls) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee || !storage.count(callee))
        continue;
      const std::vector<WeightStorage> &cs = storage[callee];
      if (llvm::all_of(cs, [](WeightStorage s) { return s == WeightStorage::F32; }))
        continue;
      SmallVector<Value> operands;
      for (unsigned i = 0; i < call.getNumOperands(); ++i) {
        Value v = call.getOperand(i);
        operands.push_back(v);
        if (i < cs.size() && isBlockScaled(cs[i]))
          operands.push_back(scaleOf.lookup(v));
        if (i < cs.size() && cs[i] == WeightStorage::Q8Min)
          operands.push_back(minOf.lookup(v));
      }
      OpBuilder b(call);
      auto next = b.create<func::CallOp>(call.getLoc(), callee, operands);
      call.replaceAllUsesWith(next.getResults());
      call.erase();
    }
  }
  return success();
}

WeightStorage storageFromDtypes(
    llvm::StringRef param,
    llvm::function_ref<std::optional<std::string>(const std::string &)> dtypeOf) {
  std::optional<std::string> d = dtypeOf(param.str());
  if (!d)
    return WeightStorage::F32;
  if (*d == "F16")
    return WeightStorage::F16;
  if (*d == "BF16")
    return WeightStorage::BF16;
  if (*d == "I8" && dtypeOf(q8ScaleName(param)) == std::optional<std::string>("F16"))
    return WeightStorage::Q8;
  if (*d == "I8" && dtypeOf(q8ScaleName(param)) == std::optional<std::string>("F32"))
    return dtypeOf(q8MinName(param)) == std::optional<std::string>("F32") ? WeightStorage::Q8Min
                                                                          : WeightStorage::Q8B16;
  return WeightStorage::F32;
}

bool applyWeightStorage(std::string &text, MLIRContext &ctx,
                        llvm::function_ref<WeightStorage(llvm::StringRef)> storageOf,
                        std::string &error) {
  return editModuleText(text, ctx, "weight storage", [&](ModuleOp module) {
    // Nothing to retype: the text stays as written (names and comments).
    bool any = false;
    for (auto f : module.getOps<func::FuncOp>())
      for (unsigned i = 0; !f.isPrivate() && i < f.getNumArguments(); ++i)
        if (auto p = f.getArgAttrOfType<StringAttr>(i, "ssm.param"))
          any = any || storageOf(p.getValue()) != WeightStorage::F32;
    if (!any)
      return ModuleEdit::Unchanged;
    return failed(applyWeightStorage(module, storageOf)) ? ModuleEdit::Failed
                                                         : ModuleEdit::Changed;
  }, error);
}

} // namespace ssm
