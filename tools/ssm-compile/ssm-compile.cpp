// ssm-compile: compiles an MLIR module of ssm graphs into a kernel library (like iree-compile).
#include "codegen/Compile.h"
#include "frontend/SafeParse.h"
#include "passes/InitAll.h"
#include "passes/Passes.h"
#include "passes/Pipelines.h"
#include "passes/TargetInfo.h"
#include "runtime/CpuFeatures.h"
#include "tools/StaleWork.h"
#include "tools/Version.h"
#include "tuner/ApplyTuning.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <thread>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace llvm;
namespace cl = llvm::cl;

namespace {
constexpr int kOk = 0, kFailed = 1, kCannotRun = 2;

cl::OptionCategory category("ssm-compile options");
cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir | model-dir>"),
                               cl::init(""), cl::cat(category));
cl::opt<std::string> outputDir("o",
                               cl::desc("Output directory (created; refused if not empty). For a "
                                        "model folder the default is <model-dir>/compiled/seq<L>"),
                               cl::value_desc("dir"), cl::init(""), cl::cat(category));
cl::opt<bool> progress("progress",
                       cl::desc("Print each stage of the compilation on stderr (stage k of n, "
                                "elapsed seconds); the default when stderr is a terminal "
                                "(--progress=false turns it off)"),
                       cl::init(false), cl::cat(category));
cl::opt<std::string> target("target",
                            cl::desc("Halide target: host (default), x86-64-linux-avx2, "
                                     "x86-64-linux-avx512_skylake, arm-64-linux, ..."),
                            cl::init("host"), cl::cat(category));
cl::opt<std::string> libName("name",
                             cl::desc("Library name and prefix of every exported symbol: --name foo "
                                      "writes libfoo.so, foo.a, foo.h with foo_<function> (default: "
                                      "ssm_module, symbols ssm_<function>)"),
                             cl::init("ssm_module"), cl::cat(category));
cl::opt<bool> emitStmt("emit-stmt",
                       cl::desc("Also write each function's lowered Halide statement (<symbol>.stmt)"),
                       cl::init(false), cl::cat(category));
cl::opt<bool> force("force", cl::desc("Write into a non-empty output directory"),
                    cl::init(false), cl::cat(category));
// ssm-run's compile cache passes its pid: when it dies (kill -9 mid-compile)
// this process dies with it instead of finishing into an abandoned folder.
cl::opt<int> parentPid("parent-pid", cl::desc("Exit when this process (the caller) exits"),
                       cl::init(0), cl::Hidden, cl::cat(category));
cl::opt<std::string> passPipeline(
    "pass-pipeline",
    cl::desc("The passes to run before codegen, in MLIR's textual form (default: "
             "builtin.module(ssm-cpu-pipeline{target=<--target>}); see ssm-opt --help)"),
    cl::init(""), cl::cat(category));
cl::opt<std::string> autoschedule(
    "autoschedule",
    cl::desc("Schedule every pipeline with Halide 14's autoscheduler instead of the IR's "
             "schedules: adams2019, li2018 or mullapudi2016 (time chunking still applies)"),
    cl::init(""), cl::cat(category));

cl::opt<std::string> tuningDb(
    "tuning-db",
    cl::desc("Schedule each op without a schedule from the best record of this ssm-tune "
             "database for the exact target and versions; ops without one keep the heuristic "
             "(both are reported on stderr)"),
    cl::value_desc("file.db"), cl::init(""), cl::cat(category));
// ssm-run passes the database's size and modification times, so that its
// compile-cache key changes when the database does; not read here.
cl::opt<std::string> tuningDbStamp("tuning-db-stamp", cl::Hidden, cl::init(""), cl::cat(category));
// ssm-import and ssm-run compile a model folder's further sequence lengths
// with --functions forward_sequence: only the first module needs the step
// functions, and compiling them again for every length doubled the time.
cl::list<std::string> functions(
    "functions",
    cl::desc("Compile only these public functions of the input (comma-separated names); the "
             "others are dropped before the passes. A name the input lacks is refused"),
    cl::value_desc("f,g,..."), cl::CommaSeparated, cl::cat(category));
cl::opt<bool> printTarget("print-target",
                          cl::desc("Print the full Halide target string --target names "
                                   "(\"host\" resolved to this machine) and exit"),
                          cl::init(false), cl::cat(category));

