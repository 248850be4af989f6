// Activation quantisation for GGUF imports (see ActivationQuant.h).
#include "passes/ActivationQuant.h"
#include "passes/ModuleText.h"

#include "dialect/SsmOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>

using namespace mlir;

namespace ssm {

std::string activationFormatForGgmlType(llvm::StringRef t) {
  if (t == "Q4_0" || t == "Q5_0" || t == "Q8_0")
    return "q8_0";
  if (t == "Q4_1" || t == "Q5_1")
    return "q8_1";
  if (t == "Q2_K" || t == "Q3_K" || t == "Q4_K" || t == "Q5_K" || t == "Q6_K" || t == "Q8_K")
    return "q8_K";
  if (t == "F16")
    return "f16";
  if (t == "BF16")
    return "bf16";
  return "";
}

bool activationFormatsFromModelJson(const std::string &modelJson,
                                    std::map<std::string, std::string> &formats,
                                    std::string &error) {
  formats.clear();
  nlohmann::json j = nlohmann::json::parse(modelJson, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("activation_quant"))
    return true; // no key (the graph builder reports a malformed model.json)
  const nlohmann::json &a = j["activation_quant"];
  if (!a.is_object()) {
    error = "model.json: \"activation_quant\" must be an object (weight name -> format)";
    return false;
  }
  for (auto it = a.begin(); it != a.end(); ++it) {
    if (!it.value().is_string() || activationQuantBlock(it.value().get<std::string>()) < 0) {
      error = "model.json: \"activation_quant\" of '" + it.key() + "' is " + it.value().dump() +
              ", not one of \"q8_0\", \"q8_1\", \"q8_K\", \"f16\", \"bf16\"";
      return false;
    }
    formats[it.key()] = it.value().get<std::string>();
  }
  return true;
}

void applyActivationQuant(ModuleOp module, llvm::function_ref<std::string(llvm::StringRef)> formatOf,
                          ActivationQuantSummary &summary) {
  SymbolTable symbols(module);
  std::vector<func::FuncOp> funcs;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal())
      funcs.push_back(f);

