// GPT-2's byte-level alphabet (runtime/tokenizer/ByteLevel.h).
#include "runtime/tokenizer/ByteLevel.h"

#include "runtime/tokenizer/Utf8.h"

#include <array>

namespace ssm::rt::tok {
namespace {

bool standsForItself(int b) { return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE); }

struct Alphabet {
  std::array<std::string, 256> utf8;   // byte -> its code point in UTF-8
  std::array<int, 0x144> byteOf;       // code point -> byte, -1 if none (all are below U+0144)
  Alphabet() {
    byteOf.fill(-1);
    int next = 0x100;
    for (int b = 0; b < 256; ++b) {
      int cp = standsForItself(b) ? b : next++;
      appendUtf8(utf8[b], cp);
      byteOf[cp] = b;
    }
  }
};

const Alphabet &alphabet() {
  static const Alphabet a;
  return a;
}

} // namespace

void appendByteLevel(std::string &out, std::string_view bytes) {
  const Alphabet &a = alphabet();
  for (unsigned char c : bytes)
    out += a.utf8[c];
}

bool byteLevelToBytes(std::string_view token, std::string &out) {
  const Alphabet &a = alphabet();
  std::string bytes;
  bytes.reserve(token.size());
  for (size_t i = 0; i < token.size();) {
    int32_t cp = nextCodePoint(token, i);
    if (cp < 0 || cp >= static_cast<int32_t>(a.byteOf.size()) || a.byteOf[cp] < 0)
      return false;
    bytes += static_cast<char>(a.byteOf[cp]);
  }
  out += bytes;
  return true;
}

} // namespace ssm::rt::tok
