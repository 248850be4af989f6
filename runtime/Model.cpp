// Models and streams: compiled functions checked and bound to the weights once, states carried per stream.
#include "runtime/Model.h"

#include "runtime/BatchedPrefill.h"
#include "runtime/BatchedStep.h"
#include "runtime/CpuFeatures.h"
#include "runtime/Manifest.h"
#include "runtime/Shape.h"
#include "runtime/StateFile.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ssm::rt {

Model::~Model() = default;

std::unique_ptr<Model> Model::open(const std::string &dir, Status &status, WeightLoad load,
                                   int64_t context) {
  ModelSpec spec;
  if (!(status = ModelSpec::load(dir, spec)))
    return nullptr;
  if (context != 0 && !(status = spec.withContext(context)))
    return nullptr;
  auto weights = WeightFile::open(dir + "/weights.safetensors", status, load);
  if (!weights)
    return nullptr;
  auto model = open(std::move(spec), std::move(weights), status);
  if (!model || !(status = model->addCompiledModules()))
    return nullptr;
  return model;
}

Status Model::addCompiledModules() {
  std::error_code ec;
  std::filesystem::path compiled = std::filesystem::path(spec_.dir) / "compiled";
  if (!std::filesystem::is_directory(compiled, ec))
    return Status::ok();
  std::vector<std::string> dirs;
  // Non-throwing forms: an entry that cannot be resolved (a symbolic link
  // loop, one without permission) is not a module folder, not an abort.
  for (const auto &e : std::filesystem::directory_iterator(compiled, ec)) {
    std::error_code entryEc;
    if (e.is_directory(entryEc) && std::filesystem::exists(e.path() / "manifest.json", entryEc))
      dirs.push_back(e.path().string());
  }
  std::sort(dirs.begin(), dirs.end());
  // The modules compiled for another machine, by their manifest: a cross
  // target (no shared library) or instructions this CPU lacks. A manifest
  // that cannot be read is left to addModule's error.
  std::vector<std::string> here, elsewhere, elsewhereTargets;
  for (const std::string &d : dirs) {
    // Only a file is read here (a FIFO would block, /dev/zero never end):
    // any other manifest.json is left to addModule's error.
    std::error_code fileEc;
    if (!std::filesystem::is_regular_file(d + "/manifest.json", fileEc)) {
      here.push_back(d);
      continue;
    }
    std::ifstream in(d + "/manifest.json");
    std::stringstream text;
    text << in.rdbuf();
    ModuleManifest manifest;
    std::string error;
    if (in && manifestFromJson(text.str(), d + "/manifest.json", manifest, error) &&
        (!manifest.sharedLibrary || !unrunnableFeature(manifest.target).empty())) {
      elsewhere.push_back(d);
      elsewhereTargets.push_back(manifest.target);
    } else {
      here.push_back(d);
    }
  }
  // None runs here: each is refused by name, as before.
  if (here.empty())
    here = elsewhere, elsewhere.clear();
  for (const std::string &d : here)
    if (Status s = addModule(d); !s)
      return s;
  for (size_t i = 0; i < elsewhere.size(); ++i)
    skipped_.push_back(elsewhere[i] + " (compiled for " + elsewhereTargets[i] + ")");
  return Status::ok();
}

std::unique_ptr<Model> Model::open(ModelSpec spec, std::unique_ptr<WeightFile> weights,
                                   Status &status) {
  std::unique_ptr<Model> m(new Model());
  m->spec_ = std::move(spec);
  m->weights_ = std::move(weights);
  m->vocab_ = m->spec_.vocab;
  status = Status::ok();
  return m;
}

