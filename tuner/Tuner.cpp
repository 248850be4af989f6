// The tuning loop (see Tuner.h).
#include "tuner/Tuner.h"

#include "dialect/SsmDialect.h"
#include "dialect/SsmOps.h"
#include "passes/Pipelines.h"
#include "passes/TargetInfo.h"
#include "reference/Interpreter.h"
#include "runtime/Npy.h"
#include "tuner/Measure.h"
#include "tuner/Search.h"
#include "tuner/SearchSpace.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <set>

using namespace mlir;

namespace ssm::tune {

volatile std::sig_atomic_t gInterrupted = 0;
const char *const kAutoschedulerNames[3] = {"adams2019", "li2018", "mullapudi2016"};

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string join(const std::string &dir, const std::string &file) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, file);
  return std::string(p);
}

std::string clockText(double seconds) {
  int s = static_cast<int>(std::max(0.0, seconds));
  return llvm::formatv("{0}:{1:d2}", s / 60, s % 60).str();
}

/// The operands of `op` that are decay rates A (negative for a stable
/// recurrence): random values of either sign would overflow a long scan.
llvm::DenseSet<Value> decayOperands(Operation *op) {
  llvm::DenseSet<Value> out;
  if (auto s = dyn_cast<SelectiveScanOp>(op))
    out.insert(s.getA());
  else if (auto s = dyn_cast<SelectiveUpdateOp>(op))
    out.insert(s.getA());
  else if (auto s = dyn_cast<DiscretizeOp>(op))
    out.insert(s.getA());
  else if (auto s = dyn_cast<LtiKernelOp>(op))
    out.insert(s.getA());
  return out;
}

/// Per-kernel state between the setup and the search.
struct KernelRun {
  OwningOpRef<ModuleOp> module;
  Operation *op = nullptr;
  std::string dir;
  MeasureSetup setup;
  unsigned repeats = 10;
  unsigned searchTimeout = 0; // seconds per search candidate (0: TuneOptions::timeoutSeconds)
  unsigned serial = 0; // candidate files
  bool ready = false;  // set up and measured: the search may run
  std::unique_ptr<SearchSpace> space;
  std::set<std::string> seen;
  std::optional<Point> bestPoint;
  std::string heuristicText;
  std::string prefix; // "[i/n] op: "
  Attribute heuristic, best; // the heuristic's schedule; the fastest correct one so far
  std::vector<std::string> baselinesOk; // autoschedulers that compiled and agreed
};

class Loop {
public:
  Loop(MLIRContext &ctx, TuningDb &db, const TuneOptions &o, Clock::time_point deadline)
      : ctx(ctx), db(db), o(o), deadline(deadline) {}

  /// The inputs, the reference, the heuristic and the baselines.
  bool prepare(const Kernel &k, size_t index, size_t total, KernelRun &r, KernelOutcome &out,
               std::string &error);
  /// One final round: the heuristic, the best schedule and the baselines
  /// again, back to back (kinds "final-<kind>").
  bool finalRound(const Kernel &k, KernelRun &r, unsigned round, std::string &error);
  /// The search until `kernelDeadline`.
  bool search(const Kernel &k, KernelRun &r, KernelOutcome &out,
              Clock::time_point kernelDeadline, std::string &error);

private:
  bool setUp(const Kernel &k, KernelRun &r, KernelOutcome &out);
  /// Measures `schedule` (empty: the autoscheduler `autoschedule`) and
  /// records it; false only when the database write fails.
  /// With `screenAboveMs` > 0, one timed call first: a candidate slower
  /// than that is recorded from it (repeats 1) without the full timing.
  bool measureAndRecord(const Kernel &k, KernelRun &r, const std::string &kind,
                        Attribute schedule, const std::string &autoschedule,
                        Measurement &m, std::string &error, double screenAboveMs = 0);
  /// Counts a measured candidate into `out` and redraws the status line.
  void note(KernelRun &r, KernelOutcome &out, const std::string &text, const Measurement &m,
            const std::optional<Point> &p);
  void status(const std::string &line, bool final);

  MLIRContext &ctx;
  TuningDb &db;
  const TuneOptions &o;
  Clock::time_point deadline;
  std::string progressPrefix;
};

void Loop::status(const std::string &line, bool final) {
  if (o.progressBar) {
    llvm::errs() << "\r\033[K" << progressPrefix << line;
    if (final)
      llvm::errs() << "\n";
  } else if (final || o.verbose) {
    llvm::errs() << progressPrefix << line << "\n";
  }
}

