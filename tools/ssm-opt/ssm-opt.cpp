// ssm-opt: mlir-opt with the ssm dialect, the upstream dialects models use, and our passes.
#include "passes/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

int main(int argc, char **argv) {
  // CONTRACTS.md: a missing input is "could not run" (exit 2), not a failed check (1).
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg.empty() || arg[0] == '-' || arg == "-")
      continue;
    if (i > 1 && (!std::strcmp(argv[i - 1], "-o") || !std::strcmp(argv[i - 1], "--o")))
      continue;
    if (!llvm::sys::fs::exists(arg)) {
      llvm::errs() << "ssm-opt: error: cannot open input file '" << arg
                   << "': No such file or directory\n";
      return 2;
    }
  }
  mlir::DialectRegistry registry;
  ssm::registerAllDialects(registry);
  ssm::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "ssm-opt: optimizer driver for state space model graphs\n",
      registry));
}
