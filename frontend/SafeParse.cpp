// The pre-parse check for MLIR 19 parser crashes, and the checked parse the tools use.
#include "frontend/SafeParse.h"

#include "frontend/StaticLimits.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cctype>
#include <climits>

namespace ssm {
namespace {

bool isIdStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' ||
         c == '-';
}

/// A cursor over MLIR text that skips whitespace and `//` comments.
struct Cursor {
  llvm::StringRef text;
  size_t pos = 0;

  bool atEnd() const { return pos >= text.size(); }
  char peek() const { return atEnd() ? '\0' : text[pos]; }
  void skipSpace() {
    while (!atEnd()) {
      char c = text[pos];
      // MLIR's lexer also skips a NUL byte as whitespace (Lexer::lexToken),
      // so `dimensions \0 = [...]` reaches the parser: found by fuzz-ir.
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0') {
        ++pos;
      } else if (c == '/' && pos + 1 < text.size() && text[pos + 1] == '/') {
        while (!atEnd() && text[pos] != '\n')
          ++pos;
      } else {
        break;
      }
    }
  }
  bool consume(llvm::StringRef s) {
    skipSpace();
    if (!text.substr(pos).starts_with(s))
      return false;
    pos += s.size();
    return true;
  }
};

/// Parses `[-]digits` or `[-]0x hex` as MLIR's lexer does and range-checks
/// it as an i64. Sets `value`; false (pos at the bad token) otherwise.
bool parseI64(Cursor &c, int64_t &value, std::string &why) {
  c.skipSpace();
  size_t start = c.pos;
  bool negative = false;
  if (c.peek() == '-') {
    negative = true;
    ++c.pos;
  }
  size_t digitsStart = c.pos;
  bool hex = c.text.substr(c.pos).starts_with("0x");
  if (hex)
    c.pos += 2;
  while (!c.atEnd() && (hex ? std::isxdigit(static_cast<unsigned char>(c.peek()))
                            : std::isdigit(static_cast<unsigned char>(c.peek()))))
    ++c.pos;
  size_t digitsEnd = c.pos;
  if (digitsEnd == digitsStart + (hex ? 2 : 0) || isIdChar(c.peek()) || c.peek() == '.') {
    c.pos = start;
    why = "expected an integer";
    return false;
  }
  llvm::StringRef digits = c.text.slice(digitsStart, digitsEnd);
  unsigned long long magnitude = 0;
  if (digits.getAsInteger(0, magnitude) ||
      // MLIR's parser reads the magnitude as an i64 before negating it, so
      // -2^63 is "too large" there (and would crash): refuse it too.
      magnitude > (unsigned long long)INT64_MAX) {
    c.pos = start;
    why = "integer " + c.text.slice(start, digitsEnd).str() + " does not fit in i64";
    return false;
  }
  value = negative ? -int64_t(magnitude) : int64_t(magnitude);
  return true;
}

/// Parses a comma-separated i64 list up to `close` (the opener consumed).
bool parseI64List(Cursor &c, char close, std::vector<int64_t> &values, std::string &why) {
  c.skipSpace();
  if (c.peek() == close) {
    ++c.pos;
    return true;
  }
  while (true) {
    int64_t v;
    if (!parseI64(c, v, why))
      return false;
    values.push_back(v);
    c.skipSpace();
    if (c.peek() == ',') {
      ++c.pos;
      continue;
    }
    if (c.peek() == close) {
      ++c.pos;
      return true;
    }
    why = std::string("expected ',' or '") + close + "'";
    return false;
  }
}

std::optional<PrecheckIssue> checkPermutation(const std::vector<int64_t> &values, size_t at,
                                              llvm::StringRef op) {
  std::vector<bool> seen(values.size(), false);
  for (int64_t v : values) {
    if (v < 0 || v >= int64_t(values.size()) || seen[v])
      return PrecheckIssue{at, "'" + op.str() + "': permutation [" +
                                   llvm::join(llvm::map_range(values,
                                                              [](int64_t x) {
                                                                return std::to_string(x);
                                                              }),
                                              ", ") +
                                   "] is not a permutation of 0.." +
                                   std::to_string(int64_t(values.size()) - 1)};
    seen[v] = true;
  }
  return std::nullopt;
}

