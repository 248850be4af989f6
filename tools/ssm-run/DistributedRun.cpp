// ssm-run --distributed: a prompt's prefill across MPI ranks (ModelRunner.h says what; runtime/distributed/Prefill.h how).
#include "tools/ssm-run/ModelRunner.h"

#include "llvm/Support/raw_ostream.h"

#if SSM_HAVE_MPI
#include "driver/CompileCache.h"
#include "import/ModelBuilder.h"
#include "passes/Passes.h"
#include "reference/ModelStream.h"
#include "runtime/ModelSpec.h"
#include "runtime/Module.h"
#include "runtime/Npy.h"
#include "runtime/StateFile.h"
#include "runtime/Weights.h"
#include "runtime/distributed/Prefill.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#endif

namespace ssm {

#if !SSM_HAVE_MPI
int runDistributed(const ModelRunOptions &, const std::function<mlir::MLIRContext &()> &) {
  llvm::errs() << "ssm-run: error: --distributed needs a build with MPI (configure with "
                  "-DSSM_MPI=ON; scripts/install-deps.sh installs Open MPI)\n";
  return 2;
}
#else

namespace {

constexpr int kOk = 0, kFailed = 1, kCannotRun = 2;
/// Tokens per kernel call of a rank's slice ($SSM_DISTRIBUTED_CHUNK sets
/// it): the single-process prompt's call length (ModelRunner.cpp,
/// kFirstUseChunk), so a rank's per-token cost is the single process's; one
/// call over a whole slice of 8,192 tokens cost 1.44x more per token at
/// mamba-130m shapes (its intermediates leave the caches; 64 to 1,024 tokens
/// per call: 103, 97, 86, 103, 107 us per token and layer).
constexpr int64_t kDistributedChunk = 256;

/// The slice lengths: $SSM_DISTRIBUTED_SLICES ("a,b,c", one per rank,
/// summing to n) or n split by weights 1 (R <= 2) or 2, 1, ..., 1, 2 (the
/// middle ranks run their slice twice per layer: runtime/distributed/Prefill.h).
bool sliceLengths(int64_t n, int ranks, std::vector<int64_t> &out, std::string &error) {
  out.clear();
  if (const char *env = std::getenv("SSM_DISTRIBUTED_SLICES"); env && *env) {
    std::stringstream ss(env);
    std::string item;
    int64_t sum = 0;
    while (std::getline(ss, item, ',')) {
      char *end = nullptr;
      long long v = std::strtoll(item.c_str(), &end, 10);
      if (item.empty() || *end != '\0' || v < 1) {
        error = "SSM_DISTRIBUTED_SLICES='" + std::string(env) +
                "': each slice is a token count >= 1, comma-separated";
        return false;
      }
      out.push_back(v);
      sum += v;
    }
    if (static_cast<int>(out.size()) != ranks || sum != n) {
      error = "SSM_DISTRIBUTED_SLICES='" + std::string(env) + "' gives " +
              std::to_string(out.size()) + " slices of " + std::to_string(sum) + " tokens for " +
              std::to_string(ranks) + " ranks and " + std::to_string(n) + " tokens";
      return false;
    }
    return true;
  }
  if (n < ranks) {
    error = "the prompt has " + std::to_string(n) + " tokens for " + std::to_string(ranks) +
            " ranks: every rank needs at least one";
    return false;
  }
  std::vector<int64_t> weight(ranks, 1);
  if (ranks >= 3)
    weight.front() = weight.back() = 2;
  int64_t total = 0, given = 0;
  for (int64_t w : weight)
    total += w;
  for (int r = 0; r < ranks; ++r) {
    int64_t len = std::max<int64_t>(1, n * weight[r] / total);
    out.push_back(len);
    given += len;
  }
  // What rounding left (or took) goes to the first ranks, one token each.
  for (int r = 0; given != n; r = (r + 1) % ranks) {
    int64_t step = given < n ? 1 : (out[r] > 1 ? -1 : 0);
    out[r] += step;
    given += step;
  }
  return true;
}

/// The graph of `len` tokens through ssm-distribute-prefill; its halo rows.
bool distributedGraph(const rt::ModelSpec &spec, const rt::WeightFile &weights, int64_t len,
                      mlir::MLIRContext &ctx, std::string &text, int64_t &halo,
                      std::string &error) {
  if (!ref::storedModelGraph(spec.text, len, LogitsRows::Last, weights, ctx, text, error))
    return false;
  std::string diag;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
      diag += (diag.empty() ? "" : "; ") + d.str();
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
  if (!module) {
    error = "the model's graph does not parse: " + diag;
    return false;
  }
  mlir::PassManager pm(&ctx);
  pm.addPass(ssm::createSsmDistributePrefill());
  if (mlir::failed(pm.run(*module))) {
    error = spec.architecture + " cannot be prefilled across ranks: " + diag;
    return false;
  }
  halo = 0;
  for (auto fn : module->getOps<mlir::func::FuncOp>())
    if (auto a = fn->getAttrOfType<mlir::IntegerAttr>("ssm.halo_rows"))
      halo = std::max<int64_t>(halo, a.getInt());
  text.clear();
  llvm::raw_string_ostream os(text);
  module->print(os);
  return true;
}

} // namespace

int runDistributed(const ModelRunOptions &o, const std::function<mlir::MLIRContext &()> &context) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    MPI_Init(nullptr, nullptr);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const std::string who = "ssm-run: rank " + std::to_string(rank) + " of " + std::to_string(size);
  auto finish = [&](int code, const std::string &msg) {
    if (!msg.empty()) // one write: the ranks' lines do not interleave
      llvm::errs() << (who + ": error: " + msg + "\n");
    MPI_Finalize();
    return code;
  };
  // Each rank's local outcome, agreed before the next collective step so a
  // failure on one rank ends all of them (no rank waits on a dead peer).
  auto agree = [&](bool ok) {
    int mine = ok ? 1 : 0, all = 0;
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
      return false;
    return all == 1;
  };

