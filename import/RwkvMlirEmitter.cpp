// MLIR text writer for model graphs.
#include "import/RwkvMlirEmitter.h"

#include <cassert>
#include <cstdio>

namespace ssm::importer {

std::vector<int64_t> withBatch(int64_t batch, const std::vector<int64_t> &shape) {
  if (batch <= 0)
    return shape;
  std::vector<int64_t> s{batch};
  s.insert(s.end(), shape.begin(), shape.end());
  return s;
}

std::string tensorType(const std::vector<int64_t> &shape, const std::string &elem) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + elem + ">";
}

std::string f32Literal(double v) {
  char buf[48];
  // 9 significant digits round-trip every float; scientific form always
  // has the '.' that MLIR's float literal grammar requires.
  std::snprintf(buf, sizeof buf, "%.8e", double(float(v)));
  return buf;
}

std::string affineMap(int numDims, const std::vector<std::string> &results) {
  std::string s = "affine_map<(";
  for (int i = 0; i < numDims; ++i)
    s += (i ? ", d" : "d") + std::to_string(i);
  s += ") -> (";
  for (size_t i = 0; i < results.size(); ++i)
    s += (i ? ", " : "") + results[i];
  return s + ")>";
}

std::vector<std::string> identityMap(int n) {
  std::vector<std::string> m;
  for (int i = 0; i < n; ++i)
    m.push_back("d" + std::to_string(i));
  return m;
}

//===----------------------------------------------------------------------===//
// GenericBody
//===----------------------------------------------------------------------===//

std::string GenericBody::fresh(const std::string &hint) { return e.fresh(hint); }

std::string GenericBody::cst(double v) {
  std::string r = fresh("c");
  lines.push_back(r + " = arith.constant " + f32Literal(v) + " : f32");
  return r;
}

std::string GenericBody::bin(const char *op, const std::string &a, const std::string &b) {
  std::string r = fresh("v");
  lines.push_back(r + " = " + op + " " + a + ", " + b + " : f32");
  return r;
}

std::string GenericBody::un(const char *op, const std::string &a) {
  std::string r = fresh("v");
  lines.push_back(r + " = " + op + " " + a + " : f32");
  return r;
}

std::string GenericBody::sigmoid(const std::string &a) {
  std::string one = cst(1.0);
  return div(one, add(one, exp(neg(a))));
}

std::string GenericBody::index(int d) {
  std::string r = fresh("idx");
  lines.push_back(r + " = linalg.index " + std::to_string(d) + " : index");
  return r;
}

//===----------------------------------------------------------------------===//
// MlirEmitter
//===----------------------------------------------------------------------===//

std::string MlirEmitter::fresh(const std::string &hint) {
  std::string base = "%" + (hint.empty() ? std::string("v") : hint);
  if (names.insert(base).second)
    return base;
  for (int n = 1;; ++n) {
    std::string s = base + "_" + std::to_string(n);
    if (names.insert(s).second)
      return s;
  }
}

void MlirEmitter::line(const std::string &t) {
  text.append(indent, ' ');
  text += t;
  text += '\n';
}

void MlirEmitter::beginFunction() {
  zeroTensors.clear();
  zero = fresh("zero");
  line(zero + " = arith.constant 0.000000e+00 : f32");
}

TValue MlirEmitter::empty(const std::vector<int64_t> &shape, const std::string &hint) {
  TValue v{fresh(hint), shape};
  line(v.name + " = tensor.empty() : " + tensorType(shape));
  return v;
}

TValue MlirEmitter::zeros(const std::vector<int64_t> &shape, const std::string &hint) {
  auto it = zeroTensors.find(shape);
  if (it != zeroTensors.end())
    return it->second;
  std::string name = "zeros";
  for (int64_t d : shape)
    name += "_" + std::to_string(d);
  (void)hint;
  TValue e = empty(shape, name + "_init");
  TValue v{fresh(name), shape};
  zeroTensors[shape] = v;
  std::string t = tensorType(shape);
  line(v.name + " = linalg.fill ins(" + zero + " : f32) outs(" + e.name + " : " + t + ") -> " + t);
  return v;
}

TValue MlirEmitter::linear(const TValue &x, const TValue &w, const std::string &hint,
                           const TValue *addTo) {
  assert(x.shape.size() == 2 && w.shape.size() == 2 && x.shape[1] == w.shape[1]);
  TValue acc = addTo ? *addTo : zeros({x.shape[0], w.shape[0]}, hint + "_acc");
  TValue v{fresh(hint), acc.shape};
  std::string t = tensorType(acc.shape);
  line(v.name + " = linalg.matmul_transpose_b ins(" + x.name + ", " + w.name + " : " +
       tensorType(x.shape) + ", " + tensorType(w.shape) + ") outs(" + acc.name + " : " + t +
       ") -> " + t);
  return v;
}