  // 1. The format of every argument: public functions from their ssm.param,
  // private ones from what all their calls pass.
  std::map<Operation *, std::vector<std::string>> format;
  std::map<Operation *, std::vector<std::string>> name; // the param (or a caller's) for notes
  for (func::FuncOp f : funcs) {
    format[f].assign(f.getNumArguments(), "");
    name[f].assign(f.getNumArguments(), "");
    if (f.isPrivate())
      continue;
    for (unsigned i = 0; i < f.getNumArguments(); ++i)
      if (auto p = f.getArgAttrOfType<StringAttr>(i, "ssm.param")) {
        format[f][i] = formatOf(p.getValue());
        name[f][i] = p.getValue().str();
      }
  }
  auto argOf = [&](Value v) -> std::pair<Operation *, unsigned> {
    if (auto deq = v.getDefiningOp<DequantizeOp>())
      v = deq.getInput();
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || !arg.getOwner()->isEntryBlock())
      return {nullptr, 0};
    auto owner = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (!owner || !format.count(owner))
      return {nullptr, 0};
    return {owner, arg.getArgNumber()};
  };
  std::set<std::string> mixedNotes;
  for (size_t round = 0; round <= funcs.size(); ++round) {
    bool changed = false;
    for (func::FuncOp callee : funcs) {
      if (!callee.isPrivate())
        continue;
      std::optional<SymbolTable::UseRange> uses = symbols.getSymbolUses(callee, module);
      if (!uses)
        continue;
      const unsigned n = callee.getNumArguments();
      std::vector<std::optional<std::string>> common(n);
      std::vector<std::string> who(n);
      std::vector<bool> mixed(n, false);
      bool other = false;
      for (const SymbolTable::SymbolUse &u : *uses) {
        auto call = dyn_cast<func::CallOp>(u.getUser());
        if (!call) {
          other = true;
          break;
        }
        for (unsigned i = 0; i < call.getNumOperands() && i < n; ++i) {
          auto [owner, idx] = argOf(call.getOperand(i));
          std::string fmt = owner ? format[owner][idx] : "";
          if (owner && who[i].empty())
            who[i] = name[owner][idx];
          if (common[i] && *common[i] != fmt && !mixed[i]) {
            mixed[i] = true;
            mixedNotes.insert(callee.getName().str() + " argument " + std::to_string(i) + " (" +
                              who[i] + "): its calls pass weights of formats '" + *common[i] +
                              "' and '" + fmt + "'; its matmuls keep f32 activations");
          }
          common[i] = fmt;
        }
      }
      if (other)
        continue;
      for (unsigned i = 0; i < n; ++i) {
        std::string fmt = mixed[i] || !common[i] ? "" : *common[i];
        if (format[callee][i] != fmt) {
          format[callee][i] = fmt;
          changed = true;
        }
        name[callee][i] = who[i];
      }
    }
    if (!changed)
      break;
  }
  summary.notes.insert(summary.notes.end(), mixedNotes.begin(), mixedNotes.end());

  // 2. One ssm.quantize_activations per (activation, format, block) before
  // its first matmul; other readers of a formatted weight are named.
  std::set<std::string> otherNotes;
  for (func::FuncOp f : funcs) {
    std::map<std::tuple<Block *, void *, std::string>, Value> made;
    std::vector<Operation *> ops;
    f.walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops) {
      auto isMatmulLike = isa<linalg::MatmulOp, linalg::MatmulTransposeAOp, linalg::BatchMatmulOp,
                              linalg::BatchMatmulTransposeBOp, linalg::BatchMatmulTransposeAOp>(op);
      if (isMatmulLike) {
        for (Value v : op->getOperands()) {
          auto [owner, idx] = argOf(v);
          if (owner && !format[owner][idx].empty())
            otherNotes.insert(name[owner][idx] + ": read by " + op->getName().getStringRef().str() +
                              ", whose activations stay f32");
        }
        continue;
      }
      auto mm = dyn_cast<linalg::MatmulTransposeBOp>(op);
      if (!mm)
        continue;
      auto [owner, idx] = argOf(mm.getInputs()[1]);
      if (!owner || format[owner][idx].empty())
        continue;
      const std::string &fmt = format[owner][idx];
      Value a = mm.getInputs()[0];
      auto aType = dyn_cast<RankedTensorType>(a.getType());
      int64_t block = activationQuantBlock(fmt);
      if (!aType || !aType.getElementType().isF32() || aType.getRank() < 1 ||
          (block > 0 && (ShapedType::isDynamic(aType.getShape().back()) ||
                         aType.getShape().back() % block != 0))) {
        otherNotes.insert(name[owner][idx] + ": K is not a multiple of the " + fmt +
                          " blocks; its activations stay f32");
        continue;
      }
      Value &q = made[{op->getBlock(), a.getAsOpaquePointer(), fmt}];
      if (!q) {
        OpBuilder b(op);
        q = b.create<QuantizeActivationsOp>(op->getLoc(), a.getType(), a, b.getStringAttr(fmt));
      }
      mm->setOperand(0, q);
      ++summary.matmuls;
    }
  }
  summary.notes.insert(summary.notes.end(), otherNotes.begin(), otherNotes.end());
}

bool applyActivationQuant(std::string &text, MLIRContext &ctx,
                          llvm::function_ref<std::string(llvm::StringRef)> formatOf,
                          ActivationQuantSummary &summary, std::string &error) {
  return editModuleText(text, ctx, "activation quantisation", [&](ModuleOp module) {
    applyActivationQuant(module, formatOf, summary);
    return summary.matmuls == 0 ? ModuleEdit::Unchanged : ModuleEdit::Changed;
  }, error);
}

bool applyActivationQuant(std::string &text, MLIRContext &ctx,
                          const std::map<std::string, std::string> &formats,
                          ActivationQuantSummary &summary, std::string &error) {
  return applyActivationQuant(
      text, ctx,
      [&](llvm::StringRef p) {
        auto it = formats.find(p.str());
        return it == formats.end() ? std::string() : it->second;
      },
      summary, error);
}

} // namespace ssm
