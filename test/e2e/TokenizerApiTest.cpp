// The tokenizers through the model library's installed interface: the C API (ssm_tokenizer_*) and the C++ wrapper, on ../shared's Qwen3 tokenizer.
#include "ssm_runtime.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sys/resource.h>
#include <unistd.h>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kQwen3 = fs::path(SSM_SHARED_DIR) / "tokenizers" / "qwen3";

class TokenizerApi : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(kQwen3 / "tokenizer.json"))
        << "the shared Qwen3 tokenizer is missing: " << (kQwen3 / "tokenizer.json");
    ASSERT_EQ(ssm_tokenizer_open(kQwen3.c_str(), &tok_), SSM_OK) << ssm_last_error();
  }
  void TearDown() override { ssm_tokenizer_free(tok_); }
  ssm_tokenizer_t *tok_ = nullptr;
};

TEST_F(TokenizerApi, EncodeWithTheSizeQuery) {
  const char text[] = "<|im_start|>user\nhi<|im_end|>";
  size_t n = 0;
  ASSERT_EQ(ssm_tokenizer_encode(tok_, text, std::strlen(text), 0, nullptr, 0, &n), SSM_OK);
  EXPECT_EQ(n, 5u);
  std::vector<int32_t> ids(n);
  ASSERT_EQ(ssm_tokenizer_encode(tok_, text, std::strlen(text), 0, ids.data(), ids.size(), &n), SSM_OK);
  EXPECT_EQ(ids, (std::vector<int32_t>{151644, 872, 198, 6023, 151645}));
  // A short buffer gets the first ids and the full count.
  int32_t two[2] = {-1, -1};
  ASSERT_EQ(ssm_tokenizer_encode(tok_, text, std::strlen(text), 0, two, 2, &n), SSM_OK);
  EXPECT_EQ(n, 5u);
  EXPECT_EQ(two[0], 151644);
  EXPECT_EQ(two[1], 872);
  // Empty text; NULL text with length 0.
  ASSERT_EQ(ssm_tokenizer_encode(tok_, nullptr, 0, SSM_TOKENIZE_ADD_SPECIAL, nullptr, 0, &n), SSM_OK);
  EXPECT_EQ(n, 0u);
}

TEST_F(TokenizerApi, DecodeLikeSnprintf) {
  const int32_t ids[] = {151644, 872, 198, 6023, 151645};
  size_t length = 0;
  ASSERT_EQ(ssm_tokenizer_decode(tok_, ids, 5, 0, nullptr, 0, &length), SSM_OK);
  const std::string want = "<|im_start|>user\nhi<|im_end|>";
  EXPECT_EQ(length, want.size());
  std::vector<char> buf(length + 1, 'x');
  ASSERT_EQ(ssm_tokenizer_decode(tok_, ids, 5, 0, buf.data(), buf.size(), &length), SSM_OK);
  EXPECT_EQ(std::string(buf.data()), want);
  char small[6];
  ASSERT_EQ(ssm_tokenizer_decode(tok_, ids, 5, 0, small, sizeof small, &length), SSM_OK);
  EXPECT_EQ(length, want.size());
  EXPECT_STREQ(small, "<|im_");
  ASSERT_EQ(ssm_tokenizer_decode(tok_, ids, 5, SSM_DETOKENIZE_SKIP_SPECIAL, buf.data(), buf.size(),
                                 &length),
            SSM_OK);
  EXPECT_STREQ(buf.data(), "user\nhi");
}

TEST_F(TokenizerApi, LookupsAndSizes) {
  EXPECT_EQ(ssm_tokenizer_vocab_size(tok_), 151669);
  EXPECT_EQ(ssm_tokenizer_special_id(tok_, SSM_TOKEN_EOS), 151645);
  EXPECT_EQ(ssm_tokenizer_special_id(tok_, SSM_TOKEN_PAD), 151643);
  EXPECT_EQ(ssm_tokenizer_special_id(tok_, SSM_TOKEN_BOS), -1);
  EXPECT_EQ(ssm_tokenizer_token_id(tok_, "<|im_end|>"), 151645);
  EXPECT_EQ(ssm_tokenizer_token_id(tok_, "\xC4\xA0World"), 4337);
  EXPECT_EQ(ssm_tokenizer_token_id(tok_, "not a token"), -1);
  const char *text = nullptr;
  int special = -1;
  ASSERT_EQ(ssm_tokenizer_token_text(tok_, 151645, &text, &special), SSM_OK);
  EXPECT_STREQ(text, "<|im_end|>");
  EXPECT_EQ(special, 1);
  ASSERT_EQ(ssm_tokenizer_token_text(tok_, 9707, &text, &special), SSM_OK);
  EXPECT_STREQ(text, "Hello");
  EXPECT_EQ(special, 0);
  EXPECT_EQ(ssm_tokenizer_token_text(tok_, 151669, &text, nullptr), SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ssm_last_error()).find("no token has id 151669"), std::string::npos);
}

