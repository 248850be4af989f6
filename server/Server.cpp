// The HTTP endpoints (Server.h).
#include "server/Server.h"
#include "runtime/ModelSpec.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <random>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sstream>

namespace ssm::server {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string dump(const json &j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

/// The connected socket of `req`'s client, or -1. cpp-httplib 0.11 gives a
/// handler no way to see that its client left (Request::is_connection_closed
/// came later), so the socket is found by its addresses: the one of this
/// process bound to the listening socket's port whose peer is
/// req.remote_addr:remote_port (as cpp-httplib reads them: getpeername,
/// numeric getnameinfo). The handler's thread owns that socket until the
/// handler returns, so it cannot be closed or reused meanwhile.
int clientSocket(const httplib::Request &req, int listenSocket) {
  auto port = [](const sockaddr_storage &a) {
    return a.ss_family == AF_INET    ? ntohs(reinterpret_cast<const sockaddr_in &>(a).sin_port)
           : a.ss_family == AF_INET6 ? ntohs(reinterpret_cast<const sockaddr_in6 &>(a).sin6_port)
                                     : 0;
  };
  sockaddr_storage local{};
  socklen_t len = sizeof local;
  if (listenSocket < 0 || ::getsockname(listenSocket, reinterpret_cast<sockaddr *>(&local), &len))
    return -1;
  const int localPort = port(local);
  std::error_code ec;
  for (const auto &entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    int fd = -1;
    try {
      fd = std::stoi(entry.path().filename().string());
    } catch (...) {
      continue;
    }
    struct stat st;
    if (fd == listenSocket || ::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
      continue;
    sockaddr_storage mine{}, peer{};
    socklen_t mineLen = sizeof mine, peerLen = sizeof peer;
    if (::getsockname(fd, reinterpret_cast<sockaddr *>(&mine), &mineLen) ||
        port(mine) != localPort ||
        ::getpeername(fd, reinterpret_cast<sockaddr *>(&peer), &peerLen) ||
        port(peer) != req.remote_port)
      continue;
    char host[NI_MAXHOST];
    if (::getnameinfo(reinterpret_cast<sockaddr *>(&peer), peerLen, host, sizeof host, nullptr, 0,
                      NI_NUMERICHOST) == 0 &&
        req.remote_addr == host)
      return fd;
  }
  return -1;
}

/// True when the peer of the connected socket `fd` has closed it (an end of
/// stream to read, a hang-up or an error); data it sent is left unread.
bool peerClosed(int fd) {
  pollfd p{fd, POLLIN | POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0)
    return false;
  if (p.revents & (POLLRDHUP | POLLHUP | POLLERR))
    return true;
  char c;
  return (p.revents & POLLIN) && ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

void sendError(httplib::Response &res, const ApiError &e) {
  res.status = e.status;
  if (e.status == 503)
    res.set_header("Retry-After", "1");
  res.set_content(errorBody(e), "application/json");
}

/// The endpoint label of a path in /metrics (unknown paths share one).
std::string endpointLabel(const std::string &path) {
  for (const char *p : {"/v1/completions", "/v1/chat/completions", "/v1/models", "/health", "/metrics"})
    if (path == p)
      return p;
  return "other";
}

} // namespace

std::unique_ptr<Server> Server::open(const std::string &modelDir, const ServerOptions &o,
                                     std::string &error) {
  std::unique_ptr<Server> s(new Server());
  s->options_ = o;
  s->modelDir_ = modelDir;
  std::filesystem::path p(modelDir);
  s->modelName_ = (p.has_filename() ? p.filename() : p.parent_path().filename()).string();
  if (o.parallel < 1 || o.parallel > 1024) {
    error = "--parallel takes 1 to 1024 slots, got " + std::to_string(o.parallel);
    return nullptr;
  }
  rt::Status st;
  // --context is the KV caches' capacity (each slot's stream holds that
  // many positions; a model without caches is not sized by it).
  s->model_ = rt::Model::open(modelDir, st, rt::WeightLoad::Copy, o.context);
  if (!s->model_) {
    error = st.message();
    return nullptr;
  }
  // Every slot allocates its stream's states (the KV caches at --context)
  // when the server starts: past this machine's memory that ends in the
  // kernel's OOM killer, not an error; refused here naming the options.
  {
    int64_t fixed = 0, perPosition = 0, allocated = 0;
    s->model_->spec().stateBytes(fixed, perPosition, allocated);
    const double perSlot = double(fixed) + double(allocated), total = perSlot * o.parallel;
    const double memory = double(rt::usableMemoryBytes());
    if (total > memory) {
      char text[320];
      std::snprintf(text, sizeof text,
                    "--parallel %d slots of %.2f GB of states each (the KV caches at "
                    "--context %lld) take %.1f GB, more than the %.1f GB this process may "
                    "use (the machine's memory, or ulimit -v): give a smaller --context or "
                    "--parallel",
                    o.parallel, perSlot / 1e9, static_cast<long long>(s->model_->contextLength()),
                    total / 1e9, memory / 1e9);
      error = text;
      return nullptr;
    }
  }
  if (!s->model_->hasStep() && !std::count(s->model_->sequenceLengths().begin(),
                                           s->model_->sequenceLengths().end(), 1)) {
    error = modelDir + ": no compiled step function in " + modelDir +
            "/compiled (ssm-import --compile, or ssm-compile <dir>): ssm-serve runs deployed "
            "folders and compiles nothing";
    return nullptr;
  }
  s->model_->setThreads(o.threads);
  if (rt::tok::Tokenizer::inFolder(modelDir)) {
    s->tokenizer_ = rt::tok::Tokenizer::open(modelDir, st);
    if (!s->tokenizer_) {
      error = st.message();
      return nullptr;
    }
  }
  s->chat_ = detectChatFormat(modelDir);
  if (s->chat_.available && !s->tokenizer_) {
    s->chat_.available = false;
    s->chat_.unavailable = "this model has a chat template but no tokenizer.json: use "
                           "/v1/completions with token ids";
  }
  const int64_t modelContext = s->model_->contextLength();
  if (o.context < 0) {
    error = "--context " + std::to_string(o.context) + " is negative";
    return nullptr;
  }
  s->context_ = o.context > 0 ? o.context : modelContext > 0 ? modelContext : 32768;
  s->limits_.maxTokens = o.maxTokens;
  int64_t fixed = 0, perPosition = 0, allocated = 0;
  s->model_->spec().stateBytes(fixed, perPosition, allocated);
  s->metrics_.stateBytesFixed = fixed;
  s->metrics_.stateBytesPerPosition = perPosition;
  SchedulerOptions so;
  so.parallel = o.parallel;
  so.queue = o.queue;
  so.cacheBytes = o.cacheMb << 20;
  so.context = s->context_;
  // The batched calls' buffers now, not in the first requests' time.
  if (o.parallel >= 2)
    if (rt::Status bs = s->model_->reserveBatchBuffers(so.batchedPrefillMax); !bs) {
      error = modelDir + ": the batched functions: " + bs.message();
      return nullptr;
    }
  s->scheduler_ = std::make_unique<Scheduler>(*s->model_, s->tokenizer_.get(),
                                              s->model_->spec().byteTokens && !s->tokenizer_, so,
                                              s->metrics_);
  s->created_ = static_cast<int64_t>(std::time(nullptr));
  s->http_ = std::make_unique<httplib::Server>();
  s->routes();
  return s;
}

Server::~Server() {
  if (scheduler_)
    scheduler_->drainAndStop(Clock::now());
}

std::string Server::describe() const {
  std::ostringstream o;
  o << modelName_ << " (" << model_->spec().architecture << ", vocabulary " << model_->vocab()
    << "; " << (tokenizer_ ? tokenizer_->description() : model_->spec().byteTokens ? "byte tokens" : "token ids only")
    << "; chat " << (chat_.available ? chat_.name : "off") << "; "
    << (model_->stepBatch() > 0 ? "batched step of " + std::to_string(model_->stepBatch())
                                : std::string("per-stream steps"))
    << (model_->prefillBatch() > 0
            ? "; batched prefill of " + std::to_string(model_->prefillBatch()) + " prompts"
            : std::string())
    << "; prefill calls of";
  std::vector<int64_t> lengths = model_->sequenceLengths();
  std::sort(lengths.rbegin(), lengths.rend());
  for (size_t i = 0; i < lengths.size(); ++i)
    o << (i ? ", " : " ") << lengths[i];
  o << (lengths.empty() ? " none" : "") << " tokens"
    << "; context " << context_ << "; prompt cache " << options_.cacheMb << " MB in blocks of "
    << scheduler_->cacheBlock() << " tokens)";
  return o.str();
}

std::string Server::prefillNote() const {
  // A prompt runs as the longest compiled calls that fit, then steps: with
  // one long length, what is past the last whole call (a cached prefix's
  // tail included) runs one token per call.
  std::vector<int64_t> lengths = model_->sequenceLengths();
  if (lengths.empty())
    return "";
  const int64_t shortest = *std::min_element(lengths.begin(), lengths.end());
  if (shortest <= 16)
    return "";
  return "the shortest compiled prefill call is " + std::to_string(shortest) + " tokens, so up to " +
         std::to_string(shortest - 1) + " tokens of a prompt run as single steps; import with a "
         "ladder of lengths (--seq-len " + std::to_string(shortest) + ",64,32,16,8,4 --compile, say) "
         "for fewer calls";
}

std::vector<std::string> Server::batchedWarnings() const {
  std::vector<std::string> out;
  const rt::ModelSpec &spec = model_->spec();
  auto missing = [&](const std::string &fn, const char *field, int64_t batch, const char *what,
                     const char *flag) {
    out.push_back(modelDir_ + "/model.json names @" + fn + " (functions." + field + ", " +
                  std::to_string(batch) + " per call), but no module in " + modelDir_ +
                  "/compiled has it: " + what + " (import it again with " + flag + " " +
                  std::to_string(batch) + " --compile)");
  };
  if (spec.stepBatch > 0 && model_->stepBatch() == 0)
    missing(spec.batchedStepFunction, "step_batched", spec.stepBatch,
            "each slot decodes in its own step calls", "--batch");
  if (spec.prefillBatch > 0 && model_->prefillBatch() == 0)
    missing(spec.batchedSequenceFunction, "sequence_batched", spec.prefillBatch,
            "each prompt is prefilled in its own calls", "--prefill-batch");
  return out;
}

int Server::bind() {
  const int port = options_.port == 0
                       ? http_->bind_to_any_port(options_.host)
                       : (http_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
  // cpp-httplib 0.11 listens with a backlog of 5: 32 clients connecting at
  // once overflowed it (connections reset or retried a second later). A
  // second listen() on the socket sets the system's maximum instead.
  if (port >= 0 && listenSocket_ >= 0)
    ::listen(listenSocket_, SOMAXCONN);
  return port;
}

bool Server::listen() { return http_->listen_after_bind(); }

void Server::shutdown() {
  if (shuttingDown_.exchange(true))
    return;
  scheduler_->stopAccepting();
  scheduler_->drainAndStop(Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(
                                              options_.shutdownTimeoutSec * 1000)));
  http_->stop();
}

void Server::routes() {
  httplib::Server &h = *http_;
  // SO_REUSEADDR (a restart binds at once) but not cpp-httplib's default
  // SO_REUSEPORT, with which a second server on the same port would bind
  // too and share the connections silently; and the socket, for bind().
  h.set_socket_options([this](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listenSocket_ = sock;
  });
  h.set_payload_max_length(options_.maxBodyBytes);
  h.set_read_timeout(options_.readTimeoutSec, 0);
  h.set_write_timeout(options_.readTimeoutSec, 0);
  // A connection holds a thread while it streams: enough for every slot
  // and queued request, and some for /health and /metrics.
  const size_t threads = std::min<size_t>(options_.parallel + options_.queue + 8, 1024);
  h.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };

  h.set_logger([this](const httplib::Request &req, const httplib::Response &res) {
    metrics_.countRequest(endpointLabel(req.path), res.status);
  });
  // Statuses httplib sets itself (404, 405, 413 for a body over the limit,
  // 400 for a malformed request line) get OpenAI's error body too.
  h.set_error_handler([](const httplib::Request &req, httplib::Response &res) {
    if (!res.body.empty())
      return;
    ApiError e;
    e.status = res.status;
    if (res.status == 404) {
      e.message = "no such endpoint: " + req.method + " " + req.path;
      e.code = "not_found";
    } else if (res.status == 413) {
      e.message = "the request body is larger than the server's limit";
      e.code = "request_too_large";
    } else {
      e.message = "the request could not be read (HTTP " + std::to_string(res.status) + ")";
    }
    res.set_content(errorBody(e), "application/json");
  });
  h.set_exception_handler([](const httplib::Request &, httplib::Response &res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception &ex) {
      what = std::string("internal error: ") + ex.what();
    } catch (...) {
    }
    sendError(res, ApiError{500, what, "server_error", "", ""});
  });

  h.Get("/health", [this](const httplib::Request &, httplib::Response &res) {
    if (shuttingDown_) {
      res.status = 503;
      res.set_content(R"({"status":"shutting down"})", "application/json");
      return;
    }
    res.set_content(dump({{"status", "ok"}, {"slots", metrics_.slots.load()},
                          {"slots_active", metrics_.activeSlots.load()},
                          {"queue", metrics_.queueDepth.load()}}),
                    "application/json");
  });
  h.Get("/v1/models", [this](const httplib::Request &, httplib::Response &res) {
    json m = {{"id", modelName_},
              {"object", "model"},
              {"created", created_},
              {"owned_by", "ssm-opt"},
              {"context_length", context_}};
    res.set_content(dump({{"object", "list"}, {"data", json::array({m})}}), "application/json");
  });
  h.Get("/metrics", [this](const httplib::Request &, httplib::Response &res) {
    res.set_content(metrics_.text(scheduler_->cache().stats()), "text/plain; version=0.0.4");
  });
  // Whether the client has left, for a non-streaming request that waits for
  // its whole answer (its socket is found on the first ask).
  auto clientLeft = [this](const httplib::Request &req) {
    return [this, &req, fd = -2]() mutable {
      if (fd == -2)
        fd = clientSocket(req, listenSocket_);
      return fd >= 0 && peerClosed(fd);
    };
  };
  h.Post("/v1/completions", [this, clientLeft](const httplib::Request &req, httplib::Response &res) {
    complete(req.body, Endpoint::Completions, &res, clientLeft(req));
  });
  h.Post("/v1/chat/completions",
         [this, clientLeft](const httplib::Request &req, httplib::Response &res) {
           complete(req.body, Endpoint::Chat, &res, clientLeft(req));
         });
}

namespace {

/// What a response needs besides the job.
struct ResponseShape {
  Endpoint endpoint;
  std::string id, model;
  int64_t created;
  int64_t promptTokens;
  bool includeUsage;
};

json usageOf(const ResponseShape &r, const Job &job) {
  const int64_t completion = static_cast<int64_t>(job.tokens.size());
  return {{"prompt_tokens", r.promptTokens},
          {"completion_tokens", completion},
          {"total_tokens", r.promptTokens + completion},
          {"prompt_tokens_details", {{"cached_tokens", job.cachedTokens}}}};
}

json finishReasonOf(const Job &job) {
  if (job.finishReason == "stop" || job.finishReason == "length")
    return job.finishReason;
  return nullptr;
}

/// One streamed chunk: `text` added, and the end when `finish` is set.
json chunkOf(const ResponseShape &r, const std::string &text, const std::vector<int32_t> &ids,
             const json &finish, bool first) {
  json choice = {{"index", 0}, {"finish_reason", finish}, {"logprobs", nullptr}};
  if (r.endpoint == Endpoint::Chat) {
    json delta = json::object();
    if (first)
      delta["role"] = "assistant";
    if (!text.empty() || (first && finish.is_null()))
      delta["content"] = text;
    choice["delta"] = delta;
  } else {
    choice["text"] = text;
  }
  choice["token_ids"] = ids; // not OpenAI's: the ids behind `text`
  return {{"id", r.id},
          {"object", r.endpoint == Endpoint::Chat ? "chat.completion.chunk" : "text_completion"},
          {"created", r.created},
          {"model", r.model},
          {"choices", json::array({choice})}};
}

json responseOf(const ResponseShape &r, const Job &job) {
  json choice = {{"index", 0}, {"finish_reason", finishReasonOf(job)}, {"logprobs", nullptr}};
  if (r.endpoint == Endpoint::Chat)
    choice["message"] = {{"role", "assistant"}, {"content", job.text}};
  else
    choice["text"] = job.text;
  choice["token_ids"] = job.tokens;
  return {{"id", r.id},
          {"object", r.endpoint == Endpoint::Chat ? "chat.completion" : "text_completion"},
          {"created", r.created},
          {"model", r.model},
          {"choices", json::array({choice})},
          {"usage", usageOf(r, job)}};
}

} // namespace

void Server::complete(const std::string &body, Endpoint endpoint, void *resp,
                      const std::function<bool()> &clientLeft) {
  httplib::Response &res = *static_cast<httplib::Response *>(resp);
  CompletionRequest req;
  if (auto e = parseCompletionRequest(body, endpoint, limits_, req))
    return sendError(res, *e);
  auto job = std::make_shared<Job>();
  const char *promptParam = endpoint == Endpoint::Chat ? "messages" : "prompt";
  // The prompt's tokens.
  if (endpoint == Endpoint::Chat) {
    if (!chat_.available)
      return sendError(res, ApiError::badRequest(chat_.unavailable, "messages", "chat_unavailable"));
    size_t historyEnd = 0;
    std::string text = formatChatML(req.messages, &historyEnd);
    if (rt::Status st = tokenizer_->encode(text, /*addSpecial=*/false, job->prompt); !st)
      return sendError(res, ApiError::badRequest(st.message(), "messages", "invalid_value"));
    std::vector<int32_t> history;
    if (historyEnd > 0 &&
        tokenizer_->encode(std::string_view(text).substr(0, historyEnd), false, history).isOk() &&
        history.size() <= job->prompt.size() &&
        std::equal(history.begin(), history.end(), job->prompt.begin()))
      job->cachePoints.push_back(history.size());
    if (int32_t end = tokenizer_->tokenToId("<|im_end|>"); end >= 0)
      job->stopTokens.push_back(end);
  } else if (req.promptIsIds) {
    job->prompt = std::move(req.promptIds);
  } else if (tokenizer_) {
    // As ssm-run --prompt: with the tokenizer's special tokens (a bos).
    if (rt::Status st = tokenizer_->encode(req.promptText, /*addSpecial=*/true, job->prompt); !st)
      return sendError(res, ApiError::badRequest(st.message(), "prompt", "invalid_value"));
  } else if (model_->spec().byteTokens) {
    for (unsigned char c : req.promptText)
      job->prompt.push_back(c);
  } else {
    return sendError(res, ApiError::badRequest(
                              "this model has no tokenizer (no tokenizer.json in its folder): send "
                              "the prompt as an array of token ids",
                              "prompt", "no_tokenizer"));
  }
  if (job->prompt.empty())
    return sendError(res, ApiError::badRequest("the prompt has no tokens", promptParam, "invalid_value"));
  const int64_t vocab = model_->vocab();
  for (int32_t t : job->prompt)
    if (t < 0 || (vocab > 0 && t >= vocab))
      return sendError(res, ApiError::badRequest("token " + std::to_string(t) +
                                                     " is outside the vocabulary of " +
                                                     std::to_string(vocab),
                                                 promptParam, "invalid_value"));
  const int64_t n = static_cast<int64_t>(job->prompt.size());
  if (n + 1 > context_)
    return sendError(res, ApiError::badRequest(
                              "the prompt is " + std::to_string(n) + " tokens; this server's context "
                              "holds " + std::to_string(context_) + " positions (prompt and "
                              "generated tokens together)",
                              promptParam, "context_length_exceeded"));
  if (tokenizer_ && tokenizer_->special().eos >= 0 &&
      std::find(job->stopTokens.begin(), job->stopTokens.end(), tokenizer_->special().eos) ==
          job->stopTokens.end())
    job->stopTokens.push_back(tokenizer_->special().eos);
  job->maxTokens = req.maxTokens > 0 ? req.maxTokens
                   : endpoint == Endpoint::Completions ? 16 // OpenAI's default
                                                       : limits_.maxTokens;
  job->stopStrings = req.stop;
  job->streaming = req.stream;
  std::string why;
  SamplingSettings sampling = req.sampling;
  if (!sampling.hasSeed) {
    static std::atomic<uint64_t> counter{std::random_device{}()};
    sampling.seed = counter.fetch_add(0x9E3779B97F4A7C15ull);
  }
  job->choose = makeTokenChooser(sampling, job->prompt, why);
  if (!job->choose)
    return sendError(res, ApiError::badRequest(why, "", "invalid_value"));

  if (shuttingDown_)
    return sendError(res, ApiError{503, "the server is shutting down", "server_error", "", "shutting_down"});
  switch (scheduler_->submit(job)) {
  case Scheduler::Submitted::Ok:
    break;
  case Scheduler::Submitted::QueueFull:
    return sendError(res, ApiError{503, "the server is busy: every slot is taken and the queue is full; "
                                        "try again",
                                   "server_error", "", "queue_full"});
  case Scheduler::Submitted::ShuttingDown:
    return sendError(res, ApiError{503, "the server is shutting down", "server_error", "", "shutting_down"});
  }

  ResponseShape shape{endpoint,
                      (endpoint == Endpoint::Chat ? "chatcmpl-" : "cmpl-") + std::to_string(created_) +
                          "-" + std::to_string(nextId_++),
                      req.model.empty() ? modelName_ : req.model,
                      static_cast<int64_t>(std::time(nullptr)), n, req.includeUsage};

  if (!req.stream) {
    // Woken when the job ends; every 200 ms meanwhile to see whether the
    // client has left, which cancels the job (the scheduler ends it,
    // "cancelled", and frees its slot) and leaves no one to answer.
    std::unique_lock<std::mutex> lock(job->mutex);
    while (!job->changed.wait_for(lock, std::chrono::milliseconds(200),
                                  [&] { return job->finished; }))
      if (clientLeft && !job->cancelled && clientLeft())
        job->cancelled = true;
    if (job->cancelled)
      return;
    if (job->error)
      return sendError(res, *job->error);
    res.set_content(dump(responseOf(shape, *job)), "application/json");
    return;
  }

  // Server-Sent Events: a chunk per piece of text released, then the end,
  // the usage (stream_options.include_usage) and [DONE]. A failed write (the
  // client went away) cancels the job, which frees its slot.
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream",
      [job, shape](size_t, httplib::DataSink &sink) {
        auto send = [&](const std::string &event) {
          if (!sink.write(event.data(), event.size())) {
            job->cancelled = true;
            return false;
          }
          return true;
        };
        size_t textSent = 0, idsSent = 0;
        bool first = true;
        for (;;) {
          std::string text;
          std::vector<int32_t> ids;
          bool finished;
          {
            std::unique_lock<std::mutex> lock(job->mutex);
            const bool changed = job->changed.wait_for(lock, std::chrono::seconds(1), [&] {
              return job->finished || job->text.size() > textSent || job->tokens.size() > idsSent;
            });
            finished = job->finished;
            text = job->text.substr(textSent);
            ids.assign(job->tokens.begin() + static_cast<std::ptrdiff_t>(idsSent), job->tokens.end());
            textSent = job->text.size();
            idsSent = job->tokens.size();
            if (!changed) {
              lock.unlock();
              // A comment keeps the connection alive and finds a client that left.
              if (!send(": keep-alive\n\n"))
                return false;
              continue;
            }
          }
          if (finished) {
            if (job->error) {
              send("data: " + dump(json::parse(errorBody(*job->error))) + "\n\n");
            } else {
              if (!text.empty() || !ids.empty() || first)
                if (!send("data: " + dump(chunkOf(shape, text, ids, nullptr, first)) + "\n\n"))
                  return false;
              if (!send("data: " + dump(chunkOf(shape, "", {}, finishReasonOf(*job), false)) + "\n\n"))
                return false;
              if (shape.includeUsage) {
                json u = chunkOf(shape, "", {}, nullptr, false);
                u["choices"] = json::array();
                u["usage"] = usageOf(shape, *job);
                if (!send("data: " + dump(u) + "\n\n"))
                  return false;
              }
            }
            send("data: [DONE]\n\n");
            sink.done();
            return true;
          }
          if (text.empty() && ids.empty())
            continue;
          if (!send("data: " + dump(chunkOf(shape, text, ids, nullptr, first)) + "\n\n"))
            return false;
          first = false;
        }
      },
      [job](bool success) {
        if (!success)
          job->cancelled = true;
      });
}

} // namespace ssm::server