int cannotRun(const Twine &msg) {
  errs() << "ssm-compile: error: " << msg << "\n";
  return kCannotRun;
}

bool isNonEmptyDir(const std::string &path) {
  std::error_code ec;
  sys::fs::directory_iterator it(path, ec), end;
  return !ec && it != end;
}
std::string withoutTrailingSlash(const std::string &dir) {
  SmallString<256> d(dir);
  while (d.size() > 1 && sys::path::is_separator(d.back()))
    d.pop_back();
  return std::string(d);
}

/// "<dir>.tmp-<pid>" next to `dir` (same file system, so rename works).
std::string stagingDir(const std::string &dir) {
  return withoutTrailingSlash(dir) + ".tmp-" + std::to_string(sys::Process::getProcessId());
}

/// An ssm-import folder (model.json, model.mlir, weights.safetensors).
bool isModelDir(const std::string &path) {
  return sys::fs::is_directory(path) && sys::fs::exists(path + "/model.json");
}

/// The default module folder of a model folder: compiled/seq<L>, L the
/// token count of its sequence function (model.json's functions.sequence,
/// in `module`), "-<target>" appended for a target other than the host;
/// compiled/module when the function has no tokens argument.
std::string defaultModuleDir(const std::string &modelDir, mlir::ModuleOp module,
                             const std::string &target, std::string &error) {
  auto buffer = MemoryBuffer::getFile(modelDir + "/model.json");
  if (!buffer) {
    error = "cannot read '" + modelDir + "/model.json': " + buffer.getError().message();
    return "";
  }
  nlohmann::json m = nlohmann::json::parse((*buffer)->getBuffer().begin(),
                                           (*buffer)->getBuffer().end(), nullptr,
                                           /*allow_exceptions=*/false);
  if (m.is_discarded() || !m.is_object()) {
    error = "'" + modelDir + "/model.json' is not a JSON object";
    return "";
  }
  std::string sequence = "forward_sequence";
  if (auto f = m.find("functions"); f != m.end() && f->is_object())
    if (auto s = f->find("sequence"); s != f->end() && s->is_string())
      sequence = s->get<std::string>();
  std::string name = "module";
  if (auto fn = module.lookupSymbol<mlir::func::FuncOp>(sequence))
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      auto n = fn.getArgAttrOfType<mlir::StringAttr>(i, "ssm.name");
      auto t = dyn_cast<mlir::RankedTensorType>(fn.getArgumentTypes()[i]);
      if (n && n.getValue() == "tokens" && t && t.hasStaticShape())
        name = "seq" + std::to_string(t.getNumElements());
    }
  if (target != "host") {
    std::string t = target;
    for (char &c : t)
      if (!isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-')
        c = '_';
    name += "-" + t;
  }
  return withoutTrailingSlash(modelDir) + "/compiled/" + name;
}

/// model.json's functions.step of a model folder (default forward_step).
std::string stepFunctionOf(const std::string &modelDir) {
  std::string step = "forward_step";
  if (auto buffer = MemoryBuffer::getFile(modelDir + "/model.json")) {
    nlohmann::json m = nlohmann::json::parse((*buffer)->getBuffer().begin(),
                                             (*buffer)->getBuffer().end(), nullptr, false);
    if (m.is_object())
      if (auto f = m.find("functions"); f != m.end() && f->is_object())
        if (auto s = f->find("step"); s != f->end() && s->is_string())
          step = s->get<std::string>();
  }
  return step;
}

/// Replaces the module folder `dir` (a model folder's compiled/<name>, all
/// of it ours) by `work`: the old folder is renamed aside, the new one
/// renamed in, the old one deleted, so a reader sees the old module or the
/// new one, never a mix.
bool replaceModuleDir(const std::string &work, const std::string &dir, const std::string &aside,
                      std::string &error) {
  if (std::error_code ec = sys::fs::rename(dir, aside)) {
    error = "cannot move the old module '" + dir + "' aside: " + ec.message();
    return false;
  }
  if (std::error_code ec = sys::fs::rename(work, dir)) {
    sys::fs::rename(aside, dir);
    error = "cannot move the compiled library into '" + dir + "': " + ec.message();
    return false;
  }
  sys::fs::remove_directories(aside);
  return true;
}