Status Model::addModule(const std::string &moduleDir) {
  std::string error;
  std::unique_ptr<CompiledModule> module = CompiledModule::load(moduleDir, error);
  if (!module) {
    std::error_code ec;
    bool missing = !std::filesystem::exists(moduleDir + "/manifest.json", ec);
    return {missing ? Code::NotFound : Code::InvalidFile, error};
  }
  size_t before = entries_.size(), batchedBefore = batchedEntries_.size(),
         seqBatchedBefore = batchedSequenceEntries_.size();
  bool any = false;
  for (const FunctionInfo &fn : module->functions()) {
    bool isSeq = fn.name == spec_.sequenceFunction, isStep = fn.name == spec_.stepFunction;
    bool isBatched = !spec_.batchedStepFunction.empty() && fn.name == spec_.batchedStepFunction;
    bool isSeqBatched =
        !spec_.batchedSequenceFunction.empty() && fn.name == spec_.batchedSequenceFunction;
    if (!isSeq && !isStep && !isBatched && !isSeqBatched)
      continue;
    any = any || !isSeqBatched;
    if (Status s = addFunction(*module, fn, isStep,
                               isBatched      ? spec_.stepBatch
                               : isSeqBatched ? spec_.prefillBatch
                                              : 0,
                               isSeqBatched);
        !s) {
      entries_.resize(before);
      batchedEntries_.resize(batchedBefore);
      batchedSequenceEntries_.resize(seqBatchedBefore);
      return s;
    }
  }
  if (!any)
    return {Code::Mismatch, moduleDir + ": the module has neither @" + spec_.sequenceFunction +
                                " nor @" + spec_.stepFunction + " (is it compiled from " +
                                spec_.dir + "/model.mlir?)"};
  module->setThreads(threads_);
  modules_.push_back(std::move(module));
  return Status::ok();
}

namespace {
/// For a cache state: its positions in a function's `shape` (with a leading
/// dim of `batch` streams when batch > 0) that is the state's shape but
/// along its axis; 0 when `shape` is not so (or the state is fixed).
int64_t cacheCapacityOf(const std::vector<int64_t> &shape, const StateSpec &st, int64_t batch) {
  const size_t lead = batch > 0 ? 1 : 0;
  if (st.kind != StateKind::Cache || st.axis < 0 || shape.size() != st.shape.size() + lead ||
      (lead && shape[0] != batch))
    return 0;
  for (size_t d = 0; d < st.shape.size(); ++d)
    if (static_cast<int>(d) != st.axis && shape[d + lead] != st.shape[d])
      return 0;
  return std::max<int64_t>(shape[st.axis + lead], 0);
}
} // namespace