TEST_F(TokenizerApi, BadArgumentsAreRefused) {
  size_t n = 7;
  const char bad[] = "a\xFF";
  EXPECT_EQ(ssm_tokenizer_encode(tok_, bad, 2, 0, nullptr, 0, &n), SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ssm_last_error()).find("not valid UTF-8 (byte 1"), std::string::npos)
      << ssm_last_error();
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(ssm_tokenizer_encode(tok_, "a", 1, 4u, nullptr, 0, &n), SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ssm_tokenizer_encode(nullptr, "a", 1, 0, nullptr, 0, &n), SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ssm_tokenizer_encode(tok_, "a", 1, 0, nullptr, 0, nullptr), SSM_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ssm_tokenizer_encode(tok_, "a", 1, 0, nullptr, 3, &n), SSM_ERROR_INVALID_ARGUMENT);
  const int32_t negative[] = {-1};
  size_t length;
  EXPECT_EQ(ssm_tokenizer_decode(tok_, negative, 1, 0, nullptr, 0, &length), SSM_ERROR_INVALID_ARGUMENT);
  ssm_tokenizer_t *none = reinterpret_cast<ssm_tokenizer_t *>(1);
  EXPECT_EQ(ssm_tokenizer_open("/nonexistent/tokenizer.json", &none), SSM_ERROR_NOT_FOUND);
  EXPECT_EQ(none, nullptr);
  EXPECT_EQ(ssm_tokenizer_open(nullptr, &none), SSM_ERROR_INVALID_ARGUMENT);
  ssm_tokenizer_free(nullptr);
}

TEST_F(TokenizerApi, UnsupportedComponentIsNamed) {
  fs::path dir = fs::temp_directory_path() / "ssm-tokenizer-api-unigram";
  fs::create_directories(dir);
  {
    std::FILE *f = std::fopen((dir / "tokenizer.json").c_str(), "w");
    ASSERT_TRUE(f);
    std::fputs(R"({"model": {"type": "Unigram", "vocab": [["a", 0.0]]}})", f);
    std::fclose(f);
  }
  ssm_tokenizer_t *t = nullptr;
  EXPECT_EQ(ssm_tokenizer_open(dir.c_str(), &t), SSM_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(ssm_last_error()).find("model type 'Unigram'"), std::string::npos)
      << ssm_last_error();
  EXPECT_EQ(t, nullptr);
  fs::remove_all(dir);
}

TEST(TokenizerWrapper, RoundTripAndErrors) {
  ssm::runtime::Tokenizer tok(kQwen3.string());
  EXPECT_EQ(tok.encode("Hello World"), (std::vector<int32_t>{9707, 4337}));
  EXPECT_EQ(tok.encode("Hello World", true), (std::vector<int32_t>{9707, 4337}));
  // More ids than bytes never happens, but a long text goes through the one call.
  std::string longText;
  for (int i = 0; i < 2000; ++i)
    longText += "state space " + std::to_string(i) + "\n";
  EXPECT_EQ(tok.decode(tok.encode(longText)), longText);
  EXPECT_EQ(tok.decode({151644, 872, 151645}, true), "user");
  EXPECT_EQ(tok.eos(), 151645);
  EXPECT_EQ(tok.bos(), -1);
  EXPECT_EQ(tok.vocabSize(), 151669);
  EXPECT_EQ(tok.tokenId("<|im_start|>"), 151644);
  EXPECT_EQ(tok.tokenText(151644), "<|im_start|>");
  EXPECT_TRUE(tok.isSpecial(151644));
  EXPECT_FALSE(tok.isSpecial(9707));
  try {
    tok.encode("bad \xC0");
    FAIL() << "invalid UTF-8 was accepted";
  } catch (const ssm::runtime::Error &e) {
    EXPECT_EQ(e.status(), SSM_ERROR_INVALID_ARGUMENT);
  }
  EXPECT_THROW(ssm::runtime::Tokenizer("/nonexistent"), ssm::runtime::Error);
}

} // namespace

// Tokenizer files are read whole only up to 1 GiB: a folder whose
// tokenizer_config.json is 4 GiB (sparse) is refused naming the file, unread.
// Before, it was read into memory (with 1 GiB of address space here: out of
// memory; a 64 GiB one in a model folder took ssm-run to SIGABRT or the OOM
// killer).
TEST(TokenizerApiDeathTest, AHugeTokenizerFileIsRefusedUnread) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  fs::path dir = fs::path(::testing::TempDir()) / ("ssm-huge-tokenizer-" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::copy_file(kQwen3 / "tokenizer.json", dir / "tokenizer.json",
                fs::copy_options::overwrite_existing);
  { std::ofstream(dir / "tokenizer_config.json") << "{}"; }
  fs::resize_file(dir / "tokenizer_config.json", uintmax_t(4) << 30);
  auto openBounded = [&] {
    struct rlimit limit = {rlim_t(1) << 30, rlim_t(1) << 30};
    if (::setrlimit(RLIMIT_AS, &limit) != 0)
      std::exit(3);
    ssm_tokenizer_t *t = nullptr;
    ssm_status_t st = ssm_tokenizer_open(dir.c_str(), &t);
    std::fprintf(stderr, "%s\n", st == SSM_OK ? "opened" : ssm_last_error());
    std::exit(st == SSM_ERROR_INVALID_FILE ? 0 : 4);
  };
  EXPECT_EXIT(openBounded(), ::testing::ExitedWithCode(0),
              "tokenizer_config.json: 4294967296 bytes; a tokenizer file is at most 1 GiB");
  fs::remove_all(dir);
}
