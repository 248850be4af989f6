// Reading Hugging Face's tokenizer.json and tokenizer_config.json (runtime/tokenizer/HfTokenizerJson.h).
#include "runtime/tokenizer/HfTokenizerJson.h"
#include "runtime/tokenizer/WorldVocab.h"

#include <nlohmann/json.hpp>

#include <climits>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace ssm::rt::tok {
namespace {

using json = nlohmann::json;

/// A failure while reading: the code and the message without the file name.
struct LoadError {
  Code code;
  std::string message;
};

[[noreturn]] void malformed(const std::string &where, const std::string &what) {
  throw LoadError{Code::InvalidFile, where + ": " + what};
}

[[noreturn]] void unsupported(const std::string &where, const std::string &kind,
                              const std::string &type, const char *supported) {
  throw LoadError{Code::Unsupported, where + ": " + kind + " type '" + type +
                                         "' is not supported (supported: " + supported + ")"};
}

std::string join(const std::string &where, const std::string &key) {
  return where.empty() ? key : where + "." + key;
}

const json *optional(const json &obj, const char *key) {
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

const json &required(const json &obj, const char *key, const std::string &where) {
  const json *v = optional(obj, key);
  if (!v)
    malformed(where, std::string("missing \"") + key + "\"");
  return *v;
}

bool getBool(const json &obj, const char *key, bool fallback, const std::string &where) {
  const json *v = optional(obj, key);
  if (!v)
    return fallback;
  if (!v->is_boolean())
    malformed(join(where, key), "expected true or false");
  return v->get<bool>();
}

std::string getString(const json &obj, const char *key, const std::string &fallback,
                      const std::string &where) {
  const json *v = optional(obj, key);
  if (!v)
    return fallback;
  if (!v->is_string())
    malformed(join(where, key), "expected a string");
  return v->get<std::string>();
}

std::string requireString(const json &obj, const char *key, const std::string &where) {
  const json &v = required(obj, key, where);
  if (!v.is_string())
    malformed(join(where, key), "expected a string");
  return v.get<std::string>();
}

int64_t getInt(const json &obj, const char *key, int64_t fallback, const std::string &where) {
  const json *v = optional(obj, key);
  if (!v)
    return fallback;
  if (!v->is_number_integer())
    malformed(join(where, key), "expected an integer");
  return v->get<int64_t>();
}

const json &requireArray(const json &obj, const char *key, const std::string &where) {
  const json &v = required(obj, key, where);
  if (!v.is_array())
    malformed(join(where, key), "expected an array");
  return v;
}

std::string typeOf(const json &obj, const std::string &where) {
  if (!obj.is_object())
    malformed(where, "expected an object");
  return requireString(obj, "type", where);
}

std::unique_ptr<Regex> compileRegex(const std::string &pattern, const std::string &where) {
  std::string error;
  auto re = Regex::compile(pattern, error);
  if (!re)
    throw LoadError{Code::Unsupported, where + ": " + error + " in /" + pattern + "/"};
  return re;
}

/// {"String": s} (literal) or {"Regex": r}.
std::unique_ptr<Regex> readPattern(const json &obj, const std::string &where) {
  const json &p = required(obj, "pattern", where);
  const std::string w = join(where, "pattern");
  if (!p.is_object())
    malformed(w, "expected {\"String\": ...} or {\"Regex\": ...}");
  if (const json *s = optional(p, "String")) {
    if (!s->is_string())
      malformed(join(w, "String"), "expected a string");
    std::string error;
    auto re = Regex::literal(s->get<std::string>(), error);
    if (!re)
      throw LoadError{Code::Internal, w + ": " + error};
    return re;
  }
  if (const json *r = optional(p, "Regex")) {
    if (!r->is_string())
      malformed(join(w, "Regex"), "expected a string");
    return compileRegex(r->get<std::string>(), join(w, "Regex"));
  }
  malformed(w, "expected {\"String\": ...} or {\"Regex\": ...}");
}

std::string indexed(const std::string &where, const char *key, size_t i) {
  return join(where, key) + "[" + std::to_string(i) + "]";
}

// --- normalizers --------------------------------------------------------------

std::unique_ptr<Normalizer> readNormalizer(const json &n, const std::string &where) {
  const std::string type = typeOf(n, where);
  if (type == "NFC")
    return std::make_unique<UnicodeNormalizer>(NormalForm::NFC);
  if (type == "NFD")
    return std::make_unique<UnicodeNormalizer>(NormalForm::NFD);
  if (type == "NFKC")
    return std::make_unique<UnicodeNormalizer>(NormalForm::NFKC);
  if (type == "NFKD")
    return std::make_unique<UnicodeNormalizer>(NormalForm::NFKD);
  if (type == "Lowercase")
    return std::make_unique<LowercaseNormalizer>();
  if (type == "StripAccents")
    return std::make_unique<StripAccentsNormalizer>();
  if (type == "Strip")
    return std::make_unique<StripNormalizer>(getBool(n, "strip_left", true, where),
                                             getBool(n, "strip_right", true, where));
  if (type == "Replace")
    return std::make_unique<ReplaceNormalizer>(readPattern(n, where), requireString(n, "content", where));
  if (type == "Prepend")
    return std::make_unique<PrependNormalizer>(requireString(n, "prepend", where));
  if (type == "Sequence") {
    const json &list = requireArray(n, "normalizers", where);
    std::vector<std::unique_ptr<Normalizer>> steps;
    for (size_t i = 0; i < list.size(); ++i)
      steps.push_back(readNormalizer(list[i], indexed(where, "normalizers", i)));
    return std::make_unique<SequenceNormalizer>(std::move(steps));
  }
  unsupported(where, "normalizer", type,
              "NFC, NFD, NFKC, NFKD, Lowercase, Strip, StripAccents, Replace, Prepend, Sequence");
}

// --- pre-tokenizers -------------------------------------------------------------

SplitBehavior readBehavior(const json &obj, const std::string &where, SplitBehavior fallback) {
  const json *b = optional(obj, "behavior");
  if (!b)
    return fallback;
  if (!b->is_string())
    malformed(join(where, "behavior"), "expected a string");
  const std::string s = b->get<std::string>();
  if (s == "Removed")
    return SplitBehavior::Removed;
  if (s == "Isolated")
    return SplitBehavior::Isolated;
  if (s == "MergedWithPrevious")
    return SplitBehavior::MergedWithPrevious;
  if (s == "MergedWithNext")
    return SplitBehavior::MergedWithNext;
  if (s == "Contiguous")
    return SplitBehavior::Contiguous;
  unsupported(join(where, "behavior"), "split behavior", s,
              "Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous");
}

/// Metaspace's prepend_scheme, or the older add_prefix_space (true: always).
PrependScheme readPrependScheme(const json &obj, const std::string &where) {
  if (const json *s = optional(obj, "prepend_scheme")) {
    if (!s->is_string())
      malformed(join(where, "prepend_scheme"), "expected a string");
    const std::string v = s->get<std::string>();
    if (v == "always")
      return PrependScheme::Always;
    if (v == "first")
      return PrependScheme::First;
    if (v == "never")
      return PrependScheme::Never;
    unsupported(join(where, "prepend_scheme"), "prepend scheme", v, "always, first, never");
  }
  return getBool(obj, "add_prefix_space", true, where) ? PrependScheme::Always : PrependScheme::Never;
}

std::unique_ptr<PreTokenizer> splitOn(const char *pattern, SplitBehavior behavior, bool invert,
                                      const std::string &where) {
  return std::make_unique<SplitPreTokenizer>(compileRegex(pattern, where), behavior, invert);
}

std::unique_ptr<PreTokenizer> readPreTokenizer(const json &p, const std::string &where) {
  const std::string type = typeOf(p, where);
  if (type == "Split")
    return std::make_unique<SplitPreTokenizer>(readPattern(p, where),
                                               readBehavior(p, where, SplitBehavior::Isolated),
                                               getBool(p, "invert", false, where));
  if (type == "ByteLevel") {
    std::unique_ptr<Regex> re;
    if (getBool(p, "use_regex", true, where))
      re = compileRegex(ByteLevelPreTokenizer::kGpt2Pattern, where);
    return std::make_unique<ByteLevelPreTokenizer>(getBool(p, "add_prefix_space", true, where),
                                                   std::move(re));
  }
  if (type == "Metaspace") {
    std::string replacement = getString(p, "replacement", "\xE2\x96\x81", where);
    std::string error;
    auto literal = Regex::literal(replacement, error);
    if (!literal)
      throw LoadError{Code::Internal, where + ": " + error};
    return std::make_unique<MetaspacePreTokenizer>(replacement, readPrependScheme(p, where),
                                                   getBool(p, "split", true, where), std::move(literal));
  }
  // Hugging Face's own definitions of these, as Splits: Whitespace keeps
  // runs of word characters and runs of other non-space characters.
  if (type == "Whitespace")
    return splitOn(R"(\w+|[^\w\s]+)", SplitBehavior::Removed, true, where);
  if (type == "WhitespaceSplit")
    return splitOn(R"(\s+)", SplitBehavior::Removed, false, where);
  if (type == "Digits")
    return splitOn(getBool(p, "individual_digits", false, where) ? R"(\p{N})" : R"(\p{N}+)",
                   SplitBehavior::Isolated, false, where);
  if (type == "Punctuation")
    return std::make_unique<SplitPreTokenizer>(
        compileRegex(R"([\p{P}!-/:-@\[-`{-~])", where),
        readBehavior(p, where, SplitBehavior::Isolated), false);
  if (type == "Sequence") {
    const json &list = requireArray(p, "pretokenizers", where);
    std::vector<std::unique_ptr<PreTokenizer>> steps;
    for (size_t i = 0; i < list.size(); ++i)
      steps.push_back(readPreTokenizer(list[i], indexed(where, "pretokenizers", i)));
    return std::make_unique<SequencePreTokenizer>(std::move(steps));
  }
  unsupported(where, "pre-tokenizer", type,
              "Split, ByteLevel, Metaspace, Whitespace, WhitespaceSplit, Digits, Punctuation, Sequence");
}

// --- decoders -------------------------------------------------------------------

std::unique_ptr<Decoder> readDecoder(const json &d, const std::string &where) {
  const std::string type = typeOf(d, where);
  if (type == "ByteLevel")
    return std::make_unique<ByteLevelDecoder>();
  if (type == "Metaspace")
    return std::make_unique<MetaspaceDecoder>(getString(d, "replacement", "\xE2\x96\x81", where),
                                              readPrependScheme(d, where));
  if (type == "ByteFallback")
    return std::make_unique<ByteFallbackDecoder>();
  if (type == "Fuse")
    return std::make_unique<FuseDecoder>();
  if (type == "Strip") {
    int64_t start = getInt(d, "start", 0, where), stop = getInt(d, "stop", 0, where);
    if (start < 0 || stop < 0)
      malformed(where, "start and stop must not be negative");
    return std::make_unique<StripDecoder>(requireString(d, "content", where), static_cast<size_t>(start),
                                          static_cast<size_t>(stop));
  }
  if (type == "Replace")
    return std::make_unique<ReplaceDecoder>(readPattern(d, where), requireString(d, "content", where));
  if (type == "Sequence") {
    const json &list = requireArray(d, "decoders", where);
    std::vector<std::unique_ptr<Decoder>> steps;
    for (size_t i = 0; i < list.size(); ++i)
      steps.push_back(readDecoder(list[i], indexed(where, "decoders", i)));
    return std::make_unique<SequenceDecoder>(std::move(steps));
  }
  unsupported(where, "decoder", type, "ByteLevel, Metaspace, ByteFallback, Fuse, Strip, Replace, Sequence");
}

// --- post-processors ----------------------------------------------------------

/// The ids a post-processor puts before and after a single sequence; false
/// when it adds none (ByteLevel).
bool readPostProcessor(const json &pp, const std::string &where, std::vector<int32_t> &prefix,
                       std::vector<int32_t> &suffix) {
  const std::string type = typeOf(pp, where);
  auto idOfPair = [&](const char *key) {
    const json &v = required(pp, key, where);
    if (!v.is_array() || v.size() != 2 || !v[1].is_number_integer())
      malformed(join(where, key), "expected [token, id]");
    return v[1].get<int32_t>();
  };
  if (type == "ByteLevel")
    return false;
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    prefix = {idOfPair("cls")};
    suffix = {idOfPair("sep")};
    return true;
  }
  if (type == "TemplateProcessing") {
    const json &single = requireArray(pp, "single", where);
    const json *specials = optional(pp, "special_tokens");
    bool seenSequence = false;
    for (size_t i = 0; i < single.size(); ++i) {
      const std::string w = indexed(where, "single", i);
      const json &item = single[i];
      if (!item.is_object())
        malformed(w, "expected {\"SpecialToken\": ...} or {\"Sequence\": ...}");
      if (optional(item, "Sequence")) {
        seenSequence = true;
        continue;
      }
      const json *st = optional(item, "SpecialToken");
      if (!st)
        malformed(w, "expected {\"SpecialToken\": ...} or {\"Sequence\": ...}");
      const std::string name = requireString(*st, "id", join(w, "SpecialToken"));
      const json *entry = specials ? optional(*specials, name.c_str()) : nullptr;
      if (!entry)
        malformed(join(where, "special_tokens"), "no entry for '" + name + "'");
      const json &ids = requireArray(*entry, "ids", join(join(where, "special_tokens"), name));
      for (const json &id : ids) {
        if (!id.is_number_integer())
          malformed(join(join(where, "special_tokens"), name), "ids must be integers");
        (seenSequence ? suffix : prefix).push_back(id.get<int32_t>());
      }
    }
    return true;
  }
  if (type == "Sequence") {
    const json &list = requireArray(pp, "processors", where);
    bool any = false;
    for (size_t i = 0; i < list.size(); ++i) {
      std::vector<int32_t> pre, post;
      if (readPostProcessor(list[i], indexed(where, "processors", i), pre, post)) {
        any = true;
        prefix.insert(prefix.begin(), pre.begin(), pre.end());
        suffix.insert(suffix.end(), post.begin(), post.end());
      }
    }
    return any;
  }
  unsupported(where, "post-processor", type,
              "TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence");
}

// --- the model ------------------------------------------------------------------

std::unique_ptr<Bpe> readModel(const json &m, const std::string &where, std::string &description) {
  if (!m.is_object())
    malformed(where, "expected an object");
  std::string type = getString(m, "type", "", where);
  if (type.empty())
    type = optional(m, "merges") ? "BPE" : "(none)";
  if (type != "BPE")
    unsupported(where, "model", type, "BPE");

  const json &vocabJson = required(m, "vocab", where);
  if (!vocabJson.is_object())
    malformed(join(where, "vocab"), "expected an object of token: id");
  std::unordered_map<std::string, int32_t> vocab;
  vocab.reserve(vocabJson.size());
  for (auto it = vocabJson.begin(); it != vocabJson.end(); ++it) {
    if (!it.value().is_number_integer())
      malformed(join(where, "vocab"), "the id of '" + it.key() + "' is not an integer");
    int64_t id = it.value().get<int64_t>();
    if (id < 0 || id > INT32_MAX)
      malformed(join(where, "vocab"), "the id of '" + it.key() + "' is out of range");
    vocab.emplace(it.key(), static_cast<int32_t>(id));
  }

  std::vector<std::pair<std::string, std::string>> merges;
  if (const json *list = optional(m, "merges")) {
    if (!list->is_array())
      malformed(join(where, "merges"), "expected an array");
    merges.reserve(list->size());
    for (size_t i = 0; i < list->size(); ++i) {
      const json &e = (*list)[i];
      if (e.is_string()) {
        const std::string &s = e.get_ref<const std::string &>();
        size_t sp = s.find(' ');
        if (sp == std::string::npos || s.find(' ', sp + 1) != std::string::npos)
          malformed(indexed(where, "merges", i), "expected \"left right\", got '" + s + "'");
        merges.emplace_back(s.substr(0, sp), s.substr(sp + 1));
      } else if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) {
        merges.emplace_back(e[0].get<std::string>(), e[1].get<std::string>());
      } else {
        malformed(indexed(where, "merges", i), "expected \"left right\" or [\"left\", \"right\"]");
      }
    }
  }

