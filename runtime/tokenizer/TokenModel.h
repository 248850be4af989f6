// The model step of a tokenizer: a word (UTF-8 bytes) -> token ids, and each id's token string.
//
// Two kinds implement it: Bpe (Hugging Face's BPE, Bpe.h) and WorldVocab
// (RWKV's World tokenizer, greedy longest match over a byte vocabulary,
// WorldVocab.h). Tokenizer (Tokenizer.h) runs it between the pre-tokenizer
// and the post-processor.
#ifndef SSM_RUNTIME_TOKENIZER_TOKENMODEL_H
#define SSM_RUNTIME_TOKENIZER_TOKENMODEL_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ssm::rt::tok {

class TokenModel {
public:
  virtual ~TokenModel() = default;
  /// Appends the ids of `word` to `ids`. Thread-safe.
  virtual void tokenize(const std::string &word, std::vector<int32_t> &ids) const = 0;
  /// -1 when `token` is not in the vocabulary.
  virtual int32_t tokenToId(std::string_view token) const = 0;
  /// Null when no token has `id`.
  virtual const std::string *idToToken(int32_t id) const = 0;
  /// One past the largest id (0 for an empty vocabulary).
  virtual int64_t idSpan() const = 0;
};

} // namespace ssm::rt::tok

#endif
