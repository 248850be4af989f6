// The scheduler's loop: admission, prefill pieces, token choice, batched steps (Scheduler.h).
#include "server/Scheduler.h"

#include <algorithm>

#include "runtime/TokenText.h"

namespace ssm::server {

struct Scheduler::Slot {
  std::unique_ptr<rt::Stream> stream;
  std::shared_ptr<Job> job;
  enum class Phase { Idle, Prefill, Decode } phase = Phase::Idle;
  size_t position = 0;            // prompt tokens in the stream's state
  size_t restored = 0;            // of which restored from the cache
  std::vector<size_t> snapshotAt; // block boundaries to keep, ascending
  std::vector<int32_t> generated;
  /// The text of `generated` as it becomes final (null: a model with
  /// neither a tokenizer nor byte tokens hands out ids only).
  std::unique_ptr<rt::TokenTextStream> text;
  int32_t next = -1; // the token chosen, to step
};

Scheduler::Scheduler(rt::Model &model, const rt::tok::Tokenizer *tokenizer, bool byteTokens,
                     const SchedulerOptions &options, Metrics &metrics)
    : model_(model), tokenizer_(tokenizer), byteTokens_(byteTokens), options_(options),
      metrics_(metrics), cache_(options.cacheBytes) {
  int64_t longest = 1;
  for (int64_t l : model.sequenceLengths())
    longest = std::max(longest, l);
  block_ = longest * ((std::max<int64_t>(options.cacheBlockMin, 1) + longest - 1) / longest);
  for (int i = 0; i < std::max(options.parallel, 1); ++i) {
    auto s = std::make_unique<Slot>();
    s->stream = std::make_unique<rt::Stream>(model);
    slots_.push_back(std::move(s));
  }
  metrics_.slots = static_cast<int64_t>(slots_.size());
  thread_ = std::thread([this] { loop(); });
}

Scheduler::~Scheduler() {
  drainAndStop(std::chrono::steady_clock::now());
}

size_t Scheduler::queued() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size();
}

Scheduler::Submitted Scheduler::submit(const std::shared_ptr<Job> &job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!accepting_)
      return Submitted::ShuttingDown;
    if (queue_.size() >= options_.queue)
      return Submitted::QueueFull;
    queue_.push_back(job);
    metrics_.queueDepth = static_cast<int64_t>(queue_.size());
  }
  wake_.notify_one();
  return Submitted::Ok;
}

void Scheduler::stopAccepting() {
  std::lock_guard<std::mutex> lock(mutex_);
  accepting_ = false;
}

void Scheduler::drainAndStop(std::chrono::steady_clock::time_point deadline) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    accepting_ = false;
    stop_ = true;
    wake_.notify_all();
    // The loop ends by itself once everything is done; past the deadline it
    // is told to end what is left.
    if (!done_ && !done_cv_.wait_until(lock, deadline, [&] { return done_; })) {
      abort_ = true;
      wake_.notify_all();
    }
  }
  if (thread_.joinable())
    thread_.join();
}

