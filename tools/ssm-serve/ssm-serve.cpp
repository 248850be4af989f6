// ssm-serve: an OpenAI-compatible HTTP server for a deployed model folder (the server library, server/, does the work).
#include "server/Server.h"
#include "tools/Version.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <pthread.h>
#include <string>
#include <thread>

namespace {

constexpr int kOk = 0, kFailed = 1, kCannotRun = 2;

const char *kUsage =
    R"(ssm-serve: an OpenAI-compatible HTTP server for a model folder

usage:
  ssm-serve <model-dir> [--host H] [--port P] [--parallel N] [--context N]
                        [--threads N] [--queue N] [--cache-mb N] [--max-tokens N]
                        [--max-body-kb N] [--shutdown-timeout S]
  ssm-serve --help | --version

<model-dir> is an ssm-import folder with compiled modules (ssm-import --compile;
--batch B adds the batched step that decodes B requests per weight read).

Endpoints:
  POST /v1/completions        prompt (text, or an array of token ids), max_tokens,
                              temperature, top_p, top_k, min_p, seed, stop, stream
  POST /v1/chat/completions   messages (ChatML, when the folder's
                              tokenizer_config.json has a ChatML chat_template)
  GET  /health, /v1/models, /metrics (Prometheus text)
With "stream": true, Server-Sent Events: data: {...} chunks, then data: [DONE].

Options:
  --host H            address to listen on (default 127.0.0.1)
  --port P            port (default 8080; 0: any free port, printed)
  --parallel N        requests decoded together, one stream each (default 4)
  --context N         positions per request, prompt and generated tokens: the
                      KV caches' capacity each slot allocates (default: the
                      model's, as ssm-import --context recorded it); a model
                      without KV caches is not sized by it (default 32768).
                      The slots' caches and batched buffers are allocated
                      and zeroed at start, so --parallel x --context sets
                      the start-up time and memory (refused at start when
                      they pass what this process may use)
  --threads N         kernel threads (default 0: one per core)
  --queue N           requests waiting for a slot; past it, 503 with
                      Retry-After (default 64)
  --cache-mb N        prompt cache of states, least recently used out
                      (default 256; 0: off)
  --max-tokens N      the most max_tokens a request may ask (default 4096)
  --max-body-kb N     request bodies past this get 413 (default 4096)
  --shutdown-timeout S  on SIGTERM/SIGINT, requests in flight get S seconds
                      to finish (default 60)

Exit: 0 after a clean shutdown, 1 when serving failed, 2 when it could not start.
)";

bool parseInt(const char *s, long long lo, long long hi, long long &out) {
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(s, &end, 10);
  if (errno || !end || *end || end == s || v < lo || v > hi)
    return false;
  out = v;
  return true;
}

int cannotRun(const std::string &msg) {
  std::cerr << "ssm-serve: error: " << msg << "\n";
  return kCannotRun;
}

} // namespace

int main(int argc, char **argv) {
  ssm::server::ServerOptions o;
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return kOk;
    }
    if (a == "--version") {
      std::cout << ssm::tools::versionText("ssm-serve");
      return kOk;
    }
    std::string value;
    bool hasValue = false;
    if (a.rfind("--", 0) == 0) {
      if (auto eq = a.find('='); eq != std::string::npos) {
        value = a.substr(eq + 1);
        a = a.substr(0, eq);
        hasValue = true;
      } else if (i + 1 < argc) {
        value = argv[++i];
        hasValue = true;
      }
      if (!hasValue)
        return cannotRun(a + " needs a value (--help)");
      long long v = 0;
      auto number = [&](long long lo, long long hi) {
        if (!parseInt(value.c_str(), lo, hi, v)) {
          cannotRun(a + " takes an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                    "], got '" + value + "'");
          return false;
        }
        return true;
      };
      if (a == "--host") {
        o.host = value;
      } else if (a == "--port") {
        if (!number(0, 65535)) return kCannotRun;
        o.port = static_cast<int>(v);
      } else if (a == "--parallel") {
        if (!number(1, 1024)) return kCannotRun;
        o.parallel = static_cast<int>(v);
      } else if (a == "--context") {
        if (!number(1, 1ll << 40)) return kCannotRun;
        o.context = v;
      } else if (a == "--threads") {
        if (!number(0, 1024)) return kCannotRun;
        o.threads = static_cast<int>(v);
      } else if (a == "--queue") {
        if (!number(0, 100000)) return kCannotRun;
        o.queue = static_cast<size_t>(v);
      } else if (a == "--cache-mb") {
        if (!number(0, 1ll << 30)) return kCannotRun;
        o.cacheMb = static_cast<size_t>(v);
      } else if (a == "--max-tokens") {
        if (!number(1, 1ll << 30)) return kCannotRun;
        o.maxTokens = v;
      } else if (a == "--max-body-kb") {
        if (!number(1, 1ll << 30)) return kCannotRun;
        o.maxBodyBytes = static_cast<size_t>(v) << 10;
      } else if (a == "--shutdown-timeout") {
        if (!number(0, 86400)) return kCannotRun;
        o.shutdownTimeoutSec = static_cast<double>(v);
      } else {
        return cannotRun("unknown option " + a + " (--help)");
      }
      continue;
    }
    if (!dir.empty())
      return cannotRun("one model folder, got '" + dir + "' and '" + a + "'");
    dir = a;
  }
  if (dir.empty())
    return cannotRun("no model folder given (--help)");

  // SIGTERM and SIGINT go to a thread that waits for them (blocked here,
  // before any thread starts, so every thread inherits the mask); SIGPIPE
  // (a client gone) is ignored: the write fails instead.
  std::signal(SIGPIPE, SIG_IGN);
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGTERM);
  sigaddset(&stopSignals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

  std::string error;
  std::unique_ptr<ssm::server::Server> server = ssm::server::Server::open(dir, o, error);
  if (!server)
    return cannotRun(error);
  int port = server->bind();
  if (port < 0)
    return cannotRun("cannot listen on " + o.host + ":" + std::to_string(o.port) +
                     " (in use, or not an address of this machine)");
  std::cerr << "ssm-serve: " << server->describe() << "\n";
  if (std::string note = server->prefillNote(); !note.empty())
    std::cerr << "ssm-serve: note: " << note << "\n";
  for (const std::string &w : server->batchedWarnings())
    std::cerr << "ssm-serve: warning: " << w << "\n";
  std::cerr << "ssm-serve: listening on http://" << o.host << ":" << port << std::endl;

  std::thread signals([&] {
    int sig = 0;
    sigwait(&stopSignals, &sig);
    std::cerr << "ssm-serve: " << (sig == SIGTERM ? "SIGTERM" : "SIGINT")
              << ": finishing the requests in flight" << std::endl;
    server->shutdown();
  });
  bool ok = server->listen();
  if (!ok) {
    // listen() failed on its own: wake the signal thread so it ends.
    pthread_kill(signals.native_handle(), SIGTERM);
  }
  signals.join();
  std::cerr << "ssm-serve: stopped" << std::endl;
  return ok ? kOk : kFailed;
}
