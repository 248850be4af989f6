// ssm-run: runs ssm graphs (an MLIR function on .npy inputs, or a golden case) and checks results.
#include "driver/CompileCache.h"
#include "frontend/SafeParse.h"
#include "passes/InitAll.h"
#include "reference/GoldenCase.h"
#include "reference/Interpreter.h"
#include "runtime/AtomicFile.h"
#include "runtime/Compare.h"
#include "runtime/Npy.h"
#include "runtime/Module.h"
#include "runtime/TensorPacking.h"
#include "tools/ssm-run/CacheFlush.h"
#include "tools/ssm-run/ModelRunner.h"
#include "tools/TargetCheck.h"
#include "tools/ThreadsOption.h"
#include "tools/Version.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <ctime>
#include <random>
#include <thread>
#include <unistd.h>

using namespace llvm;
namespace cl = llvm::cl;

namespace {

// Exit codes of CONTRACTS.md.
constexpr int kOk = 0, kCheckFailed = 1, kCannotRun = 2;

cl::OptionCategory category("ssm-run options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir | model-dir>"), cl::init(""),
                               cl::cat(category));
cl::opt<std::string> convAlgorithm(
    "conv-algorithm",
    cl::desc("With --golden: the algorithm of the case's ssm.lti_conv (direct or fft)"),
    cl::value_desc("direct|fft"), cl::init(""), cl::cat(category));
cl::opt<std::string> emitGraph(
    "emit-graph",
    cl::desc("With --golden: write the function built for the case to this .mlir file (arguments "
             "and results carry the case's names as ssm.name, so an ssm-compile output's "
             "manifest names them as case.json does) instead of running it; an existing file "
             "needs --force"),
    cl::value_desc("file.mlir"), cl::cat(category));
cl::opt<std::string> goldenDir("golden", cl::desc("Run a golden case folder (case.json, inputs/, expected/)"),
                               cl::value_desc("case-dir"), cl::init(""), cl::cat(category));
cl::opt<std::string> engine("engine", cl::desc("Execution engine: reference (the interpreter, the semantic "
                                             "definition), cpu (compiled Halide kernels), "
                                             "opencl (target host-opencl), cuda (target "
                                             "host-cuda-cuda_capability_80). Default: cpu for a model "
                                             "folder (its compiled/ modules, or kernels compiled once "
                                             "on first use and cached), reference for a graph (.mlir) "
                                             "and a golden case"),
                            cl::init("reference"), cl::cat(category));
cl::opt<std::string> target("target", cl::desc("Halide target for compiled engines (default: host for cpu, "
                                             "host-opencl for opencl, host-cuda-cuda_capability_80 "
                                             "for cuda; a GPU engine needs a target with its feature)"),
                            cl::init("host"), cl::cat(category));
cl::opt<std::string> autoschedule(
    "autoschedule",
    cl::desc("Graphs on the cpu engine: schedule with Halide's autoscheduler (adams2019, li2018, "
             "mullapudi2016) instead of the IR's schedules (passed to ssm-compile)"),
    cl::init(""), cl::cat(category));
cl::opt<std::string> tuningDb(
    "tuning-db",
    cl::desc("cpu engine: schedule the ops from the best records of this ssm-tune database for "
             "the exact target and versions (passed to ssm-compile; ops without one keep the "
             "heuristic, and both are reported)"),
    cl::value_desc("file.db"), cl::init(""), cl::cat(category));
// --threads (tools/ThreadsOption.h), set from the option in main.
unsigned threads = 0;
cl::opt<unsigned> repeat("repeat", cl::desc("Time N runs after one warm-up; prints median_ms"),
                         cl::init(0), cl::cat(category));
cl::opt<bool> flushCache(
    "flush-cache",
    cl::desc("With --repeat on a graph (cpu engine): before each timed run, evict the "
             "arguments from the caches (untimed), so that the kernels read them from memory as "
             "inside a model, not from the caches of the run before (ssm-tune uses it for "
             "model folders)"),
    cl::init(false), cl::cat(category));
cl::list<unsigned> flushArgs(
    "flush-args",
    cl::desc("With --repeat on a graph: evict only these arguments (0-based indices, "
             "comma-separated) before each timed run, as --flush-cache evicts all"),
    cl::CommaSeparated, cl::value_desc("i,j,..."), cl::cat(category));
cl::opt<std::string> function("function", cl::desc("Function to run (default: main, or the only one)"),
                              cl::init(""), cl::cat(category));
cl::list<std::string> inputs("input",
                             cl::desc("An input .npy: positional (one per argument, in order) or "
                                      "NAME=file.npy for the argument named NAME (its ssm.name, "
                                      "ssm.param, or argN)"),
                             cl::value_desc("[name=]file.npy"), cl::cat(category));
cl::opt<int> seed("seed", cl::desc("Model runs with --generate: the sampling seed (default: a random one, "
                                   "printed). Graphs: fill arguments without --input with seeded data: "
                                   "weights (ssm.param) "
                                   "matrices U(-a, a) with a = sqrt(3 / fan_in), vectors U(0.5, 1.5); int8 ones integers in "
                                   "[-127, 127]; other inputs U(-0.5, 0.5)"),
                  cl::init(-1), cl::cat(category));
cl::opt<std::string> outputDir("output-dir", cl::desc("Write each result as result<i>.npy here"),
                               cl::init(""), cl::cat(category));
cl::opt<bool> force("force", cl::desc("Allow overwriting existing output files"), cl::init(false),
                    cl::cat(category));
cl::list<std::string> expected("expected", cl::desc("Expected .npy for result i, in order"),
                               cl::value_desc("file.npy"), cl::cat(category));
cl::opt<bool> reportScratch("report-scratch",
                            cl::desc("With a compiled engine, print the kernels' peak heap scratch "
                                     "(scratch_peak_bytes=<n>; inputs and outputs excluded)"),
                            cl::init(false), cl::cat(category));
