// Model::prefillTogether: the streams' prompts split as Stream::prefill splits one, the calls of equal length run B streams at a time (BatchedPrefill.h).
#include "runtime/BatchedPrefill.h"
#include "runtime/Shape.h"

#include <algorithm>
#include <climits>
#include <map>

namespace ssm::rt {

namespace {
/// Copies rows [r0, r1) of each of `outer` blocks from a cache laid out with
/// `fromRows` rows per block to one with `toRows` (`inner` values per row).
void copyRowRange(const float *from, int64_t fromRows, float *to, int64_t toRows, int64_t outer,
                  int64_t r0, int64_t r1, int64_t inner) {
  if (r1 <= r0)
    return;
  for (int64_t o = 0; o < outer; ++o)
    std::copy_n(from + (o * fromRows + r0) * inner, (r1 - r0) * inner,
                to + (o * toRows + r0) * inner);
}
} // namespace

int64_t Model::prefillBatch() const {
  return batchedSequenceEntries_.empty() ? 0 : batchedSequenceEntries_.front()->batch;
}

std::vector<int64_t> Model::batchedSequenceLengths() const {
  std::vector<int64_t> out;
  for (const auto &e : batchedSequenceEntries_)
    out.push_back(e->length);
  std::sort(out.begin(), out.end());
  return out;
}

std::unique_ptr<Model::PrefillSlot> Model::takePrefillSlot(const Entry &e, Status &status) {
  {
    std::lock_guard<std::mutex> lock(prefillSlotsMutex_);
    for (size_t i = 0; i < prefillSlots_.size(); ++i)
      if (prefillSlots_[i]->entry == &e) {
        std::unique_ptr<PrefillSlot> slot = std::move(prefillSlots_[i]);
        prefillSlots_.erase(prefillSlots_.begin() + static_cast<std::ptrdiff_t>(i));
        return slot;
      }
  }
  auto slot = std::make_unique<PrefillSlot>();
  PrefillSlot &b = *slot;
  b.entry = &e;
  const int64_t B = e.batch;
  const FunctionInfo &fn = *e.fn;
  b.tokens.shape = {B * e.length};
  b.tokens.dtype = "int32";
  b.tokens.allocate<int32_t>(static_cast<size_t>(B * e.length), 0);
  b.position.shape = {B};
  b.position.dtype = "int32";
  b.position.allocate<int32_t>(static_cast<size_t>(B), 0);
  b.stateResult.assign(spec_.states.size(), -1);
  for (size_t r = 0; r < fn.results.size(); ++r)
    if (e.resultState[r] >= 0)
      b.stateResult[e.resultState[r]] = static_cast<int>(r);
  b.states.resize(spec_.states.size());
  b.layout.assign(spec_.states.size(), PrefillSlot::Layout{});
  for (size_t i = 0; i < fn.arguments.size(); ++i)
    if (int s = e.argumentState[i]; s >= 0) {
      if (b.stateResult[s] < 0 || fn.results[b.stateResult[s]].shape != fn.arguments[i].shape) {
        status = {Code::Mismatch, "@" + fn.name + " takes state '" + spec_.states[s].name +
                                      "' but does not return it in the same shape"};
        return nullptr;
      }
      shapeTensor(b.states[s], fn.arguments[i]);
      std::fill(b.states[s].f32().begin(), b.states[s].f32().end(),
                static_cast<float>(spec_.states[s].init));
      PrefillSlot::Layout &l = b.layout[s];
      l = streamStateLayout(spec_.states[s], checkedNumel(fn.arguments[i].shape), B,
                            e.argumentCapacity[i]);
    }
  std::vector<const HostTensor *> args;
  for (size_t i = 0; i < fn.arguments.size(); ++i) {
    if (static_cast<int>(i) == e.tokensArgument)
      args.push_back(&b.tokens);
    else if (static_cast<int>(i) == e.positionArgument)
      args.push_back(&b.position);
    else if (int s = e.argumentState[i]; s >= 0)
      args.push_back(&b.states[s]);
    else
      args.push_back(e.weightArguments[i]);
  }
  std::string error;
  b.call = e.module->bind(fn, args, b.results, error);
  if (!b.call) {
    status = {Code::Mismatch, error};
    return nullptr;
  }
  status = Status::ok();
  return slot;
}

void Model::returnPrefillSlot(std::unique_ptr<PrefillSlot> slot) {
  std::lock_guard<std::mutex> lock(prefillSlotsMutex_);
  prefillSlots_.push_back(std::move(slot));
}

Status Model::runPrefillCall(const Entry &e, Stream *const *streams, const int32_t *const *tokens,
                             size_t k) {
  Status status;
  std::unique_ptr<PrefillSlot> slot = takePrefillSlot(e, status);
  if (!slot)
    return status;
  PrefillSlot &b = *slot;
  const int64_t B = e.batch, L = e.length;
  // Gather: row j is stream j's states (a cache's rows up to its position).
  for (size_t j = 0; j < k; ++j) {
    Stream &s = *streams[j];
    if (Status st = s.syncStates(); !st) {
      returnPrefillSlot(std::move(slot));
      return st;
    }
    std::copy_n(tokens[j], L, b.tokens.i32().begin() + static_cast<int64_t>(j) * L);
    b.position.i32()[j] = static_cast<int32_t>(s.position_);
    for (size_t si = 0; si < b.states.size(); ++si) {
      if (b.layout[si].numel == 0) // not an argument of the function
        continue;
      const PrefillSlot::Layout &l = b.layout[si];
      const auto &src = s.states_[si].f32();
      float *row = b.states[si].f32().data() + j * static_cast<size_t>(l.numel);
      if (l.capacity > 0)
        copyRowRange(src.data(), spec_.states[si].capacity(), row, l.capacity, l.outer, 0,
                     s.position_, l.inner);
      else
        std::copy(src.begin(), src.end(), row);
    }
  }
  for (int64_t j = static_cast<int64_t>(k); j < B; ++j) {
    std::fill_n(b.tokens.i32().begin() + j * L, L, 0);
    b.position.i32()[j] = 0;
  }
  std::string error;
  if (!b.call->invoke(error)) {
    returnPrefillSlot(std::move(slot));
    return {Code::KernelFailed, "@" + e.fn->name + ": " + error};
  }
  // Scatter: row j of each new state (a cache's L new rows) and of the logits.
  const auto &logits = b.results[e.logitsResult].f32();
  const size_t vocab = static_cast<size_t>(vocab_);
  for (size_t j = 0; j < k; ++j) {
    Stream &s = *streams[j];
    for (size_t si = 0; si < b.states.size(); ++si) {
      if (b.stateResult[si] < 0)
        continue;
      const PrefillSlot::Layout &l = b.layout[si];
      auto dst = s.states_[si].f32();
      const float *row =
          b.results[b.stateResult[si]].f32().data() + j * static_cast<size_t>(l.numel);
      if (l.capacity > 0)
        copyRowRange(row, l.capacity, dst.data(), spec_.states[si].capacity(), l.outer,
                     s.position_, s.position_ + L, l.inner);
      else
        std::copy(row, row + dst.size(), dst.begin());
    }
    s.logits_.assign(logits.begin() + j * vocab, logits.begin() + (j + 1) * vocab);
    s.position_ += L;
    s.touchStates();
  }
  returnPrefillSlot(std::move(slot));
  return Status::ok();
}

Status Model::prefillTogether(Stream *const *streams, size_t n, const int32_t *const *tokens,
                              const size_t *counts, size_t *failed, int64_t longestBatched) {
  if (failed)
    *failed = 0;
  if (n == 0)
    return {Code::InvalidArgument, "no streams to prefill"};
  auto fail = [&](size_t i, Status st) {
    if (failed)
      *failed = i;
    return st;
  };
  // Every stream's call plan, as Stream::prefill makes it (the longest
  // compiled length that fits what is left, a step for a tie at 1), before
  // anything runs.
  std::vector<std::vector<const Entry *>> plans(n);
  for (size_t i = 0; i < n; ++i) {
    if (!streams[i] || &streams[i]->model_ != this)
      return fail(i, {Code::InvalidArgument,
                      "stream " + std::to_string(i) + " is not a stream of this model"});
    for (size_t j = 0; j < i; ++j)
      if (streams[j] == streams[i])
        return fail(i, {Code::InvalidArgument, "stream " + std::to_string(i) +
                                                   " is stream " + std::to_string(j) + " again"});
    if (counts[i] == 0 || !tokens[i])
      return fail(i, {Code::InvalidArgument,
                      "stream " + std::to_string(i) + ": the prompt has no tokens"});
    if (Status st = streams[i]->checkContext(counts[i]); !st)
      return fail(i, st);
    if (counts[i] > static_cast<size_t>(INT32_MAX) ||
        streams[i]->position_ + static_cast<int64_t>(counts[i]) > INT32_MAX)
      return fail(i, {Code::InvalidArgument,
                      "stream " + std::to_string(i) + ": position " +
                          std::to_string(streams[i]->position_) + " + " +
                          std::to_string(counts[i]) + " tokens passes 2^31 - 1 (nothing was run)"});
    // After the length checks: an absurd count is refused before this reads
    // counts[i] tokens (past the caller's array).
    for (size_t t = 0; t < counts[i]; ++t)
      if (tokens[i][t] < 0 || (vocab_ > 0 && tokens[i][t] >= vocab_))
        return fail(i, {Code::InvalidArgument,
                        "stream " + std::to_string(i) + ": token " + std::to_string(tokens[i][t]) +
                            " at position " + std::to_string(t) +
                            " is outside the vocabulary of " + std::to_string(vocab_)});
    size_t done = 0;
    while (done < counts[i]) {
      const Entry *best = nullptr;
      for (const auto &e : entries_)
        if (static_cast<size_t>(e->length) <= counts[i] - done &&
            (!best || e->length > best->length || (e->length == best->length && e->step)))
          best = e.get();
      if (!best)
        return fail(i, {Code::Unsupported, "stream " + std::to_string(i) +
                                               ": no compiled function takes " +
                                               std::to_string(counts[i] - done) + " tokens"});
      plans[i].push_back(best);
      done += static_cast<size_t>(best->length);
    }
  }
  // The calls by length, longest first, and within a length by their rank
  // in each stream's plan: the k-th call of length L of every stream that
  // has one runs together. Each plan is longest first, so every stream's
  // calls keep their order.
  std::map<int64_t, size_t, std::greater<int64_t>> rounds; // length -> most calls of it in a plan
  for (const auto &plan : plans) {
    std::map<int64_t, size_t> count;
    for (const Entry *e : plan)
      ++count[e->length];
    for (const auto &[len, c] : count)
      rounds[len] = std::max(rounds[len], c);
  }
  std::vector<size_t> offset(n, 0); // tokens done per stream
  for (const auto &[len, most] : rounds) {
    const Entry *batched = nullptr;
    for (const auto &e : batchedSequenceEntries_)
      if (e->length == len && len <= longestBatched)
        batched = e.get();
    for (size_t rank = 0; rank < most; ++rank) {
      // The streams with a rank-th call of this length.
      std::vector<size_t> members;
      for (size_t i = 0; i < n; ++i) {
        size_t seen = 0;
        for (const Entry *e : plans[i])
          if (e->length == len && seen++ == rank) {
            members.push_back(i);
            break;
          }
      }
      std::vector<size_t> together, alone;
      for (size_t i : members)
        ((len == 1 && stepBatch() > 0) ||
                 (batched && (batched->cacheCapacity == 0 ||
                              streams[i]->position_ + len <= batched->cacheCapacity))
             ? together
             : alone)
            .push_back(i);
      if (together.size() < 2)
        alone.insert(alone.end(), together.begin(), together.end()), together.clear();
      if (len == 1 && !together.empty()) {
        std::vector<Stream *> ss;
        std::vector<int32_t> ts;
        for (size_t i : together) {
          ss.push_back(streams[i]);
          ts.push_back(tokens[i][offset[i]]);
        }
        size_t bad = 0;
        if (Status st = stepTogether(ss.data(), ss.size(), ts.data(), &bad); !st)
          return fail(together[std::min(bad, together.size() - 1)], st);
      } else {
        const size_t B = batched ? static_cast<size_t>(batched->batch) : 1;
        for (size_t start = 0; start < together.size(); start += B) {
          const size_t k = std::min(B, together.size() - start);
          // A call of B rows costs the same whatever k of them hold
          // streams (the others are padding): k < B / 3 streams run their
          // own calls instead. LFM2-350M shapes, 1 thread, 16-token calls:
          // one stream alone ~0.33 s, B = 32 streams in one call ~4.2 s
          // (so 2 streams padded to 32 rows took 6x their calls alone), B =
          // 8 ~0.9 s. A lone stream left over always runs alone.
          if (k == 1 || 3 * k < B) {
            for (size_t j = 0; j < k; ++j)
              alone.push_back(together[start + j]);
            continue;
          }
          std::vector<Stream *> ss;
          std::vector<const int32_t *> ts;
          for (size_t j = 0; j < k; ++j) {
            size_t i = together[start + j];
            ss.push_back(streams[i]);
            ts.push_back(tokens[i] + offset[i]);
          }
          if (Status st = runPrefillCall(*batched, ss.data(), ts.data(), k); !st)
            return fail(together[start], st);
        }
      }
      for (size_t i : alone) {
        const Entry *own = nullptr;
        size_t seen = 0;
        for (const Entry *e : plans[i])
          if (e->length == len && seen++ == rank)
            own = e;
        if (Status st = streams[i]->run(*own, tokens[i] + offset[i], nullptr); !st)
          return fail(i, st);
      }
      for (size_t i : members)
        offset[i] += static_cast<size_t>(len);
    }
  }
  return Status::ok();
}

} // namespace ssm::rt