/// For `tensor.from_elements`'s custom form (the cursor after the op name):
/// the element count of the `: tensor<AxBx...>` that follows, or nothing
/// when the text does not have that shape (the parser then reports it).
/// Sets `typeAt` to the type's offset; `overflow` when the product passes
/// int64.
std::optional<int64_t> fromElementsCount(Cursor c, size_t &typeAt, bool &overflow) {
  overflow = false;
  // The operands and attr-dict come before the ':' at this nesting level.
  int64_t depth = 0;
  while (!c.atEnd()) {
    c.skipSpace();
    char ch = c.peek();
    if (ch == '"') {
      ++c.pos;
      while (!c.atEnd() && c.peek() != '"' && c.peek() != '\n')
        c.pos += c.peek() == '\\' ? 2 : 1;
      ++c.pos;
      continue;
    }
    if (ch == '(' || ch == '[' || ch == '{' || ch == '<') {
      ++depth;
    } else if (ch == ')' || ch == ']' || ch == '}' || ch == '>') {
      if (--depth < 0)
        return std::nullopt;
    } else if (ch == ':' && depth == 0) {
      break;
    } else if (ch == '=' && depth == 0) {
      return std::nullopt; // the next op's `%x = ...`: no type here
    }
    ++c.pos;
  }
  if (!c.consume(":"))
    return std::nullopt;
  c.skipSpace();
  typeAt = c.pos;
  if (!c.consume("tensor") || !c.consume("<"))
    return std::nullopt;
  c.skipSpace();
  int64_t n = 1;
  while (std::isdigit(static_cast<unsigned char>(c.peek()))) {
    int64_t dim = 0;
    while (std::isdigit(static_cast<unsigned char>(c.peek()))) {
      if (__builtin_mul_overflow(dim, 10, &dim) ||
          __builtin_add_overflow(dim, c.peek() - '0', &dim))
        overflow = true;
      ++c.pos;
    }
    // MLIR's lexer skips whitespace (a NUL byte too) between the tokens:
    // `tensor<90228672988384 \0 xf32>` (fuzz-interpreter).
    c.skipSpace();
    if (c.peek() != 'x')
      return std::nullopt;
    ++c.pos;
    c.skipSpace();
    if (overflow || __builtin_mul_overflow(n, dim, &n))
      overflow = true;
  }
  return n;
}

std::string listName(bool isPermutation) {
  return isPermutation ? "permutation" : "dimensions";
}

} // namespace

