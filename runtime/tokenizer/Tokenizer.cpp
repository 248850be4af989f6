// The tokenizer pipeline: added tokens, normalizer, pre-tokenizer, model, post-processor; decoder (runtime/tokenizer/Tokenizer.h).
#include "runtime/tokenizer/Tokenizer.h"

#include "runtime/tokenizer/Utf8.h"

#include <algorithm>
#include <exception>
#include <new>

namespace ssm::rt::tok {
namespace {

void replaceEvery(std::string &s, std::string_view from, std::string_view to) {
  std::string out;
  size_t last = 0;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, last)) {
    out.append(s, last, at - last);
    out += to;
    last = at + from.size();
  }
  if (last == 0)
    return;
  out.append(s, last, std::string::npos);
  s = std::move(out);
}

/// transformers' clean_up_tokenization, the same replacements in the same order.
void cleanUpTokenization(std::string &text) {
  static const std::pair<const char *, const char *> kRules[] = {
      {" .", "."},     {" ?", "?"},   {" !", "!"},   {" ,", ","},     {" ' ", "'"},
      {" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  for (const auto &[from, to] : kRules)
    replaceEvery(text, from, to);
}

} // namespace

Status Tokenizer::encode(std::string_view text, bool addSpecial, std::vector<int32_t> &ids) const {
  if (size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos)
    return {Code::InvalidArgument,
            "the text is not valid UTF-8 (byte " + std::to_string(bad) + " of " +
                std::to_string(text.size()) + ")"};
  try {
    std::vector<int32_t> out;
    out.reserve(text.size() / 3 + 4);
    std::vector<Piece> pieces;
    for (const Segment &seg : p_.added.split(text, false)) {
      if (seg.id >= 0) {
        out.push_back(seg.id);
        continue;
      }
      const bool segmentAtStart = seg.text.data() == text.data();
      std::string normalized(seg.text);
      if (p_.normalizer)
        p_.normalizer->normalize(normalized);
      for (const Segment &sub : p_.added.split(normalized, true)) {
        if (sub.id >= 0) {
          out.push_back(sub.id);
          continue;
        }
        pieces.clear();
        pieces.push_back({std::string(sub.text), segmentAtStart && sub.text.data() == normalized.data()});
        if (p_.preTokenizer)
          p_.preTokenizer->split(pieces);
        for (const Piece &piece : pieces)
          p_.model->tokenize(piece.text, out);
      }
    }
    if (addSpecial) {
      ids.insert(ids.end(), p_.specialPrefix.begin(), p_.specialPrefix.end());
      ids.insert(ids.end(), out.begin(), out.end());
      ids.insert(ids.end(), p_.specialSuffix.begin(), p_.specialSuffix.end());
    } else {
      ids.insert(ids.end(), out.begin(), out.end());
    }
    return {};
  } catch (const std::bad_alloc &) {
    return {Code::OutOfMemory, "out of memory while tokenizing"};
  } catch (const std::exception &e) {
    return {Code::Internal, std::string("tokenizing failed: ") + e.what()};
  }
}

Status Tokenizer::decode(const int32_t *ids, size_t n, bool skipSpecial, std::string &text) const {
  if (n > 0 && !ids)
    return {Code::InvalidArgument, "ids is null"};
  std::vector<std::string> tokens;
  tokens.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] < 0)
      return {Code::InvalidArgument,
              "id " + std::to_string(ids[i]) + " at index " + std::to_string(i) + " is negative"};
    if (const AddedToken *a = p_.added.byId(ids[i])) {
      if (!(skipSpecial && a->special))
        tokens.push_back(a->content);
    } else if (const std::string *t = p_.model->idToToken(ids[i])) {
      tokens.push_back(*t);
    }
  }
  try {
    if (p_.decoder) {
      p_.decoder->decode(tokens);
      text.clear();
      for (const std::string &t : tokens)
        text += t;
    } else {
      text.clear();
      for (size_t i = 0; i < tokens.size(); ++i)
        text += (i ? " " : "") + tokens[i];
    }
    if (p_.cleanUpSpaces)
      cleanUpTokenization(text);
  } catch (const std::bad_alloc &) {
    return {Code::OutOfMemory, "out of memory while decoding"};
  } catch (const std::exception &e) {
    return {Code::Internal, std::string("decoding failed: ") + e.what()};
  }
  return {};
}

int64_t Tokenizer::vocabSize() const {
  int64_t n = p_.model->idSpan();
  for (const AddedToken &a : p_.added.all())
    n = std::max<int64_t>(n, static_cast<int64_t>(a.id) + 1);
  return n;
}

int32_t Tokenizer::tokenToId(std::string_view token) const {
  if (const AddedToken *a = p_.added.byContent(token))
    return a->id;
  return p_.model->tokenToId(token);
}

const std::string *Tokenizer::tokenText(int32_t id) const {
  if (const AddedToken *a = p_.added.byId(id))
    return &a->content;
  return p_.model->idToToken(id);
}

bool Tokenizer::isSpecial(int32_t id) const {
  const AddedToken *a = p_.added.byId(id);
  return a && a->special;
}

} // namespace ssm::rt::tok
