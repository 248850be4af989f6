// ChatML formatting and the chat template check of a model folder's tokenizer_config.json.
#include "server/Chat.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <unistd.h>
#include <filesystem>
#include <fstream>

using namespace ssm::server;

namespace {

TEST(Chat, ChatMLWithTheHistoryEnd) {
  std::vector<ChatMessage> m = {{"system", "be brief"}, {"user", "hi"}, {"assistant", "hello"},
                                {"developer", "rule"}, {"user", "again"}};
  size_t historyEnd = 0;
  std::string text = formatChatML(m, &historyEnd);
  EXPECT_EQ(text, "<|im_start|>system\nbe brief<|im_end|>\n"
                  "<|im_start|>user\nhi<|im_end|>\n"
                  "<|im_start|>assistant\nhello<|im_end|>\n"
                  "<|im_start|>system\nrule<|im_end|>\n"
                  "<|im_start|>user\nagain<|im_end|>\n"
                  "<|im_start|>assistant\n");
  EXPECT_EQ(text.substr(historyEnd), "<|im_start|>user\nagain<|im_end|>\n<|im_start|>assistant\n");
}

class ChatFolder : public ::testing::Test {
protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() /
          ("ssm-chat-test-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  void config(const std::string &text) { std::ofstream(dir / "tokenizer_config.json") << text; }
  std::filesystem::path dir;
};

TEST_F(ChatFolder, NoConfigNoChat) {
  ChatFormat f = detectChatFormat(dir.string());
  EXPECT_FALSE(f.available);
  EXPECT_NE(f.unavailable.find("no chat template"), std::string::npos);
}

TEST_F(ChatFolder, NoTemplateNoChat) {
  config(R"({"eos_token": "</s>"})");
  EXPECT_FALSE(detectChatFormat(dir.string()).available);
}

TEST_F(ChatFolder, ChatMLTemplate) {
  config(R"({"chat_template": "{% for m in messages %}<|im_start|>{{m.role}}\n{{m.content}}<|im_end|>\n{% endfor %}"})");
  ChatFormat f = detectChatFormat(dir.string());
  EXPECT_TRUE(f.available);
  EXPECT_EQ(f.name, "chatml");
}

TEST_F(ChatFolder, NamedTemplatesUseTheDefault) {
  config(R"({"chat_template": [{"name": "tool_use", "template": "x"},
                               {"name": "default", "template": "<|im_start|> <|im_end|>"}]})");
  EXPECT_TRUE(detectChatFormat(dir.string()).available);
}

TEST_F(ChatFolder, AnotherTemplateIsRefused) {
  config(R"({"chat_template": "{{ bos_token }}[INST] {{ m.content }} [/INST]"})");
  ChatFormat f = detectChatFormat(dir.string());
  EXPECT_FALSE(f.available);
  EXPECT_NE(f.unavailable.find("not ChatML"), std::string::npos);
}

TEST_F(ChatFolder, MalformedConfigIsNoTemplate) {
  config("{not json");
  EXPECT_FALSE(detectChatFormat(dir.string()).available);
}

} // namespace
