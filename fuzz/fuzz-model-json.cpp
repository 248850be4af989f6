// Fuzzes model.json, the file ssm-import writes and ssm-run / the model
// library read: the model library's reader (runtime/ModelSpec.h) and the graph
// builder (import/ModelBuilder.h). A model.json the builder accepts must give
// MLIR that parses and verifies (a config value printed as `inf` did not parse).
#include "import/ModelBuilder.h"
#include "runtime/ModelSpec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <cstdlib>
#include <filesystem>

#include "fuzz/FuzzUtil.h"
#include "fuzz/MlirFuzzContext.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  std::string dir = ssm::fuzz::scratchDir() + "/model";
  static bool made = std::filesystem::create_directories(dir);
  (void)made;
  ssm::fuzz::writeFile(dir + "/model.json", data, size);
  ssm::rt::ModelSpec spec;
  ssm::rt::Status st = ssm::rt::ModelSpec::load(dir, spec);
  if (!st.isOk() && st.message().empty())
    std::abort();

  std::string mlirText, error;
  if (!ssm::importer::buildModelMLIR(text, 2, mlirText, error)) {
    if (error.empty())
      std::abort();
    return 0;
  }
  if (mlirText.size() > (4u << 20))
    return 0; // a large model: parsing it is not what this harness is for
  mlir::MLIRContext *ctx = ssm::fuzz::mlirFuzzContext().ctx.get();
  mlir::ParserConfig config(ctx, /*verifyAfterParse=*/false);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(mlirText, config, "model.mlir");
  if (!module)
    std::abort(); // the builder wrote text MLIR does not parse
  return 0;
}
