// The server's counters and gauges, and their Prometheus text (GET /metrics).
#ifndef SSM_SERVER_METRICS_H
#define SSM_SERVER_METRICS_H

#include "server/PromptCache.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace ssm::server {

class Metrics {
public:
  /// A finished HTTP request to `endpoint` with `status`.
  void countRequest(const std::string &endpoint, int status);
  /// Tokens of one generation request.
  void countTokens(int64_t prompt, int64_t completion, int64_t prefilled);
  /// One decode step of `n` streams together.
  void countBatch(size_t n);
  /// One round of prefill pieces of `n` prompts run together (Model::prefillTogether).
  void countPrefillBatch(size_t n);
  void countFinish(const std::string &reason);
  /// A request's time from its arrival to its first token (queue, prefill).
  void observeFirstToken(double seconds);

  std::atomic<int64_t> queueDepth{0}, activeSlots{0}, slots{0};
  // From model.json (ssm_model_state_bytes): one stream's fixed state bytes
  // and KV cache bytes per position.
  int64_t stateBytesFixed = 0, stateBytesPerPosition = 0;

  /// The Prometheus text exposition of everything, with the cache's stats.
  std::string text(const PromptCache::Stats &cache) const;

  static constexpr std::array<size_t, 8> kBatchBuckets{1, 2, 4, 8, 16, 32, 64, 128};
  static constexpr std::array<double, 10> kTtftBuckets{0.005, 0.01, 0.025, 0.05, 0.1,
                                                         0.25, 0.5, 1.0, 2.5, 10.0};

private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  std::map<std::string, uint64_t> finishes_;
  uint64_t promptTokens_ = 0, completionTokens_ = 0, prefilledTokens_ = 0;
  std::array<uint64_t, kBatchBuckets.size() + 1> batchBuckets_{}; // cumulative at export
  uint64_t batchCount_ = 0, batchSum_ = 0;
  uint64_t prefillBatches_ = 0, prefillBatchedPieces_ = 0;
  std::array<uint64_t, kTtftBuckets.size() + 1> ttftBuckets_{};
  uint64_t ttftCount_ = 0;
  double ttftSum_ = 0;
};

} // namespace ssm::server

#endif
