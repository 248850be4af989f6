// Added tokens of tokenizer.json (runtime/tokenizer/AddedTokens.h).
#include "runtime/tokenizer/AddedTokens.h"

#include "runtime/tokenizer/Unicode.h"
#include "runtime/tokenizer/Utf8.h"

#include <algorithm>

namespace ssm::rt::tok {
namespace {

bool isWordChar(int32_t cp) { return cp == '_' || isAlphanumeric(cp); }

/// The code point that ends at `end` (> 0) in valid UTF-8, and where it starts.
int32_t codePointBefore(std::string_view s, size_t end, size_t &start) {
  start = end - 1;
  while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80)
    --start;
  size_t i = start;
  return nextCodePoint(s, i);
}

} // namespace

void AddedTokens::add(AddedToken token) {
  if (token.content.empty())
    return;
  for (auto &table : byFirstByte_)
    if (table.empty())
      table.resize(256);
  const unsigned char first = static_cast<unsigned char>(token.content[0]);
  size_t index;
  if (auto existing = byContent_.find(token.content); existing != byContent_.end()) {
    // A later entry for the same content replaces the earlier one.
    index = existing->second;
    byId_.erase(tokens_[index].id);
    auto &bucket = byFirstByte_[tokens_[index].normalized ? 1 : 0][first];
    bucket.erase(std::find(bucket.begin(), bucket.end(), index));
    tokens_[index] = std::move(token);
  } else {
    index = tokens_.size();
    tokens_.push_back(std::move(token));
  }
  const AddedToken &t = tokens_[index];
  byId_[t.id] = index;
  byContent_[t.content] = index;
  // Longest first, so the first that matches at a position is the longest.
  auto &bucket = byFirstByte_[t.normalized ? 1 : 0][first];
  auto at = std::find_if(bucket.begin(), bucket.end(), [&](size_t k) {
    return tokens_[k].content.size() < t.content.size();
  });
  bucket.insert(at, index);
}

const AddedToken *AddedTokens::byId(int32_t id) const {
  auto it = byId_.find(id);
  return it == byId_.end() ? nullptr : &tokens_[it->second];
}

const AddedToken *AddedTokens::byContent(std::string_view content) const {
  auto it = byContent_.find(std::string(content));
  return it == byContent_.end() ? nullptr : &tokens_[it->second];
}

std::vector<Segment> AddedTokens::split(std::string_view text, bool normalized) const {
  std::vector<Segment> out;
  const auto &table = byFirstByte_[normalized ? 1 : 0];
  if (table.empty() || tokens_.empty()) {
    if (!text.empty())
      out.push_back({text, -1});
    return out;
  }
  size_t consumed = 0; // text before this is in `out`
  size_t i = 0;
  while (i < text.size()) {
    const auto &bucket = table[static_cast<unsigned char>(text[i])];
    const AddedToken *hit = nullptr;
    for (size_t k : bucket) {
      const AddedToken &t = tokens_[k];
      if (text.compare(i, t.content.size(), t.content) != 0)
        continue;
      if (t.singleWord) {
        size_t s;
        const size_t end = i + t.content.size();
        bool wordBefore = i > 0 && isWordChar(codePointBefore(text, i, s));
        size_t e = end;
        bool wordAfter = end < text.size() && isWordChar(nextCodePoint(text, e));
        if (wordBefore || wordAfter)
          continue;
      }
      hit = &t;
      break;
    }
    if (!hit) {
      ++i;
      continue;
    }
    size_t start = i, stop = i + hit->content.size();
    if (hit->lstrip) {
      while (start > consumed) {
        size_t s;
        if (!isWhitespace(codePointBefore(text, start, s)))
          break;
        start = s;
      }
    }
    if (hit->rstrip) {
      while (stop < text.size()) {
        size_t e = stop;
        if (!isWhitespace(nextCodePoint(text, e)))
          break;
        stop = e;
      }
    }
    if (start > consumed)
      out.push_back({text.substr(consumed, start - consumed), -1});
    out.push_back({text.substr(start, stop - start), hit->id});
    consumed = i = stop;
  }
  if (consumed < text.size())
    out.push_back({text.substr(consumed), -1});
  return out;
}

} // namespace ssm::rt::tok
