// Normalizers of tokenizer.json (runtime/tokenizer/Normalizer.h).
#include "runtime/tokenizer/Normalizer.h"

#include "runtime/tokenizer/Utf8.h"

namespace ssm::rt::tok {

void UnicodeNormalizer::normalize(std::string &text) const { text = normalizeUnicode(text, form_); }

void LowercaseNormalizer::normalize(std::string &text) const {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();)
    appendUtf8(out, toLower(nextCodePoint(text, i)));
  text = std::move(out);
}

void StripNormalizer::normalize(std::string &text) const {
  size_t begin = 0, end = text.size();
  if (left_) {
    while (begin < end) {
      size_t i = begin;
      if (!isWhitespace(nextCodePoint(text, i)))
        break;
      begin = i;
    }
  }
  if (right_) {
    while (end > begin) {
      size_t start = end - 1;
      while (start > begin && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80)
        --start;
      size_t i = start;
      if (!isWhitespace(nextCodePoint(text, i)))
        break;
      end = start;
    }
  }
  text = text.substr(begin, end - begin);
}

void StripAccentsNormalizer::normalize(std::string &text) const {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t start = i;
    if (!isNonspacingMark(nextCodePoint(text, i)))
      out.append(text, start, i - start);
  }
  text = std::move(out);
}

std::string replaceAll(const Regex &pattern, const std::string &text, const std::string &content) {
  std::string out;
  size_t last = 0;
  for (auto [b, e] : pattern.findAll(text)) {
    out.append(text, last, b - last);
    out += content;
    last = e;
  }
  out.append(text, last, std::string::npos);
  return out;
}

void ReplaceNormalizer::normalize(std::string &text) const {
  text = replaceAll(*pattern_, text, content_);
}

void PrependNormalizer::normalize(std::string &text) const {
  if (!text.empty())
    text.insert(0, prefix_);
}

void SequenceNormalizer::normalize(std::string &text) const {
  for (const auto &s : steps_)
    s->normalize(text);
}

} // namespace ssm::rt::tok
