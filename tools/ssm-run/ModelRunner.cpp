// The model runner: ssm-run's model mode, a shell over the model library (runtime/Model.h) and the reference interpreter's streams (reference/ModelStream.h).
#include "tools/ssm-run/ModelRunner.h"
#include "tools/ssm-run/LibraryPages.h"
#include "tools/CompiledLengths.h"

#include <cstdio>

#include "import/ModelBuilder.h"
#include "reference/ModelStream.h"
#include "runtime/AtomicFile.h"
#include "runtime/Compare.h"
#include "runtime/Generate.h"
#include "runtime/Manifest.h"
#include "ssm/Version.h"
#include "runtime/Model.h"
#include "runtime/Npy.h"
#include "runtime/Sampling.h"
#include "runtime/TokenText.h"
#include "runtime/tokenizer/Tokenizer.h"
#include "driver/CompileCache.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <cmath>
#include <memory>
#include <random>
#include <thread>
#include <unistd.h>

namespace ssm {
namespace {

using ref::storedModelGraph;

} // namespace

namespace {

constexpr int kOk = 0, kFailed = 1, kCannotRun = 2;

int fail(int code, const std::string &msg) {
  llvm::errs() << "ssm-run: error: " << msg << "\n";
  return code;
}

/// Compiled kernels through the model library: one stream. A deployed
/// folder's modules (<dir>/compiled/*/) run prompts of any length as their
/// sequence calls plus steps, with no compilation; otherwise the model is
/// compiled on first use, once for every prompt length: its graphs for calls
/// of kFirstUseChunk tokens (256, at most the KV caches' length) and of the
/// import's --seq-len (model.json "seq_len", default 16) when shorter, the
/// latter with the one-token steps (firstUseChunks); the long call is
/// compiled when a prompt first reaches it, so short prompts never pay for
/// it. A prompt then runs as 256-token calls, then 16-token calls, then
/// fewer than 16 steps, whatever the first prompt's length was; the modules
/// are compile-cache entries, so later runs find them with no compilation.
/// (Before, the first prompt's own length was compiled and reused: a 7-token
/// first prompt made a 512-token one 73 calls and 1 step.)
class CompilingStream : public rt::TokenStream {
public:
  static constexpr int64_t kFirstUseChunk = ssm::tools::kDefaultLongCall;

  CompilingStream(const ModelRunOptions &o, rt::Model &model, LogitsRows rows,
                  const std::function<mlir::MLIRContext &()> &context)
      : opts(o), model(model), stream(model), firstUse_(!model.hasStep()), rows(rows),
        context(context) {}

  void reset() override { stream.reset(); }
  rt::Status prefill(const int32_t *tokens, size_t n, std::vector<float> *all) override {
    // A prompt past the KV caches is refused before a graph is built for it.
    if (rt::Status st = stream.checkContext(n); !st)
      return st;
    if (rt::Status st = compileFirstUse(n); !st)
      return st;
    return stream.prefill(tokens, n, all);
  }
  rt::Status step(int32_t token) override {
    if (rt::Status st = compileFirstUse(0); !st)
      return st;
    return stream.step(token);
  }
  const std::vector<float> &logits() const override { return stream.logits(); }
  int64_t position() const override { return stream.position(); }
  /// rt::Stream::firstNonFinite: the logits, then the states.
  std::string firstNonFinite() const { return stream.firstNonFinite(); }
  /// Every state, the position and the logits (runtime/StateFile.h): --state-out.
  rt::Status save(const std::string &path) const { return stream.save(path); }

