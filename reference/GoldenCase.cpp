// Loading golden case folders and translating each op's case into an MLIR function.
#include "reference/GoldenCase.h"

#include "runtime/Npy.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace ssm {
namespace {

using json = nlohmann::ordered_json; // keeps case.json order for the report

std::string tensorType(const std::vector<int64_t> &shape) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + "f32>";
}

/// Emits the body of one case's function; knows the inputs by name.
class Builder {
public:
  explicit Builder(GoldenCase &c) : c(c) {}

  bool has(const std::string &name) const { return find(name) != nullptr; }
  const NamedArray *find(const std::string &name) const {
    for (const NamedArray &a : c.inputs)
      if (a.name == name)
        return &a;
    return nullptr;
  }
  /// The SSA name and type of input `name`, making it a function argument.
  std::string arg(const std::string &name) {
    for (size_t i = 0; i < c.argNames.size(); ++i)
      if (c.argNames[i] == name)
        return "%" + name;
    c.argNames.push_back(name);
    return "%" + name;
  }
  std::string type(const std::string &name) const { return tensorType(find(name)->shape); }

  std::ostringstream body;
  std::vector<std::pair<std::string, std::string>> results; // (ssa, type)

  std::string finish() {
    std::ostringstream os;
    os << "func.func @main(";
    for (size_t i = 0; i < c.argNames.size(); ++i)
      os << (i ? ", " : "") << "%" << c.argNames[i] << ": " << type(c.argNames[i])
         << " {ssm.name = \"" << c.argNames[i] << "\"}";
    os << ") -> (";
    // Results are named after their SSA values (%out -> "out"), which are
    // the case's output names, so a compiled module's manifest names every
    // tensor as case.json does (ssm-run --emit-graph).
    for (size_t i = 0; i < results.size(); ++i)
      os << (i ? ", " : "") << results[i].second << " {ssm.name = \""
         << results[i].first.substr(1) << "\"}";
    os << ") {\n" << body.str() << "  return ";
    for (size_t i = 0; i < results.size(); ++i)
      os << (i ? ", " : "") << results[i].first;
    os << " : ";
    for (size_t i = 0; i < results.size(); ++i)
      os << (i ? ", " : "") << results[i].second;
    os << "\n}\n";
    return os.str();
  }

private:
  GoldenCase &c;
};

bool fail(std::string &error, const std::string &msg) {
  error = msg;
  return false;
}

/// Attribute access that refuses unknown keys and wrong JSON types.
class Attrs {
public:
  Attrs(const json &j, std::string where) : j(j), where(std::move(where)) {}

  bool checkKnown(const std::set<std::string> &known, std::string &error) const {
    for (auto it = j.begin(); it != j.end(); ++it)
      if (!known.count(it.key()))
        return fail(error, where + ": unknown attribute '" + it.key() + "'");
    return true;
  }
  bool getBool(const std::string &key, bool dflt, bool &out, std::string &error) const {
    out = dflt;
    if (!j.contains(key))
      return true;
    if (!j[key].is_boolean())
      return fail(error, where + ": attribute '" + key + "' must be true or false");
    out = j[key].get<bool>();
    return true;
  }
  bool getInt(const std::string &key, int64_t dflt, int64_t &out, std::string &error) const {
    out = dflt;
    if (!j.contains(key))
      return true;
    if (!j[key].is_number_integer())
      return fail(error, where + ": attribute '" + key + "' must be an integer");
    out = j[key].get<int64_t>();
    return true;
  }
  /// A string attribute restricted to `allowed`; JSON null reads as "null".
  bool getEnum(const std::string &key, const std::string &dflt,
               const std::set<std::string> &allowed, std::string &out,
               std::string &error) const {
    out = dflt;
    if (!j.contains(key))
      return true;
    if (j[key].is_null())
      out = "null";
    else if (j[key].is_string())
      out = j[key].get<std::string>();
    else
      return fail(error, where + ": attribute '" + key + "' must be a string");
    if (!allowed.count(out)) {
      std::string list;
      for (const std::string &a : allowed)
        list += (list.empty() ? "" : ", ") + a;
      return fail(error, where + ": attribute '" + key + "' has unsupported value '" +
                             out + "' (supported: " + list + ")");
    }
    return true;
  }

private:
  const json &j;
  std::string where;
};

bool require(const Builder &b, const std::vector<std::string> &names,
             const std::string &where, std::string &error) {
  for (const std::string &n : names)
    if (!b.has(n))
      return fail(error, where + ": the op needs input '" + n + "' (inputs/" + n + ".npy)");
  return true;
}