cl::opt<bool> printValues("print", cl::desc("Print every result's values"), cl::init(false),
                          cl::cat(category));
cl::opt<bool> check("check", cl::desc("With a compiled engine, also run the reference interpreter "
                                      "on the same inputs and compare every result (--rtol, --atol; "
                                      "a model folder: the prompt's logits, as --logits-out or "
                                      "--all-logits-out has them); "
                                      "a NaN or infinity in a result (a model's logits or "
                                      "states) is an error, exit 1, not a warning"),
                    cl::init(false), cl::cat(category));
cl::opt<std::string> prompt("prompt", cl::desc("Model runs: the prompt, tokenized with the folder's "
                                                "tokenizer.json (with its special tokens), or its "
                                                "UTF-8 bytes for a byte-vocabulary model"),
                            cl::init(""), cl::cat(category));
cl::opt<std::string> tokensFile("tokens", cl::desc("Model runs: the tokens, an int32 .npy vector"),
                                cl::value_desc("file.npy"), cl::init(""), cl::cat(category));
cl::opt<std::string> mode("mode", cl::desc("Model runs: sequence (the scan form, default) or step "
                                           "(one token at a time, the state-update form)"),
                          cl::init("sequence"), cl::cat(category));
cl::opt<std::string> logitsOut("logits-out", cl::desc("Model runs: write the logits after the last token (vocab,)"),
                               cl::value_desc("file.npy"), cl::init(""), cl::cat(category));
cl::opt<std::string> allLogitsOut("all-logits-out",
                                  cl::desc("Model runs: write every position's logits (L, vocab)"),
                                  cl::value_desc("file.npy"), cl::init(""), cl::cat(category));
cl::opt<std::string> stateOut("state-out", cl::desc("Model runs (cpu engine, or --distributed): write the states, position and logits after the prompt (a state file, runtime/StateFile.h)"),
                              cl::init(""), cl::cat(category));
cl::opt<bool> distributedOpt("distributed", cl::desc("Model runs under mpirun, --mode sequence: prefill the prompt across the MPI ranks, one contiguous slice each (docs/distributed.md); the last rank writes --logits-out and --state-out"),
                             cl::init(false), cl::cat(category));
cl::opt<bool> mmapWeights(
    "mmap-weights",
    cl::desc("Model runs: map weights.safetensors read-only (its pages shared with the page cache "
             "and other processes) instead of reading it into huge-page memory, which decodes "
             "faster and costs a copy of the file at load"),
    cl::init(false), cl::cat(category));
cl::opt<int64_t> decodeFrom("decode-from", cl::desc("Model runs in step mode: prefill the first P tokens (untimed, the sequence form), then step the rest: decode at position P (with --repeat, only the steps are timed)"),
                           cl::value_desc("P"), cl::init(0), cl::cat(category));
cl::opt<int64_t> contextOpt(
    "context",
    cl::desc("Model runs: the positions the stream's KV caches hold, prompt and generated tokens "
             "(default: the model's, as ssm-import --context recorded it; a model without KV "
             "caches holds any number and ignores it); with --memory, the report at that capacity"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));
cl::opt<bool> memory("memory", cl::desc("Model runs: report one stream's state memory (recurrent state and KV cache, per layer kind and at 1k, 10k, 100k tokens) from model.json, and run nothing"),
                    cl::init(false), cl::cat(category));
cl::opt<int64_t> generate("generate", cl::desc("Model runs: generate N more tokens and print their "
                                                "text as it comes (with a tokenizer or byte "
                                                "tokens; else their ids), greedily unless "
                                                "--temperature T > 0; the tokenizer's eos stops"),
                          cl::init(0), cl::cat(category));
// Sampling (runtime/Sampling.h), in llama.cpp's order and with its flag names.
cl::opt<float> temperature("temperature",
                           cl::desc("With --generate: sample at temperature T (default 0: greedy)"),
                           cl::value_desc("T"), cl::init(0.0f), cl::cat(category));
cl::opt<int> topK("top-k", cl::desc("With --generate: sample among the K most likely tokens (default "
                                    "0: all)"),
                  cl::value_desc("K"), cl::init(0), cl::cat(category));
cl::opt<float> topP("top-p", cl::desc("With --generate: sample among the fewest most likely tokens "
                                      "whose probabilities sum to P (default 1: all)"),
                    cl::value_desc("P"), cl::init(1.0f), cl::cat(category));
cl::opt<float> minP("min-p", cl::desc("With --generate: sample among the tokens at least M times as "
                                      "likely as the most likely (default 0: all)"),
                    cl::value_desc("M"), cl::init(0.0f), cl::cat(category));
cl::opt<float> repeatPenalty("repeat-penalty",
                             cl::desc("With --generate: divide the positive logits (multiply the "
                                      "negative) of the tokens of the last --repeat-last-n by R "
                                      "(default 1: none)"),
                             cl::value_desc("R"), cl::init(1.0f), cl::cat(category));
cl::opt<float> presencePenalty("presence-penalty",
                               cl::desc("With --generate: subtract X from the logits of the tokens "
                                        "of the last --repeat-last-n (default 0)"),
                               cl::value_desc("X"), cl::init(0.0f), cl::cat(category));
cl::opt<float> frequencyPenalty("frequency-penalty",
                                cl::desc("With --generate: subtract X per occurrence in the last "
                                         "--repeat-last-n from a token's logit (default 0)"),
                                cl::value_desc("X"), cl::init(0.0f), cl::cat(category));
cl::opt<int> repeatLastN("repeat-last-n",
                         cl::desc("With --generate: the penalties' window, the last N tokens of "
                                  "the prompt and the output (default 64; -1: all, 0: none)"),
                         cl::value_desc("N"), cl::init(64), cl::cat(category));
