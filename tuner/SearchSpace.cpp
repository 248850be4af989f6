// Search spaces from the schedule field table (see SearchSpace.h).
#include "tuner/SearchSpace.h"

#include "dialect/SsmDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>

using namespace mlir;

namespace ssm::tune {
namespace {

/// With algorithm = dot, tile_k is a K block in elements that must be a
/// multiple of vector_width: the search's tile_k coordinate counts units of
/// 64 elements (a multiple of every legal vector_width), so the ladder's
/// 2 .. 128 are blocks of 128 .. 8192 elements (768, the default at
/// K >= 2048, is 12).
constexpr int64_t kDotTileKUnit = 64;

/// 1, 2, 3, 4, 6, 8, 12, 16, ... (powers of two and 3 x powers of two) in [lo, hi].
std::vector<int64_t> ladder(int64_t lo, int64_t hi) {
  std::vector<int64_t> out;
  for (int64_t p = 1; p <= hi && p > 0; p *= 2) {
    if (p >= lo)
      out.push_back(p);
    if (3 * p / 2 >= lo && 3 * p / 2 <= hi && p >= 2)
      out.push_back(3 * p / 2);
  }
  if (lo == 0)
    out.insert(out.begin(), 0);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int64_t dimOf(Value v, int i) {
  auto t = cast<RankedTensorType>(v.getType());
  return t.getDimSize(i < 0 ? t.getRank() + i : i);
}

/// name -> value text of a printed struct attribute `#ssm.x<a = 1, b = true>`.
std::map<std::string, std::string> fieldsOfText(llvm::StringRef text) {
  std::map<std::string, std::string> out;
  size_t open = text.find('<'), close = text.rfind('>');
  if (open == llvm::StringRef::npos || close == llvm::StringRef::npos || close < open)
    return out;
  llvm::SmallVector<llvm::StringRef> parts;
  text.slice(open + 1, close).split(parts, ',', -1, false);
  for (llvm::StringRef p : parts) {
    auto [k, v] = p.split('=');
    out[k.trim().str()] = v.trim().str();
  }
  return out;
}

} // namespace

SearchSpace::SearchSpace(Operation *op, std::optional<TargetInfo> target)
    : op_(op), family_(*scheduleFamilyOf(op)) {
  if (target && !target->gpu) {
    nativeLanes_ = std::max<int64_t>(1, target->vectorWidth);
    registers_ = target->wideRegisterFile ? 32 : 16;
  }
  llvm::StringRef name = op->getName().getStringRef();
  int64_t extent = 1; // the widest operand dim: channels of an ssm op
  for (Value v : op->getOperands())
    if (auto t = dyn_cast<RankedTensorType>(v.getType()))
      for (int64_t d : t.getShape())
        extent = std::max(extent, d);
  int64_t m = 1, n = 1, k = 1;
  if (family_ == ScheduleFamily::Matmul) {
    bool transA = name == "linalg.matmul_transpose_a";
    m = dimOf(op->getResult(0), 0);
    n = dimOf(op->getResult(0), 1);
    k = dimOf(op->getOperand(0), transA ? 0 : 1);
  }
  const bool gpuTarget = target && target->gpu;
  for (const ScheduleField &f : scheduleFields(family_)) {
    if (family_ == ScheduleFamily::Ssm && !llvm::is_contained(scheduleFieldsOf(name), f.name))
      continue;
    // GPU fields (gpu_threads, gpu_tile, ...) are no coordinates of a CPU
    // kernel: never proposed for a CPU target (nor without a target).
    if (f.name.starts_with("gpu") && !gpuTarget)
      continue;
    Dim d{&f, {}};
    if (f.kind == FieldKind::Bool) {
      d.values = {1, 0};
    } else if (f.kind == FieldKind::Enum) {
      d.values = {0};
      if (f.name == "algorithm" && name == "linalg.matmul_transpose_b")
        d.values.push_back(1); // dot
    } else if (!f.values.empty()) {
      d.values.assign(f.values.begin(), f.values.end());
    } else if (f.name == "chunk") {
      d.values = {0, 16, 32, 64, 128};
    } else if (f.name == "channel_tile") {
      d.values = ladder(1, std::min<int64_t>(256, std::max<int64_t>(1, (extent + 3) / 4)));
    } else if (f.name == "tile_cols") {
      d.values = ladder(1, std::min<int64_t>(64, std::max<int64_t>(1, (n + 3) / 4)));
    } else if (f.name == "tile_rows") {
      d.values = ladder(1, std::min<int64_t>(f.hi, std::max<int64_t>(1, m)));
      for (int64_t r = 1; r <= std::min<int64_t>(f.hi, m); ++r)
        if (!llvm::is_contained(d.values, r))
          d.values.push_back(r);
      std::sort(d.values.begin(), d.values.end());
    } else if (f.name == "tile_k") {
      d.values = ladder(0, std::min<int64_t>(128, std::max<int64_t>(2, k)));
      d.values.erase(std::remove(d.values.begin(), d.values.end(), 1), d.values.end());
      d.values.erase(std::remove(d.values.begin(), d.values.end(), 3), d.values.end());
    } else if (f.name == "row_tiles") {
      d.values = ladder(1, std::min<int64_t>(64, std::max<int64_t>(1, m)));
    } else if (f.name == "col_tiles") {
      d.values = ladder(1, std::min<int64_t>(256, std::max<int64_t>(1, n)));
    } else {
      d.values = ladder(std::max<int64_t>(f.lo, 1), std::min<int64_t>(f.hi, 1 << 20));
    }
    dims_.push_back(std::move(d));
  }
}

double SearchSpace::size() const {
  double s = 1;
  for (const Dim &d : dims_)
    s *= static_cast<double>(d.values.size());
  return s;
}

int64_t SearchSpace::accumulatorVectors(const Point &p) const {
  if (family_ != ScheduleFamily::Matmul)
    return 0;
  int64_t vw = 1, rows = 1, cols = 1;
  bool dot = false;
  for (size_t i = 0; i < dims_.size(); ++i) {
    llvm::StringRef name = dims_[i].field->name;
    int64_t v = dims_[i].values[p[i]];
    if (name == "vector_width")
      vw = v;
    else if (name == "tile_rows")
      rows = v;
    else if (name == "tile_cols")
      cols = v; // tiled: a multiplier of vector_width (see render)
    else if (name == "algorithm")
      dot = dims_[i].field->enumValues[v] == "dot";
  }
  int64_t perVector = nativeLanes_ ? (vw + nativeLanes_ - 1) / nativeLanes_ : 1;
  // Tiled: `cols` vectors of vector_width per row (render multiplies by it);
  // dot: `cols` weight rows, one partial-sum vector each.
  return rows * cols * perVector;
}

std::string SearchSpace::render(const Point &p) const {
  int64_t vw = 0;
  llvm::StringRef algorithm;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (dims_[i].field->name == "vector_width")
      vw = dims_[i].values[p[i]];
    if (dims_[i].field->name == "algorithm")
      algorithm = dims_[i].field->enumValues[dims_[i].values[p[i]]];
  }
  bool dot = algorithm == "dot";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "#ssm." << scheduleFamilyMnemonic(family_) << "<";
  bool first = true;
  for (size_t i = 0; i < dims_.size(); ++i) {
    const Dim &d = dims_[i];
    if (!d.field->onlyAlgorithm.empty() && d.field->onlyAlgorithm != algorithm)
      continue;
    int64_t v = d.values[p[i]];
    os << (first ? "" : ", ") << d.field->name << " = ";
    first = false;
    if (d.field->kind == FieldKind::Bool)
      os << (v ? "true" : "false");
    else if (d.field->kind == FieldKind::Enum)
      os << d.field->enumValues[v];
    else if (dot && d.field->name == "tile_k")
      os << v * kDotTileKUnit;
    else
      os << (d.field->multipleOfVectorWidth && vw && !dot ? v * vw : v);
  }
  os << ">";
  return os.str();
}

std::optional<Point> SearchSpace::pointOf(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  std::map<std::string, std::string> fields = fieldsOfText(os.str());
  int64_t vw = 1;
  if (fields.count("vector_width"))
    llvm::StringRef(fields["vector_width"]).getAsInteger(10, vw);
  bool dot = fields.count("algorithm") && fields["algorithm"] == "dot";
  Point p(dims_.size(), 0);
  for (size_t i = 0; i < dims_.size(); ++i) {
    Dim &d = dims_[i];
    auto it = fields.find(d.field->name.str());
    if (it == fields.end())
      continue; // a field this schedule does not use (the other algorithm's)
    int64_t v = 0;
    if (d.field->kind == FieldKind::Bool) {
      v = it->second == "true";
    } else if (d.field->kind == FieldKind::Enum) {
      auto e = llvm::find(d.field->enumValues, it->second);
      if (e == d.field->enumValues.end())
        return std::nullopt;
      v = e - d.field->enumValues.begin();
    } else {
      if (llvm::StringRef(it->second).getAsInteger(10, v))
        return std::nullopt;
      if (d.field->multipleOfVectorWidth && !dot) {
        if (v % vw != 0)
          return std::nullopt;
        v /= vw;
      }
      if (dot && d.field->name == "tile_k") {
        if (v % kDotTileKUnit != 0)
          return std::nullopt;
        v /= kDotTileKUnit;
      }
    }
    auto at = llvm::find(d.values, v);
    if (at == d.values.end()) {
      d.values.push_back(v);
      std::sort(d.values.begin(), d.values.end());
      at = llvm::find(d.values, v);
    }
    p[i] = at - d.values.begin();
  }
  return p;
}

Attribute SearchSpace::legal(const std::string &text) const {
  MLIRContext *ctx = op_->getContext();
  ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
  Attribute a = parseAttribute(text, ctx);
  if (!a)
    return {};
  Attribute old = op_->getAttr(kScheduleAttrName);
  op_->setAttr(kScheduleAttrName, a);
  bool ok = succeeded(verify(op_));
  if (old)
    op_->setAttr(kScheduleAttrName, old);
  else
    op_->removeAttr(kScheduleAttrName);
  return ok ? a : Attribute();
}

} // namespace ssm::tune
