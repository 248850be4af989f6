// The scheduler: one thread that runs every request through the model, many at once (continuous batching).
//
// It owns --parallel slots, each a stream of the model. Between two steps
// requests join (from a bounded queue, first come first served) and leave
// (finished, cancelled); each loop it
//  1. runs one prefill piece of every slot still reading its prompt, so a
//     long prompt does not stall the others' decoding; with a batched
//     sequence function (ssm-import --prefill-batch B) the pieces go through
//     Model::prefillTogether: the calls of equal length (up to
//     batchedPrefillMax tokens) of all the pieces run B prompts per call
//     (each weight read once per call). Prompts of
//     different lengths are not padded: their pieces share the calls of the
//     lengths they have in common (a piece of a whole block is the same
//     calls for every prompt; the last pieces differ in their short calls,
//     which group by length or run alone);
//  2. chooses the next token of every decoding slot from its logits, hands
//     it out (text released as it becomes final, rt::TokenTextStream: never
//     half a UTF-8 character, never a possible start of a stop string),
//     ends the slots that are done;
//  3. steps the rest together: the batched step function
//     (Model::stepTogether, each weight read once per batch) when the model
//     folder has one, each stream's own step otherwise.
//
// Prompt cache: a prefill runs in pieces that end at multiples of a block
// of `cacheBlock` tokens (a multiple of the longest compiled sequence
// length, so the pieces split into the same compiled calls as one prefill
// of the whole prompt would: Stream::prefill takes the longest that fits).
// The state at a block boundary is therefore exactly what an uncached
// prefill computes there, and a prompt that shares the first k blocks with
// a cached entry restores it and prefills only the rest, with the same
// results bit for bit. The boundaries kept: the last two in the prompt
// (so a prompt that differs from this one only in its last block or less
// finds one) and the last one in a chat's history (before its last
// message); and the state after the whole prompt, for the same prompt sent
// again.
#ifndef SSM_SERVER_SCHEDULER_H
#define SSM_SERVER_SCHEDULER_H

#include "runtime/Model.h"
#include "runtime/tokenizer/Tokenizer.h"
#include "server/Job.h"
#include "server/Metrics.h"
#include "server/PromptCache.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ssm::server {

struct SchedulerOptions {
  int parallel = 4;         // slots: requests decoded together
  size_t queue = 64;        // requests waiting for a slot; more: refused
  size_t cacheBytes = 256u << 20;
  int64_t context = 1 << 15; // positions per request: generation ends ("length") there
  int64_t cacheBlockMin = 64; // the prefill block is the least multiple of the
                              // longest compiled sequence length >= this
  /// Prefill calls of at most this many tokens per stream go through the
  /// batched sequence function together (Model::prefillTogether), longer
  /// ones alone: at LFM2-350M shapes 8 x 128 tokens in one call were slower
  /// than 8 calls, 8 x (16 + 4) faster.
  int64_t batchedPrefillMax = 16;
  /// When the server is idle and requests arrive, it waits for more while
  /// each comes within admitGap of the last, at most admitWindow in all
  /// (0: none), so requests sent together start in one batched prefill: at
  /// LFM2-350M shapes with 32 slots the first loop otherwise admitted the
  /// few that had arrived, whose calls ran before the others'. A lone
  /// request waits admitGap more for its first token.
  std::chrono::milliseconds admitGap{5};
  std::chrono::milliseconds admitWindow{50};
};

class Scheduler {
public:
  /// `tokenizer` may be null (text of byte-vocabulary models is their bytes;
  /// other models without one produce token ids and no text).
  Scheduler(rt::Model &model, const rt::tok::Tokenizer *tokenizer, bool byteTokens,
            const SchedulerOptions &options, Metrics &metrics);
  ~Scheduler();

  enum class Submitted { Ok, QueueFull, ShuttingDown };
  Submitted submit(const std::shared_ptr<Job> &job);

  /// No new requests from now on (submit says ShuttingDown); those queued
  /// and running go on.
  void stopAccepting();
  /// Waits until every request has finished, at most until `deadline`; then
  /// ends those left (finish reason "cancelled", a 503 error) and stops the
  /// thread.
  void drainAndStop(std::chrono::steady_clock::time_point deadline);

  PromptCache &cache() { return cache_; }
  int64_t cacheBlock() const { return block_; }
  size_t queued() const;

private:
  struct Slot;
  void loop();
  void admit(Slot &slot, std::shared_ptr<Job> job);
  /// Where slot's next prefill piece ends (the next block boundary, or the prompt's end).
  size_t pieceEnd(const Slot &slot) const;
  /// Runs slot's next piece alone (Stream::prefill).
  void prefillPiece(Slot &slot);
  /// Runs the next piece of every slot reading its prompt: together through
  /// Model::prefillTogether when the model has a batched sequence function
  /// and two or more read, else each alone.
  void prefillPieces();
  /// After slot's piece up to `end`: the cache snapshot, the decode phase.
  void piecePrefilled(Slot &slot, size_t end);
  /// Chooses and hands out slot's next token; false when the slot finished.
  bool emitToken(Slot &slot);
  void finish(Slot &slot, const std::string &reason, std::optional<ApiError> error = {});
  void stepDecoding(std::vector<Slot *> &slots);

  rt::Model &model_;
  const rt::tok::Tokenizer *tokenizer_;
  bool byteTokens_;
  SchedulerOptions options_;
  Metrics &metrics_;
  PromptCache cache_;
  int64_t block_ = 64;
  std::vector<std::unique_ptr<Slot>> slots_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> queue_;
  bool accepting_ = true;
  bool stop_ = false;  // the loop ends when nothing is left
  bool abort_ = false; // end everything now
  bool done_ = false;  // the loop has ended
  std::condition_variable done_cv_;
  std::thread thread_;
};

} // namespace ssm::server

#endif
