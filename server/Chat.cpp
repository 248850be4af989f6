// ChatML formatting and the model folder's chat template.
#include "server/Chat.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace ssm::server {

ChatFormat detectChatFormat(const std::string &modelDir) {
  ChatFormat f;
  const std::string path = modelDir + "/tokenizer_config.json";
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    f.unavailable = "this model has no chat template (no tokenizer_config.json in its folder): "
                    "use /v1/completions";
    return f;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json cfg = nlohmann::json::parse(ss.str(), nullptr, false);
  std::string tmpl;
  if (cfg.is_object()) {
    auto it = cfg.find("chat_template");
    if (it != cfg.end() && it->is_string())
      tmpl = it->get<std::string>();
    else if (it != cfg.end() && it->is_array())
      for (const auto &e : *it)
        if (e.is_object() && e.value("name", "") == "default" && e.contains("template") &&
            e["template"].is_string())
          tmpl = e["template"].get<std::string>();
  }
  if (tmpl.empty()) {
    f.unavailable = "this model has no chat template (tokenizer_config.json has no "
                    "chat_template): use /v1/completions";
    return f;
  }
  if (tmpl.find("<|im_start|>") == std::string::npos || tmpl.find("<|im_end|>") == std::string::npos) {
    f.unavailable = "this model's chat template is not ChatML, the one template ssm-serve "
                    "formats: use /v1/completions";
    return f;
  }
  f.available = true;
  f.name = "chatml";
  return f;
}

std::string formatChatML(const std::vector<ChatMessage> &messages, size_t *historyEnd) {
  std::string text;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (historyEnd && i + 1 == messages.size())
      *historyEnd = text.size();
    // "developer" is the newer name of the system role.
    const std::string &role = messages[i].role == "developer" ? std::string("system")
                                                              : messages[i].role;
    text += "<|im_start|>" + role + "\n" + messages[i].content + "<|im_end|>\n";
  }
  text += "<|im_start|>assistant\n";
  return text;
}

} // namespace ssm::server