void Scheduler::admit(Slot &slot, std::shared_ptr<Job> job) {
  slot.job = std::move(job);
  slot.phase = Slot::Phase::Prefill;
  slot.generated.clear();
  slot.text.reset();
  if (tokenizer_ || byteTokens_)
    slot.text = std::make_unique<rt::TokenTextStream>(tokenizer_, slot.job->stopStrings);
  slot.next = -1;
  const std::vector<int32_t> &prompt = slot.job->prompt;
  const size_t n = prompt.size();
  slot.position = 0;
  slot.restored = 0;
  rt::Stream &stream = *slot.stream;
  if (cache_.enabled()) {
    if (auto hit = cache_.lookup(prompt)) {
      if (stream.restore(hit->state, "the prompt cache's entry").isOk()) {
        slot.position = slot.restored = hit->tokens.size();
      }
    }
  }
  if (slot.position == 0)
    stream.reset();
  // Block boundaries worth keeping: the last two in the prompt (a prompt
  // that shares all but its last < block tokens with this one finds the
  // second), the last in the chat history; past what was restored, and not
  // held already.
  slot.snapshotAt.clear();
  if (cache_.enabled()) {
    const size_t blk = static_cast<size_t>(block_);
    std::vector<size_t> points;
    for (size_t p : slot.job->cachePoints)
      points.push_back(std::min(p, n) / blk * blk);
    points.push_back(n / blk * blk);
    if (n / blk >= 2)
      points.push_back((n / blk - 1) * blk);
    for (size_t b : points)
      if (b > slot.position && !cache_.contains(prompt.data(), b))
        slot.snapshotAt.push_back(b);
    std::sort(slot.snapshotAt.begin(), slot.snapshotAt.end());
    slot.snapshotAt.erase(std::unique(slot.snapshotAt.begin(), slot.snapshotAt.end()),
                          slot.snapshotAt.end());
  }
  {
    std::lock_guard<std::mutex> lock(slot.job->mutex);
    slot.job->cachedTokens = static_cast<int64_t>(slot.restored);
  }
  if (slot.position == n)
    slot.phase = Slot::Phase::Decode; // the whole prompt was cached, with its logits
  ++metrics_.activeSlots;
}

size_t Scheduler::pieceEnd(const Slot &slot) const {
  const size_t blk = static_cast<size_t>(block_);
  return std::min(slot.job->prompt.size(), (slot.position / blk + 1) * blk);
}

void Scheduler::prefillPiece(Slot &slot) {
  const std::vector<int32_t> &prompt = slot.job->prompt;
  const size_t end = pieceEnd(slot);
  if (rt::Status st = slot.stream->prefill(prompt.data() + slot.position, end - slot.position);
      !st) {
    finish(slot, "error", ApiError{500, "prefill failed: " + st.message(), "server_error", "", ""});
    return;
  }
  piecePrefilled(slot, end);
}

void Scheduler::prefillPieces() {
  std::vector<Slot *> reading;
  for (auto &s : slots_)
    if (s->phase == Slot::Phase::Prefill)
      reading.push_back(s.get());
  if (reading.size() >= 2 && model_.prefillBatch() > 0) {
    // Every reading slot's next piece at once: the model runs the short
    // calls of equal length of all of them together (Model::prefillTogether,
    // up to options_.batchedPrefillMax tokens), each weight read once per
    // batch of prompts instead of once per prompt.
    std::vector<rt::Stream *> streams;
    std::vector<const int32_t *> tokens;
    std::vector<size_t> counts, ends;
    for (Slot *s : reading) {
      ends.push_back(pieceEnd(*s));
      streams.push_back(s->stream.get());
      tokens.push_back(s->job->prompt.data() + s->position);
      counts.push_back(ends.back() - s->position);
    }
    size_t failed = 0;
    rt::Status st = model_.prefillTogether(streams.data(), streams.size(), tokens.data(),
                                           counts.data(), &failed, options_.batchedPrefillMax);
    if (st) {
      metrics_.countPrefillBatch(reading.size());
      for (size_t i = 0; i < reading.size(); ++i)
        piecePrefilled(*reading[i], ends[i]);
      return;
    }
    if (st.code() != rt::Code::KernelFailed) {
      // Refused before anything ran: that slot ends, the others read their
      // pieces alone.
      failed = std::min(failed, reading.size() - 1);
      finish(*reading[failed], "error",
             ApiError{500, "prefill failed: " + st.message(), "server_error", "", ""});
      reading.erase(reading.begin() + static_cast<std::ptrdiff_t>(failed));
    } else {
      // The streams' states are undefined after a failed kernel.
      for (Slot *s : reading)
        finish(*s, "error",
               ApiError{500, "prefill failed: " + st.message(), "server_error", "", ""});
      return;
    }
  }
  for (Slot *s : reading)
    prefillPiece(*s);
}

