// The BPE model of tokenizer.json: a word's characters merged pairwise in the order of the merge list (rank), as Hugging Face's BPE does.
//
// Both flavours in use: byte-level BPE (GPT-2, Qwen, Llama 3: the words are
// already in GPT-2's byte alphabet, ByteLevel.h) and SentencePiece-style BPE
// (Llama 2, Mistral: words carry '▁' for spaces, and a character outside the
// vocabulary becomes its UTF-8 bytes as <0xNN> tokens when byte_fallback is
// set, else the unknown token). A word's ids are cached (words repeat: a
// 100 KB text has a few thousand distinct ones).
#ifndef SSM_RUNTIME_TOKENIZER_BPE_H
#define SSM_RUNTIME_TOKENIZER_BPE_H

#include "runtime/tokenizer/TokenModel.h"
#include "runtime/tokenizer/TokenTable.h"

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ssm::rt::tok {

struct BpeOptions {
  std::optional<std::string> unkToken; // null: characters outside the vocabulary are dropped
  std::string continuingSubwordPrefix; // before every character but a word's first
  std::string endOfWordSuffix;         // after a word's last character
  bool fuseUnk = false;                // consecutive unknowns give one unknown token
  bool byteFallback = false;           // unknown characters as <0xNN> byte tokens
  bool ignoreMerges = false;           // a word in the vocabulary is one token, unmerged
};

class Bpe : public TokenModel {
public:
  /// Builds the model; false with `error` when a merge or the unknown token
  /// names a string that is not in the vocabulary.
  bool init(std::unordered_map<std::string, int32_t> vocab,
            const std::vector<std::pair<std::string, std::string>> &merges, BpeOptions options,
            std::string &error);

  /// Appends the ids of `word` to `ids`. Thread-safe.
  void tokenize(const std::string &word, std::vector<int32_t> &ids) const override;

  /// -1 when `token` is not in the vocabulary.
  int32_t tokenToId(std::string_view token) const override;
  /// Null when no token has `id`.
  const std::string *idToToken(int32_t id) const override;
  /// One past the largest id (0 for an empty vocabulary).
  int64_t idSpan() const override { return table_.span(); }

private:
  void merge(const std::string &word, std::vector<int32_t> &ids) const;

  TokenTable table_;
  /// (left id, right id) -> (rank, merged id).
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> merges_;
  BpeOptions options_;
  int32_t unkId_ = -1;
  std::array<int32_t, 256> byteIds_{}; // <0xNN> tokens, -1 where absent

  static constexpr size_t kCacheCapacity = 100000;
  /// Longer words are not cached: a tokenizer without a pre-tokenizer (Llama 2's)
  /// makes a whole text one word, which would not repeat.
  static constexpr size_t kCacheWordBytes = 256;
  mutable std::mutex cacheMutex_;
  mutable std::unordered_map<std::string, std::vector<int32_t>> cache_;
};

} // namespace ssm::rt::tok

#endif
