// Applying tuning records (see ApplyTuning.h).
#include "tuner/ApplyTuning.h"

#include "dialect/SsmDialect.h"
#include "tuner/KernelKey.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

namespace ssm::tune {

std::string ApplySummary::describe(const TuningContext &ctx) const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "tuning database: " << kernelsTuned << " of " << kernels
     << " kernels tuned for target '" << ctx.target << "' (" << ctx.ssmVersion << ", Halide "
     << ctx.halideVersion << "), " << opsApplied << " ops scheduled from it";
  if (opsExplicit)
    os << ", " << opsExplicit << " ops kept the schedule written in the IR";
  if (!fallback.empty()) {
    os << "; no record, heuristic schedule for:";
    for (const std::string &f : fallback)
      os << "\n  " << f;
  }
  return os.str();
}

bool applyTuning(mlir::ModuleOp module, TuningDb &db, const TuningContext &ctx,
                 ApplySummary &summary, std::string &error) {
  std::vector<Kernel> kernels = collectKernels(module);
  summary.kernels = kernels.size();
  mlir::MLIRContext *mctx = module.getContext();
  for (Kernel &k : kernels) {
    std::optional<Record> best = db.best(k.key, ctx, error);
    if (!error.empty())
      return false;
    mlir::Attribute attr;
    if (best) {
      mlir::ScopedDiagnosticHandler quiet(mctx, [](mlir::Diagnostic &) { return mlir::success(); });
      attr = mlir::parseAttribute(best->schedule, mctx);
    }
    if (!attr) {
      int64_t other = db.countAnyContext(k.key, error);
      if (!error.empty())
        return false;
      std::string line = k.key + " (" + k.summary + ")";
      if (other)
        line += ": " + std::to_string(other) +
                " records for other targets or versions, not applied";
      summary.fallback.push_back(line);
      continue;
    }
    ++summary.kernelsTuned;
    for (mlir::Operation *op : k.ops) {
      if (op->hasAttr(kScheduleAttrName)) {
        ++summary.opsExplicit;
        continue;
      }
      op->setAttr(kScheduleAttrName, attr);
      ++summary.opsApplied;
    }
  }
  return true;
}

} // namespace ssm::tune