  BpeOptions o;
  if (const json *unk = optional(m, "unk_token")) {
    if (!unk->is_string())
      malformed(join(where, "unk_token"), "expected a string or null");
    o.unkToken = unk->get<std::string>();
  }
  o.continuingSubwordPrefix = getString(m, "continuing_subword_prefix", "", where);
  o.endOfWordSuffix = getString(m, "end_of_word_suffix", "", where);
  o.fuseUnk = getBool(m, "fuse_unk", false, where);
  o.byteFallback = getBool(m, "byte_fallback", false, where);
  o.ignoreMerges = getBool(m, "ignore_merges", false, where);
  if (const json *d = optional(m, "dropout"); d && !d->is_number())
    malformed(join(where, "dropout"), "expected a number or null");

  description = "BPE, " + std::to_string(vocab.size()) + " tokens, " + std::to_string(merges.size()) +
                " merges" + (o.byteFallback ? ", byte fallback" : "");
  auto bpe = std::make_unique<Bpe>();
  std::string error;
  if (!bpe->init(std::move(vocab), merges, std::move(o), error))
    malformed(where, error);
  return bpe;
}

/// A token named in tokenizer_config.json: "text", {"content": "text"} or null.
std::string configToken(const json &config, const char *key) {
  const json *v = optional(config, key);
  if (!v)
    return "";
  if (v->is_string())
    return v->get<std::string>();
  if (v->is_object())
    return getString(*v, "content", "", key);
  malformed(key, "expected a string, an object with \"content\", or null");
}

