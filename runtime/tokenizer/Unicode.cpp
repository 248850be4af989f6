// Unicode properties and normalization forms on utf8proc (runtime/tokenizer/Unicode.h).
#include "runtime/tokenizer/Unicode.h"

#include <utf8proc.h>

#include <cstdlib>
#include <new>
#include <stdexcept>

namespace ssm::rt::tok {

std::string normalizeUnicode(std::string_view s, NormalForm form) {
  if (s.empty())
    return std::string();
  int options = UTF8PROC_STABLE;
  switch (form) {
  case NormalForm::NFC: options |= UTF8PROC_COMPOSE; break;
  case NormalForm::NFD: options |= UTF8PROC_DECOMPOSE; break;
  case NormalForm::NFKC: options |= UTF8PROC_COMPOSE | UTF8PROC_COMPAT; break;
  case NormalForm::NFKD: options |= UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT; break;
  }
  utf8proc_uint8_t *out = nullptr;
  utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t *>(s.data()),
                                    static_cast<utf8proc_ssize_t>(s.size()), &out,
                                    static_cast<utf8proc_option_t>(options));
  if (n < 0) {
    if (n == UTF8PROC_ERROR_NOMEM)
      throw std::bad_alloc();
    throw std::runtime_error(std::string("Unicode normalization failed: ") + utf8proc_errmsg(n));
  }
  std::string r(reinterpret_cast<const char *>(out), static_cast<size_t>(n));
  std::free(out);
  return r;
}

bool isWhitespace(int32_t cp) {
  if ((cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85)
    return true;
  switch (utf8proc_category(cp)) {
  case UTF8PROC_CATEGORY_ZS:
  case UTF8PROC_CATEGORY_ZL:
  case UTF8PROC_CATEGORY_ZP: return true;
  default: return false;
  }
}

bool isAlphanumeric(int32_t cp) {
  switch (utf8proc_category(cp)) {
  case UTF8PROC_CATEGORY_LU:
  case UTF8PROC_CATEGORY_LL:
  case UTF8PROC_CATEGORY_LT:
  case UTF8PROC_CATEGORY_LM:
  case UTF8PROC_CATEGORY_LO:
  case UTF8PROC_CATEGORY_ND:
  case UTF8PROC_CATEGORY_NL:
  case UTF8PROC_CATEGORY_NO: return true;
  default: return false;
  }
}

bool isNonspacingMark(int32_t cp) { return utf8proc_category(cp) == UTF8PROC_CATEGORY_MN; }

int32_t toLower(int32_t cp) { return utf8proc_tolower(cp); }

} // namespace ssm::rt::tok
