// OpenAI-style error bodies.
#include "server/ApiError.h"

#include <nlohmann/json.hpp>

namespace ssm::server {

std::string errorBody(const ApiError &e) {
  nlohmann::json err = {{"message", e.message}, {"type", e.type}};
  err["param"] = e.param.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.param);
  err["code"] = e.code.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.code);
  return nlohmann::json{{"error", err}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace ssm::server