void readTokenizer(const std::string &tokenizerJson, const std::string &configJson,
                   TokenizerParts &parts) {
  json root;
  try {
    root = json::parse(tokenizerJson);
  } catch (const json::exception &e) {
    throw LoadError{Code::InvalidFile, std::string("not valid JSON: ") + e.what()};
  }
  if (!root.is_object())
    malformed("(top level)", "expected an object");

  std::string description;
  parts.model = readModel(required(root, "model", ""), "model", description);

  if (const json *list = optional(root, "added_tokens")) {
    if (!list->is_array())
      malformed("added_tokens", "expected an array");
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string w = "added_tokens[" + std::to_string(i) + "]";
      const json &e = (*list)[i];
      if (!e.is_object())
        malformed(w, "expected an object");
      AddedToken t;
      int64_t id = getInt(e, "id", -1, w);
      if (id < 0 || id > INT32_MAX)
        malformed(w, "missing or out-of-range \"id\"");
      t.id = static_cast<int32_t>(id);
      t.content = requireString(e, "content", w);
      t.special = getBool(e, "special", false, w);
      t.lstrip = getBool(e, "lstrip", false, w);
      t.rstrip = getBool(e, "rstrip", false, w);
      t.singleWord = getBool(e, "single_word", false, w);
      // Hugging Face's default: special tokens are matched in the raw text.
      t.normalized = getBool(e, "normalized", !t.special, w);
      parts.added.add(std::move(t));
    }
    description += ", " + std::to_string(list->size()) + " added tokens";
  }
  if (const json *n = optional(root, "normalizer"))
    parts.normalizer = readNormalizer(*n, "normalizer");
  if (const json *p = optional(root, "pre_tokenizer"))
    parts.preTokenizer = readPreTokenizer(*p, "pre_tokenizer");
  if (const json *d = optional(root, "decoder"))
    parts.decoder = readDecoder(*d, "decoder");
  bool processorAdds = false;
  if (const json *pp = optional(root, "post_processor"))
    processorAdds = readPostProcessor(*pp, "post_processor", parts.specialPrefix, parts.specialSuffix);

  // Special tokens' ids from tokenizer_config.json, by their text.
  auto idOf = [&](const std::string &text) -> int32_t {
    if (text.empty())
      return -1;
    if (const AddedToken *a = parts.added.byContent(text))
      return a->id;
    return parts.model->tokenToId(text);
  };
  if (!configJson.empty()) {
    json config;
    try {
      config = json::parse(configJson);
    } catch (const json::exception &e) {
      throw LoadError{Code::InvalidFile, std::string("tokenizer_config.json: not valid JSON: ") + e.what()};
    }
    if (!config.is_object())
      malformed("tokenizer_config.json", "expected an object");
    try {
      parts.special.bos = idOf(configToken(config, "bos_token"));
      parts.special.eos = idOf(configToken(config, "eos_token"));
      parts.special.pad = idOf(configToken(config, "pad_token"));
      parts.special.unk = idOf(configToken(config, "unk_token"));
      parts.cleanUpSpaces = getBool(config, "clean_up_tokenization_spaces", true, "");
      if (!processorAdds) {
        if (getBool(config, "add_bos_token", false, "") && parts.special.bos >= 0)
          parts.specialPrefix = {parts.special.bos};
        if (getBool(config, "add_eos_token", false, "") && parts.special.eos >= 0)
          parts.specialSuffix = {parts.special.eos};
      }
    } catch (LoadError &e) {
      e.message = "tokenizer_config.json: " + e.message;
      throw;
    }
  }
  if (parts.special.unk < 0) {
    const json &m = root["model"];
    if (const json *unk = optional(m, "unk_token"); unk && unk->is_string())
      parts.special.unk = idOf(unk->get<std::string>());
  }
  parts.description = description;
}

} // namespace