cl::list<std::string> stopStrings("stop", cl::desc("With --generate: end the text before this string "
                                                   "(may be repeated)"),
                                  cl::value_desc("STR"), cl::cat(category));
/// --generate's sampling flags and --seed, as given or not.
std::vector<const cl::Option *> samplingOptions() {
  return {&temperature,      &topK,        &topP,        &minP, &repeatPenalty,
          &presencePenalty, &frequencyPenalty, &repeatLastN, std::addressof(stopStrings), &seed};
}
cl::opt<bool> cachePrune(
    "cache-prune",
    cl::desc("Remove compile-cache entries, least recently used first, until the cache holds at "
             "most --cache-max-mb (default $SSM_CACHE_MAX_MB, else 0: every entry not in use); "
             "entries a running process uses are kept. Prints what was removed"),
    cl::init(false), cl::cat(category));
cl::opt<double> cacheMaxMb("cache-max-mb",
                           cl::desc("With --cache-prune: the size to prune to, in MB (2^20 bytes)"),
                           cl::init(-1), cl::cat(category));
cl::opt<double> rtol("rtol", cl::desc("Relative tolerance for --expected"), cl::init(1e-4),
                     cl::cat(category));
cl::opt<double> atol("atol", cl::desc("Absolute tolerance for --expected"), cl::init(1e-5),
                     cl::cat(category));
// main() sees <cstdlib>'s ::atol too.
cl::opt<double> &atolOpt = atol;

int cannotRun(const Twine &msg) {
  errs() << "ssm-run: error: " << msg << "\n";
  return kCannotRun;
}

/// The function to run: --function, else @main, else the only function.
mlir::func::FuncOp pickFunction(mlir::ModuleOp module, std::string &error) {
  if (!function.empty()) {
    auto f = module.lookupSymbol<mlir::func::FuncOp>(function);
    if (!f)
      error = "no function '@" + function + "' in the module";
    return f;
  }
  if (auto f = module.lookupSymbol<mlir::func::FuncOp>("main"))
    return f;
  mlir::func::FuncOp only;
  unsigned count = 0;
  for (auto f : module.getOps<mlir::func::FuncOp>())
    if (!f.isExternal()) {
      only = f;
      ++count;
    }
  if (count != 1)
    error = count ? "the module has several functions and no @main: pick one with --function"
                  : "the module has no function";
  return count == 1 ? only : mlir::func::FuncOp();
}

const char *gArgv0 = nullptr;

/// ssm-compile's arguments for --tuning-db: the absolute path, and the
/// sizes and modification times of the file and its WAL, which make the
/// compile-cache key change whenever the database does.
std::vector<std::string> tuningDbArgs() {
  if (tuningDb.empty())
    return {};
  SmallString<256> abs(tuningDb);
  sys::fs::make_absolute(abs);
  std::string stamp;
  for (std::string f : {std::string(abs), std::string(abs) + "-wal"}) {
    sys::fs::file_status st;
    if (!sys::fs::status(f, st) && sys::fs::exists(st))
      stamp += std::to_string(st.getSize()) + ":" +
               std::to_string(st.getLastModificationTime().time_since_epoch().count()) + ";";
  }
  return {"--tuning-db", std::string(abs), "--tuning-db-stamp=" + stamp};
}

/// What the tuning database gave this compiled module (ssm-compile wrote it).
void printTuningNote(const std::string &dir) {
  if (tuningDb.empty())
    return;
  if (auto note = MemoryBuffer::getFile(dir + "/tuning-db.txt"))
    errs() << "ssm-run: note: " << (*note)->getBuffer();
}

double median(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return ms.size() % 2 ? ms[ms.size() / 2] : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
}

/// The reference engine: runs once, then `repeat` timed runs.
Expected<std::vector<ssm::ref::Array>> runReference(mlir::func::FuncOp f,
                                                     const std::vector<ssm::ref::Array> &args,
                                                     double *medianMs) {
  auto results = ssm::ref::runFunction(f, args);
  if (!results || !repeat)
    return results;
  std::vector<double> ms;
  for (unsigned i = 0; i < repeat; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto again = ssm::ref::runFunction(f, args);
    auto t1 = std::chrono::steady_clock::now();
    if (!again)
      return again.takeError();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  *medianMs = median(ms);
  return results;
}

/// A failure of the compiled engine with the exit status it implies.
struct EngineError {
  std::string message;
  int exitCode = kCannotRun;
};

/// The cpu engine: compiles `mlirText` (cached, in a child ssm-compile),
/// loads the module, runs @fnName once as a warm-up and `repeat` timed runs
/// (binding excluded: CONTRACTS.md times the function alone).
bool runCompiled(const std::string &mlirText, const std::string &fnName,
                 const std::vector<ssm::ref::Array> &args, std::vector<ssm::ref::Array> &results,
                 double *medianMs, EngineError &err) {
  std::vector<std::string> compileArgs = tuningDbArgs();
  if (!autoschedule.empty())
    compileArgs = {"--autoschedule", autoschedule};
  std::string dir =
      ssm::compileWithCache(mlirText, target, gArgv0, err.message, err.exitCode, compileArgs);
  if (dir.empty())
    return false;
  printTuningNote(dir);
  auto module = ssm::rt::CompiledModule::load(dir, err.message);
  if (!module)
    return false;
  const ssm::rt::FunctionInfo *fn = module->find(fnName);
  if (!fn) {
    err.message = "the compiled module has no function @" + fnName;
    return false;
  }
  module->setThreads(static_cast<int>(threads));
  if (reportScratch)
    module->trackScratch();
  std::vector<ssm::rt::HostTensor> inputs(args.size());
  std::vector<const ssm::rt::HostTensor *> inputPtrs;
  if (args.size() != fn->arguments.size()) {
    err.message = "the compiled @" + fnName + " takes " + std::to_string(fn->arguments.size()) +
                  " arguments, got " + std::to_string(args.size());
    return false;
  }
  for (unsigned a : flushArgs)
    if (a >= args.size()) {
      err.message = "--flush-args names argument " + std::to_string(a) + ", but @" + fnName +
                    " takes " + std::to_string(args.size());
      return false;
    }
  for (size_t i = 0; i < args.size(); ++i) {
    if (!ssm::rt::packTensor(args[i].data.data(), args[i].data.size(), args[i].shape,
                             fn->arguments[i], inputs[i], err.message))
      return false;
    inputPtrs.push_back(&inputs[i]);
  }
  std::vector<ssm::rt::HostTensor> outputs;
  auto call = module->bind(*fn, inputPtrs, outputs, err.message);
  if (!call || !call->invoke(err.message))
    return false;
  if (repeat) {
    std::vector<double> ms;
    ssm::CacheFlusher flusher;
    std::vector<std::pair<const void *, size_t>> operands; // what --flush-cache evicts
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!flushCache && !llvm::is_contained(flushArgs, i))
        continue;
      const ssm::rt::HostTensor &t = inputs[i];
      if (!t.storage.empty())
        operands.push_back({t.storage.data(), t.storage.size()});
    }
    for (unsigned i = 0; i < repeat; ++i) {
      if (!operands.empty())
        flusher.flush(operands);
      auto t0 = std::chrono::steady_clock::now();
      bool ok = call->invoke(err.message);
      auto t1 = std::chrono::steady_clock::now();
      if (!ok)
        return false;
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    *medianMs = median(ms);
  }
  if (reportScratch)
    outs() << "scratch_peak_bytes=" << ssm::rt::CompiledModule::peakScratchBytes() << "\n";
  results.clear();
  for (const ssm::rt::HostTensor &o : outputs) {
    if (o.dtype == "int32")
      results.emplace_back(o.shape, std::vector<double>(o.i32().begin(), o.i32().end()));
    else
      results.emplace_back(o.shape, std::vector<double>(o.f32().begin(), o.f32().end()));
  }
  return true;
}