std::string msText(double ms) { return llvm::formatv("{0:f4} ms", ms).str(); }

void Loop::note(KernelRun &r, KernelOutcome &out, const std::string &text, const Measurement &m,
                const std::optional<Point> &p) {
  ++out.candidates;
  if (m.status == "wrong")
    ++out.wrong;
  else if (m.status != "ok")
    ++out.failed;
  else if (!out.bestMs || m.medianMs < out.bestMs) {
    out.bestMs = m.medianMs;
    out.bestSchedule = text;
    r.best = parseAttribute(text, &ctx);
    if (p)
      r.bestPoint = p;
  }
  double left = std::chrono::duration<double>(deadline - Clock::now()).count();
  std::string line = llvm::formatv("{0} candidates", out.candidates).str();
  if (out.wrong || out.failed)
    line += llvm::formatv(" ({0} wrong, {1} failed)", out.wrong, out.failed).str();
  if (out.bestMs)
    line += ", best " + msText(out.bestMs);
  if (out.heuristicMs)
    line += " (heuristic " + msText(out.heuristicMs) + ")";
  line += ", " + clockText(left) + " left";
  status(line, false);
  if (o.verbose && m.status != "ok")
    llvm::errs() << "    " << text << ": " << m.status << ": " << m.message << "\n";
}

bool Loop::setUp(const Kernel &k, KernelRun &r, KernelOutcome &out) {
  r.module = parseSourceString<ModuleOp>(k.ir, &ctx);
  if (!r.module) {
    out.skipped = "its kernel module does not parse";
    return false;
  }
  r.op = kernelOp(*r.module);
  auto fn = r.op ? dyn_cast<func::FuncOp>(r.op->getParentOp()) : func::FuncOp();
  if (!fn) {
    out.skipped = "no tunable op in its kernel module";
    return false;
  }
  // Inputs: U(-0.5, 0.5), decay rates -U(0.5, 1.5), integers 0; seeded by the
  // key so that every run checks a kernel on the same data.
  std::seed_seq seq(k.key.begin(), k.key.end());
  std::mt19937_64 rng(seq);
  std::uniform_real_distribution<double> uniform(-0.5, 0.5);
  llvm::DenseSet<Value> decays = decayOperands(r.op);
  std::vector<ref::Array> args;
  std::string error;
  for (BlockArgument a : fn.getArguments()) {
    auto t = cast<RankedTensorType>(a.getType());
    std::vector<int64_t> shape(t.getShape().begin(), t.getShape().end());
    ref::Array arr(shape);
    std::string dtype;
    if (t.getElementType().isF32()) {
      dtype = "<f4";
      for (double &v : arr.data)
        v = decays.count(a) ? -(1.0 + uniform(rng)) : uniform(rng);
    } else if (t.getElementType().isInteger(32)) {
      dtype = "<i4";
    } else {
      out.skipped = "argument type " + llvm::formatv("{0}", t).str() + " is not generated";
      return false;
    }
    std::string path = join(r.dir, "input" + std::to_string(a.getArgNumber()) + ".npy");
    if (!writeNpyDoubles(path, dtype, shape, arr.data, error)) {
      out.skipped = error;
      return false;
    }
    r.setup.inputs.push_back(path);
    args.push_back(std::move(arr));
  }
  status("reference interpreter ...", false);
  auto t0 = Clock::now();
  auto results = ref::runFunction(fn, args);
  if (!results) {
    out.skipped = "the reference interpreter failed: " + llvm::toString(results.takeError());
    return false;
  }
  for (size_t i = 0; i < results->size(); ++i) {
    const ref::Array &res = (*results)[i];
    if (!llvm::all_of(res.data, [](double v) { return std::isfinite(v); })) {
      out.skipped = "the reference result " + std::to_string(i) +
                    " is not finite on the generated inputs";
      return false;
    }
    std::string path = join(r.dir, "expected" + std::to_string(i) + ".npy");
    if (!writeNpyDoubles(path, "<f4", res.shape, res.data, error)) {
      out.skipped = error;
      return false;
    }
    r.setup.expected.push_back(path);
  }
  if (o.verbose)
    llvm::errs() << progressPrefix
                 << llvm::formatv("reference interpreter: {0:f1} s\n", secondsSince(t0));
  return true;
}

