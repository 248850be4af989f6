// ssm-tune: autotunes the schedules of a graph's kernels for a target and records them in a tuning database.
//
//   ssm-tune <graph.mlir | model-dir> --target T --budget 5m --db tuning.db [--seed S]
//   ssm-tune <graph.mlir | model-dir> --db tuning.db --export tuned.mlir
//   ssm-tune <graph.mlir | model-dir> --db tuning.db --report [--chart report.png]
//
// The tuner itself (tuner/) never loads kernels: candidates are compiled and
// timed by child ssm-run processes (tuner/Measure.h), and this process links
// no Halide; the target string is resolved by `ssm-compile --print-target`.
#include "dialect/ScheduleSpace.h"
#include "dialect/SsmDialect.h"
#include "dialect/SsmOpList.h"
#include "tools/ThreadsOption.h"
#include "tools/StaleWork.h"
#include "tools/Version.h"
#include "frontend/SafeParse.h"
#include "import/ModelBuilder.h"
#include "passes/InitAll.h"
#include "passes/TargetInfo.h"
#include "runtime/AtomicFile.h"
#include "tuner/ApplyTuning.h"
#include "tuner/KernelKey.h"
#include "tuner/Report.h"
#include "tuner/Tuner.h"
#include "tuner/TuningDb.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <csignal>
#include <ctime>
#include <numeric>
#include <thread>
#include <unistd.h>

using namespace llvm;
namespace cl = llvm::cl;

