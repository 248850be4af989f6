// Model::stepTogether: streams gathered into the batched step function's buffers, one call per B streams, scattered back.
#include "runtime/BatchedStep.h"

#include <algorithm>

namespace ssm::rt {

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
  slot->entry = &e;
  const int64_t B = e.batch;
  slot->tokens.shape = {B};
  slot->tokens.dtype = "int32";
  slot->tokens.ints.assign(static_cast<size_t>(B), 0);
  slot->states.resize(spec_.states.size());
  std::vector<const HostTensor *> args;
  for (size_t i = 0; i < e.fn->arguments.size(); ++i) {
    if (static_cast<int>(i) == e.tokensArgument) {
      args.push_back(&slot->tokens);
    } else if (int s = e.argumentState[i]; s >= 0) {
      HostTensor &t = slot->states[s];
      t.shape = e.fn->arguments[i].shape; // (B, ...), checked against model.json by addFunction
      t.data.assign(static_cast<size_t>(B * spec_.states[s].numel), spec_.states[s].init);
      args.push_back(&t);
    } else {
      args.push_back(e.weightArguments[i]);
    }
  }
  slot->rowAtInit.assign(static_cast<size_t>(B), true);
  std::string error;
  slot->call = e.module->bind(*e.fn, args, slot->results, error);
  if (!slot->call) {
    status = {Code::Mismatch, error};
    return nullptr;
  }
  status = Status::ok();
  return slot;
}

void Model::returnBatchSlot(std::unique_ptr<BatchSlot> slot) {
  std::lock_guard<std::mutex> lock(batchSlotsMutex_);
  batchSlots_.push_back(std::move(slot));
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
  }
  const Entry &e = *batchedEntries_.front();
  Status status;
  std::unique_ptr<BatchSlot> slot = takeBatchSlot(e, status);
  if (!slot)
    return status;
  BatchSlot &b = *slot;
  const size_t B = static_cast<size_t>(e.batch);
  const size_t vocab = static_cast<size_t>(vocab_);
  for (size_t start = 0; start < n; start += B) {
    if (failed)
      *failed = start;
    const size_t k = std::min(B, n - start);
    // A lone stream left over (B > 1) takes its own step: a padded call of
    // B rows costs more than one row (mamba-130m, B = 8, 2 threads: 0.6x
    // the tokens/s of a step alone).
    if (k == 1 && B > 1 && hasStep()) {
      if (Status st = streams[start]->step(tokens[start]); !st) {
        returnBatchSlot(std::move(slot));
        return st;
      }
      continue;
    }
    // Gather: row j of every state buffer is stream start + j's state.
    for (size_t j = 0; j < k; ++j) {
      Stream &s = *streams[start + j];
      if (Status st = s.syncStates(); !st) {
        returnBatchSlot(std::move(slot));
        return st;
      }
      for (size_t si = 0; si < b.states.size(); ++si)
        if (!b.states[si].data.empty()) {
          const auto &src = s.states_[si].data;
          std::copy(src.begin(), src.end(), b.states[si].data.begin() + j * src.size());
        }
      b.tokens.ints[j] = tokens[start + j];
      b.rowAtInit[j] = false;
    }
    // Padding rows: the init state and token 0 (their results are dropped).
    for (size_t j = k; j < B; ++j) {
      b.tokens.ints[j] = 0;
      if (b.rowAtInit[j])
        continue;
      for (size_t si = 0; si < b.states.size(); ++si)
        if (!b.states[si].data.empty()) {
          const size_t numel = static_cast<size_t>(spec_.states[si].numel);
          std::fill_n(b.states[si].data.begin() + j * numel, numel, spec_.states[si].init);
        }
      b.rowAtInit[j] = true;
    }
    std::string error;
    if (!b.call->invoke(error)) {
      returnBatchSlot(std::move(slot));
      return {Code::KernelFailed, "@" + e.fn->name + ": " + error};
    }
    // Scatter: row j of each new state and of the logits to stream start + j.
    const auto &logits = b.results[e.logitsResult].data;
    for (size_t j = 0; j < k; ++j) {
      Stream &s = *streams[start + j];
      for (size_t r = 0; r < b.results.size(); ++r)
        if (int si = e.resultState[r]; si >= 0) {
          auto &dst = s.states_[si].data;
          auto row = b.results[r].data.begin() + j * dst.size();
          std::copy(row, row + dst.size(), dst.begin());
        }
      s.logits_.assign(logits.begin() + j * vocab, logits.begin() + (j + 1) * vocab);
      s.position_ += 1;
    }
  }
  returnBatchSlot(std::move(slot));
  return Status::ok();
}

} // namespace ssm::rt
