// Pre-tokenizers of tokenizer.json (runtime/tokenizer/PreTokenizer.h).
#include "runtime/tokenizer/PreTokenizer.h"

#include "runtime/tokenizer/ByteLevel.h"

#include <algorithm>

namespace ssm::rt::tok {
namespace {

struct Span {
  size_t begin, end;
  bool match;
};

/// Applies `split` to every piece; the first part of a piece keeps its atStart.
template <typename F> void splitEach(std::vector<Piece> &pieces, F &&split) {
  std::vector<Piece> out;
  out.reserve(pieces.size());
  for (Piece &p : pieces) {
    std::vector<std::string> parts = split(p);
    for (size_t i = 0; i < parts.size(); ++i)
      if (!parts[i].empty())
        out.push_back({std::move(parts[i]), p.atStart && i == 0});
  }
  pieces = std::move(out);
}

} // namespace

std::vector<std::string> splitText(const Regex &pattern, const std::string &text,
                                   SplitBehavior behavior, bool invert) {
  // The text as alternating non-matches and matches (Hugging Face's
  // find_matches), then merged as the behaviour says (its split()).
  std::vector<Span> spans;
  size_t last = 0;
  for (auto [b, e] : pattern.findAll(text)) {
    if (b > last)
      spans.push_back({last, b, false});
    spans.push_back({b, e, true});
    last = e;
  }
  if (last < text.size())
    spans.push_back({last, text.size(), false});
  if (invert)
    for (Span &s : spans)
      s.match = !s.match;

  std::vector<Span> merged;
  bool previousMatch = false;
  switch (behavior) {
  case SplitBehavior::Isolated:
    merged = spans;
    break;
  case SplitBehavior::Removed:
    for (const Span &s : spans)
      if (!s.match)
        merged.push_back(s);
    break;
  case SplitBehavior::MergedWithPrevious:
    for (const Span &s : spans) {
      if (s.match && !previousMatch && !merged.empty())
        merged.back().end = s.end;
      else
        merged.push_back(s);
      previousMatch = s.match;
    }
    break;
  case SplitBehavior::MergedWithNext:
    for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
      if (it->match && !previousMatch && !merged.empty())
        merged.back().begin = it->begin;
      else
        merged.push_back(*it);
      previousMatch = it->match;
    }
    std::reverse(merged.begin(), merged.end());
    break;
  case SplitBehavior::Contiguous:
    for (const Span &s : spans) {
      if (s.match == previousMatch && !merged.empty())
        merged.back().end = s.end;
      else
        merged.push_back(s);
      previousMatch = s.match;
    }
    break;
  }
  std::vector<std::string> parts;
  parts.reserve(merged.size());
  for (const Span &s : merged)
    if (s.end > s.begin)
      parts.push_back(text.substr(s.begin, s.end - s.begin));
  return parts;
}

void SplitPreTokenizer::split(std::vector<Piece> &pieces) const {
  splitEach(pieces, [&](const Piece &p) { return splitText(*pattern_, p.text, behavior_, invert_); });
}

const char *ByteLevelPreTokenizer::kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

void ByteLevelPreTokenizer::split(std::vector<Piece> &pieces) const {
  splitEach(pieces, [&](const Piece &p) {
    std::string text = p.text;
    if (addPrefixSpace_ && (text.empty() || text[0] != ' '))
      text.insert(0, " ");
    std::vector<std::string> parts;
    if (regex_)
      parts = splitText(*regex_, text, SplitBehavior::Isolated, false);
    else
      parts.push_back(std::move(text));
    for (std::string &part : parts) {
      std::string mapped;
      mapped.reserve(part.size() * 2);
      appendByteLevel(mapped, part);
      part = std::move(mapped);
    }
    return parts;
  });
}

void MetaspacePreTokenizer::split(std::vector<Piece> &pieces) const {
  splitEach(pieces, [&](const Piece &p) {
    std::string text;
    text.reserve(p.text.size() + replacement_.size());
    for (char c : p.text) {
      if (c == ' ')
        text += replacement_;
      else
        text += c;
    }
    const bool startsWithReplacement = text.compare(0, replacement_.size(), replacement_) == 0;
    if (!startsWithReplacement &&
        (scheme_ == PrependScheme::Always || (scheme_ == PrependScheme::First && p.atStart)))
      text.insert(0, replacement_);
    if (!split_)
      return std::vector<std::string>{std::move(text)};
    return splitText(*pattern_, text, SplitBehavior::MergedWithNext, false);
  });
}

void SequencePreTokenizer::split(std::vector<Piece> &pieces) const {
  for (const auto &s : steps_)
    s->split(pieces);
}

} // namespace ssm::rt::tok
