// Running imported models (ssm-import output): prompt or tokens in, logits and generated tokens out.
#ifndef SSM_TOOLS_SSMRUN_MODELRUNNER_H
#define SSM_TOOLS_SSMRUN_MODELRUNNER_H

#include "runtime/Sampling.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
}

namespace ssm {

struct ModelRunOptions {
  std::string dir;          // holds model.json, model.mlir, weights.safetensors
  std::string prompt;       // --prompt: tokenized with <dir>/tokenizer.json, else UTF-8 bytes (byte models)
  bool hasPrompt = false;
  std::string tokensFile;   // --tokens: an int32 (or int64) .npy vector
  std::string mode = "sequence"; // sequence | step
  std::string engine = "cpu";     // ssm-run's default for a model folder; reference, opencl, cuda
  bool engineDefaulted = false;   // no --engine given: the run says which engine and why
  std::string target = "host";
  bool targetGiven = false;       // --target on the command line (not the default)
  unsigned threads = 0;
  std::string logitsOut, allLogitsOut;
  std::string stateOut;     // --state-out: the stream's states after the prompt (runtime/StateFile.h)
  bool distributed = false; // --distributed: prefill across the MPI ranks (runDistributed)
  int64_t generate = 0;
  // --generate's token choice (--temperature, --top-k, --top-p, --min-p,
  // --repeat-penalty, --presence-penalty, --frequency-penalty,
  // --repeat-last-n, --seed; checked by runModel, naming the flag): greedy
  // by default. `samplingFlags` lists the flags given (for the messages).
  rt::SamplingParams sampling;
  bool seedGiven = false;
  std::vector<std::string> samplingFlags;
  std::vector<std::string> stopStrings; // --stop: generation ends before the first
  unsigned repeat = 0;      // --repeat: time N more prompt runs (see runModel)
  int64_t decodeFrom = 0;   // --decode-from P: step mode starts at position P (see runModel)
  bool force = false;
  bool mapWeights = false;  // --mmap-weights: map the weights file instead of reading it
  int64_t context = 0;      // --context N: the KV caches' positions (ModelSpec::withContext); 0: model.json's
  // --check: a non-finite logit or state is an error (exit 1), not a warning;
  // on a compiled engine the prompt also runs on the reference interpreter and
  // its logits are compared (CONTRACTS.md's line, rtol / atol; exit 1 on FAIL).
  bool check = false;
  double rtol = 1e-4, atol = 1e-5;
  const char *argv0 = nullptr;
  std::vector<std::string> compileArgs; // passed to ssm-compile (--tuning-db)
};

/// Runs the model as CONTRACTS.md describes `ssm-run <model-dir>`; returns
/// the exit status (0 ok, 1 the work failed, 2 it could not run), messages
/// on stderr, generated text on stdout, tokens/s on stderr. With `generate`
/// N > 0, the tokens chosen after the prompt (greedy, or sampled with
/// `sampling`, the prompt in the penalty window) are printed as they come:
/// their text (valid UTF-8: an incomplete character is held back; a
/// tokenizer's eos and the stop strings end it) for a model with a
/// tokenizer or byte tokens, else their ids. With `repeat`
/// N > 0 (cpu engine), after that first run (the warm-up, which compiles or
/// loads the kernels and the weights) the prompt is run N more times from the
/// initial states, each timed alone, and one line goes to stdout:
/// `median_ms=<x> threads=<n> tokens=<t> us_per_token=<x> mode=<m>`, x the
/// median over the N runs of the whole prompt (sequence: one forward_sequence
/// call; step: the loop of forward_step calls, one per token). With
/// `decodeFrom` P > 0 (step mode) every run first prefills the prompt's
/// first P tokens untimed, then steps (and times, and writes the logits
/// of) the rest: decode at position P.
/// `context` gives the MLIR context, created on first use: only the
/// reference engine and a compilation (a folder without compiled modules
/// for the cpu engine, or a GPU engine) need it, so a deployed folder runs
/// without MLIR's dialects loaded (about 8 MB less peak memory).
int runModel(const ModelRunOptions &options,
             const std::function<mlir::MLIRContext &()> &context);

/// `mpirun -np R ssm-run <model-dir> --tokens F --distributed`: the prompt's
/// prefill split into R contiguous slices (R = 2: halves; R >= 3: weighted
/// 2, 1, ..., 1, 2, as the middle ranks compute theirs twice: Prefill.h;
/// or the lengths of $SSM_DISTRIBUTED_SLICES, comma-separated), the
/// graph for each slice's length run through the ssm-distribute-prefill pass
/// and compiled, then runtime/distributed/Prefill.h. The last rank writes
/// --logits-out and --state-out (a state file a single-process stream
/// loads) and prints the time; every rank exits 0, or 1 (the work failed) /
/// 2 (it could not run) with the message of the rank that failed. Needs a
/// build with MPI (SSM_HAVE_MPI); otherwise exit 2 saying so.
int runDistributed(const ModelRunOptions &options,
                   const std::function<mlir::MLIRContext &()> &context);

/// `ssm-run <model-dir> --memory [--context N]`: one stream's state memory
/// from model.json alone, per state kind and layer group, and as a stream
/// grows (1k, 10k, 100k tokens: the fixed recurrent states beside the KV
/// rows written), the caches at `context` positions (0: model.json's); exit
/// 0, or 2 when model.json cannot be read or the context is refused.
int reportModelMemory(const std::string &dir, int64_t context = 0);

/// True when `path` is a folder with a model.json.
bool isModelDir(const std::string &path);

} // namespace ssm

#endif
