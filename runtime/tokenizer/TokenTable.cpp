// A tokenizer model's vocabulary both ways (runtime/tokenizer/TokenTable.h).
#include "runtime/tokenizer/TokenTable.h"

#include <algorithm>

namespace ssm::rt::tok {

bool TokenTable::assign(std::unordered_map<std::string, int32_t> vocab, std::string &error) {
  int32_t maxId = -1;
  for (const auto &[token, id] : vocab) {
    if (id < 0) {
      error = "token '" + token + "' has a negative id " + std::to_string(id);
      return false;
    }
    maxId = std::max(maxId, id);
  }
  ids_ = std::move(vocab);
  tokens_.assign(static_cast<size_t>(maxId + 1), std::string());
  hasToken_.assign(static_cast<size_t>(maxId + 1), false);
  for (const auto &[token, id] : ids_) {
    tokens_[id] = token;
    hasToken_[id] = true;
  }
  return true;
}

int32_t TokenTable::find(std::string_view token) const {
  auto it = ids_.find(std::string(token));
  return it == ids_.end() ? -1 : it->second;
}

const std::string *TokenTable::at(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= tokens_.size() || !hasToken_[id])
    return nullptr;
  return &tokens_[id];
}

} // namespace ssm::rt::tok
