// Normalizers of tokenizer.json: what is done to the text (outside added tokens) before it is split.
//
// The types read (HfTokenizerJson.cpp): NFC, NFD, NFKC, NFKD, Lowercase,
// Strip, StripAccents, Replace, Prepend, Sequence. Each acts on a segment of
// the text between added tokens, as Hugging Face's tokenizers do (so Prepend
// prefixes every such segment that is not empty).
#ifndef SSM_RUNTIME_TOKENIZER_NORMALIZER_H
#define SSM_RUNTIME_TOKENIZER_NORMALIZER_H

#include "runtime/tokenizer/Regex.h"
#include "runtime/tokenizer/Unicode.h"

#include <memory>
#include <string>
#include <vector>

namespace ssm::rt::tok {

class Normalizer {
public:
  virtual ~Normalizer() = default;
  /// Rewrites `text` (valid UTF-8; stays valid).
  virtual void normalize(std::string &text) const = 0;
};

class UnicodeNormalizer : public Normalizer {
public:
  explicit UnicodeNormalizer(NormalForm form) : form_(form) {}
  void normalize(std::string &text) const override;

private:
  NormalForm form_;
};

class LowercaseNormalizer : public Normalizer {
public:
  void normalize(std::string &text) const override;
};

/// Removes white space at the start and/or the end.
class StripNormalizer : public Normalizer {
public:
  StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
  void normalize(std::string &text) const override;

private:
  bool left_, right_;
};

/// Removes nonspacing marks (meant to follow NFD or NFKD).
class StripAccentsNormalizer : public Normalizer {
public:
  void normalize(std::string &text) const override;
};

/// Replaces every match of a pattern (a literal string or a regex) by `content`.
class ReplaceNormalizer : public Normalizer {
public:
  ReplaceNormalizer(std::unique_ptr<Regex> pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void normalize(std::string &text) const override;

private:
  std::unique_ptr<Regex> pattern_;
  std::string content_;
};

/// Puts `prefix` before a text that is not empty.
class PrependNormalizer : public Normalizer {
public:
  explicit PrependNormalizer(std::string prefix) : prefix_(std::move(prefix)) {}
  void normalize(std::string &text) const override;

private:
  std::string prefix_;
};

class SequenceNormalizer : public Normalizer {
public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> steps)
      : steps_(std::move(steps)) {}
  void normalize(std::string &text) const override;

private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

/// Replaces each match of `pattern` in `text` by `content`.
std::string replaceAll(const Regex &pattern, const std::string &text, const std::string &content);

} // namespace ssm::rt::tok

#endif