Status Model::addFunction(CompiledModule &module, const FunctionInfo &fn, bool step,
                          int64_t batch, bool sequenceBatched) {
  auto e = std::make_unique<Entry>();
  e->module = &module;
  e->fn = &fn;
  e->step = step;
  e->batch = batch;
  e->sequenceBatched = sequenceBatched;
  // The batched functions hold each state `rows` times (a leading batch dim).
  const int64_t rows = batch > 0 ? batch : 1;
  std::string where = "@" + fn.name;
  if (batch > 0)
    for (const TensorInfo &a : fn.arguments)
      if (a.state.empty() && a.param.empty() && a.name == "tokens" && a.shape.size() == 1 &&
          (sequenceBatched ? a.shape[0] % batch != 0 : a.shape[0] != batch))
        return {Code::Mismatch, where + " (the batched " +
                                    (sequenceBatched ? "sequence" : "step") + " function) takes " +
                                    std::to_string(a.shape[0]) + " tokens, but " + spec_.dir +
                                    "/model.json says functions." +
                                    (sequenceBatched ? "sequence_batched" : "step_batched") +
                                    ".batch = " + std::to_string(batch)};
  for (size_t i = 0; i < fn.arguments.size(); ++i) {
    const TensorInfo &a = fn.arguments[i];
    e->argumentState.push_back(-1);
    e->weightArguments.push_back(nullptr);
    e->argumentCapacity.push_back(0);
    if (!a.state.empty()) {
      int s = spec_.findState(a.state);
      if (s < 0)
        return {Code::Mismatch, "state '" + a.state + "' of " + where +
                                    " is not among the states of " + spec_.dir + "/model.json"};
      int64_t n = checkedNumel(a.shape);
      if (a.dtype != "float32")
        return {Code::Mismatch, "state '" + a.state + "' of " + where + " is " + a.dtype +
                                    "; states are float32"};
      // A cache compiled for any capacity: the state's shape but along its axis.
      if (int64_t c = cacheCapacityOf(a.shape, spec_.states[s], batch); c > 0) {
        e->argumentCapacity.back() = c;
        e->cacheCapacity = e->cacheCapacity == 0 ? c : std::min(e->cacheCapacity, c);
      } else if (n != rows * spec_.states[s].numel)
        return {Code::Mismatch, "state '" + a.state + "' has " +
                                    std::to_string(spec_.states[s].numel) + " values" +
                                    (batch > 0 ? " per stream (" + std::to_string(batch) +
                                                     " streams in " + where + ")"
                                               : std::string()) +
                                    ", the model " + std::to_string(n) +
                                    " (check the states of model.json)"};
      e->argumentState.back() = s;
    } else if (!a.param.empty()) {
      auto it = weightViews_.find(a.param);
      if (it != weightViews_.end() && it->second.dtype != a.dtype)
        return {Code::Mismatch, where + " takes '" + a.param + "' as " + a.dtype +
                                    " but another function takes it as " + it->second.dtype};
      if (it == weightViews_.end()) {
        Status st;
        HostTensor h;
        h.dtype = a.dtype;
        if (a.dtype == "float32") {
          const WeightFile::Tensor *t = weights_->get(a.param, st);
          if (!t)
            return {st.code() == Code::NotFound ? Code::Mismatch : st.code(), st.message()};
          h.shape = t->shape;
          h.view = t->data;
        } else {
          // A weight the kernels read in its storage type (passes/WeightStorage.h).
          const char *want = a.dtype == "float16"    ? "F16"
                             : a.dtype == "bfloat16" ? "BF16"
                             : a.dtype == "int8"     ? "I8"
                                                     : nullptr;
          const WeightFile::Tensor *t = want ? weights_->getStored(a.param, st) : nullptr;
          if (!t)
            return {st.code() == Code::NotFound || !want ? Code::Mismatch : st.code(),
                    want ? st.message() : where + ": weight '" + a.param + "' has dtype " + a.dtype};
          if (t->dtype != want)
            return {Code::Mismatch, weights_->path() + ": '" + a.param + "' is " + t->dtype +
                                        " but the compiled model reads it as " + want +
                                        " (import and compile from the same weights)"};
          h.shape = t->shape;
          h.view = t->stored;
        }
        it = weightViews_.emplace(a.param, std::move(h)).first;
      }
      if (it->second.shape != a.shape)
        return {Code::Mismatch, weights_->path() + ": '" + a.param + "' has shape " +
                                    shapeString(it->second.shape) + " but the model expects " +
                                    shapeString(a.shape)};
      e->weightArguments.back() = &it->second;
    } else if (a.name == "tokens") {
      if (e->tokensArgument >= 0)
        return {Code::Mismatch, where + " takes two arguments named 'tokens'"};
      if (a.dtype != "int32" || a.shape.size() != 1 || a.shape[0] < 1)
        return {Code::Mismatch, where + ": the tokens must be a 1-D int32 tensor, got " +
                                    shapeString(a.shape) + " " + a.dtype};
      e->tokensArgument = static_cast<int>(i);
      e->length = a.shape[0];
    } else if (a.name == "position") {
      if (e->positionArgument >= 0)
        return {Code::Mismatch, where + " takes two arguments named 'position'"};
      if (a.dtype != "int32" || a.shape.size() != 1 || a.shape[0] != rows)
        return {Code::Mismatch, where + ": the position must be an int32 tensor of shape (" +
                                    std::to_string(rows) + ",) (one per stream), got " +
                                    shapeString(a.shape) + " " + a.dtype};
      e->positionArgument = static_cast<int>(i);
    } else {
      return {Code::Mismatch, "argument '" + a.name + "' of " + where +
                                  " is neither the tokens, the position, a state (ssm.state) nor "
                                  "a weight (ssm.param)"};
    }
  }
  if (e->tokensArgument < 0)
    return {Code::Mismatch, where + " has no tokens argument"};
  if (sequenceBatched)
    e->length /= batch; // tokens per stream
  for (size_t i = 0; i < fn.results.size(); ++i) {
    const TensorInfo &r = fn.results[i];
    e->resultState.push_back(-1);
    if (!r.state.empty()) {
      int s = spec_.findState(r.state);
      if (s < 0 || (checkedNumel(r.shape) != rows * spec_.states[s].numel &&
                    cacheCapacityOf(r.shape, spec_.states[s], batch) == 0))
        return {Code::Mismatch, "result state '" + r.state + "' of " + where +
                                    " is not a state of model.json or has another size"};
      e->resultState.back() = s;
    } else if (e->logitsResult >= 0) {
      return {Code::Mismatch, where + " returns two results that are not states (one is the logits)"};
    } else {
      e->logitsResult = static_cast<int>(i);
    }
  }
  if (e->logitsResult < 0)
    return {Code::Mismatch, where + " returns no logits"};
  const std::vector<int64_t> &ls = fn.results[e->logitsResult].shape;
  int64_t numel = checkedNumel(ls);
  int64_t vocab = ls.empty() ? 0 : ls.back();
  if (vocab_ == 0)
    vocab_ = vocab;
  if (vocab != vocab_ || numel <= 0 || numel % vocab_ != 0 ||
      (sequenceBatched ? numel / vocab_ != batch
                       : numel / vocab_ != e->length && (numel / vocab_ != 1 || batch > 0)))
    return {Code::Mismatch, where + " returns logits of shape " + shapeString(ls) + " for " +
                                std::to_string(e->length) + " tokens and a vocabulary of " +
                                std::to_string(vocab_)};
  e->logitsRows = numel / vocab_;
  if (sequenceBatched) {
    for (const auto &o : batchedSequenceEntries_)
      if (o->length == e->length)
        return Status::ok(); // the same length in two modules: the first serves
    batchedSequenceEntries_.push_back(std::move(e));
    return Status::ok();
  }
  if (batch > 0) {
    batchedEntries_.push_back(std::move(e));
    return Status::ok();
  }
  if (step && e->length != 1)
    return {Code::Mismatch, where + " (the step function) takes " + std::to_string(e->length) +
                                " tokens, not 1"};
  entries_.push_back(std::move(e));
  return Status::ok();
}