  /// The sequence lengths compiled on first use: kFirstUseChunk, at most the
  /// model's context (its KV caches), and model.json's "seq_len" (the
  /// import's --seq-len; the shortest of a list; 16 when absent) when it is
  /// shorter, longest first.
  /// (tools/CompiledLengths.h: ssm-import --compile compiles the same.)
  static std::vector<int64_t> firstUseChunks(const rt::Model &model) {
    int64_t small = ssm::tools::kDefaultSeqLen;
    if (auto json = llvm::json::parse(model.spec().text))
      if (const llvm::json::Object *o = json->getAsObject()) {
        if (auto v = o->getInteger("seq_len"))
          small = *v;
        else if (const llvm::json::Array *list = o->getArray("seq_len"))
          for (const llvm::json::Value &x : *list)
            if (auto l = x.getAsInteger())
              small = small == ssm::tools::kDefaultSeqLen ? *l : std::min(small, *l);
      }
    return ssm::tools::defaultCompiledLengths(model.contextLength(), small);
  }

private:
  /// The modules a prompt of `tokens` tokens (0: steps) needs, of a folder
  /// that has none: the shortest of firstUseChunks (it also holds the step
  /// functions) and each longer one that fits in the prompt, each from the
  /// compile cache or compiled now (in a child ssm-compile) into it; the
  /// ones this process has loaded are not looked up again. A folder whose
  /// prompts stay short never compiles the long call; the first prompt
  /// that reaches it compiles it once (the same ladder in the end, so a
  /// prompt runs as the same calls whichever came first).
  rt::Status compileFirstUse(size_t tokens) {
    if (!firstUse_) // a deployed folder: its own modules
      return rt::Status::ok();
    const std::vector<int64_t> chunks = firstUseChunks(model);
    std::vector<int64_t> needed;
    for (size_t c = 0; c < chunks.size(); ++c)
      if ((c + 1 == chunks.size() || static_cast<size_t>(chunks[c]) <= tokens) &&
          !loaded_.count(chunks[c]))
        needed.push_back(chunks[c]);
    if (needed.empty())
      return rt::Status::ok();
    auto listOf = [](const std::vector<int64_t> &lengths) {
      std::string list;
      for (int64_t l : lengths)
        list += (list.empty() ? "" : " and ") + std::to_string(l);
      return list;
    };
    auto whatOf = [&](const std::vector<int64_t> &lengths) {
      return "calls of " + listOf(lengths) + " tokens" +
             (lengths.back() == chunks.back() ? " and one-token steps" : "");
    };
    // From the cache first; then what is missing, compiled.
    std::vector<std::string> texts, dirs;
    std::vector<std::vector<std::string>> argLists;
    std::vector<int64_t> missing;
    for (int64_t len : needed) {
      std::string text, error;
      if (!storedModelGraph(model.spec().text, len, rows, model.weights(), context(), text, error))
        return {rt::Code::Mismatch, error};
      // The step functions come from the shortest length's module alone;
      // the others hold the sequence function (as ssm-import --compile
      // does), which halves their compile time.
      std::vector<std::string> args = opts.compileArgs;
      if (len != chunks.back())
        args.insert(args.end(), {"--functions", model.spec().sequenceFunction});
      int code = kCannotRun;
      dirs.push_back(compileWithCache(text, opts.target, opts.argv0, error, code, args,
                                      /*compileIfMissing=*/false));
      if (dirs.back().empty())
        missing.push_back(len);
      texts.push_back(std::move(text));
      argLists.push_back(std::move(args));
    }
    if (!missing.empty()) {
      std::vector<int64_t> later;
      for (int64_t l : chunks)
        if (!loaded_.count(l) && std::find(needed.begin(), needed.end(), l) == needed.end())
          later.push_back(l);
      llvm::errs() << "ssm-run: compiling " << model.spec().dir << " for " << whatOf(missing)
                   << ", once: prompts of every length run as those"
                   << (later.empty() ? ""
                                     : " (a prompt of " + std::to_string(later.front()) +
                                           " tokens or more first compiles calls of " +
                                           listOf(later) + ")")
                   << " (cached; later runs need no compilation)\n";
    }
    for (size_t i = 0; i < needed.size(); ++i) {
      if (dirs[i].empty()) {
        std::string error;
        int code = kCannotRun;
        dirs[i] = compileWithCache(texts[i], opts.target, opts.argv0, error, code, argLists[i]);
        if (dirs[i].empty())
          return {rt::Code::Unsupported,
                  error + (opts.engineDefaulted
                               ? " (the cpu engine is the default for a model folder; "
                                 "--engine reference runs the interpreter instead, with no "
                                 "compilation)"
                               : "")};
      }
      if (rt::Status st = addModule(dirs[i]); !st)
        return st;
      loaded_.insert(needed[i]);
    }
    if (missing.empty())
      llvm::errs() << "ssm-run: uses the modules compiled for " << whatOf(needed)
                   << " of this model (" << dirs.front() << (dirs.size() > 1 ? ", ..." : "")
                   << "): no compilation\n";
    return rt::Status::ok();
  }

  rt::Status addModule(const std::string &dir) {
    if (!opts.compileArgs.empty())
      if (auto note = llvm::MemoryBuffer::getFile(dir + "/tuning-db.txt"))
        llvm::errs() << "ssm-run: note: " << (*note)->getBuffer();
    return model.addModule(dir);
  }

  const ModelRunOptions &opts;
  rt::Model &model;
  rt::Stream stream;
  const bool firstUse_; // no compiled modules at open: compiled here, on first use
  std::set<int64_t> loaded_; // the firstUseChunks lengths loaded so far
  LogitsRows rows;
  const std::function<mlir::MLIRContext &()> &context;
};

/// The sampling flags' problem, naming the flag ("" when none).
std::string checkSampling(const ModelRunOptions &o) {
  const rt::SamplingParams &p = o.sampling;
  auto got = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return std::string(", got ") + buf;
  };
  if (!o.samplingFlags.empty() && o.generate == 0)
    return o.samplingFlags.front() + " chooses the tokens of --generate N: give --generate too";
  if (!(std::isfinite(p.temperature) && p.temperature >= 0.0f))
    return "--temperature takes a number >= 0 (0: greedy)" + got(p.temperature);
  if (p.topK < 0)
    return "--top-k takes a count >= 0 (0: every token)" + got(p.topK);
  if (!(p.topP >= 0.0f && p.topP <= 1.0f))
    return "--top-p takes a probability in [0, 1] (1: no top-p filter)" + got(p.topP);
  if (!(p.minP >= 0.0f && p.minP <= 1.0f))
    return "--min-p takes a probability in [0, 1] (0: no min-p filter)" + got(p.minP);
  if (!(std::isfinite(p.repetitionPenalty) && p.repetitionPenalty > 0.0f))
    return "--repeat-penalty takes a number > 0 (1: none)" + got(p.repetitionPenalty);
  if (!std::isfinite(p.presencePenalty))
    return "--presence-penalty takes a finite number" + got(p.presencePenalty);
  if (!std::isfinite(p.frequencyPenalty))
    return "--frequency-penalty takes a finite number" + got(p.frequencyPenalty);
  if (p.penaltyLastN < -1)
    return "--repeat-last-n takes a count >= -1 (-1: every token, 0: no penalties)" +
           got(p.penaltyLastN);
  for (const std::string &stop : o.stopStrings)
    if (stop.empty())
      return "--stop takes a non-empty string";
  // Whatever the messages above cover, the library's own check agrees.
  return rt::samplingParamsProblem(p);
}

bool canWrite(const std::string &path, bool force, std::string &error) {
  if (ssm::wouldReplaceFile(path) && !force) {
    error = path + " exists; pass --force to overwrite it";
    return false;
  }
  return true;
}

} // namespace