/// Runs @f with the selected engine; `mlirText` is the module f lives in.
Expected<std::vector<ssm::ref::Array>> runEngine(mlir::func::FuncOp f, const std::string &mlirText,
                                                  const std::vector<ssm::ref::Array> &args,
                                                  double *medianMs, int &exitCode) {
  exitCode = kCannotRun;
  if (engine == "reference")
    return runReference(f, args, medianMs);
  std::vector<ssm::ref::Array> results;
  EngineError err;
  if (!runCompiled(mlirText, f.getSymName().str(), args, results, medianMs, err)) {
    exitCode = err.exitCode;
    return createStringError(inconvertibleErrorCode(), err.message);
  }
  return results;
}

unsigned reportedThreads() {
  if (engine == "reference")
    return 1;
  return threads ? threads : std::max(1u, std::thread::hardware_concurrency());
}

/// Checks --engine and sets the target a compiled engine uses: a GPU
/// engine defaults to its GPU target, and an explicit --target must carry
/// the engine's feature (a cpu engine takes no GPU target), so that no
/// engine silently runs another device's code.
int checkEngine() {
  if (!tuningDb.empty() && engine != "cpu")
    return cannotRun("--tuning-db applies to the cpu engine (--engine cpu)");
  if (!tuningDb.empty() && !autoschedule.empty())
    return cannotRun("--tuning-db and --autoschedule both choose the schedules: give one");
  if (!tuningDb.empty() && !sys::fs::is_regular_file(tuningDb))
    return cannotRun("no tuning database '" + tuningDb + "' (ssm-tune --db writes one)");
  // An explicit --target is checked as ssm-compile checks it, whatever the
  // engine and whether or not anything will compile (a deployed folder's
  // modules were compiled for theirs): a bogus one is refused, not ignored.
  static bool targetChecked = false;
  if (target.getNumOccurrences() > 0 && !targetChecked) {
    targetChecked = true;
    std::string self = sys::fs::getMainExecutable(gArgv0, (void *)&cannotRun);
    SmallString<256> compiler(sys::path::parent_path(self));
    sys::path::append(compiler, "ssm-compile");
    if (std::string problem = ssm::tools::targetProblem(std::string(compiler), target);
        !problem.empty())
      return cannotRun(problem);
  }
  if (engine == "reference")
    return kOk;
  auto hasFeature = [](StringRef f) {
    SmallVector<StringRef> parts;
    StringRef(target).split(parts, '-');
    return llvm::is_contained(parts, f);
  };
  bool given = target.getNumOccurrences() > 0;
  if (engine == "cpu") {
    if (hasFeature("opencl") || hasFeature("cuda"))
      return cannotRun("--target " + target + " is a GPU target: use --engine " +
                       (hasFeature("cuda") ? "cuda" : "opencl"));
    return kOk;
  }
  if (engine == "opencl" || engine == "cuda") {
    if (!given)
      target = engine == "opencl" ? "host-opencl" : "host-cuda-cuda_capability_80";
    else if (!hasFeature(engine))
      return cannotRun("--engine " + engine + " needs a target with the '" + engine +
                       "' feature, got '" + target + "' (e.g. " +
                       (engine == "opencl" ? "host-opencl" : "host-cuda-cuda_capability_80") +
                       ")");
    return kOk;
  }
  return cannotRun("unknown engine '" + engine + "' (known: reference, cpu, opencl, cuda)");
}

void printTiming(double medianMs) {
  if (repeat)
    outs() << "median_ms=" << format("%.4f", medianMs) << " threads=" << reportedThreads() << "\n";
}

