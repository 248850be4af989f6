// The model skeleton (import/graph/ModelGraph.h): public functions, block functions and the state plumbing for any stack of layers.
#include "import/graph/ModelGraph.h"

#include <cctype>
#include <set>
#include <stdexcept>

namespace ssm::importer::graph {

std::string Form::name() const {
  switch (kind) {
  case Kind::Sequence:
    return "sequence";
  case Kind::Step:
    return "step";
  case Kind::BatchedStep:
    return "step_batched";
  case Kind::BatchedSequence:
    return "sequence_batched";
  }
  return "sequence";
}

std::string ssaHint(const std::string &name) {
  std::string out;
  for (char ch : name)
    out += std::isalnum(static_cast<unsigned char>(ch))
               ? char(std::tolower(static_cast<unsigned char>(ch)))
               : '_';
  return out;
}

namespace {
thread_local int64_t gSequenceBatch = 0;
} // namespace

SequenceBatchScope::SequenceBatchScope(int64_t batch) : saved_(gSequenceBatch) {
  gSequenceBatch = batch;
}
SequenceBatchScope::~SequenceBatchScope() { gSequenceBatch = saved_; }

std::vector<TensorDecl> modelStates(const ModelDecl &model) {
  std::vector<TensorDecl> out;
  for (const LayerDecl &l : model.layers)
    for (const TensorDecl &s : l.kind->states)
      out.push_back({l.statePrefix + s.name, s.shape});
  return out;
}

namespace {

/// The shape of a carry in a function whose residual stream has `rows` rows.
Shape carryShape(int64_t rows, const Shape &tail) {
  Shape s{rows};
  s.insert(s.end(), tail.begin(), tail.end());
  return s;
}

std::string typeList(const std::vector<TValue> &values) {
  std::string s;
  for (const TValue &v : values)
    s += (s.empty() ? "" : ", ") + tensorType(v.shape, v.elem);
  return s;
}

std::string nameList(const std::vector<TValue> &values) {
  std::string s;
  for (const TValue &v : values)
    s += (s.empty() ? "" : ", ") + v.name;
  return s;
}

/// A name the description promised that a lookup did not find.
struct Missing : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const TValue &lookup(const std::map<std::string, TValue> &m, const std::string &name,
                     const char *what) {
  auto it = m.find(name);
  if (it == m.end())
    throw Missing(std::string(what) + " '" + name + "'");
  return it->second;
}

} // namespace

const TValue &BlockScope::param(const std::string &suffix) const {
  return lookup(params, paramPrefix + suffix, "the weight");
}
const TValue &BlockScope::state(const std::string &suffix) const {
  return lookup(states, statePrefix + suffix, "the state");
}
const TValue &ModelScope::param(const std::string &name) const {
  return lookup(params, name, "the weight");
}

namespace {

class SkeletonWriter {
public:
  SkeletonWriter(const ModelDecl &m, MlirEmitter &e) : m(m), e(e) {}

