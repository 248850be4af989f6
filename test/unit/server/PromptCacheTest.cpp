// The prompt cache: the longest usable prefix, exact-only entries, LRU eviction under the byte budget, replacement, statistics.
#include "server/PromptCache.h"

#include <gtest/gtest.h>

using ssm::server::PromptCache;

namespace {

/// A state whose one tensor holds `floats` values equal to `tag`.
ssm::rt::SavedState state(float tag, size_t floats = 16) {
  ssm::rt::SavedState s;
  s.position = static_cast<int64_t>(tag);
  s.states.push_back({"h", {static_cast<int64_t>(floats)}, std::vector<float>(floats, tag)});
  return s;
}

std::vector<int32_t> seq(int32_t from, int32_t n) {
  std::vector<int32_t> v;
  for (int32_t i = 0; i < n; ++i)
    v.push_back(from + i);
  return v;
}

std::vector<int32_t> cat(std::vector<int32_t> a, const std::vector<int32_t> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(PromptCache, LongestUsablePrefixWins) {
  PromptCache cache(1 << 20);
  cache.insert(seq(0, 4), state(4), false);
  cache.insert(seq(0, 8), state(8), false);
  cache.insert(seq(0, 12), state(12), false);
  auto hit = cache.lookup(cat(seq(0, 10), {99}));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->tokens.size(), 8u);
  EXPECT_EQ(hit->state.states[0].values[0], 8.0f);
  hit = cache.lookup(seq(0, 12));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->tokens.size(), 12u);
  // A different first token: nothing.
  EXPECT_FALSE(cache.lookup(cat({7}, seq(1, 11))));
  PromptCache::Stats s = cache.stats();
  EXPECT_EQ(s.hits, 2u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.tokensReused, 20u);
  EXPECT_EQ(s.entries, 3u);
}

TEST(PromptCache, ExactEntriesServeOnlyTheSamePrompt) {
  PromptCache cache(1 << 20);
  cache.insert(seq(0, 5), state(5), /*exactOnly=*/true);
  EXPECT_FALSE(cache.lookup(seq(0, 6)));
  EXPECT_FALSE(cache.lookup(seq(0, 4)));
  auto hit = cache.lookup(seq(0, 5));
  ASSERT_TRUE(hit);
  EXPECT_TRUE(hit->exactOnly);
  // A longer prompt falls back on a shorter prefix entry.
  cache.insert(seq(0, 3), state(3), false);
  hit = cache.lookup(seq(0, 6));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->tokens.size(), 3u);
  // The same tokens as a prefix entry replace the exact one and serve both.
  cache.insert(seq(0, 5), state(50), false);
  EXPECT_EQ(cache.stats().entries, 2u);
  hit = cache.lookup(seq(0, 6));
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->tokens.size(), 5u);
  EXPECT_EQ(hit->state.states[0].values[0], 50.0f);
}

TEST(PromptCache, LeastRecentlyUsedLeavesFirstUnderTheBudget) {
  // Entries of 1000 floats: about 4 KB each; room for two.
  PromptCache probe(1 << 20);
  probe.insert(seq(0, 2), state(1, 1000), false);
  const size_t entry = probe.stats().bytes;
  PromptCache cache(2 * entry + entry / 2);
  cache.insert(seq(0, 2), state(1, 1000), false);
  cache.insert(seq(10, 2), state(2, 1000), false);
  ASSERT_TRUE(cache.lookup(seq(0, 2))); // now the most recently used
  cache.insert(seq(20, 2), state(3, 1000), false);
  PromptCache::Stats s = cache.stats();
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_LE(s.bytes, s.budget);
  EXPECT_TRUE(cache.contains(seq(0, 2).data(), 2));
  EXPECT_FALSE(cache.contains(seq(10, 2).data(), 2));
  EXPECT_TRUE(cache.contains(seq(20, 2).data(), 2));
}

TEST(PromptCache, AnEntryLargerThanTheBudgetIsNotKept) {
  PromptCache cache(1000);
  cache.insert(seq(0, 4), state(1, 10000), false);
  EXPECT_EQ(cache.stats().entries, 0u);
  EXPECT_FALSE(cache.lookup(seq(0, 4)));
  PromptCache off(0);
  EXPECT_FALSE(off.enabled());
  off.insert(seq(0, 4), state(1), false);
  EXPECT_EQ(off.stats().entries, 0u);
}

TEST(PromptCache, AnEvictedEntryStaysValidForItsHolder) {
  PromptCache probe(1 << 20);
  probe.insert(seq(0, 2), state(1, 1000), false);
  PromptCache cache(probe.stats().bytes + 100);
  cache.insert(seq(0, 2), state(7, 1000), false);
  auto held = cache.lookup(seq(0, 3));
  ASSERT_TRUE(held);
  cache.insert(seq(5, 2), state(8, 1000), false); // evicts the held one
  EXPECT_FALSE(cache.contains(seq(0, 2).data(), 2));
  EXPECT_EQ(held->state.states[0].values[999], 7.0f);
}

} // namespace
