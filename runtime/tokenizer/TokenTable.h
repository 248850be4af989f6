// A tokenizer model's vocabulary both ways: token string -> id, and id -> token string.
//
// Bpe (Bpe.h) and WorldVocab (WorldVocab.h) keep their vocabularies in one.
// Ids need not be dense: an id with no token reads as null.
#ifndef SSM_RUNTIME_TOKENIZER_TOKENTABLE_H
#define SSM_RUNTIME_TOKENIZER_TOKENTABLE_H

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ssm::rt::tok {

class TokenTable {
public:
  /// Takes `vocab` (token -> id); false with `error` naming the first token
  /// with a negative id.
  bool assign(std::unordered_map<std::string, int32_t> vocab, std::string &error);
  /// -1 when `token` is not in the vocabulary.
  int32_t find(std::string_view token) const;
  /// Null when no token has `id`.
  const std::string *at(int32_t id) const;
  /// One past the largest id (0 for an empty vocabulary).
  int64_t span() const { return static_cast<int64_t>(tokens_.size()); }
  size_t size() const { return ids_.size(); }

private:
  std::unordered_map<std::string, int32_t> ids_;
  std::vector<std::string> tokens_; // by id ("" where none)
  std::vector<bool> hasToken_;
};

} // namespace ssm::rt::tok

#endif
