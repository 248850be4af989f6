// Pre-tokenizers of tokenizer.json: how a normalized segment is cut into the words the model tokenizes one by one.
//
// The types read (HfTokenizerJson.cpp): Split (a literal or regex pattern,
// the five delimiter behaviours, invert), ByteLevel (optional prefix space,
// optional GPT-2 regex, then every byte as a code point of GPT-2's
// alphabet), Metaspace (' ' -> the replacement, '▁', prepended always,
// first or never, optional split before each replacement), Whitespace,
// WhitespaceSplit, Digits, Punctuation (as Splits) and Sequence.
#ifndef SSM_RUNTIME_TOKENIZER_PRETOKENIZER_H
#define SSM_RUNTIME_TOKENIZER_PRETOKENIZER_H

#include "runtime/tokenizer/Regex.h"

#include <memory>
#include <string>
#include <vector>

namespace ssm::rt::tok {

/// A word on its way to the model. `atStart`: it begins at offset 0 of the
/// text given to encode (Metaspace's prepend_scheme "first" looks at it).
struct Piece {
  std::string text;
  bool atStart = false;
};

class PreTokenizer {
public:
  virtual ~PreTokenizer() = default;
  /// Replaces `pieces` by their splits (empty pieces are dropped).
  virtual void split(std::vector<Piece> &pieces) const = 0;
};

/// What becomes of the pattern's matches (Hugging Face's SplitDelimiterBehavior).
enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

class SplitPreTokenizer : public PreTokenizer {
public:
  SplitPreTokenizer(std::unique_ptr<Regex> pattern, SplitBehavior behavior, bool invert)
      : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert) {}
  void split(std::vector<Piece> &pieces) const override;

private:
  std::unique_ptr<Regex> pattern_;
  SplitBehavior behavior_;
  bool invert_;
};

class ByteLevelPreTokenizer : public PreTokenizer {
public:
  /// `gpt2Regex`: null unless use_regex (then GPT-2's word pattern).
  ByteLevelPreTokenizer(bool addPrefixSpace, std::unique_ptr<Regex> gpt2Regex)
      : addPrefixSpace_(addPrefixSpace), regex_(std::move(gpt2Regex)) {}
  void split(std::vector<Piece> &pieces) const override;
  /// The pattern GPT-2 splits words with (use_regex).
  static const char *kGpt2Pattern;

private:
  bool addPrefixSpace_;
  std::unique_ptr<Regex> regex_;
};

enum class PrependScheme { Always, First, Never };

class MetaspacePreTokenizer : public PreTokenizer {
public:
  MetaspacePreTokenizer(std::string replacement, PrependScheme scheme, bool splitWords,
                        std::unique_ptr<Regex> replacementPattern)
      : replacement_(std::move(replacement)), scheme_(scheme), split_(splitWords),
        pattern_(std::move(replacementPattern)) {}
  void split(std::vector<Piece> &pieces) const override;

private:
  std::string replacement_;
  PrependScheme scheme_;
  bool split_;
  std::unique_ptr<Regex> pattern_; // the replacement, literally
};

class SequencePreTokenizer : public PreTokenizer {
public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> steps)
      : steps_(std::move(steps)) {}
  void split(std::vector<Piece> &pieces) const override;

private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

/// `text` cut at `pattern`'s matches as `behavior` says (invert: the
/// matches are the words and the rest the delimiters), empty parts dropped.
std::vector<std::string> splitText(const Regex &pattern, const std::string &text,
                                   SplitBehavior behavior, bool invert);

} // namespace ssm::rt::tok

#endif
