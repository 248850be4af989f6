// ssm-opt: mlir-opt with the ssm dialect, the upstream dialects models use, and our passes.
#include "passes/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  ssm::registerAllDialects(registry);
  ssm::registerAllPasses();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "ssm-opt: optimizer driver for state space model graphs\n", registry);
  // CONTRACTS.md: a missing input is "could not run" (exit 2), not a failed check (1).
  if (inputFilename != "-" && !llvm::sys::fs::exists(inputFilename)) {
    llvm::errs() << "ssm-opt: error: cannot open input file '" << inputFilename
                 << "': No such file or directory\n";
    return 2;
  }
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
}