bool buildSelectiveScan(GoldenCase &c, const Attrs &attrs, std::string &error) {
  std::string where = c.dir + "/case.json";
  if (!attrs.checkKnown({"delta_softplus", "b_c", "groups", "return_last_state", "layout"}, error))
    return false;
  bool softplus, returnLast;
  int64_t groups;
  std::string bc, layout;
  if (!attrs.getBool("delta_softplus", false, softplus, error) ||
      !attrs.getBool("return_last_state", false, returnLast, error) ||
      !attrs.getInt("groups", 1, groups, error) ||
      !attrs.getEnum("b_c", "variable", {"variable", "constant"}, bc, error) ||
      !attrs.getEnum("layout", "channel_major", {"channel_major", "time_major"}, layout, error))
    return false;
  Builder b(c);
  if (!require(b, {"u", "delta", "A", "B", "C"}, where, error))
    return false;
  // The op's verifier checks the shapes; the result type below needs u's and A's ranks.
  if (b.find("u")->shape.size() != 3 || b.find("A")->shape.size() != 2)
    return fail(error, where + ": u must be (batch, channels, L) or (batch, L, channels) and A "
                               "(channels, dstate)");
  for (const char *bcName : {"B", "C"}) {
    size_t rank = b.find(bcName)->shape.size();
    if ((bc == "constant") != (rank == 2))
      return fail(error, where + ": b_c is '" + bc + "' but input '" + bcName +
                             "' has rank " + std::to_string(rank));
    if (rank == 4) {
      const auto &s = b.find(bcName)->shape;
      int64_t g = layout == "time_major" ? s[2] : s[1];
      if (g != groups)
        return fail(error, where + ": groups is " + std::to_string(groups) + " but input '" +
                               bcName + "' holds " + std::to_string(g) + " groups");
    } else if (rank == 3 && groups != 1) {
      return fail(error, where + ": groups is " + std::to_string(groups) + " but input '" +
                             bcName + "' has no group dimension");
    }
  }
  std::string operands = b.arg("u") + ", " + b.arg("delta") + ", " + b.arg("A") + ", " +
                         b.arg("B") + ", " + b.arg("C");
  std::string types = b.type("u") + ", " + b.type("delta") + ", " + b.type("A") + ", " +
                      b.type("B") + ", " + b.type("C");
  for (const char *opt : {"D", "z", "delta_bias"})
    if (b.has(opt)) {
      operands += std::string(" ") + opt + "(" + b.arg(opt) + ")";
      types += ", " + b.type(opt);
    }
  const auto &u = b.find("u")->shape;
  const auto &A = b.find("A")->shape;
  std::vector<int64_t> last = {u[0], layout == "time_major" ? u[2] : u[1], A[1]};
  b.body << "  %out, %last_state = ssm.selective_scan " << layout << " " << operands
         << (softplus ? " {delta_softplus}" : "") << " : (" << types << ") -> ("
         << b.type("u") << ", " << tensorType(last) << ")\n";
  b.results = {{"%out", b.type("u")}, {"%last_state", tensorType(last)}};
  c.resultNames = {"out", "last_state"};
  c.mlir = b.finish();
  (void)returnLast; // the op always returns the last state; expected/ decides what is compared
  return true;
}

bool buildSelectiveUpdate(GoldenCase &c, const Attrs &attrs, std::string &error) {
  std::string where = c.dir + "/case.json";
  if (!attrs.checkKnown({"dt_softplus", "heads", "groups"}, error))
    return false;
  bool softplus, heads;
  int64_t groups;
  if (!attrs.getBool("dt_softplus", false, softplus, error) ||
      !attrs.getBool("heads", false, heads, error) || !attrs.getInt("groups", 1, groups, error))
    return false;
  Builder b(c);
  if (!require(b, {"state", "x", "dt", "A", "B", "C"}, where, error))
    return false;
  size_t stateRank = b.find("state")->shape.size();
  if (heads != (stateRank == 4))
    return fail(error, where + ": heads is " + (heads ? "true" : "false") +
                           " but input 'state' has rank " + std::to_string(stateRank));
  if (heads && b.find("B")->shape.size() == 3 && b.find("B")->shape[1] != groups)
    return fail(error, where + ": groups is " + std::to_string(groups) +
                           " but input 'B' holds " + std::to_string(b.find("B")->shape[1]));
  std::string operands = b.arg("state") + ", " + b.arg("x") + ", " + b.arg("dt") + ", " +
                         b.arg("A") + ", " + b.arg("B") + ", " + b.arg("C");
  std::string types = b.type("state") + ", " + b.type("x") + ", " + b.type("dt") + ", " +
                      b.type("A") + ", " + b.type("B") + ", " + b.type("C");
  for (const char *opt : {"D", "z", "dt_bias"})
    if (b.has(opt)) {
      operands += std::string(" ") + opt + "(" + b.arg(opt) + ")";
      types += ", " + b.type(opt);
    }
  b.body << "  %out, %new_state = ssm.selective_update " << operands
         << (softplus ? " {dt_softplus}" : "") << " : (" << types << ") -> (" << b.type("x")
         << ", " << b.type("state") << ")\n";
  b.results = {{"%out", b.type("x")}, {"%new_state", b.type("state")}};
  c.resultNames = {"out", "new_state"};
  c.mlir = b.finish();
  return true;
}