namespace {
template <typename... A> std::string printf(const char *fmt, A... a) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a...);
  return buf;
}

std::string humanBytes(int64_t b) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}
} // namespace

int reportModelMemory(const std::string &dir, int64_t contextOption) {
  rt::ModelSpec spec;
  if (rt::Status s = rt::ModelSpec::load(dir, spec); !s)
    return fail(kCannotRun, s.message());
  if (contextOption != 0)
    if (rt::Status s = spec.withContext(contextOption); !s)
      return fail(kCannotRun, s.message());
  int64_t fixed = 0, perPosition = 0, allocated = 0;
  spec.stateBytes(fixed, perPosition, allocated);
  const int64_t context = spec.contextLength();
  llvm::outs() << "memory of one stream of " << dir << " (" << spec.architecture
               << "), float32 states, from model.json:\n";
  llvm::outs() << printf("  %-22s %7s  %-6s  %s\n", "state", "layers", "kind", "bytes");
  for (const rt::ModelSpec::StateGroup &g : spec.stateGroups()) {
    bool cache = g.kind == rt::StateKind::Cache;
    std::string bytes = humanBytes(g.bytesPerLayer) + (cache ? " per position" : "") +
                        " per layer, " + humanBytes(g.bytesPerLayer * g.layers) +
                        (cache ? " per position" : "");
    llvm::outs() << printf("  %-22s %7lld  %-6s  %s\n", g.name.c_str(),
                                 static_cast<long long>(g.layers), cache ? "cache" : "fixed",
                                 bytes.c_str());
  }
  llvm::outs() << printf("  %-10s %-16s %-16s %s\n", "tokens", "recurrent state",
                               "KV cache", "total");
  for (int64_t n : {int64_t(1000), int64_t(10000), int64_t(100000)}) {
    std::string kv = humanBytes(n * perPosition), total = humanBytes(fixed + n * perPosition);
    if (context > 0 && n > context)
      total += " (past the context of " + std::to_string(context) + ")";
    llvm::outs() << printf("  %-10lld %-16s %-16s %s\n", static_cast<long long>(n),
                                 humanBytes(fixed).c_str(), kv.c_str(), total.c_str());
  }
  if (context > 0)
    llvm::outs() << "  allocated per stream: " << humanBytes(fixed + allocated)
                 << " (the KV caches at their capacity of " << context << " positions; "
                 << (context != spec.importedContext
                         ? "--context; the model's own is " + std::to_string(spec.importedContext)
                         : std::string("--context N sets it at open, ssm-import --context the default"))
                 << ")\n";
  else
    llvm::outs() << "  allocated per stream: " << humanBytes(fixed)
                 << " (no KV cache: the same at every position"
                 << (contextOption ? "; --context changes nothing" : "") << ")\n";
  return kOk;
}

bool isModelDir(const std::string &path) {
  return llvm::sys::fs::is_directory(path) && llvm::sys::fs::exists(path + "/model.json");
}

/// "<what>[i] = nan" (or inf, -inf) for the first value of `v` that is not
/// finite, else "".
std::string firstNonFiniteIn(const std::string &what, const std::vector<float> &v) {
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      return what + "[" + std::to_string(i) + "] = " +
             (std::isnan(v[i]) ? "nan" : v[i] > 0 ? "inf" : "-inf");
  return "";
}

/// What this build's ssm-compile writes as a manifest's "compiler"
/// (codegen/Compile.h's kCompilerVersion).
constexpr const char *kThisCompiler = "ssm-opt " SSM_OPT_VERSION " (MLIR 19, Halide 14)";

