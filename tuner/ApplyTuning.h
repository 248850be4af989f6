// Applying a tuning database to a graph: the best matching record's schedule on each tunable op.
#ifndef SSM_TUNER_APPLYTUNING_H
#define SSM_TUNER_APPLYTUNING_H

#include "tuner/TuningDb.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace ssm::tune {

struct ApplySummary {
  unsigned kernels = 0;        // distinct kernels (keys) in the graph
  unsigned kernelsTuned = 0;   // ... with a matching record
  unsigned opsApplied = 0;     // ops given a schedule from the database
  unsigned opsExplicit = 0;    // ops that already had a schedule (kept)
  /// Kernels without a matching record (they keep the heuristic), each
  /// "<key> (<op>)" and, when the file has records of it for other targets
  /// or versions, how many.
  std::vector<std::string> fallback;
  /// One paragraph for users: what was applied and what fell back, naming
  /// the target and versions records must match.
  std::string describe(const TuningContext &ctx) const;
};

/// Gives every tunable op of `module` (tuner/KernelKey.h) without a schedule
/// the schedule of db.best(key, ctx); ops with a schedule keep it (the user's
/// edit wins). Fails only when the database cannot be read (`error`).
bool applyTuning(mlir::ModuleOp module, TuningDb &db, const TuningContext &ctx,
                 ApplySummary &summary, std::string &error);

} // namespace ssm::tune

#endif
