// Editing a module held as MLIR text (see ModuleText.h).
#include "passes/ModuleText.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace ssm {

bool editModuleText(std::string &text, mlir::MLIRContext &ctx, llvm::StringRef what,
                    llvm::function_ref<ModuleEdit(mlir::ModuleOp)> edit, std::string &error) {
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "model.mlir"), llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler handler(sm, &ctx, os);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceFile<mlir::ModuleOp>(sm, &ctx);
  ModuleEdit result = module ? edit(*module) : ModuleEdit::Failed;
  if (result == ModuleEdit::Failed) {
    os.flush();
    error = what.str() + ": " + diagnostics;
    return false;
  }
  if (result == ModuleEdit::Unchanged)
    return true;
  std::string out;
  llvm::raw_string_ostream ps(out);
  module->print(ps);
  ps.flush();
  text = std::move(out);
  return true;
}

} // namespace ssm
