// Prometheus text exposition of the server's metrics.
#include "server/Metrics.h"

#include <sstream>

namespace ssm::server {

void Metrics::countRequest(const std::string &endpoint, int status) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{endpoint, status}];
}

void Metrics::countTokens(int64_t prompt, int64_t completion, int64_t prefilled) {
  std::lock_guard<std::mutex> lock(mutex_);
  promptTokens_ += static_cast<uint64_t>(prompt);
  completionTokens_ += static_cast<uint64_t>(completion);
  prefilledTokens_ += static_cast<uint64_t>(prefilled);
}

void Metrics::countBatch(size_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t b = 0;
  while (b < kBatchBuckets.size() && n > kBatchBuckets[b])
    ++b;
  ++batchBuckets_[b];
  ++batchCount_;
  batchSum_ += n;
}

void Metrics::countPrefillBatch(size_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++prefillBatches_;
  prefillBatchedPieces_ += n;
}

void Metrics::observeFirstToken(double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t b = 0;
  while (b < kTtftBuckets.size() && seconds > kTtftBuckets[b])
    ++b;
  ++ttftBuckets_[b];
  ++ttftCount_;
  ttftSum_ += seconds;
}

void Metrics::countFinish(const std::string &reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++finishes_[reason];
}

std::string Metrics::text(const PromptCache::Stats &c) const {
  std::ostringstream o;
  auto head = [&](const char *name, const char *type, const char *help) {
    o << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
  };
  std::lock_guard<std::mutex> lock(mutex_);
  head("ssm_requests_total", "counter", "HTTP requests answered, by endpoint and status.");
  for (const auto &[k, v] : requests_)
    o << "ssm_requests_total{endpoint=\"" << k.first << "\",status=\"" << k.second << "\"} " << v
      << "\n";
  head("ssm_generations_total", "counter", "Generations ended, by finish reason.");
  for (const auto &[k, v] : finishes_)
    o << "ssm_generations_total{reason=\"" << k << "\"} " << v << "\n";
  head("ssm_prompt_tokens_total", "counter", "Prompt tokens of finished generations.");
  o << "ssm_prompt_tokens_total " << promptTokens_ << "\n";
  head("ssm_prompt_tokens_prefilled_total", "counter",
       "Prompt tokens run through the model (the rest came from the prompt cache).");
  o << "ssm_prompt_tokens_prefilled_total " << prefilledTokens_ << "\n";
  head("ssm_completion_tokens_total", "counter", "Tokens generated.");
  o << "ssm_completion_tokens_total " << completionTokens_ << "\n";
  head("ssm_queue_depth", "gauge", "Requests waiting for a slot.");
  o << "ssm_queue_depth " << queueDepth.load() << "\n";
  head("ssm_slots_active", "gauge", "Slots (streams) holding a request.");
  o << "ssm_slots_active " << activeSlots.load() << "\n";
  head("ssm_slots", "gauge", "Slots (--parallel).");
  o << "ssm_slots " << slots.load() << "\n";
  head("ssm_decode_batch_size", "histogram", "Streams per decode step.");
  uint64_t cum = 0;
  for (size_t b = 0; b < kBatchBuckets.size(); ++b) {
    cum += batchBuckets_[b];
    o << "ssm_decode_batch_size_bucket{le=\"" << kBatchBuckets[b] << "\"} " << cum << "\n";
  }
  cum += batchBuckets_[kBatchBuckets.size()];
  o << "ssm_decode_batch_size_bucket{le=\"+Inf\"} " << cum << "\n";
  o << "ssm_decode_batch_size_sum " << batchSum_ << "\nssm_decode_batch_size_count " << batchCount_
    << "\n";
  head("ssm_prefill_batches_total", "counter",
       "Rounds of prefill pieces of several prompts run together (batched sequence function).");
  o << "ssm_prefill_batches_total " << prefillBatches_ << "\n";
  head("ssm_prefill_batched_pieces_total", "counter", "Prompt pieces prefilled in those rounds.");
  o << "ssm_prefill_batched_pieces_total " << prefillBatchedPieces_ << "\n";
  head("ssm_time_to_first_token_seconds", "histogram",
       "From a request's arrival to its first token (queue and prefill).");
  cum = 0;
  for (size_t b = 0; b < kTtftBuckets.size(); ++b) {
    cum += ttftBuckets_[b];
    o << "ssm_time_to_first_token_seconds_bucket{le=\"" << kTtftBuckets[b] << "\"} " << cum << "\n";
  }
  cum += ttftBuckets_[kTtftBuckets.size()];
  o << "ssm_time_to_first_token_seconds_bucket{le=\"+Inf\"} " << cum << "\n";
  o << "ssm_time_to_first_token_seconds_sum " << ttftSum_ << "\nssm_time_to_first_token_seconds_count "
    << ttftCount_ << "\n";
  head("ssm_prompt_cache_hits_total", "counter", "Prompts that started from a cached state.");
  o << "ssm_prompt_cache_hits_total " << c.hits << "\n";
  head("ssm_prompt_cache_misses_total", "counter", "Prompts with no cached prefix.");
  o << "ssm_prompt_cache_misses_total " << c.misses << "\n";
  head("ssm_prompt_cache_tokens_reused_total", "counter", "Prompt tokens skipped by cache hits.");
  o << "ssm_prompt_cache_tokens_reused_total " << c.tokensReused << "\n";
  head("ssm_prompt_cache_insertions_total", "counter", "States put in the prompt cache.");
  o << "ssm_prompt_cache_insertions_total " << c.insertions << "\n";
  head("ssm_prompt_cache_evictions_total", "counter", "States evicted (least recently used).");
  o << "ssm_prompt_cache_evictions_total " << c.evictions << "\n";
  head("ssm_prompt_cache_entries", "gauge", "States held by the prompt cache.");
  o << "ssm_prompt_cache_entries " << c.entries << "\n";
  head("ssm_prompt_cache_bytes", "gauge", "Bytes held by the prompt cache.");
  o << "ssm_prompt_cache_bytes " << c.bytes << "\n";
  head("ssm_prompt_cache_budget_bytes", "gauge", "The prompt cache's budget (--cache-mb).");
  o << "ssm_prompt_cache_budget_bytes " << c.budget << "\n";
  head("ssm_stream_state_bytes", "gauge",
       "One stream's state from model.json: fixed (recurrent states) and per position (KV caches).");
  o << "ssm_stream_state_bytes{kind=\"fixed\"} " << stateBytesFixed << "\n";
  o << "ssm_stream_state_bytes{kind=\"per_position\"} " << stateBytesPerPosition << "\n";
  return o.str();
}

} // namespace ssm::server