/// Moves the finished folder `work` to `dir`: one rename when `dir` is
/// absent or empty; with --force into a non-empty `dir`, file by file
/// (each rename replaces one file whole).
bool publish(const std::string &work, const std::string &dir, std::string &error) {
  if (!isNonEmptyDir(dir)) {
    if (sys::fs::is_directory(dir))
      sys::fs::remove(dir); // empty: rename(2) would replace it, but not everywhere
    if (std::error_code ec = sys::fs::rename(work, dir)) {
      error = "cannot move the compiled library into '" + dir + "': " + ec.message();
      return false;
    }
    return true;
  }
  std::error_code ec;
  for (sys::fs::directory_iterator it(work, ec), end; it != end && !ec; it.increment(ec)) {
    SmallString<256> to(dir);
    sys::path::append(to, sys::path::filename(it->path()));
    if (std::error_code rc = sys::fs::rename(it->path(), to)) {
      error = "cannot move " + it->path() + " into '" + dir + "': " + rc.message();
      return false;
    }
  }
  if (ec) {
    error = "cannot list '" + work + "': " + ec.message();
    return false;
  }
  sys::fs::remove_directories(work);
  return true;
}
} // namespace

// A write that fails inside Halide (its objects, the runtime, the static
// library: Halide's own LLVM, another libLLVM than ours, writes them) is not
// an error Halide returns: LLVM's raw_fd_ostream calls report_fatal_error
// ("IO failure on output stream: No space left on device"), which aborted
// ssm-compile (SIGABRT) and left its work folder; a file size limit (ulimit
// -f) killed it with SIGXFSZ. Now SIGXFSZ is ignored (a write past the limit
// fails with EFBIG, as in ssm-run), and while the kernels are written:
// * every loaded libLLVM gets a fatal-error handler: an "IO failure" removes
//   the work folder and exits kCannotRun naming it and the reason; any other
//   fatal error removes it too, prints what LLVM would have, and lets LLVM
//   end the process as before;
// * an abort that bypasses that handler (a libLLVM linked into Halide
//   statically) is caught: the work folder is removed, and when the disk is
//   (nearly) full or a file size limit is set it exits kCannotRun; otherwise
//   the previous handler (LLVM's stack dump, then the signal) runs.
namespace write_failure {
char gWork[4096];   // the folder being written ("" outside the codegen)
char gOutput[4096]; // what the user asked for, for the message
struct sigaction gPreviousAbort;

struct Dirent64 {
  uint64_t ino;
  int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[1];
};

/// Removes `name` under `dirFd` (a file, or a folder and what it holds, `depth`
/// levels down). Async-signal-safe: open/getdents64/unlinkat/close only.
void removeAt(int dirFd, const char *name, int depth) {
  if (::unlinkat(dirFd, name, 0) == 0 || errno != EISDIR || depth <= 0)
    return;
  int fd = ::openat(dirFd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buf[4096];
    for (;;) {
      long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0)
        break;
      for (long off = 0; off < n;) {
        const auto *d = reinterpret_cast<const Dirent64 *>(buf + off);
        if (std::strcmp(d->name, ".") != 0 && std::strcmp(d->name, "..") != 0)
          removeAt(fd, d->name, depth - 1);
        off += d->reclen;
      }
    }
    ::close(fd);
  }
  ::unlinkat(dirFd, name, AT_REMOVEDIR);
}

