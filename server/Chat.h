// Chat messages into a prompt: ChatML, used when the model folder's tokenizer_config.json has a chat_template.
//
// The server does not run Jinja: a folder whose chat_template is ChatML
// (it writes <|im_start|>role\ncontent<|im_end|>, as Qwen's and many
// others' do) gets ChatML; a folder with another template, or none, gets a
// 400 for /v1/chat/completions (completions work on any model).
#ifndef SSM_SERVER_CHAT_H
#define SSM_SERVER_CHAT_H

#include "server/Request.h"

#include <string>
#include <vector>

namespace ssm::server {

struct ChatFormat {
  bool available = false;
  std::string name;        // "chatml"
  std::string unavailable; // why chat is refused, for the 400
};

/// Reads <modelDir>/tokenizer_config.json's chat_template (a string, or a
/// list of {name, template} whose "default" entry is used).
ChatFormat detectChatFormat(const std::string &modelDir);

/// The ChatML text of `messages` followed by the assistant's header
/// ("<|im_start|>assistant\n"). `historyEnd` receives the length of the text
/// of every message but the last (the part a follow-up turn or another
/// question after the same system prompt shares).
std::string formatChatML(const std::vector<ChatMessage> &messages, size_t *historyEnd = nullptr);

} // namespace ssm::server

#endif