namespace {

constexpr int kOk = 0, kFailed = 1, kCannotRun = 2, kInterrupted = 130;

cl::OptionCategory category("ssm-tune options");
cl::opt<std::string> inputPath(cl::Positional, cl::desc("<graph.mlir | model-dir>"), cl::init(""),
                               cl::cat(category));
cl::opt<std::string> target("target", cl::desc("Halide target to tune for (default: host)"),
                            cl::init("host"), cl::cat(category));
cl::opt<std::string> budget("budget",
                            cl::desc("Tuning time for the whole graph: 90, 90s, 5m, 1h (default "
                                     "5m); tuning runs when --budget is given or when neither "
                                     "--export nor --report is"),
                            cl::init("5m"), cl::cat(category));
cl::opt<std::string> dbPath("db", cl::desc("The tuning database (SQLite; created when absent)"),
                            cl::value_desc("file.db"), cl::init(""), cl::cat(category));
cl::opt<uint64_t> seed("seed", cl::desc("Seed of the search (default 0): the same seed explores "
                                        "the same candidates in the same order"),
                       cl::init(0), cl::cat(category));
// --threads (tools/ThreadsOption.h), set from the option in main.
unsigned threads = 0;
cl::opt<int64_t> seqLen("seq-len", cl::desc("Model folders: the sequence length of the "
                                            "forward_sequence graph to tune (default 512)"),
                        cl::init(512), cl::cat(category));
cl::opt<std::string> exportPath("export",
                                cl::desc("Write the graph with the database's best schedules as "
                                         "attributes (compiles without the database)"),
                                cl::value_desc("out.mlir"), cl::init(""), cl::cat(category));
cl::opt<bool> report("report", cl::desc("Print per kernel the heuristic, tuned and "
                                        "autoscheduler times and ratios, and write the chart"),
                     cl::init(false), cl::cat(category));
cl::opt<std::string> chartPath("chart",
                               cl::desc("With --report: the PNG bar chart (default: <db>.png, "
                                        "next to the database)"),
                               cl::value_desc("file.png"), cl::init(""), cl::cat(category));
cl::opt<bool> force("force", cl::desc("Overwrite an existing --export or --chart file"),
                    cl::init(false), cl::cat(category));
cl::opt<bool> noBaselines("no-baselines", cl::desc("Do not measure Halide's autoschedulers"),
                          cl::init(false), cl::cat(category));
cl::opt<unsigned> maxCandidates("max-candidates",
                                cl::desc("At most N search candidates per kernel (default: the "
                                         "budget decides)"),
                                cl::init(0), cl::cat(category));
cl::opt<unsigned> finalRounds(
    "final-rounds",
    cl::desc("After the search, measure each kernel's heuristic, best schedule and "
             "autoschedulers back to back this many times (default 3; the report shows their "
             "medians); a fifth of the budget is kept for them"),
    cl::init(3), cl::cat(category));
cl::opt<double> rtolOpt("rtol", cl::desc("Relative tolerance against the reference (default 1e-3)"),
                     cl::init(1e-3), cl::cat(category));
cl::opt<double> atolOpt("atol", cl::desc("Absolute tolerance against the reference (default 1e-4)"),
                     cl::init(1e-4), cl::cat(category));
cl::opt<bool> flushCacheOpt(
    "flush-cache",
    cl::desc("Time every candidate with its weights and states (the kernel's arguments that are "
             "function arguments in the graph) evicted from the caches before each timed call "
             "(ssm-run --flush-args), as the kernel runs inside a model whose other layers evict "
             "them; default: on for model folders, off for graphs"),
    cl::init(false), cl::cat(category));
cl::opt<bool> verbose("verbose", cl::desc("One line per candidate"), cl::init(false),
                      cl::cat(category));
cl::opt<bool> listKernels("list", cl::desc("List the graph's kernels and their keys, then exit"),
                          cl::init(false), cl::cat(category));
cl::opt<bool> printSpace("print-space",
                         cl::desc("Print every schedule field and its legal values, then exit"),
                         cl::init(false), cl::cat(category));
cl::opt<bool> keepWork("keep-work", cl::desc("Keep the work folder (candidates, inputs, logs)"),
                       cl::init(false), cl::cat(category));

int cannotRun(const Twine &msg) {
  errs() << "ssm-tune: error: " << msg << "\n";
  return kCannotRun;
}

/// Seconds in "90", "90s", "5m", "1h", "1m30s"; nullopt when malformed.
std::optional<double> parseDuration(StringRef s) {
  s = s.trim();
  if (s.empty())
    return std::nullopt;
  double total = 0;
  while (!s.empty()) {
    size_t n = s.find_first_not_of("0123456789.");
    StringRef num = s.substr(0, n);
    double v;
    if (num.empty() || num.getAsDouble(v))
      return std::nullopt;
    s = n == StringRef::npos ? StringRef() : s.substr(n);
    double unit = 1;
    if (!s.empty()) {
      char c = s.front();
      unit = c == 's' ? 1 : c == 'm' ? 60 : c == 'h' ? 3600 : -1;
      if (unit < 0)
        return std::nullopt;
      s = s.drop_front();
    }
    total += v * unit;
  }
  return total;
}

void printSearchSpace() {
  using ssm::FieldKind;
  for (ssm::ScheduleFamily f :
       {ssm::ScheduleFamily::Ssm, ssm::ScheduleFamily::Matmul, ssm::ScheduleFamily::Stage}) {
    outs() << "#ssm." << ssm::scheduleFamilyMnemonic(f) << "\n";
    for (const ssm::ScheduleField &field : ssm::scheduleFields(f)) {
      outs() << "  " << field.name << ": ";
      if (field.kind == FieldKind::Bool)
        outs() << "true, false";
      else if (field.kind == FieldKind::Enum)
        outs() << llvm::join(field.enumValues, ", ");
      else if (!field.values.empty())
        llvm::interleave(field.values, outs(), ", ");
      else
        outs() << field.lo << " .. " << field.hi;
      if (field.dotHi)
        outs() << " (dot: " << field.lo << " .. " << field.dotHi << ")";
      if (field.multipleOfVectorWidth)
        outs() << (f == ssm::ScheduleFamily::Matmul ? " (tiled: 1 or a multiple of vector_width)"
                                                     : " (1 or a multiple of vector_width)");
      if (!field.onlyAlgorithm.empty())
        outs() << " (algorithm = " << field.onlyAlgorithm << " only)";
      if (field.gpuOnly)
        outs() << " (GPU targets only, not searched)";
      outs() << "  -- " << field.meaning << "\n";
    }
  }
  outs() << "fields per ssm op:\n";
  ssm::forEachSsmOpType([](auto *tag) {
    using Op = std::remove_pointer_t<decltype(tag)>;
    if (!Op::getScheduleFields().empty()) // ssm.dequantize takes no schedule
      outs() << "  " << Op::getOperationName() << ": "
             << llvm::join(Op::getScheduleFields(), ", ") << "\n";
  });
}

/// The tool next to this executable.
std::string sibling(const char *argv0, StringRef name) {
  std::string self = sys::fs::getMainExecutable(argv0, (void *)&cannotRun);
  SmallString<256> p(sys::path::parent_path(self));
  sys::path::append(p, name);
  return std::string(p);
}

/// Runs `ssm-compile --print-target --target T`: the exact target string.
bool resolveTarget(const std::string &compiler, const std::string &t, std::string &resolved,
                   std::string &error) {
  SmallString<128> out, err;
  sys::fs::createTemporaryFile("ssm-tune-target", "txt", out);
  sys::fs::createTemporaryFile("ssm-tune-target", "err", err);
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(out), StringRef(err)};
  std::string msg;
  int rc = sys::ExecuteAndWait(compiler, {compiler, "--print-target", "--target", t},
                               std::nullopt, redirects, 60, 0, &msg);
  auto o = MemoryBuffer::getFile(out), e = MemoryBuffer::getFile(err);
  resolved = o ? (*o)->getBuffer().trim().str() : "";
  std::string errText = e ? (*e)->getBuffer().trim().str() : "";
  sys::fs::remove(out);
  sys::fs::remove(err);
  if (rc != 0 || resolved.empty()) {
    error = rc < 0 ? "cannot run " + compiler + ": " + msg
                   : StringRef(errText).consume_front("ssm-compile: error: ")
                         ? errText.substr(strlen("ssm-compile: error: "))
                         : errText;
    if (error.empty())
      error = "ssm-compile --print-target exited " + std::to_string(rc);
    return false;
  }
  return true;
}