bool Loop::measureAndRecord(const Kernel &k, KernelRun &r, const std::string &kind,
                            Attribute schedule, const std::string &autoschedule,
                            Measurement &m, std::string &error, double screenAboveMs) {
  if (schedule)
    r.op->setAttr(kScheduleAttrName, schedule);
  else
    r.op->removeAttr(kScheduleAttrName);
  std::string path = join(r.dir, "candidate" + std::to_string(r.serial++) + ".mlir");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec) {
      m.status = "failed";
      m.message = "cannot write " + path + ": " + ec.message();
      return true;
    }
    r.module->print(os);
    os.close();
    if (os.has_error()) { // a full disk: an error, not LLVM's abort in the destructor
      m.status = "failed";
      m.message = "cannot write " + path + ": " + os.error().message();
      os.clear_error();
      return true;
    }
  }
  unsigned repeats = r.repeats;
  m = measure(r.setup, path, screenAboveMs > 0 ? 1 : repeats, autoschedule);
  if (screenAboveMs > 0 && !gInterrupted) {
    if (m.status == "ok" && m.medianMs > screenAboveMs)
      repeats = 1; // far slower than the best: not worth the full timing
    else if (m.status == "ok") // the compiled candidate is cached: time it fully
      m = measure(r.setup, path, repeats, autoschedule);
    else
      repeats = 1;
  }
  if (gInterrupted)
    return true; // the child was interrupted too: nothing to record
  if (m.status == "cannot-run") {
    error = m.message + " (nothing more is measured)";
    return false;
  }
  Record rec;
  rec.kernelKey = k.key;
  rec.op = k.opName;
  rec.kind = kind;
  if (schedule) {
    llvm::raw_string_ostream os(rec.schedule);
    schedule.print(os);
  }
  rec.status = m.status;
  rec.medianMs = m.medianMs;
  rec.repeats = repeats;
  rec.message = m.message;
  rec.seed = o.seed;
  rec.runId = o.runId;
  rec.context = o.context;
  if (m.status == "ok" && m.threads)
    rec.context.threads = m.threads;
  if (!db.insert(rec, error)) {
    error = "cannot write the tuning database: " + error;
    return false;
  }
  return true;
}

