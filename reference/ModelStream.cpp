// ModelStream: a model folder's graph on the reference interpreter, states carried between calls.
#include "reference/ModelStream.h"

#include "frontend/SafeParse.h"
#include "passes/ActivationQuant.h"
#include "passes/WeightStorage.h"
#include "reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"

namespace ssm::ref {

using rt::Code;
using rt::Status;

bool storedModelGraph(const std::string &specText, int64_t len, importer::LogitsRows rows,
                      const rt::WeightFile &weights, mlir::MLIRContext &ctx, std::string &text,
                      std::string &error) {
  if (!importer::buildModelMLIR(specText, len, text, error, rows))
    return false;
  auto dtypeOf = [&](const std::string &name) -> std::optional<std::string> {
    if (const rt::WeightFile::Tensor *t = weights.info(name))
      return t->dtype;
    return std::nullopt;
  };
  if (!ssm::applyWeightStorage(
          text, ctx, [&](llvm::StringRef p) { return ssm::storageFromDtypes(p, dtypeOf); }, error))
    return false;
  // A GGUF import's activation quantisation (passes/ActivationQuant.h).
  std::map<std::string, std::string> formats;
  if (!ssm::activationFormatsFromModelJson(specText, formats, error))
    return false;
  if (formats.empty())
    return true;
  ssm::ActivationQuantSummary summary;
  return ssm::applyActivationQuant(text, ctx, formats, summary, error);
}

struct ModelStream::Graphs {
  std::map<int64_t, mlir::OwningOpRef<mlir::ModuleOp>> byLength;
};

ModelStream::ModelStream(mlir::MLIRContext &ctx, const rt::ModelSpec &spec,
                         rt::WeightFile &weights, importer::LogitsRows rows)
    : ctx_(ctx), spec_(spec), weights_(weights), rows_(rows), graphs_(new Graphs) {
  for (const rt::StateSpec &s : spec.states)
    initial_[s.name].assign(static_cast<size_t>(s.numel), s.init);
  states_ = initial_;
}

ModelStream::~ModelStream() = default;

void ModelStream::reset() {
  states_ = initial_;
  logits_.clear();
  position_ = 0;
}

Status ModelStream::prefill(const int32_t *tokens, size_t n, std::vector<float> *allLogits) {
  if (n == 0)
    return {Code::InvalidArgument, "the prompt has no tokens"};
  if (allLogits)
    allLogits->clear();
  if (allLogits && rows_ != importer::LogitsRows::All) {
    // The sequence graph returns the last position's logits only: step.
    for (size_t i = 0; i < n; ++i) {
      if (Status st = step(tokens[i]); !st)
        return st;
      allLogits->insert(allLogits->end(), logits_.begin(), logits_.end());
    }
    return {};
  }
  std::vector<float> rows;
  if (Status st = call(spec_.sequenceFunction, std::vector<int32_t>(tokens, tokens + n), rows);
      !st)
    return st;
  // The last row is the logits after the last token.
  const size_t vocab = rows_ == importer::LogitsRows::All ? rows.size() / n : rows.size();
  logits_.assign(rows.end() - static_cast<std::ptrdiff_t>(vocab), rows.end());
  if (allLogits)
    *allLogits = std::move(rows);
  return {};
}

Status ModelStream::step(int32_t token) {
  return call(spec_.stepFunction, {token}, logits_);
}

Status ModelStream::call(const std::string &fnName, const std::vector<int32_t> &tokens,
                         std::vector<float> &logits) {
  const int64_t n = static_cast<int64_t>(tokens.size());
  if (Status st = spec_.checkContext(position_, n); !st)
    return st;
  // The graph for this length, its weights typed as the file stores them.
  const int64_t len = fnName == spec_.stepFunction ? 1 : n;
  auto &slot = graphs_->byLength[len];
  if (!slot) {
    std::string text, error;
    if (!storedModelGraph(spec_.text, len, rows_, weights_, ctx_, text, error))
      return {Code::Mismatch, error};
    llvm::SourceMgr sm;
    mlir::SourceMgrDiagnosticHandler diag(sm, &ctx_);
    slot = ssm::parseModuleChecked(text, "model.mlir", &ctx_);
    if (!slot)
      return {Code::InvalidFile, "the model's MLIR does not parse (see above)"};
  }
  auto fn = slot->lookupSymbol<mlir::func::FuncOp>(fnName);
  if (!fn)
    return {Code::Unsupported, "the model has no function @" + fnName};
  std::vector<Array> args;
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    auto str = [&](const char *a) {
      auto s = fn.getArgAttrOfType<mlir::StringAttr>(i, a);
      return s ? s.str() : std::string();
    };
    auto type = mlir::cast<mlir::RankedTensorType>(fn.getArgumentTypes()[i]);
    std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
    std::string state = str("ssm.state"), param = str("ssm.param"), name = str("ssm.name");
    if (!state.empty()) {
      const std::vector<float> &s = states_[state];
      int64_t count = numelOf(shape);
      if (static_cast<int64_t>(s.size()) != count)
        return {Code::Mismatch, "state '" + state + "' has " + std::to_string(s.size()) +
                                    " values, the model " + std::to_string(count) +
                                    " (check the states of model.json)"};
      args.emplace_back(shape, std::vector<double>(s.begin(), s.end()));
    } else if (!param.empty()) {
      Status st;
      // An i8 argument (a q8 weight, passes/WeightStorage.h) as stored;
      // every other weight as f32 values (16-bit ones widen exactly).
      const bool q8 = type.getElementType().isInteger(8);
      const rt::WeightFile::Tensor *w = q8 ? weights_.getStored(param, st) : weights_.get(param, st);
      if (!w)
        return {Code::Mismatch, st.message()};
      if (w->shape != shape)
        return {Code::Mismatch, weights_.path() + ": '" + param + "' has shape " +
                                    shapeToString(w->shape) + " but the model expects " +
                                    shapeToString(shape)};
      if (q8) {
        if (w->dtype != "I8")
          return {Code::Mismatch,
                  weights_.path() + ": '" + param + "' is " + w->dtype + ", the model reads I8"};
        const int8_t *q = static_cast<const int8_t *>(w->stored);
        args.emplace_back(shape, std::vector<double>(q, q + w->numel));
      } else {
        args.emplace_back(shape, std::vector<double>(w->data, w->data + w->numel));
      }
    } else if (name == "tokens") {
      if (numelOf(shape) != static_cast<int64_t>(tokens.size()))
        return {Code::Mismatch, "@" + fnName + " takes " + std::to_string(numelOf(shape)) +
                                    " tokens, the call has " + std::to_string(tokens.size()) +
                                    " (check functions in model.json)"};
      args.emplace_back(shape, std::vector<double>(tokens.begin(), tokens.end()));
    } else if (name == "position") {
      args.emplace_back(shape, std::vector<double>(static_cast<size_t>(numelOf(shape)),
                                                   static_cast<double>(position_)));
    } else {
      return {Code::Mismatch, "argument '" + name + "' of @" + fnName +
                                  " is neither the tokens, the position, a state (ssm.state) nor "
                                  "a weight (ssm.param)"};
    }
  }
  auto results = runFunction(fn, args);
  if (!results)
    return {Code::KernelFailed, llvm::toString(results.takeError())};
  for (unsigned i = 0; i < fn.getNumResults(); ++i) {
    auto st = fn.getResultAttrOfType<mlir::StringAttr>(i, "ssm.state");
    const Array &r = (*results)[i];
    if (st)
      states_[st.str()].assign(r.data.begin(), r.data.end());
    else
      logits.assign(r.data.begin(), r.data.end());
  }
  position_ += n;
  return Status::ok();
}

} // namespace ssm::ref
