// Tokenizers (runtime/tokenizer/): Qwen3's tokenizer.json against Hugging Face's ids in ../shared, small SentencePiece-style BPEs worked by hand, and refusals.
#include "runtime/tokenizer/Tokenizer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ssm::rt::Code;
using ssm::rt::Status;
using ssm::rt::tok::Tokenizer;

/// ../shared beside the checkout, or $SSM_SHARED_DIR.
fs::path sharedDir() {
  if (const char *env = std::getenv("SSM_SHARED_DIR"))
    return env;
  return fs::path(__FILE__).parent_path().parent_path().parent_path().parent_path() / "shared";
}

fs::path qwen3Dir() { return sharedDir() / "tokenizers" / "qwen3"; }

/// The shared Qwen3 tokenizer, opened once; a missing file fails the test that needs it.
const Tokenizer *qwen3(std::string &problem) {
  static std::unique_ptr<Tokenizer> tok;
  static std::string error;
  static bool tried = false;
  if (!tried) {
    tried = true;
    fs::path file = qwen3Dir() / "tokenizer.json";
    if (!fs::exists(file)) {
      error = "the shared Qwen3 tokenizer is missing: " + file.string();
    } else {
      Status st;
      tok = Tokenizer::open(qwen3Dir().string(), st);
      if (!tok)
        error = st.message();
    }
  }
  problem = error;
  return tok.get();
}

std::vector<int32_t> encode(const Tokenizer &tok, const std::string &text, bool addSpecial = false) {
  std::vector<int32_t> ids;
  Status st = tok.encode(text, addSpecial, ids);
  EXPECT_TRUE(st.isOk()) << st.message();
  return ids;
}

std::string decode(const Tokenizer &tok, const std::vector<int32_t> &ids, bool skipSpecial = false) {
  std::string text;
  Status st = tok.decode(ids.data(), ids.size(), skipSpecial, text);
  EXPECT_TRUE(st.isOk()) << st.message();
  return text;
}

#define QWEN3_OR_FAIL(tok)                                                                         \
  std::string problem_;                                                                            \
  const Tokenizer *tok = qwen3(problem_);                                                          \
  ASSERT_NE(tok, nullptr) << problem_

TEST(Qwen3Tokenizer, EveryCaseOfTheSharedFile) {
  QWEN3_OR_FAIL(tok);
  fs::path file = qwen3Dir() / "cases.json";
  std::ifstream in(file);
  ASSERT_TRUE(in) << "the shared tokenizer cases are missing: " << file;
  json cases = json::parse(in);
  ASSERT_GE(cases.size(), 10u) << file;
  for (const json &c : cases) {
    const std::string text = c.at("text");
    const std::vector<int32_t> want = c.at("ids");
    std::vector<int32_t> ids = encode(*tok, text);
    EXPECT_EQ(ids, want) << "text: " << json(text).dump();
    EXPECT_EQ(decode(*tok, ids), c.at("decoded").get<std::string>()) << "text: " << json(text).dump();
  }
}

TEST(Qwen3Tokenizer, SpecialTokensAndSizes) {
  QWEN3_OR_FAIL(tok);
  // 151,643 vocabulary entries and 26 added tokens, ids 151643..151668.
  EXPECT_EQ(tok->vocabSize(), 151669);
  // tokenizer_config.json: eos <|im_end|>, pad <|endoftext|>, no bos.
  EXPECT_EQ(tok->special().eos, 151645);
  EXPECT_EQ(tok->special().pad, 151643);
  EXPECT_EQ(tok->special().bos, -1);
  EXPECT_EQ(tok->tokenToId("<|im_start|>"), 151644);
  EXPECT_EQ(tok->tokenToId("Hello"), 9707);
  EXPECT_EQ(tok->tokenToId("no such token"), -1);
  ASSERT_NE(tok->tokenText(4337), nullptr);
  EXPECT_EQ(*tok->tokenText(4337), "\xC4\xA0World"); // "ĠWorld": GPT-2's alphabet
  ASSERT_NE(tok->tokenText(151644), nullptr);
  EXPECT_EQ(*tok->tokenText(151644), "<|im_start|>");
  EXPECT_EQ(tok->tokenText(151700), nullptr);
  EXPECT_TRUE(tok->isSpecial(151645));
  EXPECT_FALSE(tok->isSpecial(151667)); // <think>: added, not special
  // Its post-processor (ByteLevel) adds nothing.
  EXPECT_EQ(encode(*tok, "Hello World", true), (std::vector<int32_t>{9707, 4337}));
}