int runGolden(mlir::MLIRContext &ctx) {
  if (int rc = checkEngine())
    return rc;
  ssm::GoldenCase gc;
  std::string error;
  if (!convAlgorithm.empty() && convAlgorithm != "direct" && convAlgorithm != "fft")
    return cannotRun("--conv-algorithm must be direct or fft, not '" + convAlgorithm + "'");
  if (!ssm::loadGoldenCase(goldenDir, gc, error, convAlgorithm))
    return cannotRun(error);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diag(sourceMgr, &ctx);
  auto module = ssm::parseModuleChecked(gc.mlir, goldenDir + "/case.json", &ctx);
  if (!module)
    return cannotRun("the function built for " + goldenDir + " does not verify (see above)");
  if (!emitGraph.empty()) {
    if (sys::fs::exists(emitGraph) && !force)
      return cannotRun("'" + emitGraph + "' exists; pass --force to overwrite it");
    std::string text = "// The graph of golden case " + goldenDir + " (ssm-run --emit-graph).\n" + gc.mlir;
    if (!ssm::writeFileAtomically(emitGraph, text, error))
      return cannotRun(error);
    return kOk;
  }
  auto f = module->lookupSymbol<mlir::func::FuncOp>("main");
  std::vector<ssm::ref::Array> args;
  for (const std::string &name : gc.argNames)
    for (const ssm::NamedArray &a : gc.inputs)
      if (a.name == name)
        args.emplace_back(a.shape, a.data);
  double medianMs = 0;
  int exitCode;
  auto results = runEngine(f, gc.mlir, args, &medianMs, exitCode);
  if (!results) {
    errs() << "ssm-run: error: " << toString(results.takeError()) << "\n";
    return exitCode;
  }
  bool allPass = true;
  for (const ssm::NamedArray &e : gc.expected) {
    size_t i = std::find(gc.resultNames.begin(), gc.resultNames.end(), e.name) - gc.resultNames.begin();
    const ssm::ref::Array &got = (*results)[i];
    ssm::CompareResult r = ssm::compareArrays(got.shape, got.data, e.shape, e.data, gc.tolerance);
    if (r.shapeMismatch)
      errs() << "ssm-run: " << e.name << ": got shape " << ssm::ref::shapeToString(got.shape)
             << ", expected " << ssm::ref::shapeToString(e.shape) << "\n";
    outs() << ssm::formatCompareLine(e.name, r) << "\n";
    allPass &= r.pass;
  }
  printTiming(medianMs);
  return allPass ? kOk : kCheckFailed;
}

