// Reading Hugging Face's tokenizer.json (and tokenizer_config.json) into a Tokenizer's parts.
//
// What is read (anything else is refused with a message naming the JSON path
// and the component type):
//   model          BPE: vocab, merges (as "a b" strings or ["a", "b"] pairs),
//                  unk_token, continuing_subword_prefix, end_of_word_suffix,
//                  fuse_unk, byte_fallback, ignore_merges (dropout is ignored:
//                  it only matters in training)
//   added_tokens   [{id, content, special, lstrip, rstrip, single_word, normalized}]
//   normalizer     NFC NFD NFKC NFKD Lowercase Strip StripAccents Replace Prepend
//                  Sequence, or null
//   pre_tokenizer  Split ByteLevel Metaspace Whitespace WhitespaceSplit Digits
//                  Punctuation Sequence, or null
//   post_processor TemplateProcessing (its "single" template), BertProcessing,
//                  RobertaProcessing, ByteLevel (adds nothing), Sequence, or null
//   decoder        ByteLevel Metaspace ByteFallback Fuse Strip Replace Sequence, or null
//   truncation, padding: not applied (encode returns every id)
// tokenizer_config.json: bos_token, eos_token, pad_token (a string or an
// {"content": ...} object); add_bos_token / add_eos_token when the
// tokenizer.json has no post-processor that adds special tokens;
// clean_up_tokenization_spaces (decode; true when absent, as transformers.js).
#ifndef SSM_RUNTIME_TOKENIZER_HFTOKENIZERJSON_H
#define SSM_RUNTIME_TOKENIZER_HFTOKENIZERJSON_H

#include "runtime/Status.h"
#include "runtime/tokenizer/Tokenizer.h"

#include <string>

namespace ssm::rt::tok {

/// Builds the parts from the two files' text (`configJson` may be empty);
/// messages start with `name`. InvalidFile for malformed input, Unsupported
/// for a component type not implemented here.
Status readHfTokenizer(const std::string &tokenizerJson, const std::string &configJson,
                       const std::string &name, TokenizerParts &parts);

} // namespace ssm::rt::tok

#endif