void Scheduler::piecePrefilled(Slot &slot, size_t end) {
  const std::vector<int32_t> &prompt = slot.job->prompt;
  const size_t n = prompt.size();
  const size_t blk = static_cast<size_t>(block_);
  rt::Stream &stream = *slot.stream;
  slot.position = end;
  if (std::binary_search(slot.snapshotAt.begin(), slot.snapshotAt.end(), end) ||
      (end == n && cache_.enabled() && !cache_.contains(prompt.data(), n))) {
    rt::SavedState state;
    if (stream.snapshot(state, /*compactCaches=*/true).isOk())
      cache_.insert(std::vector<int32_t>(prompt.begin(), prompt.begin() + end), std::move(state),
                    /*exactOnly=*/end % blk != 0);
  }
  if (end == n)
    slot.phase = Slot::Phase::Decode;
}

void Scheduler::finish(Slot &slot, const std::string &reason, std::optional<ApiError> error) {
  Job &job = *slot.job;
  // The text held back (an incomplete character, a possible start of a
  // stop string that did not come) is final now.
  if ((reason == "stop" || reason == "length") && slot.text && !slot.text->stopped()) {
    std::string rest;
    slot.text->finish(rest);
    std::lock_guard<std::mutex> lock(job.mutex);
    job.text += rest;
  }
  metrics_.countTokens(static_cast<int64_t>(job.prompt.size()),
                       static_cast<int64_t>(slot.generated.size()),
                       static_cast<int64_t>(slot.position - slot.restored));
  metrics_.countFinish(reason);
  {
    std::lock_guard<std::mutex> lock(job.mutex);
    job.finished = true;
    job.finishReason = reason;
    job.error = std::move(error);
  }
  job.changed.notify_all();
  slot.job.reset();
  slot.phase = Slot::Phase::Idle;
  --metrics_.activeSlots;
}

bool Scheduler::emitToken(Slot &slot) {
  Job &job = *slot.job;
  const std::vector<float> &logits = slot.stream->logits();
  int32_t token = job.choose ? job.choose(logits) : rt::argmaxToken(logits.data(), logits.size());
  if (token < 0) {
    finish(slot, "error", ApiError{500, "the model returned no logits", "server_error", "", ""});
    return false;
  }
  if (std::find(job.stopTokens.begin(), job.stopTokens.end(), token) != job.stopTokens.end()) {
    finish(slot, "stop");
    return false;
  }
  slot.generated.push_back(token);
  std::string piece;
  if (slot.text)
    if (rt::Status st = slot.text->push(token, piece); !st) {
      finish(slot, "error", ApiError{500, "detokenizing failed: " + st.message(), "server_error", "", ""});
      return false;
    }
  {
    std::lock_guard<std::mutex> lock(job.mutex);
    job.tokens.push_back(token);
    job.text += piece;
    if (!job.firstToken) {
      job.firstToken = Job::Clock::now();
      metrics_.observeFirstToken(
          std::chrono::duration<double>(*job.firstToken - job.submitted).count());
    }
  }
  // A stop string in the text ends it there (the text before it is out).
  if (slot.text && slot.text->stopped()) {
    finish(slot, "stop");
    return false;
  }
  if (static_cast<int64_t>(slot.generated.size()) >= job.maxTokens) {
    finish(slot, "length");
    return false;
  }
  if (slot.stream->position() + 1 > options_.context || !slot.stream->checkContext(1).isOk()) {
    finish(slot, "length");
    return false;
  }
  if (job.streaming)
    job.changed.notify_all();
  slot.next = token;
  return true;
}