std::vector<int64_t> Model::sequenceLengths() const {
  std::vector<int64_t> out;
  for (const auto &e : entries_)
    if (!e->step)
      out.push_back(e->length);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool Model::hasStep() const {
  return std::any_of(entries_.begin(), entries_.end(), [](const auto &e) { return e->step; });
}

int64_t Model::stepBatch() const {
  return batchedEntries_.empty() ? 0 : batchedEntries_.front()->batch;
}

void Model::setThreads(int n) {
  threads_ = n;
  for (auto &m : modules_)
    m->setThreads(n);
}

// --- Streams -----------------------------------------------------------------

/// A compiled function bound to this stream's tokens, states and results.
struct Stream::Bound {
  HostTensor tokens;
  HostTensor position; // (1) int32, when the function takes it
  std::vector<HostTensor> results;
  std::unique_ptr<BoundCall> call;
  /// Per result: a state carried to the next call (BoundCall::carryState:
  /// on the device of a GPU module, in ping-pong buffers on the CPU), not
  /// copied into states_ after each call.
  std::vector<bool> carried;
};

void Stream::touchStates() {
  static std::atomic<uint64_t> versions{0};
  stateVersion_ = ++versions;
}

Stream::Stream(Model &model) : model_(model) {
  touchStates();
  for (const StateSpec &s : model.spec().states) {
    HostTensor t;
    t.shape = s.shape;
    t.allocate<float>(static_cast<size_t>(s.numel), static_cast<float>(s.init));
    states_.push_back(std::move(t));
  }
  // The logits buffer is allocated once: run(), reset() and load() write into
  // it, so a DLPack view of it never points at freed memory.
  if (model.vocab() > 0)
    logits_.reserve(static_cast<size_t>(model.vocab()));
}

Stream::~Stream() = default;

const HostTensor &Stream::state(size_t index) const {
  syncStates(); // on failure the host copy stays as the last sync left it
  return states_[index];
}

namespace {
/// "<what>[i] = <value>" for the first value of `v` that is not finite, else "".
std::string firstNonFiniteIn(const std::string &what, const float *v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(v[i]))
      return what + "[" + std::to_string(i) + "] = " +
             (std::isnan(v[i]) ? "nan" : v[i] > 0 ? "inf" : "-inf");
  return "";
}
} // namespace

std::string Stream::firstNonFinite() const {
  if (std::string where = firstNonFiniteIn("logits", logits_.data(), logits_.size());
      !where.empty())
    return where;
  if (!syncStates())
    return "";
  for (size_t i = 0; i < states_.size(); ++i) {
    auto v = states_[i].f32();
    if (std::string where = firstNonFiniteIn("state '" + model_.spec().states[i].name + "'",
                                             v.begin(), v.size());
        !where.empty())
      return where;
  }
  return "";
}

Status Stream::syncStates() const {
  Bound *b = resident_;
  if (!b)
    return Status::ok();
  resident_ = nullptr;
  std::string error;
  if (!b->call->syncToHost(error))
    return {Code::KernelFailed, error};
  return Status::ok();
}

void Stream::keepStatesOnHost() {
  syncStates();
  statesOnHost_ = true;
}

void Stream::reset() {
  syncStates(); // so that the next call uploads the init values
  touchStates();
  const auto &specs = model_.spec().states;
  for (size_t i = 0; i < states_.size(); ++i)
    std::fill(states_[i].f32().begin(), states_[i].f32().end(), specs[i].init);
  logits_.clear();
  position_ = 0;
}

