// Decoders of tokenizer.json: token strings back to text.
//
// A decoder maps the list of token strings to another list (Hugging Face's
// decode_chain); the text is their concatenation. The types read
// (HfTokenizerJson.cpp): ByteLevel, Metaspace, ByteFallback, Fuse, Strip,
// Replace and Sequence. Without a decoder the tokens are joined with spaces,
// as Hugging Face's tokenizers do.
#ifndef SSM_RUNTIME_TOKENIZER_DECODER_H
#define SSM_RUNTIME_TOKENIZER_DECODER_H

#include "runtime/tokenizer/PreTokenizer.h"
#include "runtime/tokenizer/Regex.h"

#include <memory>
#include <string>
#include <vector>

namespace ssm::rt::tok {

class Decoder {
public:
  virtual ~Decoder() = default;
  virtual void decode(std::vector<std::string> &tokens) const = 0;
};

/// GPT-2's alphabet back to bytes, all tokens into one string (invalid UTF-8
/// becomes U+FFFD); a token with a code point outside the alphabet (an added
/// token) stands for its own bytes.
class ByteLevelDecoder : public Decoder {
public:
  void decode(std::vector<std::string> &tokens) const override;
};

/// The replacement back to ' ', except in the first token, where it is
/// dropped unless the prepend scheme is never.
class MetaspaceDecoder : public Decoder {
public:
  MetaspaceDecoder(std::string replacement, PrependScheme scheme)
      : replacement_(std::move(replacement)), scheme_(scheme) {}
  void decode(std::vector<std::string> &tokens) const override;

private:
  std::string replacement_;
  PrependScheme scheme_;
};

/// Runs of <0xNN> tokens back to their bytes, as text when they form valid
/// UTF-8, else one U+FFFD per byte.
class ByteFallbackDecoder : public Decoder {
public:
  void decode(std::vector<std::string> &tokens) const override;
};

/// All tokens into one.
class FuseDecoder : public Decoder {
public:
  void decode(std::vector<std::string> &tokens) const override;
};

/// Removes up to `start` leading and `stop` trailing copies of `content`
/// (one character) from each token.
class StripDecoder : public Decoder {
public:
  StripDecoder(std::string content, size_t start, size_t stop)
      : content_(std::move(content)), start_(start), stop_(stop) {}
  void decode(std::vector<std::string> &tokens) const override;

private:
  std::string content_;
  size_t start_, stop_;
};

/// Replaces matches of a pattern in each token.
class ReplaceDecoder : public Decoder {
public:
  ReplaceDecoder(std::unique_ptr<Regex> pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void decode(std::vector<std::string> &tokens) const override;

private:
  std::unique_ptr<Regex> pattern_;
  std::string content_;
};

class SequenceDecoder : public Decoder {
public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> steps) : steps_(std::move(steps)) {}
  void decode(std::vector<std::string> &tokens) const override;

private:
  std::vector<std::unique_ptr<Decoder>> steps_;
};

} // namespace ssm::rt::tok

#endif
