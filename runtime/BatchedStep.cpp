// Model::stepTogether: streams gathered into the batched step function's buffers, one call per B streams, scattered back.
#include "runtime/BatchedStep.h"
#include "runtime/BatchedPrefill.h"
#include "runtime/Shape.h"

#include <algorithm>
#include <system_error>
#include <thread>

namespace ssm::rt {

StreamStateLayout streamStateLayout(const StateSpec &ss, int64_t argNumel, int64_t batch,
                                    int64_t capacity) {
  StreamStateLayout l;
  l.numel = argNumel / batch;
  if (capacity > 0) {
    l.capacity = capacity;
    for (int d = 0; d < ss.axis; ++d)
      l.outer *= ss.shape[d];
    for (size_t d = static_cast<size_t>(ss.axis) + 1; d < ss.shape.size(); ++d)
      l.inner *= ss.shape[d];
  }
  return l;
}

namespace {
/// True when result `r` of `fn` (through the step that computes it, for a
/// segmented function) is in the rows form on a CPU module: its kernel
/// writes only the new rows (TensorInfo::Append::rows), so a call can
/// carry it in place. Modules compiled before the rows form, and GPU ones,
/// return whole caches.
bool rowsFormResult(const CompiledModule &module, const FunctionInfo &fn, size_t r) {
  if (module.onDevice() || r >= fn.results.size())
    return false;
  if (!fn.segmented)
    return fn.results[r].append && fn.results[r].append->rows;
  if (r >= fn.resultValues.size())
    return false;
  for (const SegmentStep &st : fn.steps)
    for (size_t k = 0; k < st.outputs.size(); ++k)
      if (st.outputs[k] == fn.resultValues[r]) {
        const FunctionInfo *callee = module.find(st.function);
        return callee && k < callee->results.size() && callee->results[k].append &&
               callee->results[k].append->rows;
      }
  return false;
}
/// Copies the first `rows` rows of each of `outer` blocks from a cache laid
/// out with `fromRows` rows per block to one with `toRows` (`inner` values
/// per row): a stream's state and its batch row at two capacities.
void copyRows(const float *from, int64_t fromRows, float *to, int64_t toRows, int64_t outer,
              int64_t rows, int64_t inner) {
  for (int64_t o = 0; o < outer; ++o)
    std::copy_n(from + o * fromRows * inner, rows * inner, to + o * toRows * inner);
}
} // namespace

std::unique_ptr<Model::BatchSlot> Model::takeBatchSlot(const Entry &e, Status &status) {
  {
    std::lock_guard<std::mutex> lock(batchSlotsMutex_);
    if (!batchSlots_.empty()) {
      std::unique_ptr<BatchSlot> slot = std::move(batchSlots_.back());
      batchSlots_.pop_back();
      if (slot->entry == &e)
        return slot;
    }
  }
  auto slot = std::make_unique<BatchSlot>();
  BatchSlot &b = *slot;
  b.entry = &e;
  const int64_t B = e.batch;
  const FunctionInfo &fn = *e.fn;
  b.tokens.shape = {B};
  b.tokens.dtype = "int32";
  b.tokens.allocate<int32_t>(static_cast<size_t>(B), 0);
  b.position.shape = {B};
  b.position.dtype = "int32";
  b.position.allocate<int32_t>(static_cast<size_t>(B), 0);
  // Each state the function takes must come back (the calls swap them).
  b.stateResult.assign(spec_.states.size(), -1);
  for (size_t r = 0; r < fn.results.size(); ++r)
    if (e.resultState[r] >= 0)
      b.stateResult[e.resultState[r]] = static_cast<int>(r);
  for (size_t i = 0; i < fn.arguments.size(); ++i)
    if (int s = e.argumentState[i]; s >= 0 && (b.stateResult[s] < 0 ||
                                               fn.results[b.stateResult[s]].shape != fn.arguments[i].shape)) {
      status = {Code::Mismatch, "@" + fn.name + " takes state '" + spec_.states[s].name +
                                    "' but does not return it in the same shape"};
      return nullptr;
    }
  // Each state's layout per stream in the batch buffers.
  b.layout.assign(spec_.states.size(), BatchSlot::Layout{});
  for (size_t i = 0; i < fn.arguments.size(); ++i)
    if (int s = e.argumentState[i]; s >= 0) {
      BatchSlot::Layout &l = b.layout[s];
      l = streamStateLayout(spec_.states[s], checkedNumel(fn.arguments[i].shape), B,
                            e.argumentCapacity[i]);
    }
  // The KV caches in the rows form: one buffer each, read and written in
  // place by both calls.
  b.inPlace.assign(spec_.states.size(), false);
  b.cacheCarried.assign(spec_.states.size(), false);
  b.caches.resize(spec_.states.size());
  for (size_t i = 0; i < fn.arguments.size(); ++i)
    if (int s = e.argumentState[i]; s >= 0) {
      // A cache state of (B, C, ...) whose result the kernel writes in
      // the rows form (the module confirms below that the call carries
      // it in place).
      if (spec_.states[s].kind == StateKind::Cache && fn.arguments[i].shape.size() >= 2 &&
          b.layout[s].capacity > 0 && b.layout[s].outer == 1 &&
          rowsFormResult(*e.module, fn, static_cast<size_t>(b.stateResult[s]))) {
        b.inPlace[s] = true;
        shapeTensor(b.caches[s], fn.arguments[i]);
        std::fill(b.caches[s].f32().begin(), b.caches[s].f32().end(), spec_.states[s].init);
      }
    }
  // results[1] first holds call[0]'s inputs: sized here, then bound as
  // call[1]'s outputs (bind keeps their storage: same sizes).
  b.results[1].resize(fn.results.size());
  for (size_t r = 0; r < fn.results.size(); ++r)
    shapeTensor(b.results[1][r], fn.results[r]);
  std::vector<const float *> before;
  for (const HostTensor &t : b.results[1])
    before.push_back(t.f32().data());
  std::string error;
  for (int p = 0; p < 2; ++p) {
    std::vector<const HostTensor *> args;
    for (size_t i = 0; i < fn.arguments.size(); ++i) {
      if (static_cast<int>(i) == e.tokensArgument)
        args.push_back(&b.tokens);
      else if (static_cast<int>(i) == e.positionArgument)
        args.push_back(&b.position);
      else if (int s = e.argumentState[i]; s >= 0 && b.inPlace[s])
        args.push_back(&b.caches[s]);
      else if (int s = e.argumentState[i]; s >= 0)
        args.push_back(&b.results[1 - p][b.stateResult[s]]);
      else
        args.push_back(e.weightArguments[i]);
    }
    b.call[p] = e.module->bind(fn, args, b.results[p], error);
    if (!b.call[p]) {
      status = {Code::Mismatch, error};
      return nullptr;
    }
  }
  for (size_t r = 0; r < b.results[1].size(); ++r)
    if (b.results[1][r].f32().data() != before[r]) {
      status = {Code::Internal, "@" + fn.name + ": binding moved a batch buffer"};
      return nullptr;
    }
  // Each call writes the caches' new rows in place; the results that
  // would hold the whole caches are then never written, and freed.
  for (size_t i = 0; i < fn.arguments.size(); ++i)
    if (int s = e.argumentState[i]; s >= 0 && b.inPlace[s]) {
      const size_t r = static_cast<size_t>(b.stateResult[s]);
      bool carried[2];
      for (int p = 0; p < 2; ++p)
        carried[p] = b.call[p]->carryState(r, i) && b.call[p]->carriesInPlace(r);
      if (carried[0] != carried[1]) {
        status = {Code::Internal, "@" + fn.name + ": one of two like calls writes state '" +
                                      spec_.states[s].name + "' in place, the other not"};
        return nullptr;
      }
      b.cacheCarried[s] = carried[0];
      if (b.cacheCarried[s])
        for (auto &results : b.results)
          HostTensor().storage.swap(results[r].storage);
    }
  for (auto &rows : b.rows)
    rows.assign(static_cast<size_t>(B), BatchSlot::Row{});
  b.cacheRows.assign(static_cast<size_t>(B), BatchSlot::Row{});
  status = Status::ok();
  return slot;
}

void Model::returnBatchSlot(std::unique_ptr<BatchSlot> slot) {
  std::lock_guard<std::mutex> lock(batchSlotsMutex_);
  batchSlots_.push_back(std::move(slot));
}

Status Model::reserveBatchBuffers(int64_t longestBatched) {
  Status status = Status::ok();
  if (!batchedEntries_.empty()) {
    std::unique_ptr<BatchSlot> slot = takeBatchSlot(*batchedEntries_.front(), status);
    if (!slot)
      return status;
    returnBatchSlot(std::move(slot));
  }
  for (const auto &e : batchedSequenceEntries_) {
    if (e->length > longestBatched)
      continue;
    std::unique_ptr<PrefillSlot> slot = takePrefillSlot(*e, status);
    if (!slot)
      return status;
    returnPrefillSlot(std::move(slot));
  }
  return Status::ok();
}

Status Model::stepTogether(Stream *const *streams, size_t n, const int32_t *tokens,
                           size_t *failed) {
  if (failed)
    *failed = 0;
  if (batchedEntries_.empty())
    return {Code::Unsupported, "the model has no compiled batched step function" +
                                   (spec_.batchedStepFunction.empty()
                                        ? std::string(" (import it with ssm-import --batch B)")
                                        : " @" + spec_.batchedStepFunction)};
  if (n == 0)
    return {Code::InvalidArgument, "no streams to step"};
  for (size_t i = 0; i < n; ++i) {
    if (!streams[i] || &streams[i]->model_ != this)
      return {Code::InvalidArgument, "stream " + std::to_string(i) + " is not a stream of this model"};
    if (tokens[i] < 0 || (vocab_ > 0 && tokens[i] >= vocab_))
      return {Code::InvalidArgument, "token " + std::to_string(tokens[i]) + " of stream " +
                                         std::to_string(i) + " is outside the vocabulary [0, " +
                                         std::to_string(vocab_) + ")"};
    // A stream at its context length stops the whole call before anything
    // runs; `failed` names it.
    if (Status st = streams[i]->checkContext(1); !st) {
      if (failed)
        *failed = i;
      return st;
    }
    if (streams[i]->position_ >= INT32_MAX) {
      if (failed)
        *failed = i;
      return {Code::InvalidArgument, "position " + std::to_string(streams[i]->position_) +
                                         " is past the int32 positions of the batched step"};
    }
  }
  const Entry &e = *batchedEntries_.front();
  // A stream past the positions the function's caches hold (a model opened
  // with a larger context than it was compiled for) takes its own step,
  // after the batched calls; the others keep their order.
  std::vector<size_t> batched, alone;
  for (size_t i = 0; i < n; ++i)
    (e.cacheCapacity > 0 && streams[i]->position_ >= e.cacheCapacity ? alone : batched)
        .push_back(i);
  if (!alone.empty() && !hasStep()) {
    if (failed)
      *failed = alone.front();
    return {Code::Unsupported,
            "stream " + std::to_string(alone.front()) + " is at position " +
                std::to_string(streams[alone.front()]->position_) + ", past the " +
                std::to_string(e.cacheCapacity) + " positions @" + e.fn->name +
                " was compiled for, and the model has no step function to take it alone"};
  }
  Status status;
  std::unique_ptr<BatchSlot> slot;
  if (!batched.empty() && !(slot = takeBatchSlot(e, status)))
    return status;
  const size_t B = static_cast<size_t>(e.batch);
  const size_t vocab = static_cast<size_t>(vocab_);
  const size_t nb = batched.size();
  for (size_t start = 0; start < nb; start += B) {
    BatchSlot &b = *slot;
    if (failed)
      *failed = batched[start];
    const size_t k = std::min(B, nb - start);
    auto streamAt = [&](size_t j) -> Stream & { return *streams[batched[start + j]]; };
    auto tokenAt = [&](size_t j) { return tokens[batched[start + j]]; };
    // A lone stream left over (B > 1) takes its own step: a padded call of
    // B rows costs more than one row (mamba-130m, B = 8, 2 threads: 0.6x
    // the tokens/s of a step alone).
    if (k == 1 && B > 1 && hasStep()) {
      if (Status st = streamAt(0).step(tokenAt(0)); !st) {
        returnBatchSlot(std::move(slot));
        return st;
      }
      continue;
    }
    // Gather: row j of the next call's state arguments is stream start +
    // j's states, unless it still holds them (the last call's results,
    // copied out to this stream and unchanged since).
    const int p = b.next;
    std::vector<HostTensor> &in = b.results[1 - p];
    std::vector<BatchSlot::Row> &inRows = b.rows[1 - p];
    for (size_t j = 0; j < k; ++j) {
      Stream &s = streamAt(j);
      if (Status st = s.syncStates(); !st) {
        returnBatchSlot(std::move(slot));
        return st;
      }
      b.tokens.i32()[j] = tokenAt(j);
      b.position.i32()[j] = static_cast<int32_t>(s.position_);
      auto holds = [&](const BatchSlot::Row &row) {
        return row.stream == &s && row.version == s.stateVersion_ && !s.statesOnHost_;
      };
      const bool fixedHeld = holds(inRows[j]), cachesHeld = holds(b.cacheRows[j]);
      for (size_t si = 0; si < b.stateResult.size(); ++si)
        if (b.stateResult[si] >= 0 && !(b.inPlace[si] ? cachesHeld : fixedHeld)) {
          const auto &src = s.states_[si].f32();
          const BatchSlot::Layout &l = b.layout[si];
          auto &dst = b.inPlace[si] ? b.caches[si] : in[b.stateResult[si]];
          float *row = dst.f32().data() + j * static_cast<size_t>(l.numel);
          const int64_t have = spec_.states[si].capacity();
          if (l.capacity > 0 && l.capacity != have) // the rows both capacities hold
            copyRows(src.data(), have, row, l.capacity, l.outer, std::min(have, l.capacity),
                     l.inner);
          else
            std::copy(src.begin(), src.end(), row);
        }
      inRows[j] = b.cacheRows[j] = {&s, s.stateVersion_, false};
    }
    // Padding rows: the init state and token 0 (their results are dropped).
    for (size_t j = k; j < B; ++j) {
      b.tokens.i32()[j] = 0;
      b.position.i32()[j] = 0;
      // (A padding row's call writes row 0 of its caches: they stay
      // finite, which is all a row no stream reads needs.)
      const bool fixedInit = inRows[j].init, cachesInit = b.cacheRows[j].init;
      for (size_t si = 0; si < b.stateResult.size(); ++si)
        if (b.stateResult[si] >= 0 && !(b.inPlace[si] ? cachesInit : fixedInit)) {
          const size_t numel = static_cast<size_t>(b.layout[si].numel);
          auto &dst = b.inPlace[si] ? b.caches[si] : in[b.stateResult[si]];
          std::fill_n(dst.f32().begin() + j * numel, numel, spec_.states[si].init);
        }
      inRows[j] = b.cacheRows[j] = {nullptr, 0, true};
    }
    std::string error;
    if (!b.call[p]->invoke(error)) {
      returnBatchSlot(std::move(slot));
      return {Code::KernelFailed, "@" + e.fn->name + ": " + error};
    }
    // Scatter: row j of each new state and of the logits to stream start + j,
    // the rows split between this thread and a helper when the model may
    // use more than one (one thread's copies reach about half the memory
    // bandwidth: mamba-130m, 8 streams, 22.5 MB per call).
    const std::vector<HostTensor> &out = b.results[p];
    const auto &logits = out[e.logitsResult].f32();
    // A cache the module would not write in place came back whole.
    for (size_t si = 0; si < b.stateResult.size(); ++si)
      if (b.inPlace[si] && !b.cacheCarried[si]) {
        const auto &whole = out[b.stateResult[si]].f32();
        std::copy(whole.begin(), whole.end(), b.caches[si].f32().begin());
      }
    auto copyOut = [&](size_t from, size_t to) {
      for (size_t j = from; j < to; ++j) {
        Stream &s = streamAt(j);
        for (size_t r = 0; r < out.size(); ++r)
          if (int si = e.resultState[r]; si >= 0) {
            auto dst = s.states_[si].f32();
            const BatchSlot::Layout &l = b.layout[si];
            const float *row = (b.inPlace[si] ? b.caches[si] : out[r]).f32().data() +
                               j * static_cast<size_t>(l.numel);
            if (b.inPlace[si]) {
              // This call's row of the cache (one block: outer is 1).
              const size_t at = static_cast<size_t>(b.position.i32()[j] * l.inner);
              std::copy_n(row + at, l.inner, dst.begin() + at);
              continue;
            }
            const int64_t have = spec_.states[si].capacity();
            if (l.capacity > 0 && l.capacity != have)
              copyRows(row, l.capacity, dst.data(), have, l.outer, std::min(have, l.capacity),
                       l.inner);
            else
              std::copy(row, row + dst.size(), dst.begin());
          }
        s.logits_.assign(logits.begin() + j * vocab, logits.begin() + (j + 1) * vocab);
      }
    };
    size_t half = k;
    std::thread helper;
    if (k >= 2 && threads_ != 1 && std::thread::hardware_concurrency() > 1) {
      half = k / 2;
      try {
        helper = std::thread(copyOut, half, k);
      } catch (const std::system_error &) {
        half = k; // no thread: all rows here
      }
    }
    copyOut(0, half);
    if (helper.joinable())
      helper.join();
    for (size_t j = 0; j < k; ++j) {
      Stream &s = streamAt(j);
      s.position_ += 1;
      s.touchStates();
      b.rows[p][j] = b.cacheRows[j] = {&s, s.stateVersion_, false};
    }
    for (size_t j = k; j < B; ++j)
      b.rows[p][j] = {};
    b.next = 1 - p;
  }
  if (slot)
    returnBatchSlot(std::move(slot));
  for (size_t i : alone) {
    if (failed)
      *failed = i;
    if (Status st = streams[i]->step(tokens[i]); !st)
      return st;
  }
  return Status::ok();
}

} // namespace ssm::rt
