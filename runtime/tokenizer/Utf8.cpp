// UTF-8 helpers of the tokenizers (runtime/tokenizer/Utf8.h).
#include "runtime/tokenizer/Utf8.h"

namespace ssm::rt::tok {
namespace {

/// Length of the valid sequence at s[i], or 0 with `bad` set to the length
/// of the maximal invalid prefix (at least 1) that one U+FFFD replaces.
size_t validSequence(std::string_view s, size_t i, size_t &bad) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  bad = 1;
  if (c < 0x80)
    return 1;
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF; // the allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    need = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 3;
    if (c == 0xE0)
      lo = 0xA0; // overlong
    else if (c == 0xED)
      hi = 0x9F; // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 4;
    if (c == 0xF0)
      lo = 0x90; // overlong
    else if (c == 0xF4)
      hi = 0x8F; // above U+10FFFF
  } else {
    return 0;
  }
  for (size_t k = 1; k < need; ++k) {
    if (i + k >= s.size())
      return 0;
    const unsigned char x = b(i + k);
    const bool ok = k == 1 ? (x >= lo && x <= hi) : (x >= 0x80 && x <= 0xBF);
    if (!ok)
      return 0;
    bad = k + 1;
  }
  return need;
}

} // namespace

size_t firstInvalidUtf8(std::string_view s) {
  size_t bad;
  for (size_t i = 0; i < s.size();) {
    size_t n = validSequence(s, i, bad);
    if (n == 0)
      return i;
    i += n;
  }
  return std::string_view::npos;
}

int32_t nextCodePoint(std::string_view s, size_t &i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  const size_t n = utf8Length(c);
  int32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n && i + k < s.size(); ++k)
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += n;
  return cp;
}

void appendUtf8(std::string &out, int32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string utf8Lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t bad;
  for (size_t i = 0; i < bytes.size();) {
    size_t n = validSequence(bytes, i, bad);
    if (n) {
      out.append(bytes.substr(i, n));
      i += n;
    } else {
      out += "\xEF\xBF\xBD";
      i += bad;
    }
  }
  return out;
}

} // namespace ssm::rt::tok