Status readHfTokenizer(const std::string &tokenizerJson, const std::string &configJson,
                       const std::string &name, TokenizerParts &parts) {
  try {
    readTokenizer(tokenizerJson, configJson, parts);
    return {};
  } catch (const LoadError &e) {
    return {e.code, name + ": " + e.message};
  } catch (const json::exception &e) {
    return {Code::InvalidFile, name + ": " + e.what()};
  } catch (const std::bad_alloc &) {
    return {Code::OutOfMemory, name + ": out of memory"};
  }
}

namespace {

/// Tokenizer files are read whole, up to 1 GiB (the largest tokenizer.json
/// files of public models are tens of MB). Before, a 64 GiB (sparse)
/// tokenizer.json or tokenizer_config.json in a model folder was read into
/// memory (SIGABRT, or the OOM killer). `tooLarge` is set for a larger file.
constexpr uintmax_t kMaxTokenizerFile = uintmax_t(1) << 30;

bool readFile(const std::string &path, std::string &out, bool &tooLarge) {
  std::error_code ec;
  uintmax_t bytes = std::filesystem::file_size(path, ec);
  tooLarge = !ec && bytes > kMaxTokenizerFile;
  if (tooLarge)
    return false;
  std::ifstream f(path, std::ios::binary);
  if (!f)
    return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return static_cast<bool>(f) || f.eof();
}

} // namespace