TEST(Qwen3Tokenizer, DecodeOptionsAndBadInput) {
  QWEN3_OR_FAIL(tok);
  std::vector<int32_t> ids = encode(*tok, "<|im_start|>user\nhi<|im_end|>");
  EXPECT_EQ(decode(*tok, ids, /*skipSpecial=*/true), "user\nhi");
  // Ids past the tokenizer's (a model's padded vocabulary) decode to nothing.
  EXPECT_EQ(decode(*tok, {9707, 151900, 4337}), "Hello World");
  std::string text;
  const int32_t negative[] = {9707, -3};
  Status st = tok->decode(negative, 2, false, text);
  EXPECT_EQ(st.code(), Code::InvalidArgument);
  EXPECT_NE(st.message().find("-3"), std::string::npos) << st.message();
  // Half a token's bytes: U+FFFD, as Hugging Face's decoder gives.
  // The token of the lone byte 0xC3 ("Ã" in GPT-2's alphabet, where it stands for itself).
  const int32_t byteC3 = tok->tokenToId("\xC3\x83");
  ASSERT_GE(byteC3, 0);
  EXPECT_EQ(decode(*tok, {byteC3}), "\xEF\xBF\xBD");
  EXPECT_EQ(decode(*tok, {byteC3, tok->tokenToId("\xC2\xA9")}), "\xC3\xA9"); // 0xC3 0xA9: é
  std::vector<int32_t> out;
  st = tok->encode(std::string("ok \xC3\x28 bad"), false, out);
  EXPECT_EQ(st.code(), Code::InvalidArgument);
  EXPECT_NE(st.message().find("byte 3"), std::string::npos) << st.message();
}

/// A 100 KB text of words in several scripts, no two lines alike.
std::string variedText(size_t bytes) {
  const char *words[] = {"state",  "space", "model",  "Mamba", "scan", "résumé", "Überall",
                         "状态",   "空间",  "モデル", "привет", "мир",  "2026",  "3.14",
                         "👍",     "x_t",   "(h)",    "don't", "\n",   "  "};
  std::string s;
  uint32_t r = 12345;
  while (s.size() < bytes) {
    r = r * 1103515245u + 12345u;
    s += words[(r >> 16) % (sizeof words / sizeof *words)];
    s += (r >> 8) % 7 ? " " : std::to_string(r % 1000);
  }
  return s;
}

TEST(Qwen3Tokenizer, HundredKilobytesWellUnderASecond) {
  QWEN3_OR_FAIL(tok);
  const std::string text = variedText(100000);
  std::vector<int32_t> ids;
  auto t0 = std::chrono::steady_clock::now();
  Status st = tok->encode(text, false, ids);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(st.isOk()) << st.message();
  EXPECT_GT(ids.size(), 10000u);
  // About 0.03 s in a release build on this machine kind; the bound leaves
  // room for sanitizer builds.
  EXPECT_LT(seconds, 1.0) << ids.size() << " ids";
  EXPECT_EQ(decode(*tok, ids), text); // the text is already NFC
}

TEST(Qwen3Tokenizer, ThreadsShareOneTokenizer) {
  QWEN3_OR_FAIL(tok);
  const std::string text = variedText(20000);
  const std::vector<int32_t> want = encode(*tok, text);
  std::vector<std::vector<int32_t>> got(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] { (void)tok->encode(text, false, got[i]); });
  for (auto &t : threads)
    t.join();
  for (const auto &g : got)
    EXPECT_EQ(g, want);
}

// --- SentencePiece-style BPE, a vocabulary of our own ------------------------------