Status Stream::run(const Model::Entry &e, const int32_t *tokens, std::vector<float> *allLogits) {
  auto it = bound_.find(&e);
  if (it == bound_.end()) {
    auto b = std::make_unique<Bound>();
    b->tokens.shape = {e.length};
    b->tokens.dtype = "int32";
    b->tokens.allocate<int32_t>(static_cast<size_t>(e.length), 0);
    b->position.shape = {1};
    b->position.dtype = "int32";
    b->position.allocate<int32_t>(1, 0);
    std::vector<const HostTensor *> args;
    for (size_t i = 0; i < e.fn->arguments.size(); ++i) {
      if (static_cast<int>(i) == e.tokensArgument)
        args.push_back(&b->tokens);
      else if (static_cast<int>(i) == e.positionArgument)
        args.push_back(&b->position);
      else if (e.argumentState[i] >= 0)
        args.push_back(&states_[e.argumentState[i]]);
      else
        args.push_back(e.weightArguments[i]);
    }
    std::string error;
    // States are bound in the function's shape (model.json may spell it flat),
    // a cache at the capacity the model was opened with (Model::open's
    // context), which may differ from the function's: then along its axis.
    std::vector<std::vector<int64_t>> saved;
    std::vector<int> positionAxes(e.fn->arguments.size(), -1);
    std::vector<size_t> resized; // the arguments bound at another capacity
    for (size_t i = 0; i < e.fn->arguments.size(); ++i)
      if (e.argumentState[i] >= 0) {
        HostTensor &s = states_[e.argumentState[i]];
        const StateSpec &ss = model_.spec().states[e.argumentState[i]];
        saved.push_back(s.shape);
        s.shape = e.fn->arguments[i].shape;
        if (e.argumentCapacity[i] > 0 && e.argumentCapacity[i] != ss.capacity()) {
          s.shape[ss.axis] = ss.capacity();
          positionAxes[i] = ss.axis;
          resized.push_back(i);
        }
      }
    b->call = e.module->bind(*e.fn, args, b->results, error,
                             resized.empty() ? nullptr : &positionAxes);
    size_t k = 0;
    for (size_t i = 0; i < e.fn->arguments.size(); ++i)
      if (e.argumentState[i] >= 0)
        states_[e.argumentState[i]].shape = saved[k++];
    // The message for a function that cannot hold the caches at this capacity.
    auto otherCapacity = [&](size_t i, const std::string &why) -> Status {
      const StateSpec &ss = model_.spec().states[e.argumentState[i]];
      return {Code::Unsupported,
              "@" + e.fn->name + " was compiled for KV caches of " +
                  std::to_string(e.argumentCapacity[i]) + " positions and cannot run state '" +
                  ss.name + "' at the " + std::to_string(ss.capacity()) +
                  " this model was opened with (" + why + "): open it with context " +
                  std::to_string(e.argumentCapacity[i]) + ", or import it again with --context " +
                  std::to_string(ss.capacity()) + " (and compile it)"};
    };
    if (!b->call)
      return resized.empty() ? Status{Code::Mismatch, error} : otherCapacity(resized[0], error);
    // A state the function returns and takes back is carried to the next call.
    b->carried.assign(b->results.size(), false);
    for (size_t i = 0; i < b->results.size(); ++i)
      for (size_t k = 0; k < e.fn->arguments.size() && e.resultState[i] >= 0; ++k)
        if (e.argumentState[k] == e.resultState[i]) {
          b->carried[i] = b->call->carryState(i, k);
          // Written in place (a KV cache): its own buffer is never used.
          if (b->carried[i] && b->call->carriesInPlace(i))
            std::vector<unsigned char, AlignedAllocator<unsigned char>>().swap(b->results[i].storage);
          break;
        }
    // A resized cache must be written in place: the function's own result
    // holds the compiled capacity, which the stream's state does not.
    for (size_t i : resized) {
      bool inPlace = false;
      for (size_t r = 0; r < b->results.size(); ++r)
        inPlace = inPlace || (e.resultState[r] == e.argumentState[i] && b->carried[r] &&
                              b->call->carriesInPlace(r));
      if (!inPlace)
        return otherCapacity(i, "its kernels do not write that cache in place");
    }
    it = bound_.emplace(&e, std::move(b)).first;
  }
  Bound &b = *it->second;
  if (resident_ != &b)
    if (Status st = syncStates(); !st)
      return st;
  touchStates();
  std::copy(tokens, tokens + e.length, b.tokens.i32().begin());
  b.position.i32()[0] = static_cast<int32_t>(position_); // prefill refused positions past int32
  std::string error;
  if (!b.call->invoke(error))
    return {Code::KernelFailed, error};
  for (size_t i = 0; i < b.results.size(); ++i)
    if (b.carried[i])
      resident_ = &b;
    else if (e.resultState[i] >= 0) {
      const auto &src = b.results[i].f32();
      std::copy(src.begin(), src.end(), states_[e.resultState[i]].f32().begin());
    }
  if (statesOnHost_)
    if (Status st = syncStates(); !st)
      return st;
  const auto &l = b.results[e.logitsResult].f32();
  int64_t vocab = model_.vocab();
  logits_.assign(l.end() - vocab, l.end());
  if (allLogits) {
    if (e.logitsRows != e.length)
      return {Code::Unsupported, "@" + e.fn->name +
                                     " returns only the last position's logits, not every position's"};
    allLogits->insert(allLogits->end(), l.begin(), l.end());
  }
  position_ += e.length;
  return Status::ok();
}

