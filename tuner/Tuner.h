// The tuning loop: for each kernel, inputs and the reference once, the baselines, then the search within the budget.
#ifndef SSM_TUNER_TUNER_H
#define SSM_TUNER_TUNER_H

#include "tuner/KernelKey.h"
#include "tuner/TuningDb.h"

#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <string>
#include <vector>

namespace ssm::tune {

/// Set by the SIGINT handler of ssm-tune: the loop stops after the candidate
/// in flight (whose child is interrupted too and is not recorded).
extern volatile std::sig_atomic_t gInterrupted;

/// The Halide autoschedulers measured as baselines.
extern const char *const kAutoschedulerNames[3];

struct TuneOptions {
  std::string target;      // as the user gave it (passed to ssm-run)
  TuningContext context;   // what the records are keyed by
  double budgetSeconds = 300;
  uint64_t seed = 0;
  std::string ssmRun;      // the ssm-run binary
  std::string workDir;     // scratch: candidates, inputs, compile cache
  double rtol = 1e-3, atol = 1e-4;
  bool baselines = true;   // measure the three autoschedulers
  unsigned maxCandidates = 0; // search candidates per kernel (0: budget only)
  double timedMsPerCandidate = 300; // timed runs per candidate: about this long, 7..500 runs
  unsigned timeoutSeconds = 300;    // per child (the heuristic, the autoschedulers)
  /// Search candidates get at most this many times the heuristic's first
  /// run (its compile, warm-up and calls) plus 30 s, within timeoutSeconds:
  /// a candidate that compiles 5x slower than the heuristic is not worth
  /// waiting for.
  double searchTimeoutFactor = 5;
  /// Rounds of the final measurements (heuristic, best, autoschedulers back
  /// to back per kernel) after the search; 0: none.
  unsigned finalRounds = 3;
  /// Time every measurement of the run with the kernel's weights and states
  /// (its arguments that are arguments of the enclosing function) evicted
  /// from the caches before each timed call (ssm-run --flush-args), as inside
  /// a model, where the other layers have evicted them; activations, which
  /// the op before has just written, stay in the caches. One run's
  /// measurements are all taken the same way, and (with final rounds, the
  /// default) the latest run's final rounds decide (TuningDb::best), so records taken hot and flushed are
  /// never ranked against each other.
  bool flushCache = false;
  bool progressBar = false; // redraw one status line (a terminal)
  bool verbose = false;     // one line per candidate
  std::string runId;
};

struct KernelOutcome {
  std::string key, opName, summary;
  unsigned occurrences = 0;
  unsigned candidates = 0, wrong = 0, failed = 0;
  double heuristicMs = 0, bestMs = 0; // 0: not measured
  std::string bestSchedule, skipped;  // skipped: why the kernel was not tuned
};

/// Tunes `kernels` (from collectKernels) into `db` within the budget.
/// Returns false with `error` only when the database cannot be written;
/// kernels that cannot be tuned are reported in their outcome.
bool tuneKernels(const std::vector<Kernel> &kernels, mlir::MLIRContext &ctx, TuningDb &db,
                 const TuneOptions &options, std::vector<KernelOutcome> &outcomes,
                 std::string &error);

} // namespace ssm::tune

#endif