int runFile(mlir::MLIRContext &ctx) {
  if (int rc = checkEngine())
    return rc;
  if (!(rtol >= 0) || !(atol >= 0) || !std::isfinite(rtol) || !std::isfinite(atol))
    return cannotRun("--rtol and --atol must be finite numbers >= 0");
  std::string errorMessage;
  auto file = mlir::openInputFile(inputFile, &errorMessage);
  if (!file)
    return cannotRun("cannot open '" + inputFile + "': " + errorMessage);
  std::string mlirText = file->getBuffer().str();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  mlir::SourceMgrDiagnosticHandler diag(sourceMgr, &ctx);
  auto module = ssm::parseModuleChecked(sourceMgr, &ctx);
  if (!module) {
    errs() << "ssm-run: error: '" << inputFile << "' is not valid IR (see above)\n";
    return kCheckFailed;
  }
  std::string error;
  mlir::func::FuncOp f = pickFunction(*module, error);
  if (!f)
    return cannotRun(inputFile + ": " + error);
  mlir::FunctionType type = f.getFunctionType();
  // Bind --input files to arguments: NAME=file by name, others in order.
  auto argName = [&](unsigned i, llvm::StringRef attr) -> std::string {
    if (auto s = f.getArgAttrOfType<mlir::StringAttr>(i, attr))
      return s.str();
    return "";
  };
  std::vector<std::string> inputFor(type.getNumInputs());
  unsigned nextPositional = 0;
  for (const std::string &spec : inputs) {
    llvm::StringRef name, path = spec;
    if (spec.find('=') != std::string::npos)
      std::tie(name, path) = llvm::StringRef(spec).split('=');
    int target = -1;
    if (!name.empty()) {
      for (unsigned i = 0; i < type.getNumInputs(); ++i)
        if (name == argName(i, "ssm.name") || name == argName(i, "ssm.param") ||
            name == ("arg" + std::to_string(i)))
          target = i;
      if (target < 0)
        return cannotRun("@" + f.getSymName() + " has no argument named '" + name + "'");
    } else {
      while (nextPositional < inputFor.size() && !inputFor[nextPositional].empty())
        ++nextPositional;
      if (nextPositional >= inputFor.size())
        return cannotRun(formatv("more --input files than the {0} arguments of @{1}",
                                 type.getNumInputs(), f.getSymName()));
      target = nextPositional;
    }
    if (!inputFor[target].empty())
      return cannotRun(formatv("argument {0} of @{1} is given twice", target, f.getSymName()));
    inputFor[target] = path.str();
  }
  for (unsigned i = 0; i < type.getNumInputs(); ++i)
    if (inputFor[i].empty() && seed < 0)
      return cannotRun(formatv("no --input for argument {0} of @{1} (give one, or pass --seed N "
                               "for random data)",
                               i, f.getSymName()));
  std::vector<ssm::ref::Array> args;
  std::mt19937_64 rng(seed < 0 ? 0 : seed);
  std::uniform_real_distribution<double> uniform(-0.5, 0.5);
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    auto t = dyn_cast<mlir::RankedTensorType>(type.getInput(i));
    std::vector<int64_t> shape = t ? std::vector<int64_t>(t.getShape().begin(), t.getShape().end())
                                   : std::vector<int64_t>{};
    if (t && !t.hasStaticShape()) // neither the interpreter nor ssm-compile runs these
      return cannotRun(formatv("argument {0} of @{1} has a dynamic shape ({2}): ssm-run runs "
                               "functions of static shapes only",
                               i, f.getSymName(), mlir::Type(t)));
    if (!inputFor[i].empty()) {
      ssm::NpyArray npy;
      ssm::ref::Array a;
      if (!ssm::readNpy(inputFor[i], npy, error) || !ssm::npyToDoubles(npy, a.data, error))
        return cannotRun(error);
      a.shape = npy.shape;
      if (a.shape != shape)
        return cannotRun(formatv("{0}: shape {1} but argument {2} of @{3} is {4}", inputFor[i],
                                 ssm::ref::shapeToString(a.shape), i, f.getSymName(),
                                 ssm::ref::shapeToString(shape)));
      args.push_back(std::move(a));
      continue;
    }
    ssm::ref::Array a(shape);
    // Weight matrices get variance 1/fan_in (fan_in = the last dim), so that
    // each linear layer keeps its activations' size; weight vectors (norm
    // scales, biases, D) sit around 1.
    double scale = 1.0, offset = 0.0;
    if (f.getArgAttr(i, "ssm.param")) {
      if (shape.size() >= 2 && shape.back() > 0)
        scale = 2.0 * std::sqrt(3.0 / static_cast<double>(shape.back()));
      else
        offset = 1.0;
    }
    // Integer arguments (token ids, indices) are filled with 0: any other
    // value could be out of range for what they index.
    // int8 arguments (quantized weights, ssm.dequantize) get integers in
    // [-127, 127], the range Q8_0 blocks use.
    bool isInt = t && t.getElementType().isInteger(32);
    bool isI8 = t && t.getElementType().isInteger(8);
    for (double &v : a.data)
      v = isInt  ? 0.0
          : isI8 ? std::round(254.0 * uniform(rng))
                 : offset + scale * uniform(rng);
    args.push_back(std::move(a));
  }

  double medianMs = 0;
  auto t0 = std::chrono::steady_clock::now();
  int exitCode;
  // Compiled engines build only @f (and what it calls): the other public
  // functions become private, so one that cannot compile does not stop this
  // one. Printed with locations, so compile errors name the user's file.
  if (engine != "reference") {
    mlir::OwningOpRef<mlir::ModuleOp> copy(cast<mlir::ModuleOp>((*module)->clone()));
    for (auto fn : copy->getOps<mlir::func::FuncOp>())
      if (fn.isPublic() && fn.getSymName() != f.getSymName())
        fn.setPrivate();
    mlirText.clear();
    llvm::raw_string_ostream os(mlirText);
    copy->print(os, mlir::OpPrintingFlags().enableDebugInfo());
  }
  auto results = runEngine(f, mlirText, args, &medianMs, exitCode);
  auto t1 = std::chrono::steady_clock::now();
  if (!results) {
    errs() << "ssm-run: error: " << toString(results.takeError()) << "\n";
    return exitCode;
  }
  errs() << formatv("ssm-run: @{0} ran on the {1} engine in {2:f1} ms{3}\n", f.getSymName(),
                    engine, std::chrono::duration<double, std::milli>(t1 - t0).count(),
                    engine == "reference" ? "" : " (first call, compilation or cache lookup included)");

  // --output-dir: refused before anything is written when it is a file, or
  // a non-empty folder without --force; the files are written after every
  // check below passed or failed (not when the run could not complete).
  std::vector<std::string> outputPaths;
  if (!outputDir.empty()) {
    if (sys::fs::exists(outputDir) && !sys::fs::is_directory(outputDir))
      return cannotRun("'" + outputDir + "' exists and is not a folder");
    std::error_code dirEc;
    bool nonEmpty = sys::fs::directory_iterator(outputDir, dirEc) != sys::fs::directory_iterator();
    if (!dirEc && nonEmpty && !force)
      return cannotRun("'" + outputDir + "' is not empty; pass --force to write into it");
    for (size_t i = 0; i < results->size(); ++i) {
      SmallString<256> path(outputDir);
      sys::path::append(path, "result" + std::to_string(i) + ".npy");
      if (sys::fs::is_directory(path))
        return cannotRun(Twine(path) + " is a folder");
      outputPaths.push_back(std::string(path));
    }
  }
  std::vector<ssm::ref::Array> reference;
  if (check && engine != "reference") {
    auto t2 = std::chrono::steady_clock::now();
    auto ref = ssm::ref::runFunction(f, args);
    if (!ref)
      return cannotRun("the reference interpreter failed: " + toString(ref.takeError()));
    reference = std::move(*ref);
    errs() << formatv("ssm-run: the reference interpreter took {0:f1} ms\n",
                      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t2)
                          .count());
  }
  if (expected.size() > results->size())
    return cannotRun(formatv("{0} --expected files for {1} results", expected.size(),
                             results->size()));
  bool allPass = true;
  for (size_t i = 0; i < results->size(); ++i) {
    const ssm::ref::Array &r = (*results)[i];
    double sum = 0, sumAbs = 0, lo = INFINITY, hi = -INFINITY;
    for (double v : r.data) {
      sum += v;
      sumAbs += std::fabs(v);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    const size_t count = std::max<size_t>(1, r.data.size());
    if (r.data.empty())
      lo = hi = 0; // an empty result: 0 throughout, not INF/-INF
    outs() << formatv("result{0} shape={1} mean={2:e} mean_abs={3:e} min={4:e} max={5:e}\n", i,
                      ssm::ref::shapeToString(r.shape), sum / count, sumAbs / count, lo, hi);
    if (printValues) {
      outs() << "result" << i << " = [";
      for (size_t k = 0; k < r.data.size(); ++k)
        outs() << (k ? ", " : "") << format("%.7g", r.data[k]);
      outs() << "]\n";
    }
    if (!reference.empty()) {
      ssm::CompareResult c = ssm::compareArrays(r.shape, r.data, reference[i].shape,
                                                reference[i].data, ssm::Tolerance{rtol, atol});
      outs() << ssm::formatCompareLine("result" + std::to_string(i) + "_vs_reference", c) << "\n";
      allPass &= c.pass;
    }
    if (i < expected.size()) {
      ssm::NpyArray npy;
      std::vector<double> want;
      if (!ssm::readNpy(expected[i], npy, error) || !ssm::npyToDoubles(npy, want, error))
        return cannotRun(error);
      ssm::CompareResult c =
          ssm::compareArrays(r.shape, r.data, npy.shape, want, ssm::Tolerance{rtol, atol});
      outs() << ssm::formatCompareLine("result" + std::to_string(i), c) << "\n";
      allPass &= c.pass;
    }
    // A compiled engine computes in float32: a NaN or infinity where the
    // reference (float64, with --check) is finite is named; with --check it
    // fails the run (docs/numerics.md).
    if (engine != "reference")
      for (size_t k = 0; k < r.data.size(); ++k) {
        if (std::isfinite(r.data[k]))
          continue;
        bool refFinite = !reference.empty() && k < reference[i].data.size() &&
                         std::isfinite(reference[i].data[k]);
        errs() << "ssm-run: " << (check ? "error" : "warning") << ": result" << i << "[" << k
               << "] = " << (std::isnan(r.data[k]) ? "nan" : r.data[k] > 0 ? "inf" : "-inf")
               << " on the " << engine << " engine"
               << (refFinite ? formatv(" where the reference gives {0:e}", reference[i].data[k]).str()
                             : std::string())
               << " (float32 overflow? docs/numerics.md)\n";
        if (check && (reference.empty() || refFinite))
          allPass = false;
        break;
      }
  }
  if (!outputPaths.empty()) {
    if (std::error_code ec = sys::fs::create_directories(outputDir))
      return cannotRun("cannot create '" + outputDir + "': " + ec.message());
    // Each file whole (writeNpy: a temporary next to it, fsync'd, renamed).
    for (size_t i = 0; i < outputPaths.size(); ++i)
      if (!ssm::writeNpyDoubles(outputPaths[i], "<f4", (*results)[i].shape, (*results)[i].data,
                                error))
        return cannotRun(error);
  }
  printTiming(medianMs);
  return allPass ? kOk : kCheckFailed;
}

} // namespace

