// GGUF vocabulary -> tokenizer.json (import/GgufTokenizer.h).
#include "import/GgufTokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace ssm::importer {

using nlohmann::json;

namespace {

// llama.cpp's pre-tokenizer regexes (src/llama-vocab.cpp, llm_tokenizer_bpe),
// applied one after the other, each splitting the pieces of the last.
const char *kGpt2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)";
const char *kLlama3 =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
    "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const char *kQwen2 =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
    "\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const char *kQwen35 =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?"
    "[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

struct PreType {
  std::vector<std::string> regexes;
  bool ignoreMerges = false;
};

bool preType(const std::string &pre, PreType &out) {
  static const std::map<std::string, int> kinds = {
      {"default", 0},   {"gpt-2", 1},        {"gpt2", 1},      {"mpt", 1},
      {"olmo", 1},      {"phi-2", 1},        {"roberta-bpe", 1}, {"jina-es", 1},
      {"jina-de", 1},   {"jina-v1-en", 1},   {"jina-v2-es", 1}, {"jina-v2-de", 1},
      {"jina-v2-code", 1}, {"trillion", 1},  {"jais", 1},      {"granite-docling", 1},
      {"llama3", 2},    {"llama-v3", 2},     {"llama-bpe", 2}, {"falcon3", 2},
      {"falcon-h1", 2}, {"pixtral", 2},      {"midm-2.0", 2},  {"lfm2", 2},
      {"qwen2", 3},     {"deepseek-r1-qwen", 3}, {"megrez", 3}, {"stablelm2", 3},
      {"qwen35", 4},    {"falcon", 5},       {"starcoder", 6}, {"refact", 6},
      {"command-r", 6}, {"smollm", 6},       {"codeshell", 6}, {"exaone", 6}};
  auto it = kinds.find(pre);
  if (it == kinds.end())
    return false;
  switch (it->second) {
  case 0:
    out.regexes = {"[\\p{P}\\$\\+<=>\\^~\\|]+", kGpt2, "\\p{N}+", "[0-9][0-9][0-9]"};
    break;
  case 1: out.regexes = {kGpt2}; break;
  case 2: out.regexes = {kLlama3}; out.ignoreMerges = true; break;
  case 3: out.regexes = {kQwen2}; break;
  case 4: out.regexes = {kQwen35}; break;
  case 5: out.regexes = {"[\\p{P}\\$\\+<=>\\^~\\|`]+", kGpt2, "[0-9][0-9][0-9]"}; break;
  case 6: out.regexes = {"\\p{N}", kGpt2}; break;
  }
  return true;
}

/// The number of bytes of the UTF-8 character starting with byte c (1 for a stray byte).
size_t utf8Len(unsigned char c) {
  return c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
}

/// tokenizer.ggml.tokens (a non-empty array of strings) and the token
/// types beside it (tokenizer.ggml.token_type, one per token; 1, normal,
/// where the file has none).
bool readTokens(const GgufFile &f, const std::vector<std::string> *&tokens,
                std::vector<int64_t> &types, std::string &error) {
  const GgufValue *tokensV = f.find("tokenizer.ggml.tokens");
  if (!tokensV || tokensV->type != GgufValueType::Array ||
      tokensV->arrayType != GgufValueType::String || tokensV->strings.empty()) {
    error = f.path + ": tokenizer.ggml.tokens must be a non-empty array of strings";
    return false;
  }
  tokens = &tokensV->strings;
  types.assign(tokens->size(), 1);
  return !f.find("tokenizer.ggml.token_type") ||
         f.getIntArray("tokenizer.ggml.token_type", true, tokens->size(), types, error);
}

} // namespace

