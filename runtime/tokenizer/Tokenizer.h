// A text tokenizer read from a Hugging Face tokenizer.json: text -> token ids -> text.
//
// The pipeline is Hugging Face tokenizers' (the format's definition):
// added tokens are found in the text first; the text between them is
// normalized (Normalizer.h), cut into words (PreTokenizer.h) and each word
// tokenized by the model (Bpe.h); with addSpecial, the post-processor's
// special tokens (a bos token, say) are put around the ids. Decoding maps
// ids back to token strings and runs the decoder (Decoder.h).
//
//   Status st;
//   auto tok = Tokenizer::open("models/qwen3", st);   // or .../tokenizer.json
//   std::vector<int32_t> ids;
//   st = tok->encode("Hello World", false, ids);      // [9707, 4337]
//   std::string text;
//   st = tok->decode(ids.data(), ids.size(), false, text);
//
// A Tokenizer is immutable after open and may be used from several threads.
#ifndef SSM_RUNTIME_TOKENIZER_TOKENIZER_H
#define SSM_RUNTIME_TOKENIZER_TOKENIZER_H

#include "runtime/Status.h"
#include "runtime/tokenizer/AddedTokens.h"
#include "runtime/tokenizer/Bpe.h"
#include "runtime/tokenizer/Decoder.h"
#include "runtime/tokenizer/Normalizer.h"
#include "runtime/tokenizer/PreTokenizer.h"
#include "runtime/tokenizer/TokenModel.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ssm::rt::tok {

/// Ids of the tokens a model treats specially, -1 where there is none
/// (tokenizer_config.json's bos_token, eos_token, pad_token; the model's
/// unk_token).
struct SpecialTokenIds {
  int32_t bos = -1, eos = -1, pad = -1, unk = -1;
};

/// What makes a tokenizer (HfTokenizerJson.cpp fills it).
struct TokenizerParts {
  std::unique_ptr<Normalizer> normalizer;     // may be null
  std::unique_ptr<PreTokenizer> preTokenizer; // may be null: each segment is one word
  std::unique_ptr<TokenModel> model;          // Bpe, or WorldVocab (RWKV)
  std::unique_ptr<Decoder> decoder;           // may be null: tokens joined with spaces
  AddedTokens added;
  /// Ids put before and after the text's ids when special tokens are added.
  std::vector<int32_t> specialPrefix, specialSuffix;
  SpecialTokenIds special;
  /// tokenizer_config.json's clean_up_tokenization_spaces (true when the
  /// file does not say, as transformers and Hugging Face's JavaScript
  /// tokenizers take it): decode removes the space before . ? ! , and
  /// English contractions ("do n't" -> "don't").
  bool cleanUpSpaces = true;
  std::string description; // "BPE, byte-level, ..." for messages and --help
};

class Tokenizer {
public:
  /// `path`: a tokenizer.json, or a folder holding one (a model folder);
  /// or RWKV's World vocabulary: a file named *.txt, or a folder holding
  /// rwkv_vocab_v20230424.txt and no tokenizer.json (fromWorldVocab).
  /// tokenizer_config.json beside it, when present, gives the special
  /// tokens' ids. NotFound, InvalidFile (malformed JSON, a merge naming a
  /// token not in the vocabulary) or Unsupported (a component type this
  /// library does not implement, named) on failure.
  static std::unique_ptr<Tokenizer> open(const std::string &path, Status &status);
  /// Whether the folder `dir` holds a tokenizer open() reads (tokenizer.json,
  /// or RWKV's World vocabulary file).
  static bool inFolder(const std::string &dir);
  /// The file of the folder's tokenizer that open() reads ("" when none).
  static std::string fileInFolder(const std::string &dir);
  /// RWKV's World tokenizer from its vocabulary file's text
  /// (rwkv_vocab_v20230424.txt, WorldVocab.h): no normalizer or
  /// pre-tokenizer, eos id 0. InvalidFile naming the line on a malformed one.
  static std::unique_ptr<Tokenizer> fromWorldVocab(std::string_view text, const std::string &name,
                                                   Status &status);
  /// From the files' text; `configJson` may be empty. `name` is used in messages.
  static std::unique_ptr<Tokenizer> fromJson(const std::string &tokenizerJson,
                                             const std::string &configJson,
                                             const std::string &name, Status &status);

  explicit Tokenizer(TokenizerParts parts) : p_(std::move(parts)) {}

  /// Appends the ids of `text` (UTF-8; InvalidArgument naming the first bad
  /// byte otherwise) to `ids`. Special tokens written in the text are always
  /// matched; `addSpecial` adds the post-processor's (bos, ...).
  Status encode(std::string_view text, bool addSpecial, std::vector<int32_t> &ids) const;
  /// The text of `n` ids. Ids with no token are skipped (as Hugging Face
  /// does: a model's vocabulary may be padded past the tokenizer's); a
  /// negative id is InvalidArgument. `skipSpecial` leaves special tokens out.
  /// The decoder's text is cleaned up as TokenizerParts::cleanUpSpaces says.
  Status decode(const int32_t *ids, size_t n, bool skipSpecial, std::string &text) const;

  /// One past the largest token id (the model's vocabulary and the added tokens).
  int64_t vocabSize() const;
  /// The id of a token string (an added token or a vocabulary entry), or -1.
  int32_t tokenToId(std::string_view token) const;
  /// Token `id` as the vocabulary (or the added token) spells it, valid
  /// while the tokenizer lives; null when no token has that id.
  const std::string *tokenText(int32_t id) const;
  /// Whether `id` is an added token marked special.
  bool isSpecial(int32_t id) const;
  const SpecialTokenIds &special() const { return p_.special; }
  const std::string &description() const { return p_.description; }

private:
  TokenizerParts p_;
};

} // namespace ssm::rt::tok

#endif