void Scheduler::stepDecoding(std::vector<Slot *> &slots) {
  if (slots.empty())
    return;
  metrics_.countBatch(slots.size());
  if (model_.stepBatch() > 0 && slots.size() >= 2) {
    std::vector<rt::Stream *> streams;
    std::vector<int32_t> tokens;
    for (Slot *s : slots) {
      streams.push_back(s->stream.get());
      tokens.push_back(s->next);
    }
    size_t failed = 0;
    rt::Status st = model_.stepTogether(streams.data(), streams.size(), tokens.data(), &failed);
    if (!st) {
      // The streams from the failing call on are unchanged or unusable: end them.
      for (size_t i = std::min(failed, slots.size()); i < slots.size(); ++i)
        finish(*slots[i], "error",
               ApiError{500, "decode step failed: " + st.message(), "server_error", "", ""});
    }
    return;
  }
  for (Slot *s : slots)
    if (rt::Status st = s->stream->step(s->next); !st)
      finish(*s, "error", ApiError{500, "decode step failed: " + st.message(), "server_error", "", ""});
}

void Scheduler::loop() {
  struct Done {
    Scheduler &s;
    ~Done() {
      std::lock_guard<std::mutex> lock(s.mutex_);
      s.done_ = true;
      s.done_cv_.notify_all();
    }
  } done{*this};
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      auto busy = [&] {
        return std::any_of(slots_.begin(), slots_.end(),
                           [](const auto &s) { return s->phase != Slot::Phase::Idle; });
      };
      wake_.wait(lock, [&] { return busy() || !queue_.empty() || stop_ || abort_; });
      // Idle, and requests came: those arriving right behind them (clients
      // that start together) are waited for, while each comes within
      // admitGap of the last and at most admitWindow in all, so that their
      // prompts start in one batched prefill (a few admitted first would run
      // their calls before the others' and delay those).
      if (!busy() && !queue_.empty() && slots_.size() > 1 && options_.admitWindow.count() > 0) {
        const auto until = std::chrono::steady_clock::now() + options_.admitWindow;
        for (size_t seen = queue_.size(); seen < slots_.size() && !stop_ && !abort_;
             seen = queue_.size()) {
          const auto next = std::min(until, std::chrono::steady_clock::now() + options_.admitGap);
          if (!wake_.wait_until(lock, next, [&] { return queue_.size() > seen || stop_ || abort_; }))
            break;
        }
      }
      if (abort_) {
        for (auto &s : slots_)
          if (s->phase != Slot::Phase::Idle)
            finish(*s, "cancelled",
                   ApiError{503, "the server is shutting down", "server_error", "", "shutting_down"});
        for (auto &job : queue_) {
          std::lock_guard<std::mutex> jl(job->mutex);
          job->finished = true;
          job->finishReason = "cancelled";
          job->error = ApiError{503, "the server is shutting down", "server_error", "", "shutting_down"};
          job->changed.notify_all();
        }
        queue_.clear();
        metrics_.queueDepth = 0;
        return;
      }
      if (stop_ && !busy() && queue_.empty())
        return;
      // Requests join between steps.
      for (auto &s : slots_) {
        if (s->phase != Slot::Phase::Idle)
          continue;
        while (!queue_.empty() && queue_.front()->cancelled) {
          std::shared_ptr<Job> gone = queue_.front();
          queue_.pop_front();
          std::lock_guard<std::mutex> jl(gone->mutex);
          gone->finished = true;
          gone->finishReason = "cancelled";
          gone->changed.notify_all();
          metrics_.countFinish("cancelled");
        }
        if (queue_.empty())
          break;
        std::shared_ptr<Job> job = queue_.front();
        queue_.pop_front();
        lock.unlock();
        admit(*s, std::move(job));
        lock.lock();
      }
      metrics_.queueDepth = static_cast<int64_t>(queue_.size());
    }
    // Cancelled requests leave.
    for (auto &s : slots_)
      if (s->phase != Slot::Phase::Idle && s->job->cancelled)
        finish(*s, "cancelled");
    // One prefill piece per slot still reading its prompt (together, when
    // the model has a batched sequence function).
    prefillPieces();
    // A token for every decoding slot, then one step of those that go on.
    std::vector<Slot *> stepping;
    for (auto &s : slots_)
      if (s->phase == Slot::Phase::Decode && emitToken(*s))
        stepping.push_back(s.get());
    stepDecoding(stepping);
  }
}

} // namespace ssm::server