  // Checks every rank makes alike: they fail together, before any work.
  if (o.mode != "sequence")
    return finish(kCannotRun, "--distributed prefills in the scan form: give --mode sequence");
  if (o.engine != "cpu")
    return finish(kCannotRun, "--distributed runs compiled kernels: give --engine cpu");
  if (o.tokensFile.empty() || o.hasPrompt)
    return finish(kCannotRun, "--distributed takes the tokens as --tokens FILE.npy");
  if (o.generate > 0 || !o.allLogitsOut.empty() || o.repeat > 0 || o.decodeFrom != 0 || o.check)
    return finish(kCannotRun, "--distributed writes the last logits and the state (--logits-out, "
                              "--state-out); --generate, --all-logits-out, --repeat, "
                              "--decode-from and --check are single-process (load the state "
                              "file; compare the logits with a single-process run's)");

  std::string error;
  rt::ModelSpec spec;
  if (rt::Status st = rt::ModelSpec::load(o.dir, spec); !st)
    return finish(kCannotRun, st.message());
  if (o.context != 0)
    if (rt::Status st = spec.withContext(o.context); !st)
      return finish(kCannotRun, st.message());
  std::map<std::string, float> stateInit;
  for (const rt::StateSpec &s : spec.states)
    stateInit[s.name] = s.init;
  std::vector<int32_t> tokens;
  if (!readTokenIds(o.tokensFile, tokens, error))
    return finish(kCannotRun, error);
  for (int32_t t : tokens)
    if (t < 0 || (spec.vocab > 0 && t >= spec.vocab))
      return finish(kCannotRun, "token " + std::to_string(t) + " is outside the vocabulary of " +
                                    std::to_string(spec.vocab));
  std::vector<int64_t> slices;
  if (!sliceLengths(static_cast<int64_t>(tokens.size()), size, slices, error))
    return finish(kCannotRun, error);
  int64_t begin = 0;
  for (int r = 0; r < rank; ++r)
    begin += slices[r];
  const int64_t n = slices[rank];

  rt::Status status;
  std::unique_ptr<rt::WeightFile> weights =
      rt::WeightFile::open(o.dir + "/weights.safetensors", status,
                           o.mapWeights ? rt::WeightLoad::Map : rt::WeightLoad::Copy);
  if (!weights)
    return finish(kCannotRun, status.message());

