// A small writer of MLIR text for model graphs: SSA names, tensor types,
// linalg.generic with a scalar body, matmuls, reshapes, slices.
//
// The importers build graphs as text (no MLIR link: the runner can call
// them from any process) and the tools parse and verify the text before
// writing it. Every op written here is one that the reference interpreter
// and the Halide translation support (README, "The ops"; codegen/lowerings).
#ifndef SSM_IMPORT_RWKVMLIREMITTER_H
#define SSM_IMPORT_RWKVMLIREMITTER_H

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ssm::importer {

/// A tensor value: its SSA name and static shape; f32 unless `elem` says otherwise.
struct TValue {
  std::string name;
  std::vector<int64_t> shape;
  std::string elem = "f32";
};

/// "tensor<3x4xf32>", "tensor<f32>" for rank 0.
std::string tensorType(const std::vector<int64_t> &shape, const std::string &elem = "f32");
/// An f32 literal that MLIR parses back to exactly `v` (as float).
std::string f32Literal(double v);
/// `shape` with a leading dim `batch` when `batch` > 0: a state's shape in a
/// batched step function (one row per stream); `shape` itself otherwise.
std::vector<int64_t> withBatch(int64_t batch, const std::vector<int64_t> &shape);

class MlirEmitter;

/// The body of a linalg.generic: scalar ops on SSA names, straight-line.
class GenericBody {
public:
  GenericBody(MlirEmitter &e, std::vector<std::string> args) : e(e), args(std::move(args)) {}
  /// Block argument i: the inputs in order, then the output (accumulator).
  const std::string &arg(size_t i) const { return args.at(i); }
  std::string cst(double v);
  std::string add(const std::string &a, const std::string &b) { return bin("arith.addf", a, b); }
  std::string sub(const std::string &a, const std::string &b) { return bin("arith.subf", a, b); }
  std::string mul(const std::string &a, const std::string &b) { return bin("arith.mulf", a, b); }
  std::string div(const std::string &a, const std::string &b) { return bin("arith.divf", a, b); }
  std::string max(const std::string &a, const std::string &b) { return bin("arith.maximumf", a, b); }
  std::string neg(const std::string &a) { return un("arith.negf", a); }
  std::string exp(const std::string &a) { return un("math.exp", a); }
  std::string log(const std::string &a) { return un("math.log", a); }
  std::string sqrt(const std::string &a) { return un("math.sqrt", a); }
  std::string sigmoid(const std::string &a); // 1 / (1 + exp(-a))
  /// linalg.index d
  std::string index(int d);
  /// A raw line; returns `result` (the caller names it with fresh()).
  void raw(const std::string &line) { lines.push_back(line); }
  std::string fresh(const std::string &hint);

  std::vector<std::string> lines;

private:
  std::string bin(const char *op, const std::string &a, const std::string &b);
  std::string un(const char *op, const std::string &a);
  MlirEmitter &e;
  std::vector<std::string> args;
};

/// One operand of a generic: the value and its indexing map results over the
/// loop dims d0..d{n-1}, e.g. {"d0", "d2"}; empty for a rank-0 value.
struct GenericOperand {
  TValue value;
  std::vector<std::string> map;
};

class MlirEmitter {
public:
  /// A fresh SSA name "%hint" (or "%hint_N" when taken); hint: [a-z0-9_].
  std::string fresh(const std::string &hint);
  /// Forgets every name (functions are isolated from above: names may repeat).
  void resetNames() { names.clear(); }
  /// Marks `name` (with its '%') as taken.
  void reserve(const std::string &name) { names.insert(name); }
  /// Appends one line at the current indentation.
  void line(const std::string &text);
  std::string text;
  int indent = 2;

  /// %zero = arith.constant 0.0 : f32 for this function; call once per function.
  void beginFunction();
  const std::string &zeroScalar() const { return zero; }

  TValue empty(const std::vector<int64_t> &shape, const std::string &hint = "empty");
  /// A zero-filled tensor of `shape`: one linalg.fill per shape and function,
  /// shared by every matmul and reduction that starts from zeros (value
  /// semantics; each lowers to one Func instead of one per use).
  TValue zeros(const std::vector<int64_t> &shape, const std::string &hint = "zeros");
  /// y = x W^T, x (M, K), W (N, K) (the PyTorch nn.Linear layout); with
  /// `addTo` (M, N), y = addTo + x W^T (the matmul accumulates into it).
  TValue linear(const TValue &x, const TValue &w, const std::string &hint,
                const TValue *addTo = nullptr);
  /// A linalg.generic with one result of `outShape`. `outMap` indexes the
  /// output; `iterators` is "parallel"/"reduction" per loop dim. With
  /// `init` the output starts from it (reductions), else from tensor.empty.
  TValue generic(const std::string &hint, const std::vector<GenericOperand> &ins,
                 const std::vector<int64_t> &outShape, const std::vector<std::string> &outMap,
                 const std::vector<std::string> &iterators,
                 const std::function<std::string(GenericBody &)> &body,
                 const TValue *init = nullptr);
  /// Elementwise over `shape`: every input's map is given (identity if empty map and
  /// same rank), output identity.
  TValue map(const std::string &hint, const std::vector<GenericOperand> &ins,
             const std::vector<int64_t> &shape,
             const std::function<std::string(GenericBody &)> &body);
  /// Sum over the last dim of x (rank r) -> rank r-1, applying `term` to each element first.
  TValue reduceLast(const std::string &hint, const std::vector<GenericOperand> &ins,
                    const std::vector<int64_t> &loopShape,
                    const std::function<std::string(GenericBody &)> &term);

  TValue expand(const TValue &x, const std::vector<std::vector<int>> &groups,
                const std::vector<int64_t> &shape, const std::string &hint);
  TValue collapse(const TValue &x, const std::vector<std::vector<int>> &groups,
                  const std::vector<int64_t> &shape, const std::string &hint);
  /// Collapses every dim into one (identity when already rank 1).
  TValue flatten(const TValue &x, const std::string &hint);
  TValue slice(const TValue &x, const std::vector<int64_t> &offsets,
               const std::vector<int64_t> &sizes, const std::vector<int64_t> &resultShape,
               const std::string &hint);
  TValue concat(int dim, const std::vector<TValue> &parts, const std::string &hint);

private:
  std::set<std::string> names;
  std::string zero;
  std::map<std::vector<int64_t>, TValue> zeroTensors;
};

/// "affine_map<(d0, d1) -> (d1)>"
std::string affineMap(int numDims, const std::vector<std::string> &results);
/// Identity results {"d0", ..., "d{n-1}"}.
std::vector<std::string> identityMap(int n);

} // namespace ssm::importer

#endif // SSM_IMPORT_RWKVMLIREMITTER_H
