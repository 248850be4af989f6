// GPT-2's byte-level alphabet: each byte 0-255 as one printable code point (tokenizer.json's ByteLevel pre-tokenizer and decoder).
//
// Bytes that are printable Latin-1 ('!'..'~', U+00A1..U+00AC, U+00AE..U+00FF)
// stand for themselves; the other 68 take U+0100 upwards in byte order (so
// ' ' is 'Ġ' U+0120 and '\n' is 'Ċ' U+010A). This is the mapping of GPT-2's
// bytes_to_unicode(), which every byte-level BPE vocabulary is written in.
#ifndef SSM_RUNTIME_TOKENIZER_BYTELEVEL_H
#define SSM_RUNTIME_TOKENIZER_BYTELEVEL_H

#include <string>
#include <string_view>

namespace ssm::rt::tok {

/// Appends each byte of `bytes` as its code point of the alphabet, in UTF-8.
void appendByteLevel(std::string &out, std::string_view bytes);

/// The bytes a byte-level token stands for. False (and `out` unchanged) when
/// some code point of `token` is not in the alphabet (an added token such as
/// "<|im_start|>" is made of such code points only when it contains none
/// outside '!'..'~'; the decoder then takes the token's own bytes).
bool byteLevelToBytes(std::string_view token, std::string &out);

} // namespace ssm::rt::tok

#endif
