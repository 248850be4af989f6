/* The rwkv.cpp peer of bench/realsize_bench.py: times an rwkv.cpp build on a model file.
 *
 *   rwkv_cpp_peer LIBRWKV MODEL.bin TOKENS.i32 THREADS MODE REPEAT [CHUNK]
 *     LIBRWKV     path of rwkv.cpp's shared library (librwkv.so, built locally for the
 *                 measurement only; it is opened with dlopen, no header needed)
 *     TOKENS.i32  raw little-endian int32 tokens
 *     MODE        prefill: rwkv_eval_sequence_in_chunks over all the tokens from the
 *                          initial state, logits of the last one (CHUNK tokens per
 *                          graph, default 16 as rwkv.h recommends);
 *                 decode:  rwkv_eval per token, logits after each one.
 *   Prints median_ms=<x> (one call of the whole prefill, or the whole decode loop) over
 *   REPEAT runs after one warm-up run, and the last logit for a sanity check.
 * Build: cc -O2 rwkv_cpp_peer.c -o rwkv_cpp_peer -ldl
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void *(*init_fn)(const char *, uint32_t, uint32_t);
typedef bool (*eval_fn)(void *, uint32_t, const float *, float *, float *);
typedef bool (*eval_chunks_fn)(void *, const uint32_t *, size_t, size_t, const float *, float *,
                               float *);
typedef size_t (*len_fn)(const void *);
typedef void (*init_state_fn)(const void *, float *);

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void *sym(void *lib, const char *name) {
  void *p = dlsym(lib, name);
  if (!p) {
    fprintf(stderr, "rwkv_cpp_peer: %s has no symbol %s\n", "librwkv", name);
    exit(2);
  }
  return p;
}

int main(int argc, char **argv) {
  if (argc < 7) {
    fprintf(stderr, "usage: rwkv_cpp_peer LIBRWKV MODEL.bin TOKENS.i32 THREADS prefill|decode REPEAT [CHUNK]\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "rwkv_cpp_peer: %s\n", dlerror());
    return 2;
  }
  init_fn init = (init_fn)sym(lib, "rwkv_init_from_file");
  eval_fn eval = (eval_fn)sym(lib, "rwkv_eval");
  eval_chunks_fn chunks = (eval_chunks_fn)sym(lib, "rwkv_eval_sequence_in_chunks");
  len_fn state_len = (len_fn)sym(lib, "rwkv_get_state_len");
  len_fn logits_len = (len_fn)sym(lib, "rwkv_get_logits_len");
  init_state_fn init_state = (init_state_fn)sym(lib, "rwkv_init_state");

  FILE *f = fopen(argv[3], "rb");
  if (!f) {
    fprintf(stderr, "rwkv_cpp_peer: cannot open %s\n", argv[3]);
    return 2;
  }
  fseek(f, 0, SEEK_END);
  long bytes = ftell(f);
  fseek(f, 0, SEEK_SET);
  size_t n = (size_t)bytes / 4;
  uint32_t *tokens = malloc(n * 4 + 4);
  if (fread(tokens, 4, n, f) != n) {
    fprintf(stderr, "rwkv_cpp_peer: short read of %s\n", argv[3]);
    return 2;
  }
  fclose(f);

  int threads = atoi(argv[4]);
  int prefill = strcmp(argv[5], "prefill") == 0;
  int repeat = atoi(argv[6]);
  size_t chunk = argc > 7 ? (size_t)atoi(argv[7]) : 16;
  void *ctx = init(argv[2], (uint32_t)threads, 0);
  if (!ctx) {
    fprintf(stderr, "rwkv_cpp_peer: rwkv_init_from_file(%s) failed\n", argv[2]);
    return 2;
  }
  size_t sl = state_len(ctx), ll = logits_len(ctx);
  float *state = malloc(sl * sizeof(float)), *logits = malloc(ll * sizeof(float));
  double *ms = malloc(sizeof(double) * (repeat + 1));
  for (int r = 0; r <= repeat; ++r) {
    init_state(ctx, state);
    double t0 = now_ms();
    bool ok = true;
    if (prefill) {
      ok = chunks(ctx, tokens, n, chunk, state, state, logits);
    } else {
      for (size_t i = 0; i < n && ok; ++i)
        ok = eval(ctx, tokens[i], state, state, logits);
    }
    ms[r] = now_ms() - t0;
    if (!ok) {
      fprintf(stderr, "rwkv_cpp_peer: evaluation failed\n");
      return 1;
    }
  }
  qsort(ms + 1, repeat, sizeof(double), cmp); /* ms[0] is the warm-up */
  printf("median_ms=%.4f tokens=%zu threads=%d mode=%s chunk=%zu last_logit0=%.6g\n",
         ms[1 + repeat / 2], n, threads, prefill ? "prefill" : "decode", chunk, logits[0]);
  return 0;
}