Status Stream::checkContext(size_t n) const {
  return model_.spec().checkContext(position_, static_cast<int64_t>(n));
}

Status Stream::prefill(const int32_t *tokens, size_t n, std::vector<float> *allLogits) {
  if (n == 0)
    return {Code::InvalidArgument, "the prompt has no tokens"};
  int64_t vocab = model_.vocab();
  for (size_t i = 0; i < n; ++i)
    if (tokens[i] < 0 || (vocab > 0 && tokens[i] >= vocab))
      return {Code::InvalidArgument, "token " + std::to_string(tokens[i]) + " at position " +
                                         std::to_string(i) + " is outside the vocabulary of " +
                                         std::to_string(vocab)};
  if (Status st = checkContext(n); !st)
    return st;
  // A function that takes the position reads it as int32: refuse a prompt
  // that would pass 2^31 - 1 before any of it runs.
  for (const auto &e : model_.entries_)
    if (e->positionArgument >= 0 && position_ + static_cast<int64_t>(n) > INT32_MAX)
      return {Code::InvalidArgument, "position " + std::to_string(position_) + " + " +
                                         std::to_string(n) +
                                         " tokens passes 2^31 - 1, the int32 position @" +
                                         e->fn->name + " takes (nothing was run)"};
  if (allLogits)
    allLogits->clear();
  size_t done = 0;
  while (done < n) {
    // The longest compiled call that fits what is left (a step is length 1)
    // and returns the logits asked for.
    const Model::Entry *best = nullptr;
    for (const auto &e : model_.entries_)
      if (static_cast<size_t>(e->length) <= n - done &&
          (!allLogits || e->logitsRows == e->length) &&
          (!best || e->length > best->length || (e->length == best->length && e->step)))
        best = e.get();
    if (!best) {
      std::string lengths;
      for (int64_t l : model_.sequenceLengths())
        lengths += (lengths.empty() ? "" : ", ") + std::to_string(l);
      return {Code::Unsupported,
              "no compiled function takes " + std::to_string(n - done) + " tokens (sequence lengths: " +
                  (lengths.empty() ? "none" : lengths) +
                  (model_.hasStep() ? "; step" : "; no step function") + ")"};
    }
    if (Status s = run(*best, tokens + done, allLogits); !s)
      return s;
    done += static_cast<size_t>(best->length);
  }
  return Status::ok();
}

Status Stream::step(int32_t token) {
  for (const auto &e : model_.entries_)
    if (e->step)
      return prefill(&token, 1);
  return {Code::Unsupported, "the model has no compiled @" + model_.spec().stepFunction};
}

Status Stream::setState(const std::string &name, const float *values, size_t n) {
  int s = model_.spec().findState(name);
  if (s < 0)
    return {Code::InvalidArgument, "the model has no state '" + name + "'"};
  if (n != states_[s].f32().size())
    return {Code::InvalidArgument, "state '" + name + "' has " +
                                       std::to_string(states_[s].f32().size()) + " values, got " +
                                       std::to_string(n)};
  if (Status st = syncStates(); !st)
    return st;
  touchStates();
  std::copy(values, values + n, states_[s].f32().begin());
  return Status::ok();
}

