// llama_decode: llama.cpp's decode (and prefill) time on a GGUF with its
// repacked weight buffers on or off (a measurement tool, built against a
// llama.cpp checkout; not part of the project's build).
//
//   llama_decode MODEL.gguf decode|prefill N THREADS REPEAT [repack]
//
// Times what llama-bench's tg<N> (decode: N tokens one llama_decode each,
// logits after each) and pp<N> (prefill: one llama_decode of N tokens, last
// logits) time, the same way: a context of N tokens with llama.cpp's default
// context parameters (F16 K/V cache, flash attention auto, n_batch 2048), one
// untimed warm-up decode, then REPEAT timed runs each from an empty cache,
// random token ids (std::rand() % n_vocab, as llama-bench). Prints
// llama-bench's -o json shape, [{"samples_ns": [...], "avg_ns": ...}], so
// bench/realsize_bench.py reads both alike.
//
// Why not llama-bench: its model parameters keep use_extra_bufts (llama.cpp's
// repacked CPU_REPACK / AMX weight buffers) on, and it has no option to turn
// them off (tools/llama-bench/llama-bench.cpp at d32676d7: -ot <pattern>=CPU
// still picks the extra buffer types, llama-model-loader.cpp's "when
// overriding to a CPU buffer, consider the extra buffer types"); llama-cli's
// -nr / --no-repack sets it, through common/. On the AMX machines of this
// sandbox those buffers' kernels die with an illegal instruction or crawl, so
// this tool loads with use_extra_bufts = false unless `repack` is given.
//
// Build (bench/realsize_bench.py --llama-no-repack does it), one line:
//   g++ -O2 -std=c++17 -I$L/include -I$L/ggml/include llama_decode.cpp
//       -L$L/build/bin -lllama -lggml -lggml-base -Wl,-rpath,$L/build/bin
#include "llama.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 6 || (std::strcmp(argv[2], "decode") && std::strcmp(argv[2], "prefill"))) {
    std::fprintf(stderr, "usage: llama_decode MODEL.gguf decode|prefill N THREADS REPEAT [repack]\n");
    return 2;
  }
  const bool decode = std::strcmp(argv[2], "decode") == 0;
  const int n = std::atoi(argv[3]), threads = std::atoi(argv[4]), repeat = std::atoi(argv[5]);
  const bool repack = argc > 6 && std::strcmp(argv[6], "repack") == 0;
  if (n <= 0 || threads <= 0 || repeat <= 0) {
    std::fprintf(stderr, "llama_decode: N, THREADS and REPEAT must be positive\n");
    return 2;
  }
  llama_backend_init();
  llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = 0;
  mp.use_extra_bufts = repack;
  llama_model *model = llama_model_load_from_file(argv[1], mp);
  if (!model) {
    std::fprintf(stderr, "llama_decode: cannot load %s\n", argv[1]);
    return 2;
  }
  llama_context_params cp = llama_context_default_params();
  cp.n_ctx = uint32_t(n + 1);
  cp.n_threads = cp.n_threads_batch = threads;
  llama_context *ctx = llama_init_from_model(model, cp);
  if (!ctx) {
    std::fprintf(stderr, "llama_decode: cannot make a context\n");
    return 2;
  }
  const int nVocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
  llama_memory_t mem = llama_get_memory(ctx);
  std::vector<llama_token> tokens(static_cast<size_t>(n));
  auto run = [&](bool timed) -> int64_t {
    llama_memory_clear(mem, true);
    for (llama_token &t : tokens)
      t = std::rand() % nVocab;
    auto t0 = std::chrono::steady_clock::now();
    if (decode) {
      for (int i = 0; i < (timed ? n : 1); ++i) {
        llama_token t = tokens[size_t(i)];
        if (llama_decode(ctx, llama_batch_get_one(&t, 1)) != 0) {
          std::fprintf(stderr, "llama_decode failed\n");
          std::exit(1);
        }
      }
    } else if (llama_decode(ctx, llama_batch_get_one(tokens.data(), timed ? n : 1)) != 0) {
      std::fprintf(stderr, "llama_decode failed\n");
      std::exit(1);
    }
    llama_synchronize(ctx);
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now() - t0).count();
  };
  run(false); // warm-up
  std::vector<int64_t> ns;
  int64_t sum = 0;
  for (int r = 0; r < repeat; ++r) {
    ns.push_back(run(true));
    sum += ns.back();
  }
  std::printf("[{\"test\": \"%s%d\", \"repack\": %s, \"samples_ns\": [", decode ? "tg" : "pp", n,
              repack ? "true" : "false");
  for (size_t i = 0; i < ns.size(); ++i)
    std::printf("%s%lld", i ? ", " : "", static_cast<long long>(ns[i]));
  std::printf("], \"avg_ns\": %lld}]\n", static_cast<long long>(sum / repeat));
  llama_free(ctx);
  llama_model_free(model);
  return 0;
}