/// The engine a model folder's compiled/ modules run on, from the targets
/// in their manifests: "opencl" or "cuda" for a module of that GPU API,
/// else "cpu"; several joined with " and " in folder order. The modules
/// `skipped` ("<dir> (compiled for <target>)", Model::skippedModules) do
/// not count; "cpu" when no manifest can be read. With `otherCompilers`,
/// "<module dir> was compiled by <compiler>" for each module whose manifest
/// names another compiler than this build (an older ssm-opt, another MLIR
/// or Halide) is appended to it.
std::string compiledModulesEngine(const std::string &dir,
                                  const std::vector<std::string> &skipped,
                                  std::vector<std::string> *otherCompilers = nullptr) {
  std::error_code ec;
  std::vector<std::string> dirs;
  for (llvm::sys::fs::directory_iterator it(dir + "/compiled", ec), end; it != end && !ec;
       it.increment(ec))
    dirs.push_back(it->path());
  std::sort(dirs.begin(), dirs.end());
  std::vector<std::string> engines;
  for (const std::string &d : dirs) {
    if (std::any_of(skipped.begin(), skipped.end(),
                    [&](const std::string &s) { return llvm::StringRef(s).starts_with(d + " ("); }))
      continue;
    auto text = llvm::MemoryBuffer::getFile(d + "/manifest.json");
    rt::ModuleManifest manifest;
    std::string error;
    if (!text || !rt::manifestFromJson((*text)->getBuffer().str(), d, manifest, error))
      continue;
    if (otherCompilers && !manifest.compiler.empty() && manifest.compiler != kThisCompiler)
      otherCompilers->push_back(d + " was compiled by " + manifest.compiler);
    llvm::SmallVector<llvm::StringRef> features;
    llvm::StringRef(manifest.target).split(features, '-');
    std::string engine = "cpu";
    for (llvm::StringRef f : features)
      if (f == "opencl" || f == "cuda")
        engine = f.str();
    if (std::find(engines.begin(), engines.end(), engine) == engines.end())
      engines.push_back(engine);
  }
  std::string out;
  for (const std::string &e : engines)
    out += (out.empty() ? "" : " and ") + e;
  return out.empty() ? "cpu" : out;
}

/// Notes when <dir>/compiled is there but holds nothing to run (not a
/// folder, or no module folder, one with a manifest.json, in it: empty),
/// and for each folder in it without a manifest.json (a damaged or
/// half-copied module). "" when there is nothing to say. The runtime's
/// addCompiledModules skips all of these.
std::string compiledEntryNotes(const std::string &dir) {
  const std::string compiled = dir + "/compiled";
  llvm::sys::fs::file_status st;
  if (llvm::sys::fs::status(compiled, st))
    return ""; // none: kernels compiled on first use, as documented
  if (!llvm::sys::fs::is_directory(st))
    return "ssm-run: note: " + compiled +
           " is not a folder: ignored (ssm-compile " + dir +
           " writes its modules into a compiled/ folder there)\n";
  std::string notes;
  int modules = 0;
  std::error_code ec;
  std::vector<std::string> others;
  for (llvm::sys::fs::directory_iterator it(compiled, ec), end; it != end && !ec;
       it.increment(ec)) {
    const bool folder = llvm::sys::fs::is_directory(it->path());
    if (folder && llvm::sys::fs::exists(it->path() + "/manifest.json"))
      ++modules;
    else if (folder && !llvm::sys::path::filename(it->path()).starts_with("."))
      others.push_back(it->path());
  }
  std::sort(others.begin(), others.end());
  for (const std::string &other : others)
    notes += "ssm-run: note: skips " + other +
             ", a folder without manifest.json (not an ssm-compile output)\n";
  if (modules == 0)
    notes += "ssm-run: note: " + compiled + " holds no compiled module: ignored\n";
  return notes;
}