bool buildSsd(GoldenCase &c, const Attrs &attrs, std::string &error) {
  std::string where = c.dir + "/case.json";
  if (!attrs.checkKnown({"block_len"}, error))
    return false;
  int64_t blockLen;
  if (!attrs.getInt("block_len", 64, blockLen, error))
    return false;
  if (blockLen <= 0)
    return fail(error, where + ": attribute 'block_len' must be positive");
  Builder b(c);
  if (!require(b, {"X", "A", "B", "C"}, where, error))
    return false;
  // The op's verifier checks the rest; the state type below needs X's and B's ranks.
  if (b.find("X")->shape.size() != 4 || b.find("B")->shape.size() != 4)
    return fail(error, where + ": X must be (batch, L, heads, head_dim) and B (batch, L, groups, "
                               "dstate)");
  const auto &x = b.find("X")->shape;
  std::vector<int64_t> state = {x[0], x[2], x[3], b.find("B")->shape.back()};
  std::string operands = b.arg("X") + ", " + b.arg("A") + ", " + b.arg("B") + ", " + b.arg("C");
  std::string types = b.type("X") + ", " + b.type("A") + ", " + b.type("B") + ", " + b.type("C");
  if (const NamedArray *init = b.find("initial_states")) {
    // The reference stores one initial state per chunk boundary (b, 1, h, p, n).
    if (init->shape.size() != 5 || init->shape[1] != 1)
      return fail(error, c.dir + "/inputs/initial_states.npy: shape must be (batch, 1, heads, "
                                 "head_dim, dstate)");
    b.body << "  %init = tensor.collapse_shape " << b.arg("initial_states")
           << " [[0, 1], [2], [3], [4]] : " << b.type("initial_states") << " into "
           << tensorType(state) << "\n";
    operands += " initial_state(%init)";
    types += ", " + tensorType(state);
  }
  b.body << "  %Y, %final_state = ssm.ssd_scan " << operands << " {chunk_size = " << blockLen
         << "} : (" << types << ") -> (" << b.type("X") << ", " << tensorType(state) << ")\n";
  b.results = {{"%Y", b.type("X")}, {"%final_state", tensorType(state)}};
  c.resultNames = {"Y", "final_state"};
  c.mlir = b.finish();
  return true;
}

bool buildCausalConv(GoldenCase &c, const Attrs &attrs, std::string &error) {
  std::string where = c.dir + "/case.json";
  if (!attrs.checkKnown({"activation", "return_final_states"}, error))
    return false;
  std::string act;
  bool returnFinal;
  if (!attrs.getEnum("activation", "null", {"null", "silu"}, act, error) ||
      !attrs.getBool("return_final_states", false, returnFinal, error))
    return false;
  Builder b(c);
  if (!require(b, {"x", "weight"}, where, error))
    return false;
  const auto &x = b.find("x")->shape;
  const auto &w = b.find("weight")->shape;
  if (w.size() != 2 || x.size() != 3)
    return fail(error, where + ": x must be (batch, dim, L) and weight (dim, width)");
  std::vector<int64_t> fin = {x[0], x[1], w[1] - 1};
  std::string operands = b.arg("x") + ", " + b.arg("weight");
  std::string types = b.type("x") + ", " + b.type("weight");
  if (b.has("bias")) {
    operands += " bias(" + b.arg("bias") + ")";
    types += ", " + b.type("bias");
  }
  if (b.has("initial_states")) {
    operands += " initial_states(" + b.arg("initial_states") + ")";
    types += ", " + b.type("initial_states");
  }
  b.body << "  %out, %final_states = ssm.causal_conv1d "
         << (act == "silu" ? "silu " : "identity ") << operands << " : (" << types << ") -> ("
         << b.type("x") << ", " << tensorType(fin) << ")\n";
  b.results = {{"%out", b.type("x")}, {"%final_states", tensorType(fin)}};
  c.resultNames = {"out", "final_states"};
  c.mlir = b.finish();
  return true;
}

