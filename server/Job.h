// One generation request as the scheduler runs it: its prompt and limits in, its text, tokens and end out, shared with the HTTP handler waiting on it.
#ifndef SSM_SERVER_JOB_H
#define SSM_SERVER_JOB_H

#include "runtime/Generate.h"
#include "server/ApiError.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ssm::server {

struct Job {
  using Clock = std::chrono::steady_clock;

  // Set before Scheduler::submit, read-only after.
  std::vector<int32_t> prompt;
  int64_t maxTokens = 16;
  std::vector<int32_t> stopTokens;     // chosen: the end, not handed out
  std::vector<std::string> stopStrings; // in the text: the end, cut before it
  rt::TokenChooser choose;
  /// Prompt lengths worth a prefix entry in the cache besides the prompt's
  /// own (a chat's history before its last message).
  std::vector<size_t> cachePoints;
  /// Whether the HTTP side reads the text as it comes (each token wakes it)
  /// or only at the end (woken once).
  bool streaming = false;
  Clock::time_point submitted = Clock::now();

  /// Set by the HTTP side when its client went away: the scheduler drops the
  /// job at its next step (or when it leaves the queue).
  std::atomic<bool> cancelled{false};

  // Written by the scheduler under `mutex`, `changed` notified.
  std::mutex mutex;
  std::condition_variable changed;
  std::string text;            // released text: never shortened, grows as tokens come
  std::vector<int32_t> tokens; // ids handed out (stop tokens excluded)
  bool finished = false;
  std::string finishReason;    // stop, length, cancelled, error
  std::optional<ApiError> error;
  int64_t cachedTokens = 0;    // prompt tokens restored from the prompt cache
  std::optional<Clock::time_point> firstToken;
};

} // namespace ssm::server

#endif
