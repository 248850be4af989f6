// Measuring one candidate in a separate process: compile, check against the reference, time.
//
// Runs `ssm-run <candidate.mlir> --engine cpu --target T --threads N
// --input ... --expected ... --rtol R --atol A --repeat K [--flush-args i,j]` with the compile
// cache in the tuner's work folder: ssm-run compiles the candidate (its
// child ssm-compile), runs it once as a warm-up, compares the results with
// the reference interpreter's (computed once per kernel, tuner/Tuner.cpp)
// and prints the median of K timed runs and the thread count. The tuner
// process itself never loads the kernels.
#ifndef SSM_TUNER_MEASURE_H
#define SSM_TUNER_MEASURE_H

#include <string>
#include <vector>

namespace ssm::tune {

struct MeasureSetup {
  std::string ssmRun;    // path of the ssm-run binary
  std::string target;    // as the user gave it
  unsigned threads = 0;
  std::string cacheDir;  // SSM_CACHE_DIR of the children
  std::vector<std::string> inputs, expected; // .npy files, in argument / result order
  double rtol = 1e-3, atol = 1e-4;
  unsigned timeoutSeconds = 600;
  /// Arguments (indices) evicted from the caches before each timed run
  /// (ssm-run --flush-args): the weights and states, read from memory
  /// inside a model.
  std::vector<unsigned> flushArgs;
};

struct Measurement {
  /// "ok", "wrong" (results disagree with the reference), "failed" (did not
  /// compile, or crashed), "timeout"; "cannot-run" when ssm-run could not
  /// be started (the tuner stops: nothing was measured).
  std::string status;
  double medianMs = 0;
  unsigned threads = 0;
  std::string message; // the reason for a status other than ok (last lines of stderr)
  double wallSeconds = 0; // the child's whole run: compile (on a cache miss), warm-up, repeats
};

/// Measures `mlirPath` (one function); `autoschedule` non-empty schedules it
/// with that Halide autoscheduler instead of its attributes.
Measurement measure(const MeasureSetup &setup, const std::string &mlirPath, unsigned repeats,
                    const std::string &autoschedule = "");

} // namespace ssm::tune

#endif
