// ssm-opt: mlir-opt with the ssm dialect, the upstream dialects models use, and our passes.
//
// Around MlirOptMain it adds what CONTRACTS.md asks of every tool: the input
// is read and checked (frontend/SafeParse.h) before MLIR's parser sees it,
// static tensor sizes and slice bounds are checked after parsing, an unknown
// target is "could not run" (exit 2), and -o never replaces an existing file
// without --force; the output is written whole (a temporary file renamed
// into place) and only when everything succeeded.
#include "frontend/SafeParse.h"
#include "frontend/StaticLimits.h"
#include "passes/InitAll.h"
#include "passes/TargetInfo.h"
#include "runtime/AtomicFile.h"
#include "tools/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

namespace {

constexpr int kOk = 0, kFailed = 1, kCannotRun = 2;

llvm::cl::opt<bool> force("force", llvm::cl::desc("Allow -o to replace an existing file"),
                          llvm::cl::init(false));

int cannotRun(const llvm::Twine &msg) {
  llvm::errs() << "ssm-opt: error: " << msg << "\n";
  return kCannotRun;
}

/// Runs first in every pipeline: MLIR 19's verifiers accept tensors too large
/// to hold and slices outside their tensors (frontend/StaticLimits.h).
struct CheckStaticLimitsPass
    : mlir::PassWrapper<CheckStaticLimitsPass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckStaticLimitsPass)
  llvm::StringRef getArgument() const override { return "ssm-check-static-limits"; }
  void runOnOperation() override {
    if (mlir::failed(ssm::checkStaticLimits(getOperation())))
      signalPassFailure();
  }
};

/// The first `target=` option of the pipeline that names no known target.
std::optional<std::string> unknownTarget(mlir::PassManager &pm) {
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  llvm::StringRef rest = text;
  llvm::Regex re("(^|[{ ,])target=(\"[^\"]*\"|'[^']*'|[^ ,}]*)");
  llvm::SmallVector<llvm::StringRef> m;
  while (re.match(rest, &m)) {
    llvm::StringRef value = m[2];
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\''))
      value = value.drop_front().drop_back();
    if (!ssm::parseTarget(value))
      return value.str();
    rest = rest.substr(m[0].data() - rest.data() + m[0].size());
  }
  return std::nullopt;
}

} // namespace

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  ssm::registerAllDialects(registry);
  ssm::registerAllPasses();
  llvm::cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { os << ssm::tools::versionText("ssm-opt"); });
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "ssm-opt: optimizer driver for state space model graphs\n", registry);

  // CONTRACTS.md: a missing input is "could not run" (exit 2), not a failed check (1).
  if (inputFilename != "-" && !llvm::sys::fs::exists(inputFilename))
    return cannotRun("cannot open input file '" + inputFilename +
                     "': No such file or directory");
  if (inputFilename != "-" && llvm::sys::fs::is_directory(inputFilename))
    return cannotRun("input '" + inputFilename + "' is a directory, not an .mlir file");
  if (outputFilename != "-") {
    if (llvm::sys::fs::is_directory(outputFilename))
      return cannotRun("output '" + outputFilename + "' is a directory");
    if (llvm::sys::fs::exists(outputFilename) && !force)
      return cannotRun("output file '" + outputFilename +
                       "' exists; pass --force to replace it");
  }
  auto input = llvm::MemoryBuffer::getFileOrSTDIN(inputFilename, /*IsText=*/true);
  if (!input)
    return cannotRun("cannot read '" + inputFilename + "': " + input.getError().message());

  // The upstream parser must not see text it crashes on.
  if (std::optional<ssm::PrecheckIssue> issue = ssm::precheckMlirText((*input)->getBuffer())) {
    llvm::SourceMgr sm;
    llvm::StringRef name = inputFilename == "-" ? "<stdin>" : llvm::StringRef(inputFilename);
    sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer((*input)->getBuffer(), name, false),
                          llvm::SMLoc());
    sm.PrintMessage(llvm::SMLoc::getFromPointer((*input)->getBufferStart() + issue->offset),
                    llvm::SourceMgr::DK_Error, issue->message);
    return kFailed;
  }
  // Nor may MLIR's verifiers, which MlirOptMain runs right after its parse.
  if (mlir::failed(ssm::checkBeforeVerify(**input, registry)))
    return kFailed;

  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  mlir::MlirOptMainConfig cliConfig = config;
  std::optional<std::string> badTarget;
  config.setPassPipelineSetupFn([&](mlir::PassManager &pm) -> mlir::LogicalResult {
    pm.addPass(std::make_unique<CheckStaticLimitsPass>());
    if (mlir::failed(cliConfig.setupPassPipeline(pm)))
      return mlir::failure();
    badTarget = unknownTarget(pm);
    return mlir::failure(badTarget.has_value());
  });

  std::string output;
  llvm::raw_string_ostream os(output);
  bool ok = mlir::succeeded(mlir::MlirOptMain(os, std::move(*input), registry, config));
  if (badTarget)
    return cannotRun("unknown target '" + *badTarget + "' (" + ssm::kKnownTargetsHelp + ")");
  if (!ok)
    return kFailed;
  if (outputFilename == "-") {
    llvm::outs() << output;
    return kOk;
  }
  // Whole or nothing (runtime/AtomicFile.h): a temporary next to the output,
  // fsync'd and renamed over it; a failure leaves the old file.
  std::string error;
  if (!ssm::writeFileAtomically(outputFilename, output, error))
    return cannotRun(error);
  return kOk;
}
