// Decoders of tokenizer.json (runtime/tokenizer/Decoder.h).
#include "runtime/tokenizer/Decoder.h"

#include "runtime/tokenizer/ByteLevel.h"
#include "runtime/tokenizer/Normalizer.h"
#include "runtime/tokenizer/Utf8.h"

namespace ssm::rt::tok {
namespace {

/// The byte of a "<0xNN>" token (hex digits in either case), or -1.
int byteToken(const std::string &t) {
  if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>')
    return -1;
  int v = 0;
  for (int k = 3; k < 5; ++k) {
    char c = t[k];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0)
      return -1;
    v = v * 16 + d;
  }
  return v;
}

} // namespace

void ByteLevelDecoder::decode(std::vector<std::string> &tokens) const {
  std::string bytes;
  for (const std::string &t : tokens)
    if (!byteLevelToBytes(t, bytes))
      bytes += t;
  tokens.assign(1, utf8Lossy(bytes));
}

void MetaspaceDecoder::decode(std::vector<std::string> &tokens) const {
  // As Hugging Face's: in the first token every replacement is dropped (it
  // can only be the prepended one), elsewhere each is a space.
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string with = i == 0 && scheme_ != PrependScheme::Never ? "" : " ";
    std::string out;
    const std::string &t = tokens[i];
    for (size_t k = 0; k < t.size();) {
      if (!replacement_.empty() && t.compare(k, replacement_.size(), replacement_) == 0) {
        out += with;
        k += replacement_.size();
      } else {
        out += t[k++];
      }
    }
    tokens[i] = std::move(out);
  }
}

void ByteFallbackDecoder::decode(std::vector<std::string> &tokens) const {
  std::vector<std::string> out;
  std::string pending; // bytes of the current run of <0xNN> tokens
  size_t pendingCount = 0;
  auto flush = [&] {
    if (pendingCount == 0)
      return;
    if (firstInvalidUtf8(pending) == std::string::npos) {
      out.push_back(pending);
    } else {
      for (size_t k = 0; k < pendingCount; ++k)
        out.push_back("\xEF\xBF\xBD");
    }
    pending.clear();
    pendingCount = 0;
  };
  for (std::string &t : tokens) {
    int b = byteToken(t);
    if (b >= 0) {
      pending += static_cast<char>(b);
      ++pendingCount;
    } else {
      flush();
      out.push_back(std::move(t));
    }
  }
  flush();
  tokens = std::move(out);
}

void FuseDecoder::decode(std::vector<std::string> &tokens) const {
  std::string all;
  for (const std::string &t : tokens)
    all += t;
  tokens.assign(1, std::move(all));
}

void StripDecoder::decode(std::vector<std::string> &tokens) const {
  const size_t n = content_.size();
  for (std::string &t : tokens) {
    size_t begin = 0, end = t.size();
    for (size_t k = 0; k < start_ && n && end - begin >= n && t.compare(begin, n, content_) == 0; ++k)
      begin += n;
    for (size_t k = 0; k < stop_ && n && end - begin >= n && t.compare(end - n, n, content_) == 0; ++k)
      end -= n;
    t = t.substr(begin, end - begin);
  }
}

void ReplaceDecoder::decode(std::vector<std::string> &tokens) const {
  for (std::string &t : tokens)
    t = replaceAll(*pattern_, t, content_);
}

void SequenceDecoder::decode(std::vector<std::string> &tokens) const {
  for (const auto &s : steps_)
    s->decode(tokens);
}

} // namespace ssm::rt::tok
