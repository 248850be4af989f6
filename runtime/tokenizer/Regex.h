// Regular expressions of tokenizer.json (Split pre-tokenizers, Replace normalizers) on PCRE2, in UTF mode with Unicode properties.
//
// Hugging Face's tokenizers compile these patterns with Oniguruma; PCRE2 with
// PCRE2_UTF | PCRE2_UCP reads the same syntax for what tokenizer files use
// (\p{L}, \p{N}, \s with Unicode meaning, (?i:...), lookahead). Patterns are
// JIT-compiled when PCRE2 has a JIT for this CPU.
#ifndef SSM_RUNTIME_TOKENIZER_REGEX_H
#define SSM_RUNTIME_TOKENIZER_REGEX_H

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ssm::rt::tok {

class Regex {
public:
  /// Compiles `pattern`; on failure returns null and sets `error` to PCRE2's
  /// message and the offset in the pattern.
  static std::unique_ptr<Regex> compile(const std::string &pattern, std::string &error);
  /// A pattern that matches `literal` exactly (tokenizer.json's {"String": ...}).
  static std::unique_ptr<Regex> literal(const std::string &literal, std::string &error);
  ~Regex();
  Regex(const Regex &) = delete;
  Regex &operator=(const Regex &) = delete;

  /// Every non-overlapping match in `text` (valid UTF-8), left to right, as
  /// [begin, end) byte offsets; empty matches are left out. Safe to call
  /// from several threads at once.
  std::vector<std::pair<size_t, size_t>> findAll(std::string_view text) const;

private:
  Regex() = default;
  void *code_ = nullptr; // pcre2_code_8
};

} // namespace ssm::rt::tok

#endif
