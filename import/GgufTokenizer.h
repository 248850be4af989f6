// The vocabulary inside a GGUF file (`tokenizer.ggml.*`) as the Hugging Face
// tokenizer.json + tokenizer_config.json the runtime reads
// (runtime/tokenizer/, docs/tokenizers.md), following llama.cpp's
// tokenizer for the file (src/llama-vocab.cpp):
//
//   tokenizer.ggml.model "gpt2": byte-level BPE. tokens -> the vocabulary,
//     merges ("a b", by rank; merges naming a string the vocabulary lacks are
//     dropped, as they can never apply), the pre-tokenizer regex(es) llama.cpp
//     uses for `tokenizer.ggml.pre` (gpt-2 / mpt / olmo / phi-2 ..., llama3 /
//     llama-bpe / lfm2 / falcon-h1 ... with ignore_merges, qwen2, qwen35, and
//     llama.cpp's default set for "default" or no key) as Split(Isolated)
//     steps before ByteLevel; no normalizer (llama.cpp applies none: a
//     transformers tokenizer.json may have NFC).
//   tokenizer.ggml.model "llama": SentencePiece-style BPE with byte fallback:
//     " " -> "▁" (and a "▁" prepended unless tokenizer.ggml.add_space_prefix
//     is false), merges derived from the scores (every split of a token into
//     two tokens, ranked by the token's score, highest first: the order
//     llama.cpp's SPM tokenizer merges in), <0xNN> byte tokens, <unk>.
//   token_type 3 (control) -> special added tokens, 4 (user-defined) ->
//     added tokens; bos / eos / unk / pad ids -> tokenizer_config.json with
//     add_bos_token / add_eos_token (tokenizer.ggml.add_bos_token, else
//     llama.cpp's default: true for "llama", false for "gpt2") and
//     clean_up_tokenization_spaces false.
// "rwkv" goes through ggufWorldVocab below. Anything else (another model
// such as "t5", a pre-tokenizer
// llama.cpp names but we do not map) is refused naming the key and value.
#ifndef SSM_IMPORT_GGUFTOKENIZER_H
#define SSM_IMPORT_GGUFTOKENIZER_H

#include "import/Gguf.h"

#include <string>

namespace ssm::importer {

/// False with `error` ("<file>: tokenizer.ggml.pre 'x' is not supported ...")
/// when the file has no vocabulary or one not converted. `summary`: one
/// line for messages ("gpt2 (pre qwen2), 151669 tokens, 151387 merges").
bool ggufTokenizerJson(const GgufFile &f, std::string &tokenizerJson, std::string &configJson,
                       std::string &summary, std::string &error);

/// tokenizer.ggml.model "rwkv" (RWKV's World vocabulary as llama.cpp's
/// converter stores it: id 0 "<s>" (control), then each token as the text of
/// Python's repr() of its bytes without the b'' quotes, "[PADn]" (unused) to
/// the vocabulary size) as the rwkv_vocab_v20230424.txt the runtime reads
/// (runtime/tokenizer/WorldVocab.h): a line `<id> b'<\xNN ...>' <length>`
/// for every normal token, the escapes undone as llama.cpp's
/// llama_unescape_rwkv_token undoes them (\t \n \r \xNN; \c is c). False
/// with `error` for another model, no tokens, or a bad escape. `summary`:
/// "rwkv world, 65529 tokens".
bool ggufWorldVocab(const GgufFile &f, std::string &vocabText, std::string &summary,
                    std::string &error);

} // namespace ssm::importer

#endif // SSM_IMPORT_GGUFTOKENIZER_H
