// An error a client gets back: an HTTP status and OpenAI's error body {"error": {"message", "type", "param", "code"}}.
#ifndef SSM_SERVER_APIERROR_H
#define SSM_SERVER_APIERROR_H

#include <string>

namespace ssm::server {

struct ApiError {
  int status = 400;
  std::string message;
  std::string type = "invalid_request_error"; // OpenAI's: invalid_request_error, server_error, ...
  std::string param;                          // the request field at fault, or empty (null)
  std::string code;                           // a machine-readable code, or empty (null)

  static ApiError badRequest(std::string message, std::string param = "", std::string code = "") {
    return {400, std::move(message), "invalid_request_error", std::move(param), std::move(code)};
  }
};

/// {"error": {"message": ..., "type": ..., "param": ... | null, "code": ... | null}}
std::string errorBody(const ApiError &error);

} // namespace ssm::server

#endif