bool Loop::prepare(const Kernel &k, size_t index, size_t total, KernelRun &r,
                   KernelOutcome &out, std::string &error) {
  out.key = k.key;
  out.opName = k.opName;
  out.summary = k.summary;
  out.occurrences = k.ops.size();
  r.prefix = llvm::formatv("[{0}/{1}] {2}: ", index + 1, total, k.opName).str();
  progressPrefix = r.prefix;
  llvm::errs() << r.prefix << k.summary << (k.ops.size() > 1 ? llvm::formatv(", {0} ops", k.ops.size()).str() : "")
               << "\n";
  r.dir = join(o.workDir, "k" + std::to_string(index));
  if (std::error_code ec = llvm::sys::fs::create_directories(r.dir)) {
    out.skipped = "cannot create " + r.dir + ": " + ec.message();
    return true;
  }
  r.setup.ssmRun = o.ssmRun;
  r.setup.target = o.target;
  r.setup.threads = o.context.threads;
  r.setup.cacheDir = join(o.workDir, "cache");
  r.setup.rtol = o.rtol;
  r.setup.atol = o.atol;
  r.setup.timeoutSeconds = o.timeoutSeconds;
  if (o.flushCache)
    for (size_t i = 0; i < k.argumentIsFunctionArgument.size(); ++i)
      if (k.argumentIsFunctionArgument[i])
        r.setup.flushArgs.push_back(static_cast<unsigned>(i));
  if (!db.addKernel(k.key, k.opName, k.ir, error)) {
    error = "cannot write the tuning database: " + error;
    return false;
  }
  if (!setUp(k, r, out)) {
    status("not tuned: " + out.skipped, true);
    return true;
  }
  // The heuristic: what ssm-assign-schedules writes for this target.
  Attribute heuristic;
  {
    OwningOpRef<ModuleOp> copy(cast<ModuleOp>(r.module->getOperation()->clone()));
    PassManager pm(&ctx);
    CpuPipelineOptions po;
    po.target = o.target;
    buildCpuPipeline(pm, po);
    ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
    if (succeeded(pm.run(*copy)))
      if (Operation *op = kernelOp(*copy))
        heuristic = op->getAttr(kScheduleAttrName);
  }
  if (!heuristic) {
    out.skipped = "ssm-assign-schedules gives it no schedule for target '" + o.target + "'";
    status("not tuned: " + out.skipped, true);
    return true;
  }
  r.space = std::make_unique<SearchSpace>(r.op, parseTarget(o.target));
  r.heuristic = heuristic;
  std::optional<Point> heuristicPoint = r.space->pointOf(heuristic);
  {
    llvm::raw_string_ostream os(r.heuristicText);
    heuristic.print(os);
  }
  r.seen.insert(r.heuristicText);
  // Calibrate the repeats on the heuristic, then measure it for the record.
  Measurement m;
  r.repeats = 5;
  status("heuristic ...", false);
  if (!measureAndRecord(k, r, "calibration", heuristic, "", m, error))
    return false;
  if (gInterrupted)
    return true;
  if (m.status == "ok" && m.medianMs > 0)
    r.repeats = static_cast<unsigned>(
        std::clamp(o.timedMsPerCandidate / m.medianMs, 7.0, 500.0));
  else
    r.repeats = 7;
  if (m.status == "ok")
    r.searchTimeout = static_cast<unsigned>(std::min<double>(
        o.timeoutSeconds, std::ceil(o.searchTimeoutFactor * m.wallSeconds) + 30));
  if (o.verbose)
    llvm::errs() << r.prefix
                 << llvm::formatv("heuristic's first run {0:f1} s: search candidates time out "
                                  "after {1} s\n",
                                  m.wallSeconds, r.searchTimeout ? r.searchTimeout : o.timeoutSeconds);
  if (!measureAndRecord(k, r, "heuristic", heuristic, "", m, error))
    return false;
  if (gInterrupted)
    return true;
  if (m.status == "ok")
    out.heuristicMs = m.medianMs;
  note(r, out, r.heuristicText, m, heuristicPoint);
  if (m.status == "wrong")
    status("note: the heuristic schedule disagrees with the reference: " + m.message, true);

  if (o.baselines)
    for (const char *as : kAutoschedulerNames) {
      status(std::string(as) + " ...", false);
      Measurement b;
      if (!measureAndRecord(k, r, as, Attribute(), as, b, error))
        return false;
      if (gInterrupted)
        return true;
      if (b.status == "ok")
        r.baselinesOk.push_back(as);
      if (o.verbose)
        llvm::errs() << r.prefix << as << ": "
                     << (b.status == "ok" ? msText(b.medianMs) : b.status + ": " + b.message)
                     << "\n";
    }
  std::string line = "heuristic " + (out.heuristicMs ? msText(out.heuristicMs) : m.status);
  if (o.baselines)
    line += ", autoschedulers measured";
  status(line, true);
  r.ready = true;
  return true;
}

bool Loop::search(const Kernel &k, KernelRun &r, KernelOutcome &out,
                  Clock::time_point kernelDeadline, std::string &error) {
  progressPrefix = r.prefix;
  SearchSpace &space = *r.space;
  if (r.searchTimeout)
    r.setup.timeoutSeconds = r.searchTimeout;
  auto restoreTimeout = llvm::make_scope_exit([&] { r.setup.timeoutSeconds = o.timeoutSeconds; });
  std::vector<size_t> sizes;
  std::vector<bool> ordered;
  for (const Dim &d : space.dims()) {
    sizes.push_back(d.values.size());
    ordered.push_back(d.field->kind == FieldKind::Int);
  }
  Search search(sizes, ordered, o.seed ^ std::hash<std::string>()(k.key));
  // The best tuned schedule of earlier runs, measured again in this one.
  std::vector<std::pair<Attribute, std::optional<Point>>> queue;
  {
    std::string e;
    std::optional<Record> prev = db.best(k.key, o.context, e);
    if (prev && prev->schedule != r.heuristicText)
      if (Attribute a = space.legal(prev->schedule))
        queue.push_back({a, space.pointOf(a)});
  }
  unsigned searched = 0, rejected = 0;
  while (!gInterrupted && Clock::now() < kernelDeadline &&
         (!o.maxCandidates || searched < o.maxCandidates)) {
    Attribute a;
    std::optional<Point> p;
    if (!queue.empty()) {
      std::tie(a, p) = queue.back();
      queue.pop_back();
    } else {
      Point q = search.next(r.bestPoint);
      std::string text = space.render(q);
      // Register tiles beyond the register file: legal, but they spill and
      // cost minutes of compile (see SearchSpace.h); skipped unmeasured.
      if (!r.seen.insert(text).second || !space.fitsRegisters(q) ||
          !(a = space.legal(text))) {
        search.reject();
        if (++rejected > 2000)
          break; // the space is exhausted (or nearly)
        continue;
      }
      p = q;
    }
    // The printed form: the key of `seen` (the heuristic's is printed too).
    std::string canonical;
    {
      llvm::raw_string_ostream os(canonical);
      a.print(os);
    }
    std::string rendered = p ? space.render(*p) : "";
    if (!r.seen.insert(canonical).second && canonical != rendered) {
      if (p)
        search.reject();
      continue;
    }
    rejected = 0;
    ++searched;
    Measurement c;
    // Candidates over 3x the best so far are screened out after one call
    // (on a kernel of seconds a full timing of a bad candidate costs more
    // than several good ones).
    if (!measureAndRecord(k, r, "tuned", a, "", c, error, out.bestMs ? 3 * out.bestMs : 0))
      return false;
    if (gInterrupted)
      break;
    note(r, out, canonical, c, p);
  }
  std::string summary = llvm::formatv("{0} candidates", out.candidates).str();
  if (out.wrong || out.failed)
    summary += llvm::formatv(" ({0} wrong, {1} failed)", out.wrong, out.failed).str();
  if (out.bestMs)
    summary += ", best " + msText(out.bestMs);
  if (out.heuristicMs && out.bestMs)
    summary += llvm::formatv(", {0:f2}x faster than the heuristic", out.heuristicMs / out.bestMs)
                   .str();
  if (gInterrupted)
    summary += " (interrupted)";
  status(summary, true);
  return true;
}