/// Refuses an output file that exists (without --force) or whose folder is missing.
bool checkOutput(const std::string &path, const char *what, std::string &error) {
  if (sys::fs::is_directory(path)) {
    error = std::string(what) + " '" + path + "' is a folder";
    return false;
  }
  if (sys::fs::exists(path) && !force) {
    error = std::string(what) + " '" + path + "' exists; pass --force to overwrite it";
    return false;
  }
  StringRef parent = sys::path::parent_path(path);
  if (!parent.empty() && !sys::fs::is_directory(parent)) {
    error = std::string("the folder of ") + what + " '" + path + "' does not exist";
    return false;
  }
  return true;
}

/// Writes `text` to `path` whole (runtime/AtomicFile.h: a temporary next to
/// it, fsync'd and renamed; a failure leaves the old file).
bool writeWhole(const std::string &path, StringRef text, std::string &error) {
  if (!ssm::writeFileAtomically(path, text.str(), error))
    return false;
  return true;
}

void onInterrupt(int) { ssm::tune::gInterrupted = 1; }

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::opt<unsigned> &threadsOpt = ssm::tools::threadsOption(
      category, "Threads of the measured kernels (0, the default: one per core)");
  llvm::cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { os << ssm::tools::versionText("ssm-tune"); });
  cl::HideUnrelatedOptions(category);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "ssm-tune: autotune the schedules of a graph's kernels\n\n"
          "  ssm-tune <graph.mlir | model-dir> --target T --budget 5m --db tuning.db [--seed S] "
          "[--threads N]\n"
          "  ssm-tune <graph.mlir | model-dir> --db tuning.db --export tuned.mlir\n"
          "  ssm-tune <graph.mlir | model-dir> --db tuning.db --report [--chart report.png]\n\n"
          "Every candidate is compiled, checked against the reference interpreter and timed "
          "by a child ssm-run; each measurement is one row of the database, which "
          "ssm-compile --tuning-db and ssm-run --tuning-db apply. --threads N: the threads "
          "candidates run with (default: every core; recorded with each row). Exit 0 when done, 2 when it "
          "cannot run, 130 when interrupted (Ctrl-C keeps every finished measurement).\n",
          &errs()))
    return kCannotRun;
  threads = threadsOpt;
  if (printSpace) {
    printSearchSpace();
    return kOk;
  }
  if (inputPath.empty())
    return cannotRun("no input: give a graph (.mlir) or a model folder (see --help)");
  bool tuning = budget.getNumOccurrences() || (exportPath.empty() && !report && !listKernels);
  std::optional<double> budgetSeconds = parseDuration(budget);
  if (tuning && !budgetSeconds)
    return cannotRun("--budget '" + budget + "' is not a duration (90, 90s, 5m, 1h)");
  if (tuning && *budgetSeconds <= 0)
    return cannotRun("--budget is 0: nothing would be measured (give a time such as 5m)");
  if (dbPath.empty() && !listKernels)
    return cannotRun("--db <file.db> is required (the tuning database to write or read)");
  if (!(rtolOpt >= 0) || !(atolOpt >= 0))
    return cannotRun("--rtol and --atol must be >= 0");

  // The graph: a file, or a model folder's graphs (both functions).
  mlir::DialectRegistry registry;
  ssm::registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  ctx.printOpOnDiagnostic(false);
  SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diag(sourceMgr, &ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string error;
  if (sys::fs::is_directory(inputPath)) {
    std::string json = inputPath + "/model.json";
    auto buf = MemoryBuffer::getFile(json);
    if (!buf)
      return cannotRun("'" + inputPath + "' is a folder without model.json (not an ssm-import "
                       "output)");
    if (seqLen < 1)
      return cannotRun("--seq-len must be at least 1");
    std::string text;
    if (!ssm::buildModelMLIR((*buf)->getBuffer().str(), seqLen, text, error))
      return cannotRun(json + ": " + error);
    module = ssm::parseModuleChecked(text, json, &ctx);
    if (!module)
      return cannotRun("the graph built from " + json + " does not verify (see above)");
  } else {
    auto file = mlir::openInputFile(inputPath, &error);
    if (!file)
      return cannotRun("cannot open '" + inputPath + "': " + error);
    sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
    module = ssm::parseModuleChecked(sourceMgr, &ctx);
    if (!module) {
      errs() << "ssm-tune: error: '" << inputPath << "' is not valid IR (see above)\n";
      return kFailed;
    }
  }
  std::vector<ssm::tune::Kernel> kernels = ssm::tune::collectKernels(*module);
  if (kernels.empty())
    return cannotRun("nothing to tune in '" + inputPath +
                     "': no ssm op or linalg matmul with static shapes");
  if (listKernels) {
    for (const ssm::tune::Kernel &k : kernels)
      outs() << k.key << "  x" << k.ops.size() << "  " << k.summary << "\n";
    return kOk;
  }

  // Outputs are checked before anything runs, so a mistake costs no tuning.
  if (!exportPath.empty() && !checkOutput(exportPath, "--export", error))
    return cannotRun(error);
  std::string chart = chartPath.empty() ? dbPath + ".png" : std::string(chartPath);
  if (report && !chartPath.empty() && !checkOutput(chart, "--chart", error))
    return cannotRun(error);

  std::string compiler = sibling(argv[0], "ssm-compile");
  ssm::tune::TuningContext tc;
  if (!resolveTarget(compiler, target, tc.target, error))
    return cannotRun(error);
  if (std::optional<ssm::TargetInfo> info = ssm::parseTarget(tc.target); info && info->gpu)
    return cannotRun("target '" + target + "' is a GPU target: ssm-tune measures CPU "
                     "schedules (GPU targets get ssm-assign-schedules' gpu_threads/gpu_tile)");
  tc.cpuModel = ssm::tune::hostCpuModel();
  tc.threads = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  tc.ssmVersion = ssm::tune::ssmVersion();
  tc.halideVersion = ssm::tune::halideVersion();

  auto db = ssm::tune::TuningDb::open(
      dbPath, tuning ? ssm::tune::TuningDb::Mode::ReadWrite : ssm::tune::TuningDb::Mode::ReadOnly,
      error);
  if (!db)
    return cannotRun(error);

  if (tuning) {
    ssm::tune::TuneOptions o;
    o.target = target;
    o.context = tc;
    o.budgetSeconds = *budgetSeconds;
    o.seed = seed;
    o.ssmRun = sibling(argv[0], "ssm-run");
    o.rtol = rtolOpt;
    o.atol = atolOpt;
    o.baselines = !noBaselines;
    o.maxCandidates = maxCandidates;
    o.finalRounds = finalRounds;
    o.flushCache = flushCacheOpt.getNumOccurrences() ? bool(flushCacheOpt)
                                                     : sys::fs::is_directory(inputPath);
    o.progressBar = ::isatty(2) && !verbose;
    o.verbose = verbose;
    o.runId = formatv("{0}-{1}", std::time(nullptr), ::getpid()).str();
    // $TMPDIR/ssm-tune-<pid>-XXXXXX: the work folders of killed runs (their
    // process gone) are removed first; --keep-work folders carry no pid.
    SmallString<256> tmpRoot;
    sys::path::system_temp_directory(/*ErasedOnReboot=*/true, tmpRoot);
    for (const std::string &r :
         ssm::tools::removeStaleWork(std::string(tmpRoot), "ssm-tune-", '-'))
      errs() << "ssm-tune: removed " << r << ", the work folder of a run that was killed\n";
    SmallString<256> work;
    std::string workPrefix =
        keepWork ? std::string("ssm-tune-kept") : "ssm-tune-" + std::to_string(::getpid());
    if (std::error_code ec = sys::fs::createUniqueDirectory(workPrefix, work))
      return cannotRun("cannot create a work folder: " + ec.message());
    o.workDir = std::string(work);
    errs() << formatv("ssm-tune: {0} kernels ({1} ops) for {2}, {3} threads, budget {4} s, "
                      "seed {5}{6}\n",
                      kernels.size(),
                      std::accumulate(kernels.begin(), kernels.end(), size_t(0),
                                      [](size_t n, const ssm::tune::Kernel &k) {
                                        return n + k.ops.size();
                                      }),
                      tc.target, tc.threads, *budgetSeconds, uint64_t(seed),
                      o.flushCache ? ", weights and states flushed from the caches before each timed call" : "");
    struct sigaction sa = {};
    sa.sa_handler = onInterrupt;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
    std::vector<ssm::tune::KernelOutcome> outcomes;
    bool ok = ssm::tune::tuneKernels(kernels, ctx, *db, o, outcomes, error);
    if (keepWork)
      errs() << "ssm-tune: work folder kept: " << o.workDir << "\n";
    else
      sys::fs::remove_directories(o.workDir);
    if (!ok)
      return cannotRun(error);
    if (ssm::tune::gInterrupted) {
      errs() << "ssm-tune: interrupted; every finished measurement is in '" << dbPath << "'\n";
      return kInterrupted;
    }
  }

  if (!exportPath.empty()) {
    ssm::tune::ApplySummary summary;
    if (!ssm::tune::applyTuning(*module, *db, tc, summary, error))
      return cannotRun("cannot read the tuning database '" + dbPath + "': " + error);
    std::string text;
    raw_string_ostream os(text);
    module->print(os);
    if (!writeWhole(exportPath, os.str(), error))
      return cannotRun(error);
    errs() << "ssm-tune: wrote " << exportPath << "; " << summary.describe(tc) << "\n";
  }

  if (report) {
    std::vector<ssm::tune::ReportRow> rows = ssm::tune::buildReport(kernels, *db, tc, error);
    if (!error.empty())
      return cannotRun("cannot read the tuning database '" + dbPath + "': " + error);
    ssm::tune::printReport(rows, tc, outs());
    outs().flush();
    // The chart: our matplotlib script, installed next to the tools or in the source tree.
    std::string script = sibling(argv[0], "../share/ssm-opt/tune_chart.py");
    if (!sys::fs::exists(script))
      script = SSM_SOURCE_DIR "/tuner/tune_chart.py";
    SmallString<128> json;
    sys::fs::createTemporaryFile("ssm-tune-report", "json", json);
    if (!writeWhole(std::string(json), ssm::tune::reportJson(rows, tc), error))
      return cannotRun(error);
    // Debian's python3 first: python3-matplotlib is installed for it.
    auto python = sys::fs::can_execute("/usr/bin/python3")
                      ? ErrorOr<std::string>(std::string("/usr/bin/python3"))
                      : sys::findProgramByName("python3");
    if (!python) {
      sys::fs::remove(json);
      return cannotRun("python3 is not on PATH: the chart is not written");
    }
    std::string msg;
    outs().flush(); // the table before the child's and our stderr lines
    int rc = sys::ExecuteAndWait(*python, {*python, script, std::string(json), chart},
                                 std::nullopt, {}, 120, 0, &msg);
    sys::fs::remove(json);
    if (rc != 0)
      return cannotRun("the chart script " + script + " failed" +
                       (msg.empty() ? " (exit " + std::to_string(rc) + ")" : ": " + msg));
    errs() << "ssm-tune: chart written to " << chart << "\n";
  }
  return kOk;
}
