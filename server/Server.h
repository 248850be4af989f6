// ssm-serve's HTTP side: the OpenAI-compatible endpoints over the scheduler (cpp-httplib).
//
//   POST /v1/completions, /v1/chat/completions  (JSON, or Server-Sent Events with "stream": true)
//   GET  /health, /v1/models, /metrics
//
// Each request is parsed and checked in its connection's thread
// (Request.h), tokenized there, and handed to the scheduler as a Job; the
// thread then waits for the job's text (or streams it as it comes). Errors
// are OpenAI's error body with a 4xx (5xx: the server's fault, or 503
// when the queue is full, with Retry-After, or when shutting down).
#ifndef SSM_SERVER_SERVER_H
#define SSM_SERVER_SERVER_H

#include "server/Chat.h"
#include "server/Metrics.h"
#include "server/Request.h"
#include "server/Scheduler.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace httplib {
class Server;
}

namespace ssm::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;          // 0: any free port (bind() returns it)
  int parallel = 4;         // slots
  int64_t context = 0;      // positions per request (prompt + generated); 0: the model's
  int threads = 0;          // kernel threads (0: one per core)
  size_t queue = 64;        // requests waiting for a slot
  size_t cacheMb = 256;     // prompt cache budget; 0: off
  size_t maxBodyBytes = 4u << 20;
  int64_t maxTokens = 4096; // per request
  int readTimeoutSec = 30;  // a client that sends its request slower is dropped
  double shutdownTimeoutSec = 60; // SIGTERM: in-flight requests get this long to finish
};

class Server {
public:
  /// Opens the model folder (its compiled modules, tokenizer and chat
  /// template); null with `error` set when it cannot serve.
  static std::unique_ptr<Server> open(const std::string &modelDir, const ServerOptions &options,
                                      std::string &error);
  ~Server();

  /// Binds the listening socket; the port, or -1.
  int bind();
  /// Serves until shutdown(); false if the listening failed.
  bool listen();
  /// Graceful shutdown (any thread): new requests get 503, those in flight
  /// finish (up to shutdownTimeoutSec, then they are ended with an error),
  /// then listen() returns.
  void shutdown();

  const std::string &modelName() const { return modelName_; }
  int64_t context() const { return context_; }
  int64_t cacheBlock() const { return scheduler_->cacheBlock(); }
  /// A note for the operator when the compiled prefill lengths leave long
  /// remainders to single steps ("" when not).
  std::string prefillNote() const;
  /// One line per batched function model.json names (functions.step_batched,
  /// functions.sequence_batched) that no compiled module of the folder has:
  /// the server then steps or prefills each stream in its own calls, correct
  /// but without the batched kernels, so ssm-serve prints these as warnings
  /// at start (empty when every named function was found).
  std::vector<std::string> batchedWarnings() const;
  std::string describe() const;

private:
  Server() = default;
  void routes();
  /// `clientLeft` (may be empty) says whether the client has closed its
  /// connection: a non-streaming request whose client left is cancelled.
  void complete(const std::string &body, Endpoint endpoint, void *response,
                const std::function<bool()> &clientLeft);

  ServerOptions options_;
  std::string modelDir_, modelName_;
  std::unique_ptr<rt::Model> model_;
  std::unique_ptr<rt::tok::Tokenizer> tokenizer_;
  ChatFormat chat_;
  int64_t context_ = 0;
  RequestLimits limits_;
  Metrics metrics_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<httplib::Server> http_;
  std::atomic<bool> shuttingDown_{false};
  std::atomic<uint64_t> nextId_{1};
  int listenSocket_ = -1;
  int64_t created_ = 0;
};

} // namespace ssm::server

#endif
