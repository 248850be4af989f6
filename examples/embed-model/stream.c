/* A C program that embeds an imported model through the model library (ssm_runtime.h) and
 * streams tokens: prefill a prompt, then greedy generation one token at a time, each
 * printed as it comes. The state can be saved after the prompt and resumed in another
 * process.
 *
 *   stream <model-dir> --prompt TEXT [--generate N] [--save FILE]
 *   stream <model-dir> --load FILE [--generate N]
 *   options: --expected F.bin --tol X   compare the logits after the prompt (float32 values)
 *            --logits-out F.bin         write the logits after the last token (float32)
 *            --report-memory            print the peak and current resident memory and the
 *                                       weights' bytes (mapped in place, converted) at the end
 *            --threads N                kernel threads (default: one per core)
 *            --report-every K           while generating, every K tokens: position, resident
 *                                       memory and microseconds per token over those K (stderr)
 *
 * Tokens are the prompt's bytes (the tiny byte-level models); generated tokens are printed
 * as bytes. Exit 0 on success, 1 when --expected does not match, 2 on any error (the
 * library's message on stderr). Build: cc stream.c $(pkg-config --cflags --libs ssm-runtime). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c11 */
#include "ssm_runtime.h"

#include <math.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what) {
  fprintf(stderr, "stream: %s: %s\n", what, ssm_last_error());
  return 2;
}

/* VmHWM / VmRSS of /proc/self/status, in KiB (-1 if unknown). */
static long procStatus(const char *key) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  size_t n = strlen(key);
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, key, n) && line[n] == ':') {
      kib = atol(line + n + 1);
      break;
    }
  if (f)
    fclose(f);
  return kib;
}

static int argmax(const float *v, int64_t n) {
  int best = 0;
  for (int64_t i = 1; i < n; ++i)
    if (v[i] > v[best])
      best = (int)i;
  return best;
}

int main(int argc, char **argv) {
  const char *dir = NULL, *prompt = NULL, *save = NULL, *load = NULL, *expected = NULL;
  const char *logitsOut = NULL;
  long generate = 0;
  double tol = 1e-4;
  int reportMemory = 0;
  long reportEvery = 0;
  int threads = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--prompt") && v) prompt = v, ++i;
    else if (!strcmp(a, "--generate") && v) generate = atol(v), ++i;
    else if (!strcmp(a, "--save") && v) save = v, ++i;
    else if (!strcmp(a, "--load") && v) load = v, ++i;
    else if (!strcmp(a, "--expected") && v) expected = v, ++i;
    else if (!strcmp(a, "--tol") && v) tol = atof(v), ++i;
    else if (!strcmp(a, "--logits-out") && v) logitsOut = v, ++i;
    else if (!strcmp(a, "--report-memory")) reportMemory = 1;
    else if (!strcmp(a, "--report-every") && v) reportEvery = atol(v), ++i;
    else if (!strcmp(a, "--threads") && v) threads = atoi(v), ++i;
    else if (a[0] != '-' && !dir) dir = a;
    else {
      fprintf(stderr, "stream: unknown or incomplete option '%s'\n", a);
      return 2;
    }
  }
  if (!dir || !prompt == !load) {
    fprintf(stderr, "usage: stream <model-dir> (--prompt TEXT | --load FILE) [--generate N] "
                    "[--save FILE] [--expected F.bin [--tol X]] [--logits-out F.bin]\n");
    return 2;
  }

  ssm_model_t *model;
  if (ssm_model_open(dir, &model) != SSM_OK)
    return fail("cannot open the model");
  if (ssm_model_set_threads(model, threads) != SSM_OK)
    return fail("--threads");
  int64_t vocab = ssm_model_vocab_size(model);
  ssm_stream_t *stream;
  if (ssm_stream_create(model, &stream) != SSM_OK)
    return fail("cannot create a stream");
  const float *logits;
  if (load) {
    if (ssm_stream_load_state(stream, load) != SSM_OK)
      return fail("cannot load the state");
  } else {
    size_t n = strlen(prompt);
    int32_t *tokens = malloc(n * sizeof(int32_t));
    for (size_t i = 0; i < n; ++i)
      tokens[i] = (unsigned char)prompt[i];
    if (ssm_stream_prefill(stream, tokens, n, NULL) != SSM_OK)
      return fail("prefill failed");
    free(tokens);
  }
  if (ssm_stream_logits(stream, &logits) != SSM_OK)
    return fail("no logits");
  fprintf(stderr, "stream: position %lld, vocabulary %lld\n", (long long)ssm_stream_position(stream),
          (long long)vocab);
  int status = 0;
  if (expected) {
    FILE *f = fopen(expected, "rb");
    float *want = malloc(vocab * sizeof(float));
    if (!f || fread(want, sizeof(float), vocab, f) != (size_t)vocab) {
      fprintf(stderr, "stream: %s: cannot read %lld float32 logits\n", expected, (long long)vocab);
      return 2;
    }
    fclose(f);
    double worst = 0;
    for (int64_t i = 0; i < vocab; ++i)
      worst = fmax(worst, fabs(logits[i] - want[i]));
    printf("max_abs_diff=%g %s\n", worst, worst <= tol ? "PASS" : "FAIL");
    status = worst <= tol ? 0 : 1;
    free(want);
  }
  if (save && ssm_stream_save_state(stream, save) != SSM_OK)
    return fail("cannot save the state");
  /* Greedy generation: each token is printed, then fed back. */
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < generate; ++i) {
    int next = argmax(logits, vocab);
    putchar(next >= 32 && next < 127 ? next : '?');
    if (!reportEvery)
      fflush(stdout);
    if (ssm_stream_step(stream, next, &logits) != SSM_OK)
      return fail("step failed");
    if (reportEvery && (i + 1) % reportEvery == 0) {
      clock_gettime(CLOCK_MONOTONIC, &t1);
      double us = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / reportEvery;
      fprintf(stderr, "stream: position=%lld rss_kib=%ld us_per_token=%.2f\n",
              (long long)ssm_stream_position(stream), procStatus("VmRSS"), us);
      t0 = t1;
    }
  }
  if (generate)
    putchar('\n');
  if (logitsOut) {
    FILE *f = fopen(logitsOut, "wb");
    if (!f || fwrite(logits, sizeof(float), vocab, f) != (size_t)vocab || fclose(f) != 0) {
      fprintf(stderr, "stream: %s: cannot write the logits\n", logitsOut);
      return 2;
    }
  }
  if (reportMemory) {
    size_t file, mapped, converted;
    ssm_model_weight_bytes(model, &file, &mapped, &converted);
    fprintf(stderr, "stream: memory: peak_rss_kib=%ld rss_kib=%ld weights_file_kib=%zu "
                    "mapped_kib=%zu converted_kib=%zu\n",
            procStatus("VmHWM"), procStatus("VmRSS"), file / 1024, mapped / 1024, converted / 1024);
  }
  ssm_stream_free(stream);
  ssm_model_free(model);
  return status;
}
