// Added tokens of tokenizer.json ("added_tokens"): strings matched in the text before anything else, each one id.
//
// Special tokens (<|im_start|>, <s>) and other added tokens written in the
// text are found first, leftmost and then longest, as Hugging Face's
// AddedVocabulary does: those with "normalized": false in the raw text,
// those with true in the text after the normalizer. "lstrip" / "rstrip"
// take the white space before / after a match into it; "single_word" matches
// only where no word character (a letter, number or '_') touches it.
#ifndef SSM_RUNTIME_TOKENIZER_ADDEDTOKENS_H
#define SSM_RUNTIME_TOKENIZER_ADDEDTOKENS_H

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ssm::rt::tok {

struct AddedToken {
  int32_t id = -1;
  std::string content;
  bool special = false;
  bool lstrip = false, rstrip = false, singleWord = false;
  bool normalized = false;
};

/// A part of a text: an added token (`id` >= 0) or text between them (`id` -1).
struct Segment {
  std::string_view text;
  int32_t id = -1;
};

class AddedTokens {
public:
  void add(AddedToken token);
  /// `text` cut at the added tokens whose "normalized" flag equals `normalized`.
  std::vector<Segment> split(std::string_view text, bool normalized) const;
  const AddedToken *byId(int32_t id) const;
  const AddedToken *byContent(std::string_view content) const;
  bool empty() const { return tokens_.empty(); }
  const std::vector<AddedToken> &all() const { return tokens_; }

private:
  std::vector<AddedToken> tokens_;
  std::unordered_map<int32_t, size_t> byId_;
  std::unordered_map<std::string, size_t> byContent_;
  /// For each first byte, the tokens starting with it, longest first; one
  /// table for each value of "normalized".
  std::vector<std::vector<size_t>> byFirstByte_[2];
};

} // namespace ssm::rt::tok

#endif