void say(const char *text) {
  ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

void failed(const char *why) {
  say("ssm-compile: error: a write failed while compiling into ");
  say(gWork);
  say(" (");
  say(why);
  say("); it was removed, and nothing was written to ");
  say(gOutput);
  say("\n");
  ::_exit(kCannotRun);
}

void onAbort(int) {
  if (gWork[0]) {
    struct statvfs fs;
    struct rlimit limit;
    bool full = ::statvfs(gWork, &fs) == 0 &&
                static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize < (uint64_t(4) << 20);
    bool limited = ::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY;
    removeAt(AT_FDCWD, gWork, 4);
    if (full)
      failed("the disk is full; LLVM's message above");
    if (limited)
      failed("a file size limit is set, ulimit -f; LLVM's message above");
  }
  // Not a write failure: the handler before, once this one returns (abort()
  // raises SIGABRT again after a handler returns).
  ::sigaction(SIGABRT, &gPreviousAbort, nullptr);
}

void onFatalError(void *, const char *reason, bool) {
  if (gWork[0])
    removeAt(AT_FDCWD, gWork, 4);
  if (reason && std::strstr(reason, "IO failure")) {
    std::string why = std::string("LLVM: ") + reason;
    failed(why.c_str());
  }
  say("LLVM ERROR: ");
  say(reason ? reason : "");
  say("\n");
}

using InstallFn = void (*)(void (*)(void *, const char *, bool), void *);
using RemoveFn = void (*)();
/// Calls `symbol` (install or remove the fatal-error handler) in every loaded
/// libLLVM: ours and Halide's are different libraries.
void forEachLlvm(const char *symbol, void (*call)(void *fn)) {
  std::vector<std::string> libraries;
  dl_iterate_phdr(
      [](struct dl_phdr_info *info, size_t, void *data) {
        if (info->dlpi_name && std::strstr(info->dlpi_name, "libLLVM"))
          static_cast<std::vector<std::string> *>(data)->push_back(info->dlpi_name);
        return 0;
      },
      &libraries);
  for (const std::string &lib : libraries)
    if (void *handle = ::dlopen(lib.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
      if (void *fn = ::dlsym(handle, symbol))
        call(fn);
      ::dlclose(handle);
    }
}

void arm(const std::string &work, const std::string &output) {
  std::snprintf(gWork, sizeof gWork, "%s", work.c_str());
  std::snprintf(gOutput, sizeof gOutput, "%s", output.c_str());
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = onAbort;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGABRT, &sa, &gPreviousAbort);
  forEachLlvm("_ZN4llvm27install_fatal_error_handlerEPFvPvPKcbES0_", [](void *fn) {
    reinterpret_cast<InstallFn>(fn)(onFatalError, nullptr);
  });
}

void disarm() {
  gWork[0] = 0;
  ::sigaction(SIGABRT, &gPreviousAbort, nullptr);
  forEachLlvm("_ZN4llvm26remove_fatal_error_handlerEv",
              [](void *fn) { reinterpret_cast<RemoveFn>(fn)(); });
}
} // namespace write_failure

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  std::signal(SIGXFSZ, SIG_IGN); // see write_failure
  llvm::cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { os << ssm::tools::versionText("ssm-compile"); });
  cl::HideUnrelatedOptions(category);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "ssm-compile: compile ssm graphs to a kernel library\n\n"
                                   "  ssm-compile in.mlir --target=<Halide target> -o <dir>\n"
                                   "  ssm-compile <model-dir>   (an ssm-import folder: its model.mlir\n"
                                   "                             into <model-dir>/compiled/seq<L>, so\n"
                                   "                             ssm-run and libssm_runtime run prompts\n"
                                   "                             of any length with no compilation)\n",
                                   &errs()))
    return kCannotRun;
  if (parentPid > 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parentPid) // the caller died before prctl
      return cannotRun("the calling process " + Twine(int(parentPid)) + " has exited");
  }
  if (!ssm::codegen::isValidTarget(target))
    return cannotRun("unknown target '" + target +
                     "' (expected a Halide target such as host, x86-64-linux-avx2, "
                     "x86-64-linux-avx512_skylake, arm-64-linux)");
  if (printTarget) {
    outs() << ssm::codegen::resolveTarget(target) << "\n";
    return kOk;
  }
  const auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  const bool showProgress = progress.getNumOccurrences() ? bool(progress) : ::isatty(2) == 1;
  // A model folder: its model.mlir into compiled/<name>, staged beside
  // compiled/ (a reader of compiled/*/ never sees a work folder).
  std::string modelDir, staging;
  if (!inputFile.empty() && isModelDir(inputFile)) {
    modelDir = withoutTrailingSlash(inputFile);
    inputFile = modelDir + "/model.mlir";
    if (!sys::fs::is_regular_file(inputFile))
      return cannotRun("'" + modelDir + "' is a model folder without model.mlir (import it "
                       "again with ssm-import)");
    if (outputDir.empty()) // named once the graph is parsed (its sequence length)
      staging = modelDir + "/.ssm-compile.tmp-" + std::to_string(sys::Process::getProcessId());
  }
  if (inputFile.empty() || (outputDir.empty() && staging.empty()))
    return cannotRun("give an input file and -o <dir>, or a model folder (see --help)");
  if (!tuningDb.empty() && (!autoschedule.empty() || !passPipeline.empty()))
    return cannotRun("--tuning-db schedules the ops itself: it does not combine with " +
                     Twine(autoschedule.empty() ? "--pass-pipeline" : "--autoschedule"));
  if (libName.empty() || !(isalpha(static_cast<unsigned char>(libName[0])) || libName[0] == '_') ||
      !llvm::all_of(libName, [](char c) { return isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
    return cannotRun("--name '" + libName + "' is not a C identifier (letters, digits, _)");
  auto checkOutput = [&]() -> std::optional<int> {
    if (sys::fs::exists(outputDir) && !sys::fs::is_directory(outputDir))
      return cannotRun("'" + outputDir + "' exists and is not a directory");
    if (isNonEmptyDir(outputDir) && !force)
      return cannotRun("'" + outputDir + "' is not empty; pass --force to " +
                       (staging.empty() ? "write into it" : "replace it"));
    return std::nullopt;
  };
  if (!outputDir.empty())
    if (std::optional<int> rc = checkOutput())
      return *rc;

  if (!autoschedule.empty() && autoschedule != "adams2019" && autoschedule != "li2018" &&
      autoschedule != "mullapudi2016")
    return cannotRun("unknown autoscheduler '" + autoschedule + "' (expected " +
                     ssm::codegen::kAutoschedulers + ")");
  // Of Halide 14's autoschedulers only Li2018 writes GPU schedules: the
  // others would put CPU loops under a GPU target's name.
  if (std::optional<ssm::TargetInfo> info = ssm::parseTarget(target);
      info && info->gpu && !autoschedule.empty() && autoschedule != "li2018")
    return cannotRun("--autoschedule " + autoschedule + " writes CPU schedules; for the GPU "
                     "target '" + target + "' use li2018 or the IR's GPU schedules");
  ssm::registerAllPasses();
  mlir::DialectRegistry registry;
  ssm::registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  ctx.printOpOnDiagnostic(false);
  std::string errorMessage;
  auto file = mlir::openInputFile(inputFile, &errorMessage);
  if (!file)
    return cannotRun("cannot open '" + inputFile + "': " + errorMessage);
  SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  mlir::SourceMgrDiagnosticHandler diag(sourceMgr, &ctx);
  auto module = ssm::parseModuleChecked(sourceMgr, &ctx);
  if (!module) {
    errs() << "ssm-compile: error: '" << inputFile << "' is not valid IR (see above)\n";
    return kFailed;
  }
  if (!functions.empty()) {
    // Every name must be a function of the input, then the other public
    // functions go (private ones stay: a kept function may call them).
    for (const std::string &name : functions) {
      auto fn = module->lookupSymbol<mlir::func::FuncOp>(name);
      if (!fn || fn.isPrivate()) {
        std::string have;
        for (auto f : module->getOps<mlir::func::FuncOp>())
          if (f.isPublic())
            have += (have.empty() ? "" : ", ") + f.getName().str();
        return cannotRun("--functions: '" + inputFile + "' has no public function '" + name +
                         "' (it has " + (have.empty() ? std::string("none") : have) + ")");
      }
    }
    for (auto f : llvm::make_early_inc_range(module->getOps<mlir::func::FuncOp>()))
      if (f.isPublic() && !llvm::is_contained(functions, f.getName().str()))
        f.erase();
  }
  if (outputDir.empty()) {
    std::string error;
    outputDir = defaultModuleDir(modelDir, *module, target, error);
    if (outputDir.empty())
      return cannotRun(error);
    if (std::optional<int> rc = checkOutput())
      return *rc;
  }

  // Tuned schedules first: ssm-assign-schedules keeps the schedules present.
  std::string tuningNote;
  if (!tuningDb.empty()) {
    std::string dbError;
    auto db = ssm::tune::TuningDb::open(tuningDb, ssm::tune::TuningDb::Mode::ReadOnly, dbError);
    if (!db)
      return cannotRun(dbError);
    ssm::tune::TuningContext tc;
    tc.target = ssm::codegen::resolveTarget(target);
    tc.cpuModel = ssm::tune::hostCpuModel();
    tc.threads = std::max(1u, std::thread::hardware_concurrency());
    tc.ssmVersion = ssm::tune::ssmVersion();
    tc.halideVersion = ssm::tune::halideVersion();
    ssm::tune::ApplySummary summary;
    if (!ssm::tune::applyTuning(*module, *db, tc, summary, dbError))
      return cannotRun("cannot read the tuning database '" + tuningDb + "': " + dbError);
    tuningNote = summary.describe(tc);
    // ssm-run (which passes --parent-pid) prints the copy kept with the library.
    if (parentPid == 0)
      errs() << "ssm-compile: note: " << tuningNote << "\n";
  }

  // The decisions codegen follows, as passes over the IR: the named CPU or
  // GPU pipeline (what `ssm-opt -ssm-cpu-pipeline` / `-ssm-gpu-pipeline`
  // show) or the user's.
  mlir::PassManager pm(&ctx);
  if (!passPipeline.empty()) {
    std::string pipelineError;
    llvm::raw_string_ostream os(pipelineError);
    if (failed(mlir::parsePassPipeline(passPipeline, pm, os)))
      return cannotRun("bad --pass-pipeline: " + os.str());
  } else if (!autoschedule.empty()) {
    ssm::SsmChunkTimeOptions chunk;
    pm.addNestedPass<mlir::func::FuncOp>(ssm::createSsmChunkTime(chunk));
  } else if (std::optional<ssm::TargetInfo> info = ssm::parseTarget(target); info && info->gpu) {
    ssm::GpuPipelineOptions opts;
    opts.target = std::string(target);
    ssm::buildGpuPipeline(pm, opts);
  } else {
    ssm::CpuPipelineOptions opts;
    opts.target = std::string(target);
    ssm::buildCpuPipeline(pm, opts);
  }
  if (failed(pm.run(*module)))
    return kFailed;
  const double passSeconds = elapsed();

  // The library is built in a temporary sibling and published by renaming
  // it, so a failed or killed compile never leaves a half-written folder
  // where the user asked for one.
  std::string work = staging.empty() ? stagingDir(outputDir) : staging;
  sys::fs::remove_directories(work);
  // Work folders of killed runs (their pid in the name, the process gone).
  {
    std::vector<std::string> removed;
    auto add = [&removed](std::vector<std::string> more) {
      removed.insert(removed.end(), more.begin(), more.end());
    };
    if (!modelDir.empty()) {
      add(ssm::tools::removeStaleWork(modelDir, ".ssm-compile.tmp-"));
      add(ssm::tools::removeStaleWork(modelDir, ".ssm-compile.old-"));
    }
    if (staging.empty()) {
      std::string out = withoutTrailingSlash(outputDir);
      add(ssm::tools::removeStaleWork(std::string(sys::path::parent_path(out)),
                                      std::string(sys::path::filename(out)) + ".tmp-"));
    }
    for (const std::string &r : removed)
      errs() << "ssm-compile: removed " << r << ", the work folder of a run that was killed\n";
  }
  // 0777 under the umask (LLVM's default, 0770, made deployed folders
  // unreadable to other users: 0750 under umask 022).
  if (std::error_code ec = sys::fs::create_directories(work, true, sys::fs::all_all))
    return cannotRun("cannot create '" + work + "': " + ec.message());
  ssm::codegen::CompileOptions options;
  options.target = target;
  options.outDir = work;
  options.libName = libName;
  if (libName.getNumOccurrences())
    options.symbolPrefix = libName;
  options.emitStmt = emitStmt;
  options.autoscheduler = autoschedule;
  // Stage 1 is the passes (reported once the number of stages is known);
  // then one stage per kernel and the libraries (codegen/Compile.h).
  if (showProgress)
    options.progress = [&](int stage, int stages, const std::string &what) {
      if (stage == 1)
        errs() << formatv("ssm-compile: [1/{0}] parse and passes: {1:f1} s\n", stages + 1,
                          passSeconds);
      errs() << formatv("ssm-compile: [{0}/{1}] {2} (at {3:f1} s)\n", stage + 1, stages + 1, what,
                        elapsed());
      errs().flush();
    };
  std::string error;
  write_failure::arm(work, outputDir);
  bool compiled = succeeded(ssm::codegen::compileModule(*module, options, error));
  write_failure::disarm();
  if (!compiled) {
    sys::fs::remove_directories(work);
    if (!error.empty())
      errs() << "ssm-compile: error: " << error << "\n";
    // An op or type codegen does not support: the input could not be compiled.
    return kCannotRun;
  }
  // What the database gave, kept with the library (ssm-run shows it on
  // compile-cache hits too).
  if (!tuningNote.empty()) {
    std::error_code ec;
    raw_fd_ostream note(work + "/tuning-db.txt", ec);
    if (!ec) {
      note << tuningNote << "\n";
      note.close();
      if (note.has_error()) { // a full disk: left out, not LLVM's abort in the destructor
        errs() << "ssm-compile: warning: cannot write " << work << "/tuning-db.txt: "
               << note.error().message() << "\n";
        note.clear_error();
      }
    }
  }
  if (!staging.empty()) {
    // A model folder's module: created (with compiled/) or replaced whole.
    bool ok;
    if (isNonEmptyDir(outputDir)) {
      ok = replaceModuleDir(work, outputDir,
                            modelDir + "/.ssm-compile.old-" +
                                std::to_string(sys::Process::getProcessId()),
                            error);
    } else {
      SmallString<256> parent(outputDir);
      sys::path::remove_filename(parent);
      std::error_code ec = sys::fs::create_directories(parent, true, sys::fs::all_all);
      if (ec)
        error = "cannot create '" + std::string(parent) + "': " + ec.message();
      ok = !ec && publish(work, outputDir, error);
    }
    if (!ok) {
      sys::fs::remove_directories(work);
      return cannotRun(error);
    }
  } else if (!publish(work, outputDir, error)) {
    sys::fs::remove_directories(work);
    return cannotRun(error);
  }
  if (showProgress)
    errs() << formatv("ssm-compile: done in {0:f1} s: {1}\n", elapsed(), outputDir);
  if (!modelDir.empty()) {
    // A module for another machine is not what ssm-run runs here
    // (Model::addCompiledModules skips it): say where it runs.
    std::string moduleTarget, missing;
    bool cross = false;
    if (auto text = MemoryBuffer::getFile(outputDir + "/manifest.json")) {
      nlohmann::json m = nlohmann::json::parse((*text)->getBuffer().str(), nullptr, false);
      if (m.is_object() && m.contains("target") && m["target"].is_string()) {
        moduleTarget = m["target"].get<std::string>();
        cross = m.contains("shared_library") && m["shared_library"].is_null();
        missing = ssm::rt::unrunnableFeature(moduleTarget);
      }
    }
    // ssm-run <model-dir> loads the modules in <model-dir>/compiled/ only.
    SmallString<256> outParent, compiledDir;
    bool inFolder = !sys::fs::real_path(sys::path::parent_path(outputDir), outParent) &&
                    !sys::fs::real_path(modelDir + "/compiled", compiledDir) &&
                    outParent == compiledDir;
    if (!cross && missing.empty() && !inFolder)
      outs() << "ssm-compile: compiled " << outputDir << ", outside " << modelDir
             << "/compiled: ssm-run " << modelDir
             << " loads the modules there only (move it in, or load it with "
                "ssm_model_add_module / Model.add_module)\n";
    else if (cross)
      outs() << "ssm-compile: compiled " << outputDir << " for " << moduleTarget
             << ", another machine: link its static library into a program there "
                "(docs/embedding.md); the model library skips it on this one\n";
    else if (!missing.empty())
      outs() << "ssm-compile: compiled " << outputDir << " for " << moduleTarget
             << ": a CPU with its '" << missing << "' instructions runs " << modelDir
             << " from it; this one cannot, and ssm-run skips it here\n";
    else if (std::string step = stepFunctionOf(modelDir);
             !functions.empty() && !llvm::is_contained(functions, step))
      outs() << "ssm-compile: compiled " << outputDir << " (--functions): ssm-run " << modelDir
             << " uses it beside a module that holds @" << step
             << " (the steps); without one it compiles the model on first use\n";
    else
      outs() << "ssm-compile: " << modelDir << " is deployable: " << outputDir
             << " (ssm-run " << modelDir << " runs prompts of any length from it, with no "
             << "compilation)\n";
  }
  return kOk;
}
