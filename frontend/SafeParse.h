// Parsing user IR without inheriting the crashes of MLIR 19's parser.
//
// MLIR 19.1 (Debian's libmlir-19) has a parser bug in the custom assembly of
// linalg.transpose, linalg.broadcast and linalg.reduce: their shared helper
// parseDenseI64ArrayAttr (mlir/lib/Dialect/Linalg/IR/LinalgOps.cpp) stores the
// result of DenseI64ArrayAttr::parse in the attribute list without checking
// it, so `permutation = [1.5, 0]`, `dimensions = [x]` or an integer beyond
// i64 leaves a null attribute that NamedAttrList::set dereferences (SIGSEGV
// after the parser has printed its error). TransposeOp::verify also reads
// the input shape at permutation[i] before checking that the permutation is
// one (`permutation = [5, 0]` reads out of bounds), and GenericOp::parse
// casts iterator_types elements to StringAttr unchecked. We check the text before
// the upstream parser sees it, and the parsed IR for what upstream verifiers
// crash on before they run (checkBeforeVerify); docs/fuzzing.md lists them
// for an upstream report.
#ifndef SSM_FRONTEND_SAFEPARSE_H
#define SSM_FRONTEND_SAFEPARSE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

namespace llvm {
class MemoryBuffer;
class SourceMgr;
} // namespace llvm
namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace ssm {

/// One problem the pre-parse check found: a byte offset into the text and
/// a message (without location).
struct PrecheckIssue {
  size_t offset = 0;
  std::string message;
};

/// Scans MLIR text for the constructs MLIR 19's parser crashes on (see the
/// file comment): the `permutation` of linalg.transpose and the `dimensions`
/// of linalg.broadcast / linalg.reduce must be a list of i64 literals, and a
/// permutation must be one of 0..N-1 (custom form `[1, 0]` and generic form
/// `array<i64: 1, 0>`); the `iterator_types` of linalg.generic's custom form
/// must be string literals (GenericOp::parse casts each element to
/// StringAttr unchecked: `[1.5]` died with std::bad_alloc while building its
/// diagnostic); brackets may nest at most kMaxNesting deep (the parser
/// recurses without a limit); the result type of tensor.from_elements' custom
/// form may have at most as many elements as the text has bytes (its parser
/// builds one operand type per element before it counts the operands:
/// 9e13 elements aborted it). Comments and string literals are skipped. Returns
/// the first problem, or nothing when the text is safe to hand to the parser.
std::optional<PrecheckIssue> precheckMlirText(llvm::StringRef text);

/// The deepest bracket nesting precheckMlirText accepts (real graphs nest a
/// few levels: a dense literal's rank, a type inside an attribute).
constexpr int64_t kMaxNesting = 1000;

/// Checks a parsed, not yet verified, op tree for what MLIR 19's verifiers
/// crash on: an empty reassociation group of tensor.expand_shape /
/// collapse_shape (ExpandShapeOp::verify builds an AffineMap from the
/// group's first expression), and a tensor.from_elements whose operand count
/// is not its result's element count (its verifier builds one type per
/// element first), and a tensor.concat with a negative dim (ConcatOp::verify
/// reads the shapes at it). Reports the first problem at its op.
mlir::LogicalResult checkBeforeVerify(mlir::Operation *root);

/// The same on text, for drivers that parse and verify in one call
/// (MlirOptMain): parses `buffer` without verifying, in a context of its own
/// with `registry`'s dialects, and prints a problem found to stderr at its
/// file:line:col. Text that does not parse succeeds here (the driver's own
/// parse reports it).
mlir::LogicalResult checkBeforeVerify(const llvm::MemoryBuffer &buffer,
                                      const mlir::DialectRegistry &registry);

/// precheckMlirText on the main buffer of `sourceMgr`, then
/// mlir::parseSourceFile without its verification, checkBeforeVerify,
/// mlir::verify, then checkStaticLimits (StaticLimits.h). Problems
/// are reported as diagnostics of `ctx` at their file:line:col (install a
/// SourceMgrDiagnosticHandler first); returns null on any of them.
mlir::OwningOpRef<mlir::ModuleOp> parseModuleChecked(llvm::SourceMgr &sourceMgr,
                                                     mlir::MLIRContext *ctx);

/// The same for text in memory; `bufferName` names it in diagnostics.
mlir::OwningOpRef<mlir::ModuleOp> parseModuleChecked(llvm::StringRef text,
                                                     llvm::StringRef bufferName,
                                                     mlir::MLIRContext *ctx);

} // namespace ssm

#endif
