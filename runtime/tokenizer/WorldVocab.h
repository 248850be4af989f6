// RWKV's World tokenizer: greedy longest match over a vocabulary of byte strings.
//
// The vocabulary file is rwkv_vocab_v20230424.txt as RWKV ships it (BlinkDL's
// ChatRWKV / RWKV-LM, rwkv_tokenizer.py, TRIE_TOKENIZER): one token a line,
//     <id> <literal> <byte length>
// where <literal> is a Python str or bytes literal as repr() writes it
// ('a', "'", '\n', '\x00', '\u00e9', b'\xe4\xbd'); a str is its UTF-8
// bytes. Encoding takes, at each position of the text's bytes, the longest
// token that matches there (so a token may end inside a UTF-8 character);
// decoding concatenates the tokens' bytes. Id 0 is no token (RWKV's
// end-of-text: a model's generation stops there). Thread-safe after parse.
#ifndef SSM_RUNTIME_TOKENIZER_WORLDVOCAB_H
#define SSM_RUNTIME_TOKENIZER_WORLDVOCAB_H

#include "runtime/tokenizer/TokenModel.h"
#include "runtime/tokenizer/TokenTable.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ssm::rt::tok {

/// The name RWKV ships the World vocabulary under; a model folder holding it
/// (and no tokenizer.json) has the World tokenizer.
inline constexpr const char *kWorldVocabFile = "rwkv_vocab_v20230424.txt";

class WorldVocab : public TokenModel {
public:
  /// Reads the file's text; false with `error` naming `name` and the line on
  /// a malformed line (no id, a literal that does not parse, a byte length
  /// that disagrees with the literal), a repeated id or token, or an empty file.
  bool parse(std::string_view text, const std::string &name, std::string &error);

  void tokenize(const std::string &word, std::vector<int32_t> &ids) const override;
  int32_t tokenToId(std::string_view token) const override;
  const std::string *idToToken(int32_t id) const override;
  int64_t idSpan() const override { return table_.span(); }
  size_t size() const { return table_.size(); }

private:
  TokenTable table_;
  /// The trie: (node << 8 | byte) -> child node; node 0 the root.
  std::unordered_map<uint64_t, int32_t> children_;
  std::vector<int32_t> nodeToken_; // the id of the token ending at a node, or -1
};

/// Parses one Python str / bytes literal (as repr() writes them) at the
/// start of `s` into its bytes (a str's UTF-8); `used` the characters it
/// took. False with `error` on anything else.
bool parsePythonLiteral(std::string_view s, std::string &bytes, size_t &used, std::string &error);

} // namespace ssm::rt::tok

#endif
