// The prompt cache: a stream's state after a token prefix, kept by the prefix's hash, least recently used first out under a byte budget.
//
// A recurrent model's whole history is its state, so an entry costs the
// same whatever the prefix's length; a hybrid's entry holds its KV caches
// too, the rows of the prefix's positions only (Stream::snapshot with
// compactCaches), so its cost grows with the prefix as attention's does.
// An entry is either
//  * a prefix entry: usable by any prompt that starts with its tokens (the
//    scheduler makes these only at positions where a prefill without the
//    cache also stops between pieces, so that continuing from one computes
//    exactly what the uncached prefill computes: Scheduler.h), or
//  * an exact entry: the state and logits after a whole prompt, usable
//    only by the same prompt (a repeated request skips its whole prefill).
// lookup() returns the longest usable entry. Entries are shared pointers,
// so an entry evicted while a stream restores from it stays alive until then.
// Thread-safe.
#ifndef SSM_SERVER_PROMPTCACHE_H
#define SSM_SERVER_PROMPTCACHE_H

#include "runtime/StateFile.h"

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace ssm::server {

class PromptCache {
public:
  struct Entry {
    std::vector<int32_t> tokens;
    rt::SavedState state;
    bool exactOnly = false;
    size_t bytes = 0;
  };
  struct Stats {
    uint64_t hits = 0, misses = 0, insertions = 0, evictions = 0;
    uint64_t tokensReused = 0; // prompt tokens not prefilled thanks to hits
    size_t bytes = 0, entries = 0, budget = 0;
  };

  explicit PromptCache(size_t budgetBytes) : budget_(budgetBytes) {}

  bool enabled() const { return budget_ > 0; }
  /// The longest entry usable for `prompt`, or null (counted as a hit or a miss).
  std::shared_ptr<const Entry> lookup(const std::vector<int32_t> &prompt);
  /// Keeps the state after `tokens` (replacing an entry for the same
  /// tokens), evicting the least recently used entries to stay within the
  /// budget; an entry larger than the whole budget is not kept.
  void insert(std::vector<int32_t> tokens, rt::SavedState state, bool exactOnly);
  /// Whether an entry for exactly these tokens is held (refreshing nothing).
  bool contains(const int32_t *tokens, size_t n) const;
  Stats stats() const;

  /// FNV-1a 64 over the token ids, extended one token at a time.
  static uint64_t extendHash(uint64_t h, int32_t token);
  static constexpr uint64_t kHashSeed = 14695981039346656037ull;

private:
  using List = std::list<std::shared_ptr<Entry>>; // most recently used first
  void evictTo(size_t budget);
  void eraseLocked(List::iterator it);
  size_t budget_;
  mutable std::mutex mutex_;
  List lru_;
  std::unordered_multimap<uint64_t, List::iterator> byHash_;
  std::map<size_t, size_t> lengths_; // prefix lengths held -> count
  Stats stats_;
};

} // namespace ssm::server

#endif