  void function(const Form &form, LogitsRows rows);
  void block(const BlockKind &kind, const LayerDecl &first, const Form &form);

private:
  /// Writes `comment` (if any) and the signature `sig` (ending in "{"),
  /// and starts the body.
  void open(const std::function<std::string(const Form &)> &comment, const Form &form,
            const std::string &sig) {
    e.indent = 2;
    if (comment)
      e.line("// " + comment(form));
    e.line(sig);
    e.indent = 4;
    e.beginFunction();
  }
  /// Returns `out` and closes the function.
  void close(const std::vector<TValue> &out) {
    e.line("return " + nameList(out) + " : " + typeList(out));
    e.indent = 2;
    e.line("}");
  }
  const ModelDecl &m;
  MlirEmitter &e;
};

void SkeletonWriter::function(const Form &form, LogitsRows rows) {
  e.resetNames();
  const int64_t L = form.rows();
  TValue tokens{"%tokens", {L}, "i32"};
  e.reserve(tokens.name);
  std::string sig = "func.func @forward_" + form.name() + "(" + tokens.name + ": " +
                    tensorType(tokens.shape, "i32") + " {ssm.name = \"tokens\"}";
  // The position: one per stream, when a block reads it.
  bool position = false;
  for (const LayerDecl &l : m.layers)
    position = position || l.kind->takesPosition;
  TValue pos{"%position", {form.streams()}, "i32"};
  if (position) {
    e.reserve(pos.name);
    sig += ",\n    " + pos.name + ": " + tensorType(pos.shape, "i32") + " {ssm.name = \"position\"}";
  }
  std::map<std::string, TValue> states;
  const std::vector<TensorDecl> stateList = modelStates(m);
  for (const TensorDecl &s : stateList) {
    TValue v{e.fresh("s_" + ssaHint(s.name)), form.stateShape(s.shape)};
    states[s.name] = v;
    sig += ",\n    " + v.name + ": " + tensorType(v.shape) + " {ssm.state = \"" + s.name + "\"}";
  }
  ModelScope ms{e, form, {}};
  for (const TensorDecl &p : m.params) {
    TValue v{e.fresh("w_" + ssaHint(p.name)), p.shape};
    ms.params[p.name] = v;
    sig += ",\n    " + v.name + ": " + tensorType(v.shape) + " {ssm.param = \"" + p.name + "\"}";
  }
  // The sequence form returns the last position's logits or every
  // position's; the step forms one row per token (per stream); the batched
  // sequence each stream's last position's.
  const int64_t logitRows = form.batchedSequence()                     ? form.batch
                            : form.sequence() && rows == LogitsRows::Last ? 1
                                                                          : L;
  sig += ")\n    -> (" + tensorType({logitRows, m.vocab}) + " {ssm.name = \"logits\"}";
  for (const TensorDecl &s : stateList)
    sig += ",\n        " + tensorType(form.stateShape(s.shape)) + " {ssm.state = \"" + s.name +
           "\"}";
  sig += ") {";
  open(m.comment, form, sig);

  TValue h = m.embed(ms, tokens);
  std::map<std::string, TValue> carries;
  std::map<std::string, TValue> newStates;
  for (size_t l = 0; l < m.layers.size(); ++l) {
    const LayerDecl &layer = m.layers[l];
    const BlockKind &kind = *layer.kind;
    std::vector<TValue> args{h}, results{h};
    if (kind.takesPosition)
      args.push_back(pos);
    for (const TensorDecl &c : kind.carriesIn)
      args.push_back(lookup(carries, c.name, "the carry"));
    for (const TensorDecl &s : kind.states) {
      args.push_back(lookup(states, layer.statePrefix + s.name, "the state"));
      results.push_back(args.back());
    }
    for (const TensorDecl &p : kind.params)
      args.push_back(ms.param(layer.paramPrefix + p.name));
    for (const TensorDecl &c : kind.carriesOut)
      results.push_back(TValue{"", carryShape(L, c.shape)});
    std::string r = e.fresh("l" + std::to_string(l));
    auto result = [&](size_t i) {
      return results.size() == 1 ? r : r + "#" + std::to_string(i);
    };
    e.line((results.size() == 1 ? r : r + ":" + std::to_string(results.size())) +
           " = func.call @" + kind.name + "_" + form.name() + "(" + nameList(args) + ") : (" +
           typeList(args) + ") -> (" + typeList(results) + ")");
    h = TValue{result(0), h.shape};
    size_t i = 1;
    for (const TensorDecl &s : kind.states) {
      newStates[layer.statePrefix + s.name] = TValue{result(i), results[i].shape};
      ++i;
    }
    for (const TensorDecl &c : kind.carriesOut) {
      carries[c.name] = TValue{result(i), results[i].shape};
      ++i;
    }
  }
  if (form.batchedSequence() && form.length > 1) {
    e.line("// Only each stream's last position's logits: those hidden states alone go on.");
    const int64_t B = form.batch, T = form.length;
    TValue h3 = e.expand(h, {{0, 1}, {2}}, {B, T, m.width}, "h_streams");
    TValue last = e.slice(h3, {0, T - 1, 0}, {B, 1, m.width}, {B, 1, m.width}, "h_last3");
    h = e.collapse(last, {{0}, {1, 2}}, {B, m.width}, "h_last");
  } else if (logitRows < L && !form.batchedSequence()) {
    e.line("// Only the last position's logits: its hidden state alone goes on.");
    h = e.slice(h, {L - 1, 0}, {1, m.width}, {1, m.width}, "h_last");
  }
  std::vector<TValue> out{m.head(ms, h)};
  for (const TensorDecl &s : stateList)
    out.push_back(newStates.at(s.name));
  close(out);
}

void SkeletonWriter::block(const BlockKind &kind, const LayerDecl &first, const Form &form) {
  e.resetNames();
  const int64_t L = form.rows();
  BlockScope scope{e, form, first.paramPrefix, first.statePrefix, TValue{}, {}, {}, {}, {}, {}};
  scope.h = TValue{e.fresh("h"), {L, m.width}};
  std::vector<TValue> args{scope.h};
  std::vector<Shape> resultShapes{scope.h.shape};
  if (kind.takesPosition) {
    scope.position = TValue{e.fresh("position"), {form.streams()}, "i32"};
    args.push_back(scope.position);
  }
  for (const TensorDecl &c : kind.carriesIn) {
    TValue v{e.fresh(ssaHint(c.name)), carryShape(L, c.shape)};
    scope.carries[c.name] = v;
    args.push_back(v);
  }
  for (const TensorDecl &s : kind.states) {
    TValue v{e.fresh("s_" + ssaHint(s.name)), form.stateShape(s.shape)};
    scope.states[first.statePrefix + s.name] = v;
    args.push_back(v);
    resultShapes.push_back(v.shape);
  }
  for (const TensorDecl &p : kind.params) {
    TValue v{e.fresh("w_" + ssaHint(p.name)), p.shape};
    scope.params[first.paramPrefix + p.name] = v;
    args.push_back(v);
  }
  for (const TensorDecl &c : kind.carriesOut)
    resultShapes.push_back(carryShape(L, c.shape));
  std::string sig = "func.func private @" + kind.name + "_" + form.name() + "(";
  for (size_t i = 0; i < args.size(); ++i)
    sig += std::string(i ? ",\n    " : "") + args[i].name + ": " +
           tensorType(args[i].shape, args[i].elem);
  std::string resultTypes;
  for (const Shape &s : resultShapes)
    resultTypes += (resultTypes.empty() ? "" : ", ") + tensorType(s);
  sig += ")\n    -> (" + resultTypes + ") {";
  open(kind.comment, form, sig);
  kind.body(scope);

  std::vector<TValue> out{scope.h};
  if (scope.newStates.size() != kind.states.size())
    throw std::logic_error("block '" + kind.name + "' returned " +
                           std::to_string(scope.newStates.size()) + " states for " +
                           std::to_string(kind.states.size()));
  out.insert(out.end(), scope.newStates.begin(), scope.newStates.end());
  for (const TensorDecl &c : kind.carriesOut)
    out.push_back(lookup(scope.carriesOut, c.name, "the carry out"));
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i].shape != resultShapes[i])
      throw std::logic_error("block '" + kind.name + "' result " + std::to_string(i) +
                             " is " + tensorType(out[i].shape) + ", declared " +
                             tensorType(resultShapes[i]));
  close(out);
}

} // namespace