namespace {
/// A cache state's layout around its position axis: `outer` blocks of
/// `rows` rows of `inner` values each.
struct CacheRows {
  int64_t outer = 1, rows = 0, inner = 1;
};
CacheRows cacheRows(const std::vector<int64_t> &shape, int axis) {
  CacheRows c;
  for (int d = 0; d < axis; ++d)
    c.outer *= shape[d];
  c.rows = shape[axis];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d)
    c.inner *= shape[d];
  return c;
}
} // namespace

Status Stream::snapshot(SavedState &s, bool compactCaches) const {
  if (Status st = syncStates(); !st)
    return st;
  const ModelSpec &spec = model_.spec();
  s.fingerprint = spec.fingerprint;
  s.position = position_;
  s.states.resize(states_.size());
  for (size_t i = 0; i < states_.size(); ++i) {
    const StateSpec &ss = spec.states[i];
    s.states[i].name = ss.name;
    s.states[i].shape = states_[i].shape;
    const auto &values = states_[i].f32();
    if (!compactCaches || ss.kind != StateKind::Cache || ss.axis < 0 ||
        position_ >= states_[i].shape[ss.axis]) {
      s.states[i].values.assign(values.begin(), values.end());
      continue;
    }
    // Rows [0, position) of each outer block.
    const CacheRows c = cacheRows(states_[i].shape, ss.axis);
    s.states[i].shape[ss.axis] = position_;
    s.states[i].values.resize(static_cast<size_t>(c.outer * position_ * c.inner));
    for (int64_t o = 0; o < c.outer; ++o)
      std::copy_n(values.begin() + o * c.rows * c.inner, position_ * c.inner,
                  s.states[i].values.begin() + o * position_ * c.inner);
  }
  s.logits = logits_;
  return Status::ok();
}

namespace {
/// A saved stream whose position the caches of this open cannot hold.
Status contextFullOnLoad(const std::string &path, int64_t position, int64_t capacity) {
  return {Code::ContextFull,
          path + ": holds position " + std::to_string(position) + ", past the " +
              std::to_string(capacity) +
              " positions this stream's KV caches hold (the model was opened with context " +
              std::to_string(capacity) + "; open it with a context of at least " +
              std::to_string(position) + ")"};
}
} // namespace

Status Stream::save(const std::string &path) const {
  SavedState s;
  // The caches' rows read so far: the file is the same whatever capacity the
  // model was opened with, and loads into any that holds its position.
  if (Status st = snapshot(s, /*compactCaches=*/true); !st)
    return st;
  return writeStateFile(path, s);
}

Status Stream::load(const std::string &path) {
  // No state file this model can take is larger than its states and logits:
  // the read stops there (a huge file or /dev/zero is refused, not read).
  // save() writes each cache's rows up to the position; files of older
  // versions hold whole caches of the import's capacity. So the bound has
  // the caches at the larger of this open's capacity and the import's (a
  // crafted header never raises it). A file of this model (by its header)
  // larger than that, whose position this capacity cannot hold, was saved
  // at a larger capacity: ContextFull naming the context to open it with.
  const ModelSpec &spec = model_.spec();
  auto layoutAt = [&](int64_t rows) {
    std::vector<std::pair<std::string, std::vector<int64_t>>> layout;
    for (size_t i = 0; i < states_.size(); ++i) {
      std::vector<int64_t> shape = states_[i].shape;
      if (spec.states[i].kind == StateKind::Cache)
        shape[spec.states[i].axis] = std::max(shape[spec.states[i].axis], rows);
      layout.emplace_back(spec.states[i].name, shape);
    }
    return layout;
  };
  const uint64_t maxLogits = model_.vocab() > 0 ? static_cast<uint64_t>(model_.vocab()) : (1u << 24);
  bool ours = false;
  int64_t headerPosition = 0;
  auto header = [&](uint64_t fingerprint, int64_t position, uint64_t &) {
    ours = fingerprint == spec.fingerprint;
    headerPosition = position;
    return Status::ok();
  };
  SavedState s;
  if (Status st = readStateFile(path, s, stateFileBytes(layoutAt(spec.importedContext), maxLogits),
                                header);
      !st) {
    if (st.code() == Code::Mismatch && ours && spec.contextLength() > 0 &&
        headerPosition > spec.contextLength() && headerPosition <= ModelSpec::kMaxContext)
      return contextFullOnLoad(path, headerPosition, spec.contextLength());
    return st;
  }
  return restore(s, path);
}

