// PCRE2-backed regular expressions of the tokenizers (runtime/tokenizer/Regex.h).
#define PCRE2_CODE_UNIT_WIDTH 8
#include "runtime/tokenizer/Regex.h"

#include <pcre2.h>

#include <new>
#include <stdexcept>

namespace ssm::rt::tok {

std::unique_ptr<Regex> Regex::compile(const std::string &pattern, std::string &error) {
  int code = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code *re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                 PCRE2_UTF | PCRE2_UCP, &code, &offset, nullptr);
  if (!re) {
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(code, buf, sizeof buf);
    error = "bad regular expression at offset " + std::to_string(offset) + ": " +
            reinterpret_cast<const char *>(buf);
    return nullptr;
  }
  // Without a JIT (an unsupported CPU) the interpreter runs the same pattern.
  pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
  std::unique_ptr<Regex> r(new Regex);
  r->code_ = re;
  return r;
}

std::unique_ptr<Regex> Regex::literal(const std::string &literal, std::string &error) {
  // \Q...\E quotes everything but a literal "\E", which is spelled out.
  std::string pattern = "\\Q";
  for (size_t i = 0; i < literal.size(); ++i) {
    if (literal.compare(i, 2, "\\E") == 0) {
      pattern += "\\E\\\\E\\Q";
      ++i;
    } else {
      pattern += literal[i];
    }
  }
  pattern += "\\E";
  return compile(pattern, error);
}

Regex::~Regex() { pcre2_code_free(static_cast<pcre2_code *>(code_)); }

std::vector<std::pair<size_t, size_t>> Regex::findAll(std::string_view text) const {
  std::vector<std::pair<size_t, size_t>> out;
  auto *re = static_cast<pcre2_code *>(code_);
  pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, nullptr);
  if (!md)
    throw std::bad_alloc();
  const auto *subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t start = 0;
  while (start <= text.size()) {
    // The caller validated the text once; PCRE2 need not check it per call.
    int rc = pcre2_match(re, subject, text.size(), start, PCRE2_NO_UTF_CHECK, md, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH)
      break;
    if (rc < 0) {
      // A resource limit (match or depth limit): a silent stop would drop text.
      PCRE2_UCHAR buf[256];
      pcre2_get_error_message(rc, buf, sizeof buf);
      pcre2_match_data_free(md);
      throw std::runtime_error(std::string("regular expression match failed: ") +
                               reinterpret_cast<const char *>(buf));
    }
    const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    size_t b = ov[0], e = ov[1];
    if (e > b) {
      out.emplace_back(b, e);
      start = e;
    } else {
      // An empty match: step over one code point so the search moves on.
      if (b >= text.size())
        break;
      size_t next = b + 1;
      while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0) == 0x80)
        ++next;
      start = next;
    }
  }
  pcre2_match_data_free(md);
  return out;
}

} // namespace ssm::rt::tok
