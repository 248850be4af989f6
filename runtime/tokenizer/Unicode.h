// Unicode properties and normalization forms the tokenizers need, from utf8proc (no tables of our own).
#ifndef SSM_RUNTIME_TOKENIZER_UNICODE_H
#define SSM_RUNTIME_TOKENIZER_UNICODE_H

#include <cstdint>
#include <string>
#include <string_view>

namespace ssm::rt::tok {

enum class NormalForm { NFC, NFD, NFKC, NFKD };

/// `s` (valid UTF-8) in normalization form `form` (utf8proc_map).
std::string normalizeUnicode(std::string_view s, NormalForm form);

/// White space as Rust's char::is_whitespace (what Hugging Face's lstrip,
/// rstrip and Strip test): the space separators (Zs, Zl, Zp), \t \n \v \f \r
/// and U+0085.
bool isWhitespace(int32_t cp);
/// A letter or a number (L*, N*): Rust's char::is_alphanumeric.
bool isAlphanumeric(int32_t cp);
/// A nonspacing mark (Mn), what StripAccents removes after NFD.
bool isNonspacingMark(int32_t cp);
/// The simple lowercase mapping of `cp`.
int32_t toLower(int32_t cp);

} // namespace ssm::rt::tok

#endif