Status Stream::restore(const SavedState &s, const std::string &path) {
  const ModelSpec &spec = model_.spec();
  // The position is passed to kernels that index caches with it.
  if (s.position < 0)
    return {Code::InvalidFile, path + ": holds position " + std::to_string(s.position) +
                                   " (negative: corrupt)"};
  if (s.states.size() != spec.states.size())
    return {Code::Mismatch, path + ": holds " + std::to_string(s.states.size()) +
                                " states, the model " + std::to_string(spec.states.size()) +
                                " (saved from another model)"};
  // A position past the file's own caches: corrupt.
  for (size_t i = 0; i < s.states.size(); ++i) {
    const StateSpec &ss = spec.states[i];
    const std::vector<int64_t> &a = s.states[i].shape;
    if (ss.kind == StateKind::Cache && s.states[i].name == ss.name && a.size() == ss.shape.size() &&
        a[ss.axis] < s.position)
      return {Code::InvalidFile, path + ": holds position " + std::to_string(s.position) +
                                     ", past the " + std::to_string(a[ss.axis]) +
                                     " positions its cache state '" + ss.name + "' holds (corrupt)"};
  }
  // A cache state may hold fewer rows than its capacity along its axis (a
  // compact snapshot), or more (saved from the model opened with a larger
  // context: the rows past this capacity were never written, as the
  // position fits it), but never fewer than the positions read.
  auto sameShape = [&](size_t i) {
    const std::vector<int64_t> &a = s.states[i].shape, &b = states_[i].shape;
    const StateSpec &ss = spec.states[i];
    if (ss.kind != StateKind::Cache || ss.axis < 0 || a.size() != b.size())
      return a == b;
    for (size_t d = 0; d < a.size(); ++d)
      if (static_cast<int>(d) == ss.axis ? a[d] < s.position : a[d] != b[d])
        return false;
    return true;
  };
  for (size_t i = 0; i < s.states.size(); ++i)
    if (s.states[i].name != spec.states[i].name || !sameShape(i))
      return {Code::Mismatch, path + ": state " + std::to_string(i) + " is '" + s.states[i].name +
                                  "' of shape " + shapeString(s.states[i].shape) +
                                  ", the model's is '" + spec.states[i].name + "' of shape " +
                                  shapeString(states_[i].shape) + " (saved from another model)"};
  for (size_t i = 0; i < s.states.size(); ++i)
    if (int64_t want = checkedNumel(s.states[i].shape);
        want < 0 || s.states[i].values.size() != static_cast<size_t>(want))
      return {Code::Mismatch, path + ": state '" + s.states[i].name + "' holds " +
                                  std::to_string(s.states[i].values.size()) + " values, its shape " +
                                  shapeString(s.states[i].shape) + " " + std::to_string(want)};
  if (s.fingerprint != spec.fingerprint)
    return {Code::Mismatch, path + ": saved from a model with another architecture or config"};
  if (spec.contextLength() > 0 && s.position > spec.contextLength())
    return contextFullOnLoad(path, s.position, spec.contextLength());
  if (!s.logits.empty() && model_.vocab() > 0 && static_cast<int64_t>(s.logits.size()) != model_.vocab())
    return {Code::Mismatch, path + ": holds " + std::to_string(s.logits.size()) +
                                " logits, the model's vocabulary is " + std::to_string(model_.vocab())};
  if (Status st = syncStates(); !st)
    return st;
  touchStates();
  for (size_t i = 0; i < s.states.size(); ++i) {
    auto values = states_[i].f32();
    if (s.states[i].shape == states_[i].shape) {
      std::copy(s.states[i].values.begin(), s.states[i].values.end(), values.begin());
      continue;
    }
    // A compact cache (or one of a larger capacity): its rows up to this
    // capacity, then the state's init in the rows past them.
    const StateSpec &ss = spec.states[i];
    const CacheRows c = cacheRows(states_[i].shape, ss.axis);
    const int64_t saved = s.states[i].shape[ss.axis], kept = std::min(saved, c.rows);
    for (int64_t o = 0; o < c.outer; ++o) {
      auto dst = values.begin() + o * c.rows * c.inner;
      std::copy_n(s.states[i].values.begin() + o * saved * c.inner, kept * c.inner, dst);
      std::fill(dst + kept * c.inner, dst + c.rows * c.inner, ss.init);
    }
  }
  // Into the buffers the stream has (a DLPack view of the logits or of a state
  // points at them): the logits keep their allocation (reserved for the
  // vocabulary at creation; clear() and assign() never shrink it).
  logits_.assign(s.logits.begin(), s.logits.end());
  position_ = s.position;
  return Status::ok();
}

} // namespace ssm::rt