int runModel(const ModelRunOptions &o, const std::function<mlir::MLIRContext &()> &context) {
  std::string error;
  if (!llvm::sys::fs::is_regular_file(o.dir + "/model.json"))
    return fail(kCannotRun, o.dir + "/model.json: not a regular file");
  if (!o.logitsOut.empty() && o.logitsOut == o.allLogitsOut)
    return fail(kCannotRun, "--logits-out and --all-logits-out name the same file '" +
                                o.logitsOut + "'");
  if (o.generate < 0)
    return fail(kCannotRun, "--generate takes a non-negative count, got " +
                                std::to_string(o.generate));
  if (std::string why = checkSampling(o); !why.empty())
    return fail(kCannotRun, why);
  rt::ModelSpec spec;
  if (rt::Status s = rt::ModelSpec::load(o.dir, spec); !s)
    return fail(kCannotRun, s.message());
  // --context: the KV caches' capacity for this run (model.json's text too,
  // so the reference interpreter and a first-use compilation build graphs of
  // that capacity).
  if (o.context != 0) {
    if (rt::Status s = spec.withContext(o.context); !s)
      return fail(kCannotRun, s.message());
    if (spec.importedContext == 0)
      llvm::errs() << "ssm-run: note: --context " << o.context << ": " << o.dir
                   << " has no KV cache (its states are the same size at every position), "
                      "so it holds any number of positions\n";
  }
  // The stream's states are allocated whole (the KV caches at their
  // capacity): past what this process may allocate, LLVM's allocation
  // handler would abort the run ("LLVM ERROR: out of memory").
  {
    int64_t fixed = 0, perPosition = 0, allocated = 0;
    spec.stateBytes(fixed, perPosition, allocated);
    const double bytes = double(fixed) + double(allocated);
    if (const double usable = double(rt::usableMemoryBytes()); bytes > usable)
      return fail(kCannotRun,
                  llvm::formatv("--context {0}: one stream's states (the KV caches at that "
                                "capacity) take {1:f2} GB, more than the {2:f2} GB this process "
                                "may use (the machine's memory, or ulimit -v); give a smaller "
                                "--context",
                                spec.contextLength(), bytes / 1e9, usable / 1e9)
                      .str());
  }
  if (o.hasPrompt == !o.tokensFile.empty())
    return fail(kCannotRun, "give exactly one of --prompt TEXT and --tokens FILE.npy");
  if (o.mode != "sequence" && o.mode != "step")
    return fail(kCannotRun, "--mode must be sequence or step, got '" + o.mode + "'");
  if (o.engine != "reference" && o.engine != "cpu" && o.engine != "opencl" && o.engine != "cuda")
    return fail(kCannotRun,
                "unknown engine '" + o.engine + "' for models (reference, cpu, opencl, cuda)");
  // The folder's tokenizer (ssm-import copies a checkpoint's tokenizer.json),
  // for the prompt's text and the generated tokens' text.
  std::unique_ptr<rt::tok::Tokenizer> tokenizer;
  if ((o.hasPrompt || o.generate > 0) && rt::tok::Tokenizer::inFolder(o.dir)) {
    rt::Status ts;
    tokenizer = rt::tok::Tokenizer::open(o.dir, ts);
    if (!tokenizer)
      return fail(kCannotRun, ts.message());
  }
  std::vector<int32_t> tokens;
  if (o.hasPrompt && tokenizer) {
    // As transformers' tokenizer(text): with the special tokens the
    // tokenizer's template adds (a bos for Llama-style ones; none for Qwen).
    if (rt::Status ts = tokenizer->encode(o.prompt, /*addSpecial=*/true, tokens); !ts)
      return fail(kCannotRun, "--prompt: " + ts.message());
    std::string ids;
    for (size_t i = 0; i < tokens.size() && i < 32; ++i)
      ids += (i ? " " : "") + std::to_string(tokens[i]);
    llvm::errs() << "ssm-run: the prompt is " << tokens.size() << " tokens of "
                 << rt::tok::Tokenizer::fileInFolder(o.dir) << ": " << ids
                 << (tokens.size() > 32 ? " ..." : "") << "\n";
  } else if (o.hasPrompt && spec.byteTokens) {
    // A byte-vocabulary model (model.json "byte_tokens", or a vocabulary of 256).
    for (unsigned char c : o.prompt)
      tokens.push_back(c);
  } else if (o.hasPrompt) {
    return fail(kCannotRun, o.dir + ": this model has no tokenizer (no tokenizer.json in the "
                                    "folder, and its vocabulary of " +
                                std::to_string(spec.vocab) +
                                " is not bytes): give the token ids with --tokens FILE.npy, or "
                                "import it from a checkpoint folder that has a tokenizer.json");
  } else if (!readTokenIds(o.tokensFile, tokens, error)) {
    return fail(kCannotRun, error);
  }
  if (tokens.empty())
    return fail(kCannotRun, "the prompt has no tokens");
  if (o.decodeFrom != 0 &&
      (o.mode != "step" || o.decodeFrom < 0 || o.decodeFrom >= static_cast<int64_t>(tokens.size())))
    return fail(kCannotRun, "--decode-from P goes with --mode step and needs 0 < P < the " +
                                std::to_string(tokens.size()) + " tokens given (got " +
                                std::to_string(o.decodeFrom) + ")");
  int64_t vocab = spec.vocab;
  for (int32_t t : tokens)
    if (t < 0 || (vocab > 0 && t >= vocab))
      return fail(kCannotRun, "token " + std::to_string(t) + " is outside the vocabulary of " +
                                  std::to_string(vocab));
  for (const std::string &path : {o.logitsOut, o.allLogitsOut})
    if (!path.empty() && !canWrite(path, o.force, error))
      return fail(kCannotRun, error);

  // A run on compiled kernels never executes again the libLLVM and libMLIR
  // code their static initializers touched at start-up (about 48 MB at
  // mamba-130m, 0.1x its weights file): released before the weights are
  // read, so the peak is the weights, the kernels' scratch and the runtime
  // (bench/rss_bench.py). Code used later (building a graph to compile)
  // faults back in.
  if (o.engine != "reference")
    releaseLibraryCode({"libLLVM", "libMLIR"});

  rt::Status status;
  std::unique_ptr<rt::WeightFile> weights =
      rt::WeightFile::open(o.dir + "/weights.safetensors", status,
                           o.mapWeights ? rt::WeightLoad::Map : rt::WeightLoad::Copy);
  if (!weights)
    return fail(kCannotRun, status.message());

  // The sequence graph computes the head for every position only when
  // they are asked for: otherwise for the last one.
  const bool allRows = o.mode == "sequence" && !o.allLogitsOut.empty();
  const LogitsRows rows = allRows ? LogitsRows::All : LogitsRows::Last;
  std::unique_ptr<rt::Model> model;
  std::unique_ptr<rt::TokenStream> stream;
  const CompilingStream *compiled = nullptr; // its states are checked for non-finite values
  // What the messages call the engine: o.engine, or the engine a folder's
  // compiled modules run on.
  std::string engineName = o.engine;
  if (o.engine == "reference") {
    stream = std::make_unique<ref::ModelStream>(context(), spec, *weights, rows);
  } else {
    model = rt::Model::open(spec, std::move(weights), status);
    if (!model)
      return fail(kCannotRun, status.message());
    model->setThreads(static_cast<int>(o.threads));
    // A deployed folder's modules are compiled for a CPU: a GPU engine
    // compiles the graph for its own target instead of running them.
    const bool gpu = o.engine == "opencl" || o.engine == "cuda";
    if (!gpu && !(status = model->addCompiledModules()))
      return fail(kCannotRun, status.message() +
                                  (o.engineDefaulted
                                       ? " (the cpu engine is the default for a model folder; "
                                         "--engine reference runs the interpreter instead)"
                                       : ""));
    for (const std::string &skipped : model->skippedModules())
      llvm::errs() << "ssm-run: note: skips " << skipped
                   << ", another machine's module (this CPU runs the folder's others)\n";
    if (!gpu)
      llvm::errs() << compiledEntryNotes(o.dir);
    // The folder's modules run on the engine they were compiled for (an
    // OpenCL module in compiled/ runs on OpenCL): named so, not "cpu".
    const bool hasModules = model->hasStep() || !model->sequenceLengths().empty();
    if (!gpu && hasModules) {
      std::vector<std::string> otherCompilers;
      engineName = compiledModulesEngine(o.dir, model->skippedModules(), &otherCompilers);
      // A module of the same format version from another ssm-opt runs (its
      // library carries its own Halide runtime); said, not run silently.
      for (const std::string &other : otherCompilers)
        llvm::errs() << "ssm-run: note: " << other << "; this is " << kThisCompiler
                     << ": it runs (the same module format); ssm-compile --force "
                        "recompiles it with this version\n";
    }
    if (o.engineDefaulted && engineName != "cpu")
      llvm::errs() << "ssm-run: running this folder's compiled modules on the " << engineName
                   << " engine they were compiled for (a model folder runs its compiled modules "
                      "by default; --engine reference runs the reference interpreter)\n";
    else if (o.engineDefaulted)
      llvm::errs() << "ssm-run: running on the cpu engine, the default for a model folder ("
                   << (hasModules
                           ? "its compiled modules"
                           : "no compiled modules: kernels compiled once on first use, and cached")
                   << "; --engine reference runs the reference interpreter)\n";
    else if (engineName != o.engine)
      llvm::errs() << "ssm-run: note: --engine " << o.engine << " runs this folder's compiled "
                   << "modules, which are compiled for the " << engineName << " engine\n";
    if (model->hasStep() || !model->sequenceLengths().empty()) {
      std::string lengths;
      for (int64_t l : model->sequenceLengths())
        lengths += (lengths.empty() ? "" : ", ") + std::to_string(l);
      llvm::errs() << "ssm-run: compiled modules in " << o.dir << "/compiled: sequence lengths "
                   << (lengths.empty() ? "none" : lengths)
                   << (model->hasStep() ? ", and the step function" : ", no step function") << "\n";
      // The compile options choose nothing here: said, not ignored silently.
      std::string unused = o.targetGiven && !o.compileArgs.empty() ? "--target and --tuning-db"
                           : o.targetGiven                          ? "--target"
                           : !o.compileArgs.empty()                 ? "--tuning-db"
                                                                    : "";
      if (!unused.empty())
        llvm::errs() << "ssm-run: note: " << unused
                     << (unused.find(" and ") == std::string::npos ? " chooses" : " choose")
                     << " how kernels are compiled, and this folder's modules are already "
                        "compiled: they run as they are (ssm-compile "
                     << o.dir << " takes the same flags)\n";
    }
    auto owned = std::make_unique<CompilingStream>(o, *model, rows, context);
    compiled = owned.get();
    stream = std::move(owned);
  }
  // A NaN or an infinity in the logits or the states (float32 overflow on
  // extreme weights where the float64 reference stays finite, see
  // docs/numerics.md): a warning, or with --check an error (exit 1). `when`
  // says after what. Returns true when the run may go on.
  bool nonFinite = false;
  auto checkFinite = [&](const std::vector<float> &logits, const std::string &when) {
    std::string where = firstNonFiniteIn("logits", logits);
    if (where.empty() && compiled)
      where = compiled->firstNonFinite();
    if (where.empty())
      return true;
    nonFinite = true;
    llvm::errs() << "ssm-run: " << (o.check ? "error" : "warning") << ": " << where << " " << when
                 << ": the " << engineName
                 << " engine's float32 overflowed or the weights hold non-finite values "
                    "(docs/numerics.md)\n";
    return !o.check;
  };

  std::vector<float> allLogits;
  // The prompt from the initial states: one sequence call, or a step per
  // token (with --decode-from P, the first P tokens as one untimed prefill,
  // then a step per token). `timedMs` receives the time of the timed part.
  const size_t first = o.mode == "step" ? static_cast<size_t>(o.decodeFrom) : 0;
  auto runPromptOn = [&](rt::TokenStream &on, std::vector<float> &all,
                         double *timedMs = nullptr) -> rt::Status {
    rt::TokenStream *stream = &on; // NOLINT: the body below reads `stream`
    stream->reset();
    all.clear();
    if (first > 0)
      if (rt::Status st = stream->prefill(tokens.data(), first); !st)
        return st;
    auto r0 = std::chrono::steady_clock::now();
    auto done = [&](rt::Status st) {
      if (timedMs)
        *timedMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - r0)
                       .count();
      return st;
    };
    if (o.mode == "sequence") {
      if (allRows)
        return done(stream->prefill(tokens.data(), tokens.size(), &all));
      rt::Status st = stream->prefill(tokens.data(), tokens.size());
      all = stream->logits();
      return done(st);
    }
    // Every position's logits only for --all-logits-out (a 512-token prompt
    // of a 50k vocabulary is 100 MB: mamba-130m's peak RSS in step form was
    // 1.35x its weights file, against 1.20x in sequence form).
    const bool keepAll = !o.allLogitsOut.empty();
    if (keepAll)
      all.reserve((tokens.size() - first) * static_cast<size_t>(std::max<int64_t>(vocab, 1)));
    for (size_t i = first; i < tokens.size(); ++i) {
      if (rt::Status st = stream->step(tokens[i]); !st)
        return done(st);
      if (keepAll)
        all.insert(all.end(), stream->logits().begin(), stream->logits().end());
    }
    if (!keepAll)
      all = stream->logits();
    return done({});
  };
  auto runPrompt = [&](std::vector<float> &all, double *timedMs = nullptr) {
    return runPromptOn(*stream, all, timedMs);
  };
  auto t0 = std::chrono::steady_clock::now();
  if (rt::Status st = runPrompt(allLogits); !st)
    return fail(kCannotRun, st.message());
  double promptSec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Every position's logits with --all-logits-out (both forms), else the last.
  const int64_t rowsOut =
      o.allLogitsOut.empty() ? 1 : static_cast<int64_t>(tokens.size() - first);
  if (vocab <= 0)
    vocab = static_cast<int64_t>(allLogits.size()) / rowsOut;
  if (static_cast<int64_t>(allLogits.size()) != vocab * rowsOut)
    return fail(kFailed, "the model returned " + std::to_string(allLogits.size()) +
                             " logits for " + std::to_string(rowsOut) + " position(s)");
  llvm::errs() << llvm::formatv("ssm-run: prompt: {0} tokens in {1:f1} ms ({2:f1} tokens/s, {3}, {4} "
                                "engine{5})\n",
                                tokens.size(), promptSec * 1e3, tokens.size() / promptSec, o.mode,
                                engineName,
                                o.engine == "reference"
                                    ? ""
                                    : ", first call includes compilation or cache lookup");
  if (!checkFinite(allLogits, "after the prompt"))
    return kFailed;
  std::vector<float> last(allLogits.end() - vocab, allLogits.end());
  if (!o.logitsOut.empty() && !writeNpy(o.logitsOut, "<f4", {vocab}, last.data(), error))
    return fail(kCannotRun, error);
  if (!o.allLogitsOut.empty() &&
      !writeNpy(o.allLogitsOut, "<f4", {rowsOut, vocab},
                allLogits.data(), error))
    return fail(kCannotRun, error);
  if (!o.stateOut.empty()) {
    auto *cs = dynamic_cast<const CompilingStream *>(stream.get());
    if (!cs)
      return fail(kCannotRun, "--state-out saves a compiled engine's stream: give --engine cpu");
    if (rt::Status st = cs->save(o.stateOut); !st)
      return fail(kCannotRun, st.message());
  }
  // --check on a compiled engine: the same prompt, the same way (sequence
  // or steps, --decode-from), on the reference interpreter (float64), and
  // the logits written above compared, in CONTRACTS.md's line.
  if (o.check && o.engine != "reference") {
    rt::Status wst;
    std::unique_ptr<rt::WeightFile> refWeights =
        rt::WeightFile::open(o.dir + "/weights.safetensors", wst, rt::WeightLoad::Map);
    if (!refWeights)
      return fail(kCannotRun, wst.message());
    ref::ModelStream refStream(context(), spec, *refWeights, rows);
    std::vector<float> refLogits;
    auto r0 = std::chrono::steady_clock::now();
    if (rt::Status st = runPromptOn(refStream, refLogits); !st)
      return fail(kCannotRun, "--check: the reference interpreter: " + st.message());
    llvm::errs() << llvm::formatv(
        "ssm-run: --check: the reference interpreter ran the prompt in {0:f1} ms\n",
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - r0).count());
    const std::vector<int64_t> shape =
        o.allLogitsOut.empty() ? std::vector<int64_t>{vocab} : std::vector<int64_t>{rowsOut, vocab};
    // The last position's logits unless every position's were kept.
    std::vector<double> got(o.allLogitsOut.empty() ? last.begin() : allLogits.begin(),
                            o.allLogitsOut.empty() ? last.end() : allLogits.end());
    std::vector<double> want(o.allLogitsOut.empty() ? refLogits.end() - std::min<size_t>(
                                                          refLogits.size(), size_t(vocab))
                                                    : refLogits.begin(),
                             refLogits.end());
    std::vector<int64_t> wantShape = shape;
    if (static_cast<int64_t>(want.size()) != vocab * (shape.size() == 2 ? rowsOut : 1))
      wantShape = {static_cast<int64_t>(want.size())};
    CompareResult c = compareArrays(shape, got, wantShape, want, Tolerance{o.rtol, o.atol});
    llvm::outs() << formatCompareLine("logits_vs_reference", c) << "\n";
    llvm::outs().flush();
    if (!c.pass) {
      char tol[64];
      std::snprintf(tol, sizeof tol, "rtol %g / atol %g", o.rtol, o.atol);
      return fail(kFailed, "--check: the " + engineName +
                               " engine's logits differ from the reference interpreter's past " +
                               tol);
    }
  }

  if (o.repeat > 0) {
    // The first run above was the warm-up (compilation or cache lookup,
    // loading, weight binding); time only the runs of the prompt, each from
    // the initial states. The generation below continues from the last.
    std::vector<double> ms;
    std::vector<float> scratchLogits;
    for (unsigned i = 0; i < o.repeat; ++i) {
      double t = 0.0;
      if (rt::Status st = runPrompt(scratchLogits, &t); !st)
        return fail(kCannotRun, st.message());
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    size_t n = ms.size();
    double med = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    unsigned threads = o.engine == "reference"
                           ? 1u
                           : (o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency()));
    const size_t timed = tokens.size() - first;
    llvm::outs() << llvm::formatv("median_ms={0:f4} threads={1} tokens={2} us_per_token={3:f3} mode={4}",
                                  med, threads, timed, med * 1e3 / timed, o.mode);
    if (first > 0)
      llvm::outs() << " from_position=" << first;
    llvm::outs() << "\n";
    llvm::outs().flush();
  }

  if (o.generate > 0) {
    // The text (or the ids, for a model with neither a tokenizer nor byte
    // tokens) is printed as it comes: a long run can be watched or cut.
    const bool asText = tokenizer || spec.byteTokens;
    if (!asText && !o.stopStrings.empty())
      return fail(kCannotRun, "--stop finds text, and this model has no tokenizer (its tokens are "
                              "printed as ids)");
    rt::SamplingParams params = o.sampling;
    if (params.temperature > 0.0f && !o.seedGiven) {
      params.seed = std::random_device{}() & 0x7fffffffu;
      llvm::errs() << "ssm-run: sampling with seed " << params.seed << " (--seed "
                   << params.seed << " repeats this run)\n";
    } else if (params.temperature == 0.0f) {
      for (const std::string &flag : o.samplingFlags)
        if (flag == "--top-k" || flag == "--top-p" || flag == "--min-p" || flag == "--seed")
          llvm::errs() << "ssm-run: note: " << flag
                       << " has no effect at temperature 0 (greedy); give --temperature T > 0\n";
    }
    rt::Sampler sampler(params);
    // The prompt is in the penalty window, as llama.cpp puts it.
    sampler.accept(tokens.data(), tokens.size());
    rt::GenerateOptions gen;
    gen.maxTokens = o.generate;
    gen.choose = sampler.chooser();
    // A tokenizer's end-of-sequence token ends the text (it is not printed).
    if (tokenizer && tokenizer->special().eos >= 0)
      gen.stopTokens.push_back(tokenizer->special().eos);
    rt::TokenTextStream text(tokenizer.get(), o.stopStrings);
    rt::Status textStatus;
    rt::GenerateResult done;
    std::vector<int32_t> generated;
    rt::Status st = rt::generate(
        *stream, gen,
        [&](int32_t token) {
          generated.push_back(token);
          if (!asText) {
            llvm::outs() << (generated.size() > 1 ? " " : "") << token;
          } else {
            std::string piece;
            if (!(textStatus = text.push(token, piece)))
              return false;
            llvm::outs() << piece;
          }
          llvm::outs().flush();
          return !text.stopped();
        },
        &done);
    if (asText) {
      std::string rest;
      text.finish(rest);
      llvm::outs() << rest;
    }
    llvm::outs() << "\n";
    llvm::outs().flush();
    if (!textStatus)
      return fail(kFailed, textStatus.message());
    // The KV caches full: what filled them and what to change (exit 2).
    if (!st && st.code() == rt::Code::ContextFull)
      return fail(kCannotRun,
                  llvm::formatv("--generate {0}: the context of {1} positions (the prompt's {2} "
                                "and the generated tokens) is full after {3} generated "
                                "token{4}; give a larger --context, or fewer --generate ({5})",
                                o.generate, spec.contextLength(), tokens.size(), generated.size(),
                                generated.size() == 1 ? "" : "s", st.message())
                      .str());
    if (!st)
      return fail(kCannotRun, st.message());
    if (tokenizer) {
      std::string ids;
      for (size_t i = 0; i < generated.size() && i < 64; ++i)
        ids += (i ? " " : "") + std::to_string(generated[i]);
      llvm::errs() << "ssm-run: generated ids: " << ids << (generated.size() > 64 ? " ..." : "")
                   << "\n";
    }
    std::string why = text.stopped() ? ", stopped at --stop '" + text.stopString() + "'"
                      : done.stopped ? ", stopped at the end-of-sequence token " +
                                           std::to_string(tokenizer->special().eos)
                                     : "";
    if (!nonFinite && !checkFinite(stream->logits(), "after the generated tokens"))
      return kFailed;
    // n tokens take n - 1 steps: the first comes from the prompt's logits.
    llvm::errs() << llvm::formatv("ssm-run: generated {0} tokens in {1:f1} ms ({2:f1} tokens/s, "
                                  "{3}){4}\n",
                                  done.tokens, done.seconds * 1e3,
                                  done.tokens > 1 ? (done.tokens - 1) / done.seconds : 0.0,
                                  params.temperature > 0.0f ? "sampled" : "greedy", why);
  }
  return kOk;
}

} // namespace ssm