bool writeModule(const ModelDecl &model, int64_t seqLen, LogitsRows rows, int64_t batch,
                 std::string &mlir, std::string &error) {
  if (seqLen < 1 || seqLen > (int64_t(1) << 24)) {
    error = "sequence length " + std::to_string(seqLen) + " is out of range (1 to 16777216)";
    return false;
  }
  if (batch < 0 || batch > kMaxStepBatch) {
    error = "step batch " + std::to_string(batch) + " is out of range (1 to " +
            std::to_string(kMaxStepBatch) + ")";
    return false;
  }
  // Every layer's weights exist with its kind's shapes: one block function serves them all.
  std::map<std::string, Shape> have;
  for (const TensorDecl &p : model.params)
    have[p.name] = p.shape;
  std::vector<std::pair<const BlockKind *, const LayerDecl *>> kinds; // first use order
  std::set<const BlockKind *> seen;
  for (const LayerDecl &l : model.layers) {
    if (!l.kind) {
      error = "a layer has no block kind";
      return false;
    }
    if (seen.insert(l.kind).second)
      kinds.push_back({l.kind, &l});
    for (const TensorDecl &p : l.kind->params) {
      auto it = have.find(l.paramPrefix + p.name);
      if (it == have.end() || it->second != p.shape) {
        error = "parameter '" + l.paramPrefix + p.name + "' is missing or has another shape than " +
                tensorType(p.shape) + " (every '" + l.kind->name +
                "' layer has the same shapes)";
        return false;
      }
    }
  }

  MlirEmitter e;
  e.text = model.header + "module {\n";
  SkeletonWriter w(model, e);
  std::vector<std::pair<Form, LogitsRows>> forms = {
      {Form{Form::Kind::Sequence, seqLen, 0}, rows},
      {Form{Form::Kind::Step, 1, 0}, LogitsRows::Last}};
  if (batch > 0)
    forms.push_back({Form{Form::Kind::BatchedStep, 1, batch}, LogitsRows::All});
  if (gSequenceBatch > 0) {
    if (gSequenceBatch > kMaxStepBatch) {
      error = "prefill batch " + std::to_string(gSequenceBatch) + " is out of range (1 to " +
              std::to_string(kMaxStepBatch) + ")";
      return false;
    }
    for (const auto &[kind, layer] : kinds)
      if (!kind->batchedSequence) {
        error = "the batched sequence function (--prefill-batch) is not written for the '" +
                kind->name +
                "' layers of this architecture (mamba1, mamba2, rwkv4 to rwkv7, lfm2, granite "
                "4.0-h, falcon-h1 and qwen3.5 have it)";
        return false;
      }
    forms.push_back({Form{Form::Kind::BatchedSequence, seqLen, gSequenceBatch}, LogitsRows::Last});
  }
  try {
    bool firstFunction = true;
    for (const auto &[form, r] : forms) {
      if (!firstFunction)
        e.text += "\n";
      firstFunction = false;
      w.function(form, r);
      for (const auto &[kind, layer] : kinds) {
        e.text += "\n";
        w.block(*kind, *layer, form);
      }
    }
  } catch (const Missing &m) {
    error = std::string("the graph needs ") + m.what() + ", which the model does not declare";
    return false;
  } catch (const std::out_of_range &) {
    error = "the parameter or state list of the model does not match its architecture (a "
            "tensor the graph needs is missing)";
    return false;
  } catch (const std::logic_error &x) {
    error = std::string("internal error in the graph description: ") + x.what();
    return false;
  }
  e.text += "}\n";
  mlir = std::move(e.text);
  return true;
}

} // namespace ssm::importer::graph
