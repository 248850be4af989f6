// The BPE model of tokenizer.json (runtime/tokenizer/Bpe.h).
#include "runtime/tokenizer/Bpe.h"

#include "runtime/tokenizer/Utf8.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <queue>

namespace ssm::rt::tok {
namespace {

uint64_t pairKey(int32_t a, int32_t b) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
}

struct Symbol {
  int32_t id;
  int prev, next; // -1 at the ends
  bool alive;
};

struct Candidate {
  int32_t rank;
  int pos;
  int32_t mergedId;
  // The lowest rank first, and among equal ranks the leftmost.
  bool operator>(const Candidate &o) const {
    return rank != o.rank ? rank > o.rank : pos > o.pos;
  }
};

} // namespace

bool Bpe::init(std::unordered_map<std::string, int32_t> vocab,
               const std::vector<std::pair<std::string, std::string>> &merges, BpeOptions options,
               std::string &error) {
  options_ = std::move(options);
  if (!table_.assign(std::move(vocab), error))
    return false;

  const size_t prefixLen = options_.continuingSubwordPrefix.size();
  merges_.reserve(merges.size());
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const auto &[a, b] = merges[rank];
    int32_t ia = tokenToId(a), ib = tokenToId(b);
    if (ia < 0 || ib < 0) {
      error = "merge " + std::to_string(rank) + " ('" + a + "' '" + b + "'): '" + (ia < 0 ? a : b) +
              "' is not in the vocabulary";
      return false;
    }
    std::string mergedText = a + (b.size() >= prefixLen ? b.substr(prefixLen) : b);
    int32_t im = tokenToId(mergedText);
    if (im < 0) {
      error = "merge " + std::to_string(rank) + " ('" + a + "' '" + b + "'): the merged token '" +
              mergedText + "' is not in the vocabulary";
      return false;
    }
    // The first occurrence of a pair keeps its rank.
    merges_.emplace(pairKey(ia, ib), std::make_pair(static_cast<int32_t>(rank), im));
  }

  if (options_.unkToken) {
    unkId_ = tokenToId(*options_.unkToken);
    if (unkId_ < 0) {
      error = "the unknown token '" + *options_.unkToken + "' is not in the vocabulary";
      return false;
    }
  }
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byteIds_[b] = tokenToId(name);
  }
  return true;
}

int32_t Bpe::tokenToId(std::string_view token) const { return table_.find(token); }

const std::string *Bpe::idToToken(int32_t id) const { return table_.at(id); }

void Bpe::tokenize(const std::string &word, std::vector<int32_t> &ids) const {
  if (word.empty())
    return;
  if (options_.ignoreMerges) {
    if (int32_t id = tokenToId(word); id >= 0) {
      ids.push_back(id);
      return;
    }
  }
  if (word.size() > kCacheWordBytes) {
    merge(word, ids);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(cacheMutex_);
    auto it = cache_.find(word);
    if (it != cache_.end()) {
      ids.insert(ids.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<int32_t> own;
  merge(word, own);
  ids.insert(ids.end(), own.begin(), own.end());
  std::lock_guard<std::mutex> lock(cacheMutex_);
  if (cache_.size() < kCacheCapacity)
    cache_.emplace(word, std::move(own));
}

void Bpe::merge(const std::string &word, std::vector<int32_t> &ids) const {
  // The word's characters (with the prefix and suffix), as ids.
  std::vector<Symbol> symbols;
  symbols.reserve(word.size());
  bool lastWasUnk = false;
  auto push = [&](int32_t id) {
    int index = static_cast<int>(symbols.size());
    symbols.push_back({id, index - 1, -1, true});
    if (index > 0)
      symbols[index - 1].next = index;
  };
  std::string piece;
  for (size_t i = 0; i < word.size();) {
    const size_t start = i;
    nextCodePoint(word, i);
    const std::string_view ch(word.data() + start, i - start);
    piece.clear();
    if (start > 0)
      piece += options_.continuingSubwordPrefix;
    piece += ch;
    if (i == word.size())
      piece += options_.endOfWordSuffix;
    if (int32_t id = tokenToId(piece); id >= 0) {
      push(id);
      lastWasUnk = false;
      continue;
    }
    if (options_.byteFallback) {
      bool all = true;
      for (unsigned char c : ch)
        all = all && byteIds_[c] >= 0;
      if (all) {
        for (unsigned char c : ch)
          push(byteIds_[c]);
        lastWasUnk = false;
        continue;
      }
    }
    if (unkId_ >= 0) {
      if (!(options_.fuseUnk && lastWasUnk))
        push(unkId_);
      lastWasUnk = true;
    }
  }

  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
  auto consider = [&](int pos) {
    const int next = symbols[pos].next;
    if (next < 0)
      return;
    auto it = merges_.find(pairKey(symbols[pos].id, symbols[next].id));
    if (it != merges_.end())
      queue.push({it->second.first, pos, it->second.second});
  };
  for (int p = 0; p + 1 < static_cast<int>(symbols.size()); ++p)
    consider(p);
  while (!queue.empty()) {
    Candidate top = queue.top();
    queue.pop();
    Symbol &left = symbols[top.pos];
    if (!left.alive || left.next < 0)
      continue;
    Symbol &right = symbols[left.next];
    // A stale entry: one of the pair was merged with something else since.
    auto it = merges_.find(pairKey(left.id, right.id));
    if (it == merges_.end() || it->second.second != top.mergedId)
      continue;
    left.id = top.mergedId;
    right.alive = false;
    left.next = right.next;
    if (right.next >= 0)
      symbols[right.next].prev = top.pos;
    if (left.prev >= 0)
      consider(left.prev);
    consider(top.pos);
  }
  for (const Symbol &s : symbols)
    if (s.alive)
      ids.push_back(s.id);
}

} // namespace ssm::rt::tok