std::optional<PrecheckIssue> precheckMlirText(llvm::StringRef text) {
  Cursor c{text};
  // The op whose list attribute comes next, and that attribute's name.
  llvm::StringRef pendingOp, pendingKeyword;
  bool pendingGeneric = false;
  // Open ( [ { < outside strings and comments. MLIR's parser is recursive
  // descent with no depth limit: 32,000 nested '(' in a type overflowed its
  // stack (SIGSEGV in Parser::parseTypeListParens, found by fuzz-ir). A '>'
  // of '->' closes nothing; a stray closer (e.g. '>=' in an integer set) only
  // lowers the count, which is never below 0.
  int64_t depth = 0;
  while (true) {
    c.skipSpace();
    if (c.atEnd())
      return std::nullopt;
    char ch = c.peek();
    if (ch == '"') {
      size_t start = ++c.pos;
      while (!c.atEnd() && c.peek() != '"' && c.peek() != '\n')
        c.pos += c.peek() == '\\' ? 2 : 1;
      llvm::StringRef str = text.slice(start, std::min(c.pos, text.size()));
      ++c.pos;
      // The generic form: "linalg.transpose"(...) <{permutation = array<i64: ...>}>
      if (str == "linalg.transpose") {
        pendingOp = str, pendingKeyword = "permutation", pendingGeneric = true;
      }
      continue;
    }
    if (ch == '%' || ch == '^' || ch == '@' || ch == '#' || ch == '!') {
      ++c.pos;
      while (!c.atEnd() && isIdChar(c.peek()))
        ++c.pos;
      continue;
    }
    if (!isIdStart(ch)) {
      if (ch == '(' || ch == '[' || ch == '{' || ch == '<') {
        if (++depth > kMaxNesting)
          return PrecheckIssue{c.pos, "brackets nested more than " + std::to_string(kMaxNesting) +
                                          " deep (the parser would overflow its stack)"};
      } else if ((ch == ')' || ch == ']' || ch == '}' ||
                  (ch == '>' && !(c.pos > 0 && text[c.pos - 1] == '-'))) &&
                 depth > 0) {
        --depth;
      }
      ++c.pos;
      continue;
    }
    size_t start = c.pos;
    while (!c.atEnd() && isIdChar(c.peek()))
      ++c.pos;
    llvm::StringRef id = text.slice(start, c.pos);
    // A named linalg op's custom form takes its properties as `<{...}>`, and
    // MLIR 19's parseNamedStructuredOp casts whatever attribute is there to a
    // DictionaryAttr unchecked (`linalg.matmul_transpose_b<1.0>` aborted in
    // NamedAttrList, "SmallVector unable to grow": found by fuzz-interpreter).
    if (id.starts_with("linalg.")) {
      size_t after = c.pos;
      c.skipSpace();
      if (c.peek() == '<') {
        size_t at = c.pos;
        ++c.pos;
        c.skipSpace();
        if (c.peek() != '{')
          return PrecheckIssue{at, "'" + id.str() + "': properties must be a dictionary, as in "
                                   "<{key = value}>"};
      }
      c.pos = after;
    }
    // tensor.from_elements' custom form infers its operands' types from the
    // result type, one per element, into a SmallVector before it checks the
    // operand count: `tensor<90228672988384xf32>` aborted in MLIR 19's
    // FromElementsOp::parse ("SmallVector unable to grow", found by
    // fuzz-interpreter) and 3e9 elements took 23 GB. Each element needs an
    // operand in the text, so a count beyond the text's length cannot be right.
    if (id == "tensor.from_elements") {
      size_t typeAt = c.pos;
      bool overflow = false;
      std::optional<int64_t> n = fromElementsCount(c, typeAt, overflow);
      if (n && (overflow || *n > int64_t(text.size())))
        return PrecheckIssue{typeAt, "'tensor.from_elements': the result type has " +
                                         (overflow ? std::string("more than 2^63")
                                                   : std::to_string(*n)) +
                                         " elements, more operands than the text can hold "
                                         "(one per element)"};
      continue;
    }
    if (id == "linalg.transpose") {
      pendingOp = id, pendingKeyword = "permutation", pendingGeneric = false;
      continue;
    }
    if (id == "linalg.broadcast" || id == "linalg.reduce") {
      pendingOp = id, pendingKeyword = "dimensions", pendingGeneric = false;
      continue;
    }
    if (id == "linalg.generic") {
      pendingOp = id, pendingKeyword = "iterator_types", pendingGeneric = false;
      continue;
    }
    if (pendingKeyword.empty() || id != pendingKeyword)
      continue;
    llvm::StringRef op = pendingOp;
    bool isPermutation = pendingKeyword == "permutation", generic = pendingGeneric;
    bool isIteratorTypes = pendingKeyword == "iterator_types";
    pendingOp = pendingKeyword = "";
    if (!c.consume("="))
      continue; // the upstream parser reports a missing '=' itself
    if (isIteratorTypes) {
      // GenericOp::parse reads the list with getAsValueRange<StringAttr>,
      // an unchecked cast: anything but string literals crashes it.
      c.skipSpace();
      if (c.peek() != '[')
        continue; // not an array: the parser refuses it itself
      ++c.pos;
      c.skipSpace();
      bool first = true;
      while (c.peek() != ']') {
        if (!first) {
          if (c.peek() != ',')
            return PrecheckIssue{c.pos, "'linalg.generic': iterator_types must be a list of "
                                        "strings such as [\"parallel\", \"reduction\"]"};
          ++c.pos;
          c.skipSpace();
        }
        first = false;
        if (c.peek() != '"')
          return PrecheckIssue{c.pos, "'linalg.generic': iterator_types must be a list of "
                                      "strings such as [\"parallel\", \"reduction\"]"};
        ++c.pos;
        while (!c.atEnd() && c.peek() != '"' && c.peek() != '\n')
          c.pos += c.peek() == '\\' ? 2 : 1;
        ++c.pos;
        c.skipSpace();
        if (c.atEnd())
          return std::nullopt;
      }
      ++c.pos;
      continue;
    }
    std::vector<int64_t> values;
    std::string why;
    c.skipSpace();
    size_t listStart = c.pos;
    if (generic) {
      // array<i64: 1, 0>: a malformed one is a parse error upstream, no crash.
      if (!c.consume("array") || !c.consume("<") || !c.consume("i64"))
        continue;
      c.skipSpace();
      if (c.peek() == ':') {
        ++c.pos;
        if (!parseI64List(c, '>', values, why))
          continue;
      } else if (!c.consume(">")) {
        continue;
      }
    } else {
      if (!c.consume("["))
        return PrecheckIssue{listStart, "'" + op.str() + "': " + listName(isPermutation) +
                                            " must be a list of integers in square brackets, "
                                            "such as [1, 0]"};
      if (!parseI64List(c, ']', values, why))
        return PrecheckIssue{c.pos, "'" + op.str() + "': " + why + " in its " +
                                        listName(isPermutation) +
                                        " (a list of integers such as [1, 0])"};
    }
    if (isPermutation)
      if (auto issue = checkPermutation(values, listStart, op))
        return issue;
  }
}