bool Loop::finalRound(const Kernel &k, KernelRun &r, unsigned round, std::string &error) {
  progressPrefix = r.prefix;
  status(llvm::formatv("final round {0}: heuristic, best, autoschedulers ...", round).str(), false);
  std::vector<std::pair<std::string, Attribute>> todo = {{"heuristic", r.heuristic}};
  if (r.best && r.best != r.heuristic)
    todo.push_back({"tuned", r.best});
  for (const std::string &as : r.baselinesOk)
    todo.push_back({as, Attribute()});
  std::string line;
  for (auto &[kind, attr] : todo) {
    Measurement m;
    if (!measureAndRecord(k, r, "final-" + kind, attr, attr ? "" : kind, m, error))
      return false;
    if (gInterrupted)
      return true;
    line += (line.empty() ? "" : ", ") + kind + " " + (m.status == "ok" ? msText(m.medianMs) : m.status);
  }
  status(llvm::formatv("final round {0}: ", round).str() + line, o.verbose);
  return true;
}

} // namespace

bool tuneKernels(const std::vector<Kernel> &kernels, MLIRContext &ctx, TuningDb &db,
                 const TuneOptions &options, std::vector<KernelOutcome> &outcomes,
                 std::string &error) {
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(options.budgetSeconds));
  Loop loop(ctx, db, options, deadline);
  outcomes.assign(kernels.size(), KernelOutcome());
  // Every kernel's baselines first, so that each gets its share of the
  // search whatever its setup cost.
  std::vector<KernelRun> runs(kernels.size());
  for (size_t i = 0; i < kernels.size() && !gInterrupted; ++i)
    if (!loop.prepare(kernels[i], i, kernels.size(), runs[i], outcomes[i], error))
      return false;
  // The search ends early enough for the final rounds (a fifth of the
  // budget, or what the rounds took so far).
  size_t left = llvm::count_if(runs, [](const KernelRun &r) { return r.ready; });
  auto searchEnd = options.finalRounds
                       ? deadline - std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(options.budgetSeconds / 5))
                       : deadline;
  for (size_t i = 0; i < kernels.size() && !gInterrupted; ++i) {
    if (!runs[i].ready)
      continue;
    auto now = Clock::now();
    auto kernelDeadline = now + (searchEnd - now) / static_cast<long>(left--);
    if (!loop.search(kernels[i], runs[i], outcomes[i], kernelDeadline, error))
      return false;
  }
  // Final rounds: every kernel's heuristic, best and baselines measured again
  // back to back, round after round, so that on a busy machine the ratios
  // the report shows compare times taken moments apart (the report uses the
  // median of each kind over these rounds). At least one round, more while
  // the budget lasts.
  for (unsigned round = 1; round <= options.finalRounds && !gInterrupted; ++round) {
    if (round > 1 && Clock::now() >= deadline)
      break;
    for (size_t i = 0; i < kernels.size() && !gInterrupted; ++i)
      if (runs[i].ready && !loop.finalRound(kernels[i], runs[i], round, error))
        return false;
  }
  return true;
}

} // namespace ssm::tune
