// Generated tokens to text as they come: only valid UTF-8 is handed out (an incomplete character is held back), and stop strings are found across tokens (text that could be the start of one is held back).
//
//   TokenTextStream text(tokenizer, {"\n\n"});   // tokenizer null: byte tokens
//   std::string out;
//   for (each generated token t) {
//     out.clear();
//     if (!(st = text.push(t, out))) ...;
//     print(out);
//     if (text.stopped()) break;                // out ended before the stop string
//   }
//   out.clear(); text.finish(out); print(out);
//
// With a tokenizer, the text of new tokens is the difference of two decodes
// of a short window of ids (Hugging Face's TextStreamer and text-generation-
// inference do the same): decoders that strip a leading space or clean up
// spaces around punctuation see the tokens before, and a window whose text
// ends in U+FFFD (part of a character's bytes) waits for the next token.
#ifndef SSM_RUNTIME_TOKENTEXT_H
#define SSM_RUNTIME_TOKENTEXT_H

#include "runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ssm::rt {

namespace tok {
class Tokenizer;
}

class TokenTextStream {
public:
  /// `tokenizer` null: each token is one byte (a byte-vocabulary model;
  /// invalid UTF-8 becomes U+FFFD). Empty stop strings are ignored. The
  /// tokenizer must outlive the stream.
  explicit TokenTextStream(const tok::Tokenizer *tokenizer,
                           std::vector<std::string> stopStrings = {});

  /// Adds a token and appends to `out` the text that is final now. Once a
  /// stop string is in the text, stopped() is true and `out` ends just before
  /// it; later pushes add nothing. A negative id is InvalidArgument; a byte
  /// token past 255 gives U+FFFD.
  Status push(int32_t token, std::string &out);
  /// Appends the text held back, at the end of generation: an incomplete
  /// character as U+FFFD, the start of a stop string that did not come.
  void finish(std::string &out);

  bool stopped() const { return stopped_; }
  /// The stop string found ("" when none).
  const std::string &stopString() const { return stopString_; }
  /// Tokens pushed.
  size_t tokens() const { return ids_.size(); }

private:
  std::string decodeRange(size_t from, size_t to) const;
  void emit(std::string piece, std::string &out);

  const tok::Tokenizer *tokenizer_;
  std::vector<std::string> stops_;
  std::vector<int32_t> ids_;
  size_t prefix_ = 0, read_ = 0; // the decode window: ids_[prefix_, read_) is printed
  std::string bytes_;            // byte tokens: an incomplete character
  std::string pending_;          // final text that could start a stop string
  bool stopped_ = false;
  std::string stopString_;
};

} // namespace ssm::rt

#endif // SSM_RUNTIME_TOKENTEXT_H