TValue MlirEmitter::generic(const std::string &hint, const std::vector<GenericOperand> &ins,
                            const std::vector<int64_t> &outShape,
                            const std::vector<std::string> &outMap,
                            const std::vector<std::string> &iterators,
                            const std::function<std::string(GenericBody &)> &body,
                            const TValue *init) {
  int numDims = int(iterators.size());
  TValue out = init ? *init : empty(outShape, hint + "_init");
  std::string outT = tensorType(outShape);
  std::string maps, its, insNames, insTypes;
  for (const GenericOperand &o : ins) {
    maps += affineMap(numDims, o.map) + ", ";
    insNames += (insNames.empty() ? "" : ", ") + o.value.name;
    insTypes += (insTypes.empty() ? "" : ", ") + tensorType(o.value.shape, o.value.elem);
  }
  maps += affineMap(numDims, outMap);
  for (size_t i = 0; i < iterators.size(); ++i)
    its += std::string(i ? ", " : "") + "\"" + iterators[i] + "\"";

  std::vector<std::string> args;
  std::string argList;
  for (const GenericOperand &o : ins) {
    args.push_back(fresh("a"));
    argList += (argList.empty() ? "" : ", ") + args.back() + ": " + o.value.elem;
  }
  args.push_back(fresh("acc"));
  argList += (argList.empty() ? "" : ", ") + args.back() + ": f32";
  GenericBody b(*this, args);
  std::string result = body(b);

  TValue v{fresh(hint), outShape};
  std::string head = v.name + " = linalg.generic {indexing_maps = [" + maps +
                     "], iterator_types = [" + its + "]}";
  if (!ins.empty())
    head += " ins(" + insNames + " : " + insTypes + ")";
  head += " outs(" + out.name + " : " + outT + ") {";
  line(head);
  line("^bb0(" + argList + "):");
  indent += 2;
  for (const std::string &l : b.lines)
    line(l);
  line("linalg.yield " + result + " : f32");
  indent -= 2;
  line("} -> " + outT);
  return v;
}

TValue MlirEmitter::map(const std::string &hint, const std::vector<GenericOperand> &ins,
                        const std::vector<int64_t> &shape,
                        const std::function<std::string(GenericBody &)> &body) {
  int n = int(shape.size());
  std::vector<GenericOperand> full = ins;
  for (GenericOperand &o : full)
    if (o.map.empty() && int(o.value.shape.size()) == n)
      o.map = identityMap(n);
  return generic(hint, full, shape, identityMap(n), std::vector<std::string>(n, "parallel"), body);
}

TValue MlirEmitter::reduceLast(const std::string &hint, const std::vector<GenericOperand> &ins,
                               const std::vector<int64_t> &loopShape,
                               const std::function<std::string(GenericBody &)> &term) {
  int n = int(loopShape.size());
  std::vector<int64_t> outShape(loopShape.begin(), loopShape.end() - 1);
  std::vector<GenericOperand> full = ins;
  for (GenericOperand &o : full)
    if (o.map.empty() && int(o.value.shape.size()) == n)
      o.map = identityMap(n);
  std::vector<std::string> its(n, "parallel");
  its.back() = "reduction";
  TValue init = zeros(outShape, hint + "_zero");
  return generic(hint, full, outShape, identityMap(n - 1), its,
                 [&](GenericBody &b) { return b.add(b.arg(full.size()), term(b)); }, &init);
}

static std::string groupsText(const std::vector<std::vector<int>> &groups) {
  std::string s = "[";
  for (size_t g = 0; g < groups.size(); ++g) {
    s += g ? ", [" : "[";
    for (size_t i = 0; i < groups[g].size(); ++i)
      s += (i ? ", " : "") + std::to_string(groups[g][i]);
    s += "]";
  }
  return s + "]";
}

static std::string intList(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

TValue MlirEmitter::expand(const TValue &x, const std::vector<std::vector<int>> &groups,
                           const std::vector<int64_t> &shape, const std::string &hint) {
  TValue v{fresh(hint), shape, x.elem};
  line(v.name + " = tensor.expand_shape " + x.name + " " + groupsText(groups) +
       " output_shape " + intList(shape) + " : " + tensorType(x.shape, x.elem) + " into " +
       tensorType(shape, x.elem));
  return v;
}

TValue MlirEmitter::collapse(const TValue &x, const std::vector<std::vector<int>> &groups,
                             const std::vector<int64_t> &shape, const std::string &hint) {
  TValue v{fresh(hint), shape, x.elem};
  line(v.name + " = tensor.collapse_shape " + x.name + " " + groupsText(groups) + " : " +
       tensorType(x.shape, x.elem) + " into " + tensorType(shape, x.elem));
  return v;
}

TValue MlirEmitter::flatten(const TValue &x, const std::string &hint) {
  if (x.shape.size() == 1)
    return x;
  int64_t n = 1;
  std::vector<int> all;
  for (size_t i = 0; i < x.shape.size(); ++i) {
    n *= x.shape[i];
    all.push_back(int(i));
  }
  return collapse(x, {all}, {n}, hint);
}

TValue MlirEmitter::slice(const TValue &x, const std::vector<int64_t> &offsets,
                          const std::vector<int64_t> &sizes,
                          const std::vector<int64_t> &resultShape, const std::string &hint) {
  TValue v{fresh(hint), resultShape, x.elem};
  std::vector<int64_t> strides(sizes.size(), 1);
  line(v.name + " = tensor.extract_slice " + x.name + intList(offsets) + " " + intList(sizes) +
       " " + intList(strides) + " : " + tensorType(x.shape, x.elem) + " to " +
       tensorType(resultShape, x.elem));
  return v;
}

TValue MlirEmitter::concat(int dim, const std::vector<TValue> &parts, const std::string &hint) {
  std::vector<int64_t> shape = parts.front().shape;
  shape[dim] = 0;
  std::string names, types;
  for (const TValue &p : parts) {
    shape[dim] += p.shape[dim];
    names += (names.empty() ? "" : ", ") + p.name;
    types += (types.empty() ? "" : ", ") + tensorType(p.shape, p.elem);
  }
  TValue v{fresh(hint), shape, parts.front().elem};
  line(v.name + " = tensor.concat dim(" + std::to_string(dim) + ") " + names + " : (" + types +
       ") -> " + tensorType(shape, v.elem));
  return v;
}

} // namespace ssm::importer