bool ggufTokenizerJson(const GgufFile &f, std::string &tokenizerJson, std::string &configJson,
                       std::string &summary, std::string &error) {
  std::string model, pre = "default";
  if (!f.find("tokenizer.ggml.model")) {
    error = f.path + ": the file holds no vocabulary (no tokenizer.ggml.model)";
    return false;
  }
  if (!f.getString("tokenizer.ggml.model", true, model, error) ||
      !f.getString("tokenizer.ggml.pre", false, pre, error))
    return false;
  if (model == "none" || model == "no_vocab") {
    error = f.path + ": the file holds no vocabulary (tokenizer.ggml.model '" + model + "')";
    return false;
  }
  if (model != "gpt2" && model != "llama") {
    error = f.path + ": tokenizer.ggml.model '" + model +
            "' is not a vocabulary ssm-import converts (gpt2, llama)";
    return false;
  }
  const std::vector<std::string> *tokensP = nullptr;
  std::vector<int64_t> types;
  if (!readTokens(f, tokensP, types, error))
    return false;
  const std::vector<std::string> &tokens = *tokensP;
  const size_t n = tokens.size();
  std::vector<double> scores(n, 0.0);
  if (const GgufValue *s = f.find("tokenizer.ggml.scores")) {
    if (s->type != GgufValueType::Array || s->arraySize() != n ||
        (s->arrayType != GgufValueType::F32 && s->arrayType != GgufValueType::F64)) {
      error = f.path + ": tokenizer.ggml.scores must be " + std::to_string(n) +
              " floats (one per token)";
      return false;
    }
    scores = s->floats;
  }
  auto specialId = [&](const char *key, int64_t &id) {
    id = -1;
    return f.getInt(std::string("tokenizer.ggml.") + key, false, 0, int64_t(n) - 1, id, error);
  };
  int64_t bos, eos, unk, pad;
  if (!specialId("bos_token_id", bos) || !specialId("eos_token_id", eos) ||
      !specialId("unknown_token_id", unk) || !specialId("padding_token_id", pad))
    return false;
  bool addBos = model == "llama", addEos = false, addSpace = true;
  if (!f.getBool("tokenizer.ggml.add_bos_token", false, addBos, error) ||
      !f.getBool("tokenizer.ggml.add_eos_token", false, addEos, error) ||
      !f.getBool("tokenizer.ggml.add_space_prefix", false, addSpace, error))
    return false;

  // The vocabulary: the first id of a string wins (llama.cpp's token_to_id
  // keeps the last; duplicates are only padding entries in practice).
  std::unordered_map<std::string, int64_t> ids;
  ids.reserve(n * 2);
  json vocab = json::object();
  json added = json::array();
  for (size_t i = 0; i < n; ++i) {
    if (types[i] == 3 || types[i] == 4) {
      added.push_back({{"id", i},
                       {"content", tokens[i]},
                       {"single_word", false},
                       {"lstrip", false},
                       {"rstrip", false},
                       {"normalized", false},
                       {"special", types[i] == 3}});
    }
    if (ids.emplace(tokens[i], int64_t(i)).second)
      vocab[tokens[i]] = i;
  }

  json merges = json::array();
  size_t dropped = 0;
  if (model == "gpt2") {
    const GgufValue *m = f.find("tokenizer.ggml.merges");
    if (!m || m->type != GgufValueType::Array || m->arrayType != GgufValueType::String) {
      error = f.path + ": tokenizer.ggml.merges (an array of strings) is missing";
      return false;
    }
    for (size_t k = 0; k < m->strings.size(); ++k) {
      const std::string &s = m->strings[k];
      size_t sp = s.find(' ', 1);
      if (sp == std::string::npos || sp + 1 >= s.size()) {
        error = f.path + ": tokenizer.ggml.merges[" + std::to_string(k) + "] '" + s +
                "' is not two tokens separated by a space";
        return false;
      }
      std::string a = s.substr(0, sp), b = s.substr(sp + 1);
      if (!ids.count(a) || !ids.count(b) || !ids.count(a + b)) {
        ++dropped;
        continue;
      }
      merges.push_back(s);
    }
  } else {
    // SentencePiece: every split of a normal token into two tokens, ranked by
    // the token's score (highest first), then by the parts' ids.
    std::vector<std::tuple<double, int64_t, int64_t, int64_t>> cand; // -score, left, right, id
    for (size_t i = 0; i < n; ++i) {
      if (types[i] != 1)
        continue;
      const std::string &s = tokens[i];
      for (size_t k = utf8Len(s[0]); k < s.size(); k += utf8Len(s[k])) {
        auto l = ids.find(s.substr(0, k)), r = ids.find(s.substr(k));
        if (l != ids.end() && r != ids.end() && types[l->second] == 1 && types[r->second] == 1)
          cand.emplace_back(-scores[i], l->second, r->second, int64_t(i));
      }
    }
    std::sort(cand.begin(), cand.end());
    for (const auto &c : cand)
      merges.push_back(json::array({tokens[std::get<1>(c)], tokens[std::get<2>(c)]}));
  }

  json tj;
  tj["version"] = "1.0";
  tj["truncation"] = nullptr;
  tj["padding"] = nullptr;
  tj["added_tokens"] = added;
  tj["post_processor"] = nullptr;
  json bpe = {{"type", "BPE"},         {"dropout", nullptr}, {"continuing_subword_prefix", ""},
              {"end_of_word_suffix", ""}, {"vocab", vocab},  {"merges", merges}};
  std::string preName = model;
  if (model == "gpt2") {
    PreType p;
    if (!preType(pre, p)) {
      error = f.path + ": tokenizer.ggml.pre '" + pre +
              "' is not a pre-tokenizer ssm-import converts (gpt-2, mpt, olmo, llama3 / "
              "llama-bpe / lfm2 / falcon-h1, qwen2, qwen35, default, ...)";
      return false;
    }
    json steps = json::array();
    for (const std::string &r : p.regexes)
      steps.push_back({{"type", "Split"},
                       {"pattern", {{"Regex", r}}},
                       {"behavior", "Isolated"},
                       {"invert", false}});
    steps.push_back({{"type", "ByteLevel"},
                     {"add_prefix_space", false},
                     {"trim_offsets", false},
                     {"use_regex", false}});
    tj["normalizer"] = nullptr;
    tj["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", steps}};
    tj["decoder"] = {{"type", "ByteLevel"},
                     {"add_prefix_space", false},
                     {"trim_offsets", false},
                     {"use_regex", false}};
    bpe["unk_token"] = nullptr;
    bpe["fuse_unk"] = false;
    bpe["byte_fallback"] = false;
    bpe["ignore_merges"] = p.ignoreMerges;
    preName += " (pre " + pre + ")";
  } else {
    json norm = json::array();
    if (addSpace)
      norm.push_back({{"type", "Prepend"}, {"prepend", "\xE2\x96\x81"}});
    norm.push_back({{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\xE2\x96\x81"}});
    tj["normalizer"] = {{"type", "Sequence"}, {"normalizers", norm}};
    tj["pre_tokenizer"] = nullptr;
    json dec = json::array(
        {{{"type", "Replace"}, {"pattern", {{"String", "\xE2\x96\x81"}}}, {"content", " "}},
         {{"type", "ByteFallback"}},
         {{"type", "Fuse"}}});
    if (addSpace)
      dec.push_back({{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}});
    tj["decoder"] = {{"type", "Sequence"}, {"decoders", dec}};
    bpe["unk_token"] = unk >= 0 ? json(tokens[size_t(unk)]) : json(nullptr);
    bpe["fuse_unk"] = true;
    bpe["byte_fallback"] = true;
    bpe["ignore_merges"] = false;
  }
  tj["model"] = bpe;

  json cfg = {{"add_bos_token", addBos},
              {"add_eos_token", addEos},
              {"clean_up_tokenization_spaces", false}};
  auto name = [&](int64_t id) { return id >= 0 ? json(tokens[size_t(id)]) : json(nullptr); };
  cfg["bos_token"] = name(bos);
  cfg["eos_token"] = name(eos);
  cfg["unk_token"] = name(unk);
  cfg["pad_token"] = name(pad);
  try {
    tokenizerJson = tj.dump();
    configJson = cfg.dump(2) + "\n";
  } catch (const json::exception &e) {
    error = f.path + ": the vocabulary holds a token that is not UTF-8 (" + e.what() + ")";
    return false;
  }
  summary = preName + ", " + std::to_string(n) + " tokens, " + std::to_string(merges.size()) +
            " merges";
  if (dropped)
    summary += " (" + std::to_string(dropped) + " naming strings not in the vocabulary left out)";
  return true;
}


bool ggufWorldVocab(const GgufFile &f, std::string &vocabText, std::string &summary,
                    std::string &error) {
  std::string model;
  if (!f.getString("tokenizer.ggml.model", true, model, error))
    return false;
  if (model != "rwkv") {
    error = f.path + ": tokenizer.ggml.model '" + model + "' is not RWKV's World vocabulary";
    return false;
  }
  const std::vector<std::string> *tokensP = nullptr;
  std::vector<int64_t> types;
  if (!readTokens(f, tokensP, types, error))
    return false;
  const std::vector<std::string> &tokens = *tokensP;
  static const char *hex = "0123456789abcdef";
  auto hexValue = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  };
  vocabText.clear();
  size_t written = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (types[i] != 1) // control (<s>), unused ([PADn]) and the rest: no World token
      continue;
    std::string bytes;
    const std::string &t = tokens[i];
    for (size_t k = 0; k < t.size(); ++k) {
      if (t[k] != '\\') {
        bytes += t[k];
        continue;
      }
      if (++k >= t.size()) {
        error = f.path + ": tokenizer.ggml.tokens[" + std::to_string(i) + "] ends in a bare '\\'";
        return false;
      }
      const char c = t[k];
      if (c == 'x') {
        int hi = k + 1 < t.size() ? hexValue(t[k + 1]) : -1,
            lo = k + 2 < t.size() ? hexValue(t[k + 2]) : -1;
        if (hi < 0 || lo < 0) {
          error = f.path + ": tokenizer.ggml.tokens[" + std::to_string(i) +
                  "] has a \\x escape without two hex digits";
          return false;
        }
        bytes += char(hi * 16 + lo);
        k += 2;
      } else {
        bytes += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c;
      }
    }
    if (bytes.empty())
      continue;
    vocabText += std::to_string(i) + " b'";
    for (unsigned char b : bytes)
      vocabText += std::string("\\x") + hex[b >> 4] + hex[b & 15];
    vocabText += "' " + std::to_string(bytes.size()) + "\n";
    ++written;
  }
  if (written == 0) {
    error = f.path + ": tokenizer.ggml.tokens holds no normal token (type 1)";
    return false;
  }
  summary = "rwkv world, " + std::to_string(written) + " tokens";
  return true;
}

} // namespace ssm::importer