std::unique_ptr<Tokenizer> Tokenizer::fromJson(const std::string &tokenizerJson,
                                               const std::string &configJson, const std::string &name,
                                               Status &status) {
  TokenizerParts parts;
  status = readHfTokenizer(tokenizerJson, configJson, name, parts);
  if (!status)
    return nullptr;
  return std::make_unique<Tokenizer>(std::move(parts));
}

std::string Tokenizer::fileInFolder(const std::string &dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const char *name : {"tokenizer.json", kWorldVocabFile})
    if (fs::is_regular_file(fs::path(dir) / name, ec))
      return (fs::path(dir) / name).string();
  return "";
}

bool Tokenizer::inFolder(const std::string &dir) { return !fileInFolder(dir).empty(); }

std::unique_ptr<Tokenizer> Tokenizer::open(const std::string &path, Status &status) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path file(path);
  bool world = false;
  if (fs::is_directory(file, ec)) {
    if (fs::exists(file / "tokenizer.json", ec)) {
      file /= "tokenizer.json";
    } else if (fs::exists(file / kWorldVocabFile, ec)) {
      file /= kWorldVocabFile;
      world = true;
    } else {
      status = {Code::NotFound, path + ": no tokenizer.json (nor RWKV's " +
                                    std::string(kWorldVocabFile) + ") in this folder"};
      return nullptr;
    }
  } else if (!fs::exists(file, ec)) {
    status = {Code::NotFound, path + ": no such file or folder"};
    return nullptr;
  }
  world = world || file.extension() == ".txt";
  std::string text, config;
  bool tooLarge = false;
  auto large = [](const fs::path &p) {
    std::error_code e;
    return Status{Code::InvalidFile, p.string() + ": " + std::to_string(fs::file_size(p, e)) +
                                         " bytes; a tokenizer file is at most 1 GiB (damaged?)"};
  };
  if (!readFile(file.string(), text, tooLarge)) {
    status = tooLarge ? large(file) : Status{Code::NotFound, file.string() + ": cannot be read"};
    return nullptr;
  }
  if (world)
    return fromWorldVocab(text, file.string(), status);
  const fs::path configPath = file.parent_path() / "tokenizer_config.json";
  if (fs::exists(configPath, ec) && !readFile(configPath.string(), config, tooLarge)) {
    status = tooLarge ? large(configPath)
                      : Status{Code::InvalidFile, configPath.string() + ": cannot be read"};
    return nullptr;
  }
  return fromJson(text, config, file.string(), status);
}

} // namespace ssm::rt::tok