  // The slice runs as calls of `chunk` tokens and one of the rest
  // (runtime/distributed/Prefill.h): a graph for each length, refused
  // (attention, the gated delta rule) before anything runs.
  int64_t chunk = kDistributedChunk;
  if (const char *env = std::getenv("SSM_DISTRIBUTED_CHUNK"); env && *env) {
    char *end = nullptr;
    long long v = std::strtoll(env, &end, 10);
    if (*end != '\0' || v < 1)
      return finish(kCannotRun, "SSM_DISTRIBUTED_CHUNK='" + std::string(env) +
                                    "': the tokens per kernel call, a count >= 1");
    chunk = v;
  }
  std::vector<int64_t> lengths = {std::min(n, chunk)};
  if (n > chunk && n % chunk != 0)
    lengths.push_back(n % chunk);
  std::vector<std::string> texts(lengths.size());
  int64_t halo = 0;
  bool ok = true;
  for (size_t i = 0; i < lengths.size() && ok; ++i) {
    int64_t h = 0;
    ok = distributedGraph(spec, *weights, lengths[i], context(), texts[i], h, error);
    halo = std::max(halo, h);
  }
  if (!ok)
    llvm::errs() << (who + ": error: " + error + "\n");
  if (!agree(ok))
    return finish(kCannotRun, ok ? "another rank could not build its graph (its message is above)" : "");
  std::vector<std::unique_ptr<rt::CompiledModule>> modules;
  for (const std::string &text : texts) {
    int code = kCannotRun;
    std::string dir = compileWithCache(text, o.target, o.argv0, error, code, o.compileArgs);
    std::unique_ptr<rt::CompiledModule> module;
    if (!dir.empty())
      module = rt::CompiledModule::load(dir, error);
    if (!module)
      break;
    module->setThreads(static_cast<int>(o.threads));
    modules.push_back(std::move(module));
  }
  ok = modules.size() == texts.size();
  if (!ok)
    llvm::errs() << (who + ": error: " + error + "\n");
  if (!agree(ok))
    return finish(kCannotRun, ok ? "another rank could not compile (its message is above)" : "");
  // Test hook (test/distributed): this rank dies here, mid-run for the others.
  if (const char *die = std::getenv("SSM_DISTRIBUTED_TEST_EXIT_RANK"))
    if (std::atoi(die) == rank) {
      llvm::errs() << who << ": exiting now (SSM_DISTRIBUTED_TEST_EXIT_RANK)\n";
      llvm::errs().flush();
      _exit(3);
    }

  dist::PrefillResult result;
  rt::Status st =
      dist::prefill(MPI_COMM_WORLD, *modules[0], *weights, tokens.data() + begin, n, halo, result,
                    stateInit, modules.size() > 1 ? modules[1].get() : nullptr);
  if (!st)
    return finish(st.code() == rt::Code::KernelFailed ? kFailed : kCannotRun, st.message());

  if (rank == size - 1) {
    llvm::errs() << llvm::formatv(
        "ssm-run: distributed prefill: {0} tokens on {1} ranks (this rank's slice {2}) in {3:f1} "
        "ms; {4} bytes received per layer by this rank\n",
        result.totalTokens, size, n, result.seconds * 1e3, result.bytesExchangedPerLayer);
    const int64_t vocab = static_cast<int64_t>(result.logits.size());
    if (!o.logitsOut.empty() &&
        !writeNpy(o.logitsOut, "<f4", {vocab}, result.logits.data(), error))
      return finish(kCannotRun, error);
    if (!o.stateOut.empty()) {
      rt::SavedState saved;
      saved.fingerprint = spec.fingerprint;
      saved.position = result.totalTokens;
      saved.logits = result.logits;
      for (const rt::StateSpec &s : spec.states) {
        auto it = std::find_if(result.states.begin(), result.states.end(),
                               [&](const auto &p) { return p.first == s.name; });
        if (it == result.states.end())
          return finish(kFailed, "no layer returned state '" + s.name + "'");
        saved.states.push_back({s.name, s.shape, it->second});
      }
      if (rt::Status w = rt::writeStateFile(o.stateOut, saved); !w)
        return finish(kCannotRun, w.message());
    }
  }
  return finish(kOk, "");
}
#endif

} // namespace ssm
