// The prompt cache of stream states (PromptCache.h).
#include "server/PromptCache.h"

#include <algorithm>

namespace ssm::server {

uint64_t PromptCache::extendHash(uint64_t h, int32_t token) {
  uint32_t v = static_cast<uint32_t>(token);
  for (int i = 0; i < 4; ++i) {
    h ^= (v >> (8 * i)) & 0xffu;
    h *= 1099511628211ull;
  }
  return h;
}

namespace {
uint64_t hashOf(const int32_t *tokens, size_t n) {
  uint64_t h = PromptCache::kHashSeed;
  for (size_t i = 0; i < n; ++i)
    h = PromptCache::extendHash(h, tokens[i]);
  return h;
}
size_t entryBytes(const std::vector<int32_t> &tokens, const rt::SavedState &s) {
  size_t b = tokens.size() * sizeof(int32_t) + s.logits.size() * sizeof(float) + 256;
  for (const rt::SavedTensor &t : s.states)
    b += t.values.size() * sizeof(float) + t.name.size() + t.shape.size() * sizeof(int64_t);
  return b;
}
} // namespace

std::shared_ptr<const PromptCache::Entry> PromptCache::lookup(const std::vector<int32_t> &prompt) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (lengths_.empty() || prompt.empty()) {
    ++stats_.misses;
    return nullptr;
  }
  // Hashes of every prefix of the prompt up to the longest length held.
  const size_t longest = std::min(prompt.size(), lengths_.rbegin()->first);
  std::vector<uint64_t> prefixHash(longest + 1);
  prefixHash[0] = kHashSeed;
  for (size_t i = 0; i < longest; ++i)
    prefixHash[i + 1] = extendHash(prefixHash[i], prompt[i]);
  for (auto l = lengths_.rbegin(); l != lengths_.rend(); ++l) {
    const size_t n = l->first;
    if (n > longest)
      continue;
    auto range = byHash_.equal_range(prefixHash[n]);
    for (auto it = range.first; it != range.second; ++it) {
      const std::shared_ptr<Entry> &e = *it->second;
      if (e->tokens.size() != n || (e->exactOnly && n != prompt.size()) ||
          !std::equal(e->tokens.begin(), e->tokens.end(), prompt.begin()))
        continue;
      lru_.splice(lru_.begin(), lru_, it->second); // most recently used
      ++stats_.hits;
      stats_.tokensReused += n;
      return e;
    }
  }
  ++stats_.misses;
  return nullptr;
}

bool PromptCache::contains(const int32_t *tokens, size_t n) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto range = byHash_.equal_range(hashOf(tokens, n));
  for (auto it = range.first; it != range.second; ++it) {
    const Entry &e = **it->second;
    if (e.tokens.size() == n && std::equal(e.tokens.begin(), e.tokens.end(), tokens))
      return true;
  }
  return false;
}

void PromptCache::eraseLocked(List::iterator it) {
  const std::shared_ptr<Entry> &e = *it;
  auto range = byHash_.equal_range(hashOf(e->tokens.data(), e->tokens.size()));
  for (auto h = range.first; h != range.second; ++h)
    if (h->second == it) {
      byHash_.erase(h);
      break;
    }
  auto l = lengths_.find(e->tokens.size());
  if (l != lengths_.end() && --l->second == 0)
    lengths_.erase(l);
  stats_.bytes -= e->bytes;
  lru_.erase(it);
}

void PromptCache::evictTo(size_t budget) {
  while (!lru_.empty() && stats_.bytes > budget) {
    eraseLocked(std::prev(lru_.end()));
    ++stats_.evictions;
  }
}

void PromptCache::insert(std::vector<int32_t> tokens, rt::SavedState state, bool exactOnly) {
  if (!enabled() || tokens.empty())
    return;
  auto e = std::make_shared<Entry>();
  e->bytes = entryBytes(tokens, state);
  e->tokens = std::move(tokens);
  e->state = std::move(state);
  e->exactOnly = exactOnly;
  if (e->bytes > budget_)
    return;
  const uint64_t h = hashOf(e->tokens.data(), e->tokens.size());
  std::lock_guard<std::mutex> lock(mutex_);
  auto range = byHash_.equal_range(h);
  for (auto it = range.first; it != range.second; ++it)
    if ((*it->second)->tokens == e->tokens) {
      // The same prefix: a prefix entry also serves as an exact one.
      e->exactOnly = e->exactOnly && (*it->second)->exactOnly;
      eraseLocked(it->second);
      break;
    }
  evictTo(budget_ - e->bytes);
  lru_.push_front(e);
  byHash_.emplace(h, lru_.begin());
  ++lengths_[e->tokens.size()];
  stats_.bytes += e->bytes;
  ++stats_.insertions;
}

PromptCache::Stats PromptCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Stats s = stats_;
  s.entries = lru_.size();
  s.budget = budget_;
  return s;
}

} // namespace ssm::server