/// S4D: dt = exp(log_dt); A = -exp(log_A_real) (+ i A_imag); K = lti_kernel (B optional,
/// `b_discretization` optional: Mamba's zoh A / euler B); y = lti_conv with `algorithm`
/// (direct unless the case or `convAlgorithm` says fft).
bool buildLti(GoldenCase &c, const Attrs &attrs, const std::string &convAlgorithm,
              std::string &error) {
  std::string where = c.dir + "/case.json";
  if (!attrs.checkKnown({"discretization", "b_discretization", "complex_diagonal", "length",
                         "algorithm"},
                        error))
    return false;
  std::string disc, bDisc, algorithm;
  bool complex;
  int64_t length;
  if (!attrs.getEnum("discretization", "zoh", {"zoh", "bilinear", "euler"}, disc, error) ||
      !attrs.getEnum("b_discretization", "", {"", "zoh", "bilinear", "euler"}, bDisc, error) ||
      !attrs.getEnum("algorithm", "direct", {"direct", "fft"}, algorithm, error) ||
      !attrs.getBool("complex_diagonal", true, complex, error) ||
      !attrs.getInt("length", 0, length, error))
    return false;
  if (!convAlgorithm.empty())
    algorithm = convAlgorithm;
  Builder b(c);
  std::string cName = b.has("C_real_imag") ? "C_real_imag" : "C";
  if (!require(b, {"log_dt", "log_A_real", cName, "u"}, where, error))
    return false;
  if (complex && !require(b, {"A_imag"}, where, error))
    return false;
  const auto &logA = b.find("log_A_real")->shape;
  const auto &u = b.find("u")->shape;
  if (logA.size() != 2 || u.size() != 3)
    return fail(error, where + ": log_A_real must be (H, N) and u (batch, H, L)");
  if (length <= 0)
    length = u[2];
  std::string aType = b.type("log_A_real");
  b.body << "  %dt = math.exp " << b.arg("log_dt") << " : " << b.type("log_dt") << "\n"
         << "  %expA = math.exp " << b.arg("log_A_real") << " : " << aType << "\n"
         << "  %Are = arith.negf %expA : " << aType << "\n";
  std::string aVal = "%Are", aFinal = aType;
  if (complex) {
    std::vector<int64_t> one = {logA[0], logA[1], 1}, two = {logA[0], logA[1], 2};
    b.body << "  %Are3 = tensor.expand_shape %Are [[0], [1, 2]] output_shape [" << logA[0]
           << ", " << logA[1] << ", 1] : " << aType << " into " << tensorType(one) << "\n"
           << "  %Aim3 = tensor.expand_shape " << b.arg("A_imag") << " [[0], [1, 2]] output_shape ["
           << logA[0] << ", " << logA[1] << ", 1] : " << b.type("A_imag") << " into "
           << tensorType(one) << "\n"
           << "  %A = tensor.concat dim(2) %Are3, %Aim3 : (" << tensorType(one) << ", "
           << tensorType(one) << ") -> " << tensorType(two) << "\n";
    aVal = "%A";
    aFinal = tensorType(two);
  }
  std::vector<int64_t> kShape = {logA[0], length};
  std::string cArg = b.arg(cName);
  std::string bOperand, bType;
  if (b.has("B")) {
    bOperand = " B(" + b.arg("B") + ")";
    bType = ", " + b.type("B");
  }
  b.body << "  %K = ssm.lti_kernel " << disc << (bDisc.empty() ? "" : ", " + bDisc) << " "
         << aVal << ", " << cArg << ", %dt" << bOperand << " : (" << aFinal << bType << ", "
         << b.type(cName) << ", " << b.type("log_dt") << ") -> " << tensorType(kShape)
         << "\n"
         << "  %y = ssm.lti_conv " << algorithm << " " << b.arg("u") << ", %K : (" << b.type("u") << ", "
         << tensorType(kShape) << ") -> " << b.type("u") << "\n";
  b.results = {{"%K", tensorType(kShape)}, {"%y", b.type("u")}};
  c.resultNames = {"K", "y"};
  c.mlir = b.finish();
  return true;
}