/// ssm-run --cache-prune: prunes the compile cache and says what it removed.
int runCachePrune() {
  std::string error;
  uint64_t maxBytes = 0;
  if (cacheMaxMb.getNumOccurrences()) {
    if (!(cacheMaxMb >= 0) || cacheMaxMb > 1e12)
      return cannotRun("--cache-max-mb takes a non-negative number of megabytes");
    maxBytes = static_cast<uint64_t>(cacheMaxMb * 1048576.0);
  } else if (std::optional<uint64_t> cap = ssm::cacheCapFromEnv(error)) {
    maxBytes = *cap;
  } else if (!error.empty()) {
    return cannotRun(error);
  }
  std::string root = ssm::compileCacheDir();
  ssm::PruneReport r = ssm::pruneCompileCache(root, maxBytes);
  for (const ssm::PrunedEntry &e : r.removed) {
    std::time_t t = static_cast<std::time_t>(e.lastUsed);
    std::tm tm{};
    char when[32] = "?";
    if (gmtime_r(&t, &tm))
      std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    outs() << formatv("ssm-run: removed {0} ({1:f1} MB, last used {2})\n", e.key,
                      e.bytes / 1048576.0, when);
  }
  outs() << "ssm-run: compile cache " << root << ": " << ssm::describePrune(r) << "\n";
  return kOk;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  gArgv0 = argv[0];
  // A file size limit (ulimit -f) makes a write fail with EFBIG, reported as
  // any write error (the old output kept), instead of killing the process.
  std::signal(SIGXFSZ, SIG_IGN);
  cl::opt<unsigned> &threadsOpt = ssm::tools::threadsOption(
      category, "Threads of the compiled kernels (0, the default: one per core)");
  llvm::cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { os << ssm::tools::versionText("ssm-run"); });
  cl::HideUnrelatedOptions(category);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "ssm-run: run ssm graphs and check them against data\n\n"
                                   "  ssm-run --golden <case-dir> [--engine E] [--target T] [--threads N] [--repeat N]\n"
                                   "  ssm-run <file.mlir> [--function F] (--input x.npy)... "
                                   "[--seed N] [--expected r.npy]... [--output-dir D]\n"
                                   "  ssm-run <model-dir> (--prompt TEXT | --tokens F.npy) [--mode sequence|step] "
                                   "[--engine cpu|reference|...]\n"
                                   "      [--logits-out F] [--all-logits-out F] [--generate N] [--repeat N] [--context N]\n"
                                   "      [--temperature T] [--top-k K] [--top-p P] [--min-p M] "
                                   "[--repeat-penalty R] [--seed S] [--stop STR]...\n"
                                   "  ssm-run --cache-prune [--cache-max-mb N]\n",
                                   &errs()))
    return kCannotRun;
  threads = threadsOpt;
  if (cachePrune) {
    if (!inputFile.empty() || !goldenDir.empty())
      return cannotRun("--cache-prune takes no input (it prunes $SSM_CACHE_DIR: " +
                       ssm::compileCacheDir() + ")");
    return runCachePrune();
  }
  if (cacheMaxMb.getNumOccurrences())
    return cannotRun("--cache-max-mb goes with --cache-prune (SSM_CACHE_MAX_MB caps every run)");
  // The MLIR context on first use: a deployed model folder on the cpu
  // engine runs without it (ModelRunner.h).
  mlir::DialectRegistry registry;
  ssm::registerAllDialects(registry);
  std::unique_ptr<mlir::MLIRContext> ctxOwner;
  std::function<mlir::MLIRContext &()> context = [&]() -> mlir::MLIRContext & {
    if (!ctxOwner) {
      ctxOwner = std::make_unique<mlir::MLIRContext>(registry);
      ctxOwner->loadAllAvailableDialects();
    }
    return *ctxOwner;
  };
  if (!goldenDir.empty()) {
    if (!inputFile.empty())
      return cannotRun("give either --golden or an input file, not both");
    return runGolden(context());
  }
  if (!emitGraph.empty())
    return cannotRun("--emit-graph goes with --golden <case-dir>");
  if (inputFile.empty())
    return cannotRun("no input: give an .mlir file, a model folder or --golden <case-dir> (see --help)");
  if (contextOpt.getNumOccurrences() && contextOpt < 1)
    return cannotRun("--context takes a number of positions >= 1, got " +
                     std::to_string(contextOpt));
  if (contextOpt.getNumOccurrences() && !ssm::isModelDir(inputFile))
    return cannotRun("--context sets a model folder's KV cache capacity: give a folder with "
                     "model.json");
  if (ssm::isModelDir(inputFile) && memory)
    return ssm::reportModelMemory(inputFile, contextOpt);
  if (memory)
    return cannotRun("--memory reports a model folder's state memory: give a folder with model.json");
  if (ssm::isModelDir(inputFile)) {
    // A model folder runs fast by default: on the cpu engine (its compiled
    // modules, or kernels compiled once on first use), as llama.cpp runs a
    // model; --engine reference runs the interpreter, which checks use.
    const bool engineDefaulted = engine.getNumOccurrences() == 0;
    if (engineDefaulted)
      engine = "cpu";
    if (int rc = checkEngine())
      return rc;
    if (flushCache || !flushArgs.empty())
      return cannotRun("--flush-cache and --flush-args time the runs of a graph; a model folder's "
                       "--repeat runs whole prompts, whose layers evict each other's weights anyway");
    // A graph's flags would be ignored here: refused by name, not guessed at
    // (--expected would otherwise leave an unchecked run exit 0).
    const char *graph = "a graph (.mlir)", *graphOrGolden = "a graph (.mlir) or --golden";
    const std::pair<const cl::Option *, const char *> graphFlags[] = {
        {std::addressof(function), graph},
        {std::addressof(inputs), graph},
        {std::addressof(expected), graph},
        {std::addressof(outputDir), graph},
        {std::addressof(printValues), graph},
        {std::addressof(convAlgorithm), "--golden"},
        {std::addressof(autoschedule), graphOrGolden},
        {std::addressof(reportScratch), graphOrGolden}};
    for (const auto &[opt, with] : graphFlags)
      if (opt->getNumOccurrences())
        return cannotRun("--" + opt->ArgStr.str() + " goes with " + with +
                         ", not a model folder (--logits-out, --all-logits-out and --check "
                         "cover a model run)");
    if ((rtol.getNumOccurrences() || atolOpt.getNumOccurrences()) && !check)
      return cannotRun("--rtol and --atol go with --check on a model folder");
    if (!(rtol >= 0) || !(atolOpt >= 0) || !std::isfinite(rtol) || !std::isfinite(atolOpt))
      return cannotRun("--rtol and --atol must be finite numbers >= 0");
    ssm::ModelRunOptions o;
    o.dir = inputFile;
    o.prompt = prompt;
    o.hasPrompt = prompt.getNumOccurrences() > 0;
    o.tokensFile = tokensFile;
    o.mode = mode;
    o.engine = engine;
    o.engineDefaulted = engineDefaulted;
    o.target = target;
    o.targetGiven = target.getNumOccurrences() > 0;
    o.threads = threads;
    o.logitsOut = logitsOut;
    o.allLogitsOut = allLogitsOut;
    o.stateOut = stateOut;
    o.distributed = distributedOpt;
    o.generate = generate;
    o.sampling.temperature = temperature;
    o.sampling.topK = topK;
    o.sampling.topP = topP;
    o.sampling.minP = minP;
    o.sampling.repetitionPenalty = repeatPenalty;
    o.sampling.presencePenalty = presencePenalty;
    o.sampling.frequencyPenalty = frequencyPenalty;
    o.sampling.penaltyLastN = repeatLastN;
    o.stopStrings.assign(stopStrings.begin(), stopStrings.end());
    for (const cl::Option *opt : samplingOptions())
      if (opt->getNumOccurrences())
        o.samplingFlags.push_back("--" + opt->ArgStr.str());
    if (seed.getNumOccurrences()) {
      if (seed < 0)
        return cannotRun("--seed takes a number >= 0, got " + std::to_string(seed));
      o.seedGiven = true;
      o.sampling.seed = static_cast<uint64_t>(seed);
    }
    o.repeat = repeat;
    o.decodeFrom = decodeFrom;
    o.force = force;
    o.mapWeights = mmapWeights;
    o.context = contextOpt;
    o.check = check;
    o.rtol = rtol;
    o.atol = atolOpt;
    o.argv0 = gArgv0;
    if (!tuningDb.empty()) {
      if (int rc = checkEngine())
        return rc;
      o.compileArgs = tuningDbArgs();
    }
    if (o.distributed)
      return ssm::runDistributed(o, context);
    return ssm::runModel(o, context);
  }
  if (llvm::sys::fs::is_directory(inputFile))
    return cannotRun("'" + inputFile + "' is a folder without model.json (not an ssm-import output)");
  if (prompt.getNumOccurrences() || !tokensFile.empty() || generate.getNumOccurrences() ||
      mmapWeights)
    return cannotRun("'" + inputFile +
                     "' is not a model folder (--prompt, --tokens, --generate and --mmap-weights "
                     "run the folders ssm-import writes)");
  for (const cl::Option *opt : samplingOptions())
    if (opt->getNumOccurrences() && opt != &seed)
      return cannotRun("--" + opt->ArgStr.str() + " goes with --generate on a model folder");
  return runFile(context());
}
