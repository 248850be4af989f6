// Generated tokens to text as they come (runtime/TokenText.h).
#include "runtime/TokenText.h"

#include "runtime/tokenizer/Tokenizer.h"
#include "runtime/tokenizer/Utf8.h"

#include <algorithm>

namespace ssm::rt {

namespace {

const char kReplacement[] = "\xEF\xBF\xBD"; // U+FFFD

bool endsWithReplacement(const std::string &s) {
  return s.size() >= 3 && s.compare(s.size() - 3, 3, kReplacement) == 0;
}

/// Whether `s` (1 to 3 bytes) can begin a valid UTF-8 sequence it does not
/// complete: some continuation bytes after it make it valid.
bool incompleteSequence(std::string_view s) {
  const auto lead = static_cast<unsigned char>(s[0]);
  if (lead < 0xC2 || lead > 0xF4 || s.size() >= tok::utf8Length(lead))
    return false;
  // The second byte's range depends on the lead (E0: A0..BF, ED: 80..9F,
  // F0: 90..BF, F4: 80..8F); one of these fills makes any valid prefix valid.
  for (char fill : {'\x80', '\x90', '\xA0', '\xBF'}) {
    std::string t(s);
    t.append(tok::utf8Length(lead) - s.size(), fill);
    if (tok::firstInvalidUtf8(t) == std::string_view::npos)
      return true;
  }
  return false;
}

} // namespace

TokenTextStream::TokenTextStream(const tok::Tokenizer *tokenizer, std::vector<std::string> stops)
    : tokenizer_(tokenizer) {
  for (std::string &s : stops)
    if (!s.empty())
      stops_.push_back(std::move(s));
}

std::string TokenTextStream::decodeRange(size_t from, size_t to) const {
  std::string text;
  // Ids were checked when pushed: the decode cannot fail on them.
  (void)tokenizer_->decode(ids_.data() + from, to - from, /*skipSpecial=*/false, text);
  return text;
}

Status TokenTextStream::push(int32_t token, std::string &out) {
  if (stopped_)
    return {};
  std::string piece;
  if (!tokenizer_) {
    if (token < 0)
      return {Code::InvalidArgument, "token " + std::to_string(token) + " is negative"};
    ids_.push_back(token);
    // A token past the bytes (a padded vocabulary) is not text: an invalid
    // byte, so U+FFFD.
    bytes_.push_back(token > 255 ? '\xFF' : static_cast<char>(token));
    // Hold back the last lead byte and its continuations while they can
    // still become a character.
    size_t j = bytes_.size();
    while (j > 0 && bytes_.size() - j < 3 && (static_cast<unsigned char>(bytes_[j - 1]) & 0xC0) == 0x80)
      --j;
    size_t keep = 0;
    if (j > 0 && incompleteSequence(std::string_view(bytes_).substr(j - 1)))
      keep = bytes_.size() - (j - 1);
    piece = tok::utf8Lossy(std::string_view(bytes_).substr(0, bytes_.size() - keep));
    bytes_.erase(0, bytes_.size() - keep);
  } else {
    if (token < 0)
      return {Code::InvalidArgument, "token " + std::to_string(token) + " is negative"};
    ids_.push_back(token);
    const std::string before = decodeRange(prefix_, read_);
    std::string now = decodeRange(prefix_, ids_.size());
    if (now.size() > before.size() && !endsWithReplacement(now) &&
        now.compare(0, before.size(), before) == 0) {
      piece = now.substr(before.size());
      prefix_ = read_;
      read_ = ids_.size();
    }
  }
  emit(std::move(piece), out);
  return {};
}

void TokenTextStream::emit(std::string piece, std::string &out) {
  if (stopped_)
    return;
  pending_ += piece;
  if (stops_.empty()) {
    out += pending_;
    pending_.clear();
    return;
  }
  // The earliest stop string in the text (the longest among those starting there).
  size_t at = std::string::npos;
  for (const std::string &s : stops_) {
    size_t p = pending_.find(s);
    if (p != std::string::npos &&
        (p < at || (p == at && s.size() > stopString_.size()))) {
      at = p;
      stopString_ = s;
    }
  }
  if (at != std::string::npos) {
    out.append(pending_, 0, at);
    pending_.clear();
    stopped_ = true;
    return;
  }
  // Hold back the longest end of the text that begins a stop string.
  size_t hold = 0;
  for (const std::string &s : stops_)
    for (size_t k = std::min(s.size() - 1, pending_.size()); k > hold; --k)
      if (pending_.compare(pending_.size() - k, k, s, 0, k) == 0) {
        hold = k;
        break;
      }
  out.append(pending_, 0, pending_.size() - hold);
  pending_.erase(0, pending_.size() - hold);
}

void TokenTextStream::finish(std::string &out) {
  if (stopped_)
    return;
  std::string piece;
  if (!tokenizer_) {
    piece = tok::utf8Lossy(bytes_);
    bytes_.clear();
  } else if (read_ < ids_.size()) {
    const std::string before = decodeRange(prefix_, read_);
    std::string now = decodeRange(prefix_, ids_.size());
    if (now.compare(0, before.size(), before) == 0)
      piece = now.substr(before.size());
    prefix_ = read_ = ids_.size();
  }
  emit(std::move(piece), out);
  if (!stopped_) {
    out += pending_;
    pending_.clear();
  }
}

} // namespace ssm::rt