bool loadArray(const std::string &path, const std::string &name, const json &spec,
               NamedArray &out, std::string &error) {
  NpyArray npy;
  if (!readNpy(path, npy, error))
    return false;
  if (spec.is_object() && spec.contains("shape") && spec["shape"].is_array()) {
    std::vector<int64_t> want;
    for (const json &d : spec["shape"])
      want.push_back(d.is_number_integer() ? d.get<int64_t>() : -1);
    if (want != npy.shape) {
      std::string w, g;
      for (int64_t d : want)
        w += (w.empty() ? "" : ", ") + std::to_string(d);
      for (int64_t d : npy.shape)
        g += (g.empty() ? "" : ", ") + std::to_string(d);
      return fail(error, path + ": shape (" + g + ") but case.json says (" + w + ")");
    }
  }
  // Golden data is floating point (golden/README.md): an integer or bool
  // file where a float32 array belongs is a mistake, not something to convert.
  std::string dtypeName = npy.dtype == "<f4" ? "float32" : npy.dtype == "<f8" ? "float64" : "";
  if (dtypeName.empty())
    return fail(error, path + ": dtype '" + npy.dtype +
                           "', but golden inputs and outputs are float32 (or float64)");
  if (spec.is_object() && spec.contains("dtype") && spec["dtype"].is_string() &&
      spec["dtype"].get<std::string>() != dtypeName)
    return fail(error, path + ": dtype " + dtypeName + " but case.json says " +
                           spec["dtype"].get<std::string>());
  out.name = name;
  out.shape = npy.shape;
  return npyToDoubles(npy, out.data, error);
}

} // namespace

bool loadGoldenCase(const std::string &dir, GoldenCase &c, std::string &error,
                    const std::string &convAlgorithm) {
  c = GoldenCase();
  c.dir = dir;
  std::string casePath = dir + "/case.json";
  std::ifstream in(casePath);
  if (!in)
    return fail(error, casePath + ": cannot open (is '" + dir + "' a golden case folder?)");
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return fail(error, casePath + ": not valid JSON");
  if (!j.contains("op") || !j["op"].is_string())
    return fail(error, casePath + ": no \"op\" string");
  c.op = j["op"].get<std::string>();
  if (j.contains("tolerance")) {
    const json &t = j["tolerance"];
    if (!t.is_object() || !t.contains("rtol") || !t.contains("atol") ||
        !t["rtol"].is_number() || !t["atol"].is_number())
      return fail(error, casePath + ": \"tolerance\" must be {\"rtol\": x, \"atol\": y}");
    c.tolerance.rtol = t["rtol"].get<double>();
    c.tolerance.atol = t["atol"].get<double>();
    // A negative tolerance would make every ratio negative, so anything passes.
    for (auto [name, v] : {std::pair<const char *, double>{"rtol", c.tolerance.rtol},
                           {"atol", c.tolerance.atol}})
      if (!std::isfinite(v) || v < 0)
        return fail(error, casePath + ": tolerance \"" + name + "\" is " + t[name].dump() +
                               "; it must be a finite number >= 0");
  }
  for (const char *section : {"inputs", "expected"}) {
    if (!j.contains(section) || !j[section].is_object())
      return fail(error, casePath + ": no \"" + section + "\" object");
    bool isInput = std::string(section) == "inputs";
    for (auto it = j[section].begin(); it != j[section].end(); ++it) {
      NamedArray a;
      std::string path = dir + "/" + section + "/" + it.key() + ".npy";
      if (!loadArray(path, it.key(), it.value(), a, error))
        return false;
      (isInput ? c.inputs : c.expected).push_back(std::move(a));
    }
  }
  json attrsJson = j.contains("attributes") ? j["attributes"] : json::object();
  if (!attrsJson.is_object())
    return fail(error, casePath + ": \"attributes\" must be an object");
  Attrs attrs(attrsJson, casePath);
  bool ok;
  if (c.op == "selective_scan")
    ok = buildSelectiveScan(c, attrs, error);
  else if (c.op == "selective_update")
    ok = buildSelectiveUpdate(c, attrs, error);
  else if (c.op == "ssd_chunked_scan" || c.op == "ssd_scan")
    ok = buildSsd(c, attrs, error);
  else if (c.op == "causal_conv1d")
    ok = buildCausalConv(c, attrs, error);
  else if (c.op == "lti_kernel+lti_conv")
    ok = buildLti(c, attrs, convAlgorithm, error);
  else
    return fail(error, casePath + ": unknown op '" + c.op + "'");
  if (!ok)
    return false;
  for (const NamedArray &a : c.inputs) {
    bool used = false;
    for (const std::string &n : c.argNames)
      used |= n == a.name;
    if (!used)
      return fail(error, casePath + ": input '" + a.name + "' is not an operand of op '" + c.op + "'");
  }
  for (const NamedArray &e : c.expected) {
    bool known = false;
    for (const std::string &r : c.resultNames)
      known |= r == e.name;
    if (!known)
      return fail(error, casePath + ": expected output '" + e.name + "' is not a result of op '" +
                             c.op + "'");
  }
  return true;
}

} // namespace ssm
