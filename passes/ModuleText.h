// Editing a module held as MLIR text: parse, change, print back (only when changed).
//
// The model tools keep graphs as text (model.mlir, the graphs ssm-run builds
// per length); the weight-storage and activation-quantisation rewrites run on
// that text before it is compiled or interpreted.
#ifndef SSM_PASSES_MODULETEXT_H
#define SSM_PASSES_MODULETEXT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace ssm {

/// What an edit of a parsed module did.
enum class ModuleEdit { Unchanged, Changed, Failed };

/// Parses `text` into a module in `ctx` and calls `edit` on it. Changed:
/// the module is printed back into `text` (MLIR's generic printer: names
/// and comments of the original text are not kept); Unchanged: `text` stays
/// as written. False, with `error` = "<what>: <diagnostics>", when the text
/// does not parse or `edit` returns Failed (its diagnostics, emitted on
/// `ctx` while it runs, are collected into `error`).
bool editModuleText(std::string &text, mlir::MLIRContext &ctx, llvm::StringRef what,
                    llvm::function_ref<ModuleEdit(mlir::ModuleOp)> edit, std::string &error);

} // namespace ssm

#endif
