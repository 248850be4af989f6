// RWKV's World tokenizer (runtime/tokenizer/WorldVocab.h): a small vocabulary in the file's format, ids worked out by hand with the rule of RWKV's TRIE_TOKENIZER (rwkv_tokenizer.py: at each byte the longest token), and refusals naming the line.
#include "runtime/tokenizer/Tokenizer.h"
#include "runtime/tokenizer/WorldVocab.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace {

using ssm::rt::Code;
using ssm::rt::Status;
using ssm::rt::tok::Tokenizer;

// Lines as rwkv_vocab_v20230424.txt writes them: id, Python literal, bytes.
// "好" is e5 a5 bd: tokens 16 (e5 a5) and 12 (bd) cover it, none whole.
const std::string kLines = std::string("1 '\\x00' 1\n") + "2 'a' 1\n" + "3 'b' 1\n" + "4 'c' 1\n" +
                           "5 'ab' 2\n" + "6 'abc' 3\n" + "7 ' ' 1\n" + "8 '\\n' 1\n" +
                           "9 \"'\" 1\n" + "10 '\\\\' 1\n" + "11 b'\\xe4' 1\n" + "12 b'\\xbd' 1\n" +
                           "13 b'\\xa0' 1\n" + "14 '\xe4\xbd\xa0' 3\n" + "15 '\xe4\xbd\xa0\xe5\xa5\xbd' 6\n" +
                           "16 b'\\xe5\\xa5' 2\n" + "17 '\\u00e9' 2\n" + "18 ' ab' 3\n" + "19 '\\t' 1\n" +
                           "20 'caf\\xe9' 5\n";

std::unique_ptr<Tokenizer> world() {
  Status st;
  auto t = Tokenizer::fromWorldVocab(kLines, "test-vocab.txt", st);
  EXPECT_TRUE(st) << st.message();
  return t;
}

std::vector<int32_t> encode(const Tokenizer &t, const std::string &text) {
  std::vector<int32_t> ids;
  Status st = t.encode(text, /*addSpecial=*/true, ids);
  EXPECT_TRUE(st) << st.message();
  return ids;
}

std::string decode(const Tokenizer &t, std::vector<int32_t> ids) {
  std::string text;
  Status st = t.decode(ids.data(), ids.size(), false, text);
  EXPECT_TRUE(st) << st.message();
  return text;
}

} // namespace

TEST(WorldTokenizer, LongestMatchAtEachByte) {
  auto t = world();
  ASSERT_TRUE(t);
  EXPECT_EQ(encode(*t, "abcab"), (std::vector<int32_t>{6, 5}));
  EXPECT_EQ(encode(*t, "ab ab"), (std::vector<int32_t>{5, 18}));
  EXPECT_EQ(encode(*t, "aab"), (std::vector<int32_t>{2, 5})); // "aa" is no token
  EXPECT_EQ(encode(*t, "\xe4\xbd\xa0\xe5\xa5\xbd"), (std::vector<int32_t>{15}));
  EXPECT_EQ(encode(*t, "\xe5\xa5\xbd"), (std::vector<int32_t>{16, 12})); // inside a character
  EXPECT_EQ(encode(*t, "\xc3\xa9"), (std::vector<int32_t>{17}));           // '\u00e9'
  EXPECT_EQ(encode(*t, "caf\xc3\xa9"), (std::vector<int32_t>{20}));         // a str's \xe9 is U+00E9
  EXPECT_EQ(encode(*t, "a'\\\n\t"), (std::vector<int32_t>{2, 9, 10, 8, 19}));
  EXPECT_EQ(encode(*t, std::string("a\0b", 3)), (std::vector<int32_t>{2, 1, 3}));
  EXPECT_EQ(encode(*t, "axb"), (std::vector<int32_t>{2, 3})); // a byte no token has is left out
  EXPECT_TRUE(encode(*t, "").empty());
}

TEST(WorldTokenizer, DecodeConcatenatesBytes) {
  auto t = world();
  ASSERT_TRUE(t);
  EXPECT_EQ(decode(*t, {16, 12}), "\xe5\xa5\xbd");
  EXPECT_EQ(decode(*t, {6, 5, 18}), "abcab ab");
  EXPECT_EQ(decode(*t, {2, 0, 99, 3}), "ab"); // 0 (end of text) and ids past the vocabulary: nothing
  EXPECT_EQ(t->vocabSize(), 21);
  EXPECT_EQ(t->special().eos, 0);
  EXPECT_EQ(t->tokenToId("abc"), 6);
  EXPECT_EQ(t->tokenToId("zz"), -1);
  ASSERT_NE(t->tokenText(16), nullptr);
  EXPECT_EQ(*t->tokenText(16), "\xe5\xa5");
  EXPECT_NE(t->description().find("RWKV World"), std::string::npos);
}

TEST(WorldTokenizer, OpensAFolderOrATxtFile) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(::testing::TempDir()) / ("world-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / ssm::rt::tok::kWorldVocabFile) << kLines;
  Status st;
  auto a = Tokenizer::open(dir.string(), st);
  ASSERT_TRUE(a) << st.message();
  EXPECT_EQ(encode(*a, "abcab"), (std::vector<int32_t>{6, 5}));
  std::ofstream(dir / "vocab.txt") << kLines;
  auto b = Tokenizer::open((dir / "vocab.txt").string(), st);
  ASSERT_TRUE(b) << st.message();
  fs::remove(dir / ssm::rt::tok::kWorldVocabFile);
  EXPECT_FALSE(Tokenizer::open(dir.string(), st));
  EXPECT_EQ(st.code(), Code::NotFound);
  EXPECT_NE(st.message().find("rwkv_vocab_v20230424.txt"), std::string::npos) << st.message();
  fs::remove_all(dir);
}

TEST(WorldTokenizer, MalformedLinesAreRefusedByLine) {
  struct Case {
    std::string text, want;
  } cases[] = {
      {"x 'a' 1\n", "test.txt:1: the id 'x'"},
      {"2 'a' 1\n3 'ab' 1\n", "test.txt:2: the literal has 2 bytes, the line says 1"},
      {"2 'a' 1\n2 'b' 1\n", "test.txt:2: id 2 again"},
      {"2 'a' 1\n3 'a' 1\n", "test.txt:2: the token of id 3 is already id 2"},
      {"2 'a\n", "test.txt:1: not three fields"},
      {"2 'ab 2\n", "test.txt:1: the literal is not closed"},
      {"2 b'\xc3\xa9' 2\n", "test.txt:1: a bytes literal holds a non-ASCII character"},
      {"2 '\\q' 1\n", "test.txt:1: an unknown escape \\q"},
      {"2 '\\x4' 1\n", "test.txt:1: \\x needs two hex digits"},
      {"2 'a'b 1\n", "test.txt:1: text after the literal"},
      {"2 a 1\n", "test.txt:1: not a Python string literal"},
      {"2 'a' 0\n", "test.txt:1: the byte length '0'"},
      {"\n\n", "test.txt: no tokens"},
  };
  for (const Case &c : cases) {
    Status st;
    EXPECT_FALSE(Tokenizer::fromWorldVocab(c.text, "test.txt", st)) << c.text;
    EXPECT_EQ(st.code(), Code::InvalidFile) << c.text;
    EXPECT_NE(st.message().find(c.want), std::string::npos) << c.text << " -> " << st.message();
  }
}
