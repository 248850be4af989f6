// RWKV's World tokenizer: the vocabulary file, the trie, greedy longest match (runtime/tokenizer/WorldVocab.h).
#include "runtime/tokenizer/WorldVocab.h"

#include "runtime/tokenizer/Tokenizer.h"
#include "runtime/tokenizer/Utf8.h"

#include <cstdlib>

namespace ssm::rt::tok {
namespace {

bool hexValue(std::string_view s, size_t at, size_t n, uint32_t &v) {
  if (at + n > s.size())
    return false;
  v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[at + i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                           : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0)
      return false;
    v = v * 16 + static_cast<uint32_t>(d);
  }
  return true;
}

} // namespace

bool parsePythonLiteral(std::string_view s, std::string &bytes, size_t &used, std::string &error) {
  size_t i = 0;
  const bool isBytes = i < s.size() && s[i] == 'b';
  if (isBytes)
    ++i;
  if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) {
    error = "not a Python string literal";
    return false;
  }
  const char quote = s[i++];
  bytes.clear();
  while (i < s.size() && s[i] != quote) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c != '\\') {
      if (isBytes && c >= 0x80) {
        error = "a bytes literal holds a non-ASCII character";
        return false;
      }
      bytes += static_cast<char>(c); // a str's characters are UTF-8 in the file already
      ++i;
      continue;
    }
    if (++i >= s.size())
      break;
    const char e = s[i++];
    uint32_t v = 0;
    switch (e) {
    case '\\': bytes += '\\'; break;
    case '\'': bytes += '\''; break;
    case '"': bytes += '"'; break;
    case 'n': bytes += '\n'; break;
    case 't': bytes += '\t'; break;
    case 'r': bytes += '\r'; break;
    case 'a': bytes += '\a'; break;
    case 'b': bytes += '\b'; break;
    case 'f': bytes += '\f'; break;
    case 'v': bytes += '\v'; break;
    case 'x':
      if (!hexValue(s, i, 2, v)) {
        error = "\\x needs two hex digits";
        return false;
      }
      i += 2;
      if (isBytes)
        bytes += static_cast<char>(v);
      else
        appendUtf8(bytes, static_cast<int32_t>(v)); // a str's \xNN is the code point U+00NN
      break;
    case 'u':
    case 'U': {
      const size_t n = e == 'u' ? 4 : 8;
      if (isBytes || !hexValue(s, i, n, v) || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
        error = std::string("a bad \\") + e + " escape";
        return false;
      }
      i += n;
      appendUtf8(bytes, static_cast<int32_t>(v));
      break;
    }
    default:
      if (e >= '0' && e <= '7') { // octal, up to three digits
        v = static_cast<uint32_t>(e - '0');
        for (int k = 0; k < 2 && i < s.size() && s[i] >= '0' && s[i] <= '7'; ++k)
          v = v * 8 + static_cast<uint32_t>(s[i++] - '0');
        if (isBytes)
          bytes += static_cast<char>(v & 0xFF);
        else
          appendUtf8(bytes, static_cast<int32_t>(v));
        break;
      }
      error = std::string("an unknown escape \\") + e;
      return false;
    }
  }
  if (i >= s.size()) {
    error = "the literal is not closed";
    return false;
  }
  used = i + 1;
  return true;
}

