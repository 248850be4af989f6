// UTF-8 helpers of the tokenizers: validation, code point stepping, and the lossy decoding of byte strings.
#ifndef SSM_RUNTIME_TOKENIZER_UTF8_H
#define SSM_RUNTIME_TOKENIZER_UTF8_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ssm::rt::tok {

/// The byte offset of the first invalid UTF-8 sequence in `s` (overlong
/// forms, surrogates and code points above U+10FFFF are invalid), or
/// std::string_view::npos when `s` is valid.
size_t firstInvalidUtf8(std::string_view s);

/// Bytes of the code point that starts with `lead` in valid UTF-8 (1 to 4).
inline size_t utf8Length(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

/// The code point at `s[i]` of valid UTF-8; `i` moves past it.
int32_t nextCodePoint(std::string_view s, size_t &i);

/// Appends code point `cp` (at most U+10FFFF) to `out` in UTF-8.
void appendUtf8(std::string &out, int32_t cp);

/// `bytes` as valid UTF-8: each maximal invalid subsequence becomes one
/// U+FFFD, as Rust's String::from_utf8_lossy (and so Hugging Face's
/// decoders) does.
std::string utf8Lossy(std::string_view bytes);

} // namespace ssm::rt::tok

#endif