/// Llama 2's layout: Prepend + Replace normalizers, no pre-tokenizer, byte
/// fallback, <s> added by the template, Replace/ByteFallback/Fuse/Strip decoder.
const char *kSentencePieceBpe = R"JSON({
  "version": "1.0",
  "added_tokens": [
    {"id": 0, "content": "<unk>", "special": true, "normalized": false, "lstrip": false, "rstrip": false, "single_word": false},
    {"id": 1, "content": "<s>", "special": true, "normalized": false, "lstrip": false, "rstrip": false, "single_word": false},
    {"id": 2, "content": "</s>", "special": true, "normalized": false, "lstrip": false, "rstrip": false, "single_word": false}
  ],
  "normalizer": {"type": "Sequence", "normalizers": [
    {"type": "Prepend", "prepend": "▁"},
    {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
  "pre_tokenizer": null,
  "post_processor": {"type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
    "pair": [],
    "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
  "decoder": {"type": "Sequence", "decoders": [
    {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
    {"type": "ByteFallback"}, {"type": "Fuse"},
    {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
  "model": {"type": "BPE", "dropout": null, "unk_token": "<unk>", "continuing_subword_prefix": null,
    "end_of_word_suffix": null, "fuse_unk": true, "byte_fallback": true,
    "vocab": {"<unk>": 0, "<s>": 1, "</s>": 2, "<0x0A>": 3, "<0xC3>": 4, "<0xA9>": 5,
      "▁": 6, "h": 7, "e": 8, "l": 9, "o": 10, "w": 11, "r": 12, "d": 13,
      "▁h": 14, "ll": 15, "▁he": 16, "llo": 17, "▁hello": 18, "▁w": 19, "or": 20, "▁wor": 21,
      "▁world": 22, "ld": 23},
    "merges": ["▁ h", "l l", "▁h e", "ll o", "▁he llo", "▁ w", "o r", "▁w or", "l d", "▁wor ld"]}
})JSON";

std::unique_ptr<Tokenizer> fromJson(const std::string &text, const std::string &config = "") {
  Status st;
  auto tok = Tokenizer::fromJson(text, config, "test tokenizer.json", st);
  EXPECT_TRUE(tok) << st.message();
  return tok;
}

TEST(SentencePieceBpe, MergesByRank) {
  auto tok = fromJson(kSentencePieceBpe);
  ASSERT_TRUE(tok);
  // "▁hello▁world": ▁ h e l l o ▁ w o r l d, merged by rank: ▁h, ll, ▁he,
  // llo, ▁hello, ▁w, or, ▁wor, ld, ▁world.
  EXPECT_EQ(encode(*tok, "hello world"), (std::vector<int32_t>{18, 22}));
  EXPECT_EQ(encode(*tok, "hello world", /*addSpecial=*/true), (std::vector<int32_t>{1, 18, 22}));
  EXPECT_EQ(decode(*tok, {1, 18, 22}), "<s> hello world");
  EXPECT_EQ(decode(*tok, {1, 18, 22}, /*skipSpecial=*/true), "hello world");
  // Special tokens written in the text; each segment between them is prefixed.
  EXPECT_EQ(encode(*tok, "<s>hello</s>"), (std::vector<int32_t>{1, 18, 2}));
  EXPECT_EQ(tok->vocabSize(), 24);
}

TEST(SentencePieceBpe, ByteFallbackAndUnknown) {
  auto tok = fromJson(kSentencePieceBpe);
  ASSERT_TRUE(tok);
  // é is not in the vocabulary: its bytes <0xC3> <0xA9>; \n is <0x0A>.
  // ▁ h <C3> <A9> l l o <0A>: ▁h, ll, llo.
  const std::vector<int32_t> ids = encode(*tok, "h\xC3\xA9llo\n");
  EXPECT_EQ(ids, (std::vector<int32_t>{14, 4, 5, 17, 3}));
  EXPECT_EQ(decode(*tok, ids), "h\xC3\xA9llo\n");
  // 'i' has neither a token nor a byte token: <unk>, and fuse_unk makes one of "ii".
  EXPECT_EQ(encode(*tok, "hi"), (std::vector<int32_t>{14, 0}));
  EXPECT_EQ(encode(*tok, "hii"), (std::vector<int32_t>{14, 0}));
  EXPECT_EQ(decode(*tok, {14, 0}), "h<unk>");
  EXPECT_EQ(decode(*tok, {14, 0}, true), "h");
  // A byte that is not UTF-8 on its own: U+FFFD.
  EXPECT_EQ(decode(*tok, {4}), "\xEF\xBF\xBD");
}

TEST(SentencePieceBpe, MetaspacePreTokenizerAndDecoder) {
  json j = json::parse(kSentencePieceBpe);
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "▁"}, {"prepend_scheme", "first"},
                        {"split", true}};
  j["decoder"] = {{"type", "Metaspace"}, {"replacement", "▁"}, {"prepend_scheme", "first"}};
  auto tok = fromJson(j.dump());
  ASSERT_TRUE(tok);
  // "▁hello▁world", split before each ▁: "▁hello" "▁world".
  EXPECT_EQ(encode(*tok, "hello world"), (std::vector<int32_t>{18, 22}));
  EXPECT_EQ(decode(*tok, {18, 22}), "hello world");
  // prepend_scheme "first": only the text at offset 0 gets the ▁, not what
  // follows an added token: h e l l o -> h e llo.
  EXPECT_EQ(encode(*tok, "<s>hello"), (std::vector<int32_t>{1, 7, 8, 17}));
}

TEST(SentencePieceBpe, SpecialTokenIdsFromTheConfig) {
  auto tok = fromJson(kSentencePieceBpe,
                      R"({"bos_token": "<s>", "eos_token": {"content": "</s>"}, "pad_token": null})");
  ASSERT_TRUE(tok);
  EXPECT_EQ(tok->special().bos, 1);
  EXPECT_EQ(tok->special().eos, 2);
  EXPECT_EQ(tok->special().pad, -1);
  EXPECT_EQ(tok->special().unk, 0);
}

// --- refusals -------------------------------------------------------------------

Status openFails(const std::string &text) {
  Status st;
  auto tok = Tokenizer::fromJson(text, "", "bad.json", st);
  EXPECT_FALSE(tok);
  EXPECT_FALSE(st.isOk());
  return st;
}

TEST(TokenizerErrors, MalformedJson) {
  Status st = openFails("{\"model\": {\"type\": \"BPE\", ");
  EXPECT_EQ(st.code(), Code::InvalidFile);
  EXPECT_NE(st.message().find("bad.json: not valid JSON"), std::string::npos) << st.message();
  st = openFails("[1, 2]");
  EXPECT_EQ(st.code(), Code::InvalidFile);
  st = openFails("{\"added_tokens\": []}");
  EXPECT_EQ(st.code(), Code::InvalidFile);
  EXPECT_NE(st.message().find("missing \"model\""), std::string::npos) << st.message();
}

TEST(TokenizerErrors, UnknownComponentsAreNamed) {
  json j = json::parse(kSentencePieceBpe);
  j["model"]["type"] = "Unigram";
  Status st = openFails(j.dump());
  EXPECT_EQ(st.code(), Code::Unsupported);
  EXPECT_NE(st.message().find("model type 'Unigram' is not supported"), std::string::npos)
      << st.message();

  j = json::parse(kSentencePieceBpe);
  j["pre_tokenizer"] = {{"type", "Sequence"},
                        {"pretokenizers", {{{"type", "Digits"}}, {{"type", "BertPreTokenizer"}}}}};
  st = openFails(j.dump());
  EXPECT_EQ(st.code(), Code::Unsupported);
  EXPECT_NE(st.message().find("pre_tokenizer.pretokenizers[1]: pre-tokenizer type 'BertPreTokenizer'"),
            std::string::npos)
      << st.message();

  j = json::parse(kSentencePieceBpe);
  j["normalizer"] = {{"type", "Precompiled"}, {"precompiled_charsmap", "AAAA"}};
  st = openFails(j.dump());
  EXPECT_NE(st.message().find("normalizer type 'Precompiled'"), std::string::npos) << st.message();

  j = json::parse(kSentencePieceBpe);
  j["decoder"] = {{"type", "WordPiece"}};
  st = openFails(j.dump());
  EXPECT_NE(st.message().find("decoder type 'WordPiece'"), std::string::npos) << st.message();
}

TEST(TokenizerErrors, InconsistentModel) {
  json j = json::parse(kSentencePieceBpe);
  j["model"]["merges"].push_back("x y");
  Status st = openFails(j.dump());
  EXPECT_EQ(st.code(), Code::InvalidFile);
  EXPECT_NE(st.message().find("'x' is not in the vocabulary"), std::string::npos) << st.message();

  j = json::parse(kSentencePieceBpe);
  j["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "(unclosed"}}}, {"behavior", "Isolated"}};
  st = openFails(j.dump());
  EXPECT_EQ(st.code(), Code::Unsupported);
  EXPECT_NE(st.message().find("pre_tokenizer.pattern.Regex"), std::string::npos) << st.message();

  j = json::parse(kSentencePieceBpe);
  j["model"]["vocab"]["h"] = "seven";
  st = openFails(j.dump());
  EXPECT_EQ(st.code(), Code::InvalidFile);
  EXPECT_NE(st.message().find("model.vocab"), std::string::npos) << st.message();
}

TEST(TokenizerErrors, MissingFiles) {
  Status st;
  EXPECT_FALSE(Tokenizer::open("/nonexistent/tokenizer.json", st));
  EXPECT_EQ(st.code(), Code::NotFound);
  fs::path dir = fs::temp_directory_path() / "ssm-tokenizer-test-empty";
  fs::create_directories(dir);
  EXPECT_FALSE(Tokenizer::open(dir.string(), st));
  EXPECT_EQ(st.code(), Code::NotFound);
  EXPECT_NE(st.message().find("no tokenizer.json"), std::string::npos) << st.message();
  fs::remove_all(dir);
}

} // namespace