bool WorldVocab::parse(std::string_view text, const std::string &name, std::string &error) {
  std::unordered_map<std::string, int32_t> vocab;
  std::vector<bool> idSeen;
  children_.clear();
  nodeToken_.assign(1, -1);
  size_t lineNo = 0;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++lineNo;
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (line.empty())
      continue;
    auto fail = [&](const std::string &why) {
      error = name + ":" + std::to_string(lineNo) + ": " + why + " (a World vocabulary line is "
              "'<id> <Python str or bytes literal> <byte length>')";
      return false;
    };
    const size_t firstSpace = line.find(' ');
    const size_t lastSpace = line.rfind(' ');
    if (firstSpace == std::string_view::npos || lastSpace <= firstSpace)
      return fail("not three fields");
    char *stop = nullptr;
    const std::string idText(line.substr(0, firstSpace)), lenText(line.substr(lastSpace + 1));
    const long id = std::strtol(idText.c_str(), &stop, 10);
    if (idText.empty() || *stop || id < 1 || id > (1 << 24))
      return fail("the id '" + idText + "' is not an integer from 1 to 2^24");
    const long len = std::strtol(lenText.c_str(), &stop, 10);
    if (lenText.empty() || *stop || len < 1)
      return fail("the byte length '" + lenText + "' is not a positive integer");
    std::string bytes, why;
    size_t used = 0;
    std::string_view literal = line.substr(firstSpace + 1, lastSpace - firstSpace - 1);
    if (!parsePythonLiteral(literal, bytes, used, why))
      return fail(why);
    if (used != literal.size())
      return fail("text after the literal");
    if (static_cast<long>(bytes.size()) != len)
      return fail("the literal has " + std::to_string(bytes.size()) + " bytes, the line says " +
                  std::to_string(len));
    if (static_cast<size_t>(id) < idSeen.size() && idSeen[id])
      return fail("id " + std::to_string(id) + " again");
    if (!vocab.emplace(bytes, static_cast<int32_t>(id)).second)
      return fail("the token of id " + std::to_string(id) + " is already id " +
                  std::to_string(vocab[bytes]));
    if (static_cast<size_t>(id) >= idSeen.size())
      idSeen.resize(id + 1, false);
    idSeen[id] = true;
    int32_t node = 0;
    for (unsigned char c : bytes) {
      auto [it, added] = children_.emplace((static_cast<uint64_t>(node) << 8) | c,
                                           static_cast<int32_t>(nodeToken_.size()));
      if (added)
        nodeToken_.push_back(-1);
      node = it->second;
    }
    nodeToken_[node] = static_cast<int32_t>(id);
  }
  if (vocab.empty()) {
    error = name + ": no tokens (an empty World vocabulary)";
    return false;
  }
  return table_.assign(std::move(vocab), error); // ids are >= 1: no error
}

void WorldVocab::tokenize(const std::string &word, std::vector<int32_t> &ids) const {
  size_t at = 0;
  while (at < word.size()) {
    // The longest token from `at`: walk the trie as far as the bytes go.
    int32_t node = 0, best = -1;
    size_t bestEnd = at;
    for (size_t i = at; i < word.size(); ++i) {
      auto it = children_.find((static_cast<uint64_t>(node) << 8) |
                               static_cast<unsigned char>(word[i]));
      if (it == children_.end())
        break;
      node = it->second;
      if (nodeToken_[node] >= 0) {
        best = nodeToken_[node];
        bestEnd = i + 1;
      }
    }
    if (best < 0) { // a byte no token starts with (a full World vocabulary has all 256)
      ++at;
      continue;
    }
    ids.push_back(best);
    at = bestEnd;
  }
}

int32_t WorldVocab::tokenToId(std::string_view token) const { return table_.find(token); }

const std::string *WorldVocab::idToToken(int32_t id) const { return table_.at(id); }

std::unique_ptr<Tokenizer> Tokenizer::fromWorldVocab(std::string_view text, const std::string &name,
                                                     Status &status) {
  auto vocab = std::make_unique<WorldVocab>();
  std::string error;
  if (!vocab->parse(text, name, error)) {
    status = {Code::InvalidFile, error};
    return nullptr;
  }
  TokenizerParts parts;
  parts.description = "RWKV World (greedy longest match over " + std::to_string(vocab->size()) +
                      " byte tokens)";
  parts.model = std::move(vocab);
  parts.decoder = std::make_unique<FuseDecoder>(); // the tokens' bytes, concatenated
  parts.cleanUpSpaces = false;
  parts.special.eos = 0; // RWKV's end of text: no token, generation stops there
  status = Status::ok();
  return std::make_unique<Tokenizer>(std::move(parts));
}

} // namespace ssm::rt::tok