mlir::LogicalResult checkBeforeVerify(mlir::Operation *root) {
  mlir::WalkResult r = root->walk([](mlir::Operation *op) {
    // tensor.concat: ConcatOp::verify checks `dim` against the rank from
    // above only, then reads the inputs' shapes at it: `dim(-1)` faulted
    // (SIGSEGV in ConcatOp::verify, found by hand-mutating fuzz inputs).
    if (auto concat = llvm::dyn_cast<mlir::tensor::ConcatOp>(op)) {
      mlir::IntegerAttr attr = concat.getDimAttr(); // null when missing: the verifier says so
      int64_t dim = attr ? attr.getValue().getSExtValue() : 0;
      if (dim < 0) {
        op->emitOpError() << "dim " << dim << " is negative (it counts from 0)";
        return mlir::WalkResult::interrupt();
      }
      return mlir::WalkResult::advance();
    }
    // tensor.from_elements: its generated verifier builds a vector of one
    // type per result element before comparing it with the operands' types
    // (the generic form `"tensor.from_elements"(%a) : (f32) ->
    // tensor<90228672988384xf32>` aborted the same way as the custom form).
    // The op is not verified yet: it may have no result at all.
    if (llvm::isa<mlir::tensor::FromElementsOp>(op) && op->getNumResults() == 1) {
      auto type = llvm::dyn_cast<mlir::RankedTensorType>(op->getResult(0).getType());
      if (type && type.hasStaticShape()) {
        std::optional<int64_t> n = checkedNumel({type.getShape().begin(), type.getShape().end()});
        if (!n || *n != int64_t(op->getNumOperands())) {
          op->emitOpError() << "has " << op->getNumOperands() << " operands for a result of "
                            << (n ? std::to_string(*n) : std::string("more than 2^63"))
                            << " elements (" << type << "): one operand per element";
          return mlir::WalkResult::interrupt();
        }
      }
      return mlir::WalkResult::advance();
    }
    // tensor/memref expand_shape and collapse_shape: ExpandShapeOp::verify
    // builds an affine map per reassociation group from the group's first
    // expression, and an empty group (`[[], [0, 1]]`) dereferenced a null
    // context (SIGSEGV in AffineMap::get, found by fuzz-interpreter). A
    // reassociation of the wrong attribute type is left to the verifier,
    // which checks types before it calls the op's verify().
    if (!op->isRegistered() || !op->getPropertiesStorageSize())
      return mlir::WalkResult::advance();
    std::optional<mlir::Attribute> attr = op->getInherentAttr("reassociation");
    auto groups = attr ? llvm::dyn_cast_or_null<mlir::ArrayAttr>(*attr) : mlir::ArrayAttr();
    if (!groups)
      return mlir::WalkResult::advance();
    for (auto [i, g] : llvm::enumerate(groups)) {
      auto group = llvm::dyn_cast<mlir::ArrayAttr>(g);
      if (group && group.empty()) {
        op->emitOpError() << "reassociation group " << i
                          << " is empty (each group lists at least one dimension)";
        return mlir::WalkResult::interrupt();
      }
    }
    return mlir::WalkResult::advance();
  });
  return mlir::failure(r.wasInterrupted());
}

mlir::LogicalResult checkBeforeVerify(const llvm::MemoryBuffer &buffer,
                                      const mlir::DialectRegistry &registry) {
  mlir::MLIRContext ctx(registry);
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(buffer.getBuffer(), buffer.getBufferIdentifier(), false),
      llvm::SMLoc());
  // Parse errors are the caller's parser's to report; only this check speaks.
  mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &) { return mlir::success(); });
  mlir::ParserConfig config(&ctx, /*verifyAfterParse=*/false);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceFile<mlir::ModuleOp>(sm, config);
  if (!module)
    return mlir::success();
  mlir::SourceMgrDiagnosticHandler report(sm, &ctx);
  return checkBeforeVerify(*module);
}

mlir::OwningOpRef<mlir::ModuleOp> parseModuleChecked(llvm::SourceMgr &sourceMgr,
                                                     mlir::MLIRContext *ctx) {
  unsigned id = sourceMgr.getMainFileID();
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(id);
  if (std::optional<PrecheckIssue> issue = precheckMlirText(buffer->getBuffer())) {
    auto [line, col] = sourceMgr.getLineAndColumn(
        llvm::SMLoc::getFromPointer(buffer->getBufferStart() + issue->offset), id);
    mlir::emitError(mlir::FileLineColLoc::get(ctx, buffer->getBufferIdentifier(), line, col))
        << issue->message;
    return nullptr;
  }
  // Verified here rather than by the parser, after the checks of what the
  // upstream verifiers crash on.
  mlir::ParserConfig config(ctx, /*verifyAfterParse=*/false);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, config);
  if (!module || mlir::failed(checkBeforeVerify(*module)) || mlir::failed(mlir::verify(*module)) ||
      mlir::failed(checkStaticLimits(*module)))
    return nullptr;
  return module;
}

mlir::OwningOpRef<mlir::ModuleOp> parseModuleChecked(llvm::StringRef text,
                                                     llvm::StringRef bufferName,
                                                     mlir::MLIRContext *ctx) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, bufferName),
                               llvm::SMLoc());
  return parseModuleChecked(sourceMgr, ctx);
}

} // namespace ssm
