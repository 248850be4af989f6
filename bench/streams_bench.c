/* streams_bench.c: decode throughput of several streams stepped together, through the
 * model library's C API (ssm_runtime.h).
 *
 *   streams_bench <batched-dir> <plain-dir> [--streams N] [--steps T] [--rounds R] [--threads K]
 *                 [--modes together-batched,together-threads,alone,batched-1]
 *
 * <batched-dir> is a deployed model folder imported with `ssm-import --batch B` (and
 * compiled): ssm_streams_step runs its streams through @forward_step_batched, B per
 * call. <plain-dir> is the same model without functions.step_batched in model.json
 * (the same weights and compiled/ folder, e.g. symlinked): ssm_streams_step runs each
 * stream's @forward_step on threads, as before the batched function existed.
 * Per round, in alternating order, after one untimed call each:
 *   together-batched  N streams, T calls of ssm_streams_step on <batched-dir>
 *   together-threads  N streams, T calls of ssm_streams_step on <plain-dir>
 *   alone             1 stream, T calls of ssm_stream_step on <plain-dir>
 *   batched-1         1 stream, T calls of ssm_streams_step on <batched-dir> (a padded call)
 * Each stream is first prefilled with a prompt of its own (untimed). Prints tokens/s
 * per round and the medians over the rounds (tokens/s = streams x T / seconds), and the
 * ratios of the medians. Build:
 *   cc -O2 -std=c11 bench/streams_bench.c -Iruntime -Lbuild/lib -lssm_runtime \
 *      -Wl,-rpath,$PWD/build/lib -o streams_bench
 */
#define _POSIX_C_SOURCE 200809L
#include "ssm_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_STREAMS 256
#define MAX_ROUNDS 64

static void check(ssm_status_t s, const char *what) {
  if (s != SSM_OK) {
    fprintf(stderr, "streams_bench: %s: %s: %s\n", what, ssm_status_name(s), ssm_last_error());
    exit(1);
  }
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  double s[MAX_ROUNDS];
  memcpy(s, v, sizeof(double) * (size_t)n);
  qsort(s, (size_t)n, sizeof(double), cmp);
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

typedef struct {
  ssm_model_t *model;
  ssm_stream_t *streams[MAX_STREAMS];
  int n;
} Set;

static void make_set(Set *set, ssm_model_t *model, int n, int64_t vocab) {
  set->model = model;
  set->n = n;
  for (int i = 0; i < n; ++i) {
    check(ssm_stream_create(model, &set->streams[i]), "ssm_stream_create");
    int32_t prompt[8];
    for (int k = 0; k < 8; ++k)
      prompt[k] = (int32_t)((97 * i + 31 * k + 5) % vocab);
    check(ssm_stream_prefill(set->streams[i], prompt, (size_t)(1 + i % 8), NULL), "prefill");
  }
}

/* tokens/s of T steps of every stream of `set`: together (ssm_streams_step) or, for a
 * set of one, ssm_stream_step when `alone`. */
static double run(Set *set, int steps, int alone, int64_t vocab, int warm) {
  int32_t tokens[MAX_STREAMS];
  const float *logits[MAX_STREAMS];
  double t0 = 0;
  for (int k = -warm; k < steps; ++k) {
    if (k == 0)
      t0 = now();
    for (int i = 0; i < set->n; ++i) /* greedy would need the logits; any token will do */
      tokens[i] = (int32_t)((13 * (k + 64) + 7 * i) % vocab);
    if (alone)
      check(ssm_stream_step(set->streams[0], tokens[0], &logits[0]), "ssm_stream_step");
    else
      check(ssm_streams_step(set->streams, (size_t)set->n, tokens, logits), "ssm_streams_step");
  }
  return (double)set->n * steps / (now() - t0);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: streams_bench <batched-dir> <plain-dir> [--streams N] [--steps T] "
                    "[--rounds R] [--threads K]\n");
    return 2;
  }
  int n = 8, steps = 16, rounds = 5, threads = 2;
  const char *modes = "together-batched,together-threads,alone,batched-1";
  for (int i = 3; i + 1 < argc; i += 2) {
    int v = atoi(argv[i + 1]);
    if (!strcmp(argv[i], "--modes")) modes = argv[i + 1];
    else if (!strcmp(argv[i], "--streams")) n = v;
    else if (!strcmp(argv[i], "--steps")) steps = v;
    else if (!strcmp(argv[i], "--rounds")) rounds = v;
    else if (!strcmp(argv[i], "--threads")) threads = v;
    else {
      fprintf(stderr, "streams_bench: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (n < 1 || n > MAX_STREAMS || steps < 1 || rounds < 1 || rounds > MAX_ROUNDS || threads < 0) {
    fprintf(stderr, "streams_bench: --streams 1-%d, --steps >= 1, --rounds 1-%d\n", MAX_STREAMS,
            MAX_ROUNDS);
    return 2;
  }
  ssm_model_t *batched, *plain;
  check(ssm_model_open(argv[1], &batched), argv[1]);
  check(ssm_model_open(argv[2], &plain), argv[2]);
  if (ssm_model_step_batch(batched) < 1 || ssm_model_step_batch(plain) != 0) {
    fprintf(stderr, "streams_bench: %s must have a batched step function (has %lld), %s none "
                    "(has %lld)\n", argv[1], (long long)ssm_model_step_batch(batched), argv[2],
            (long long)ssm_model_step_batch(plain));
    return 2;
  }
  check(ssm_model_set_threads(batched, threads), "threads");
  check(ssm_model_set_threads(plain, threads), "threads");
  const int64_t vocab = ssm_model_vocab_size(plain);
  printf("streams_bench: %d streams, batch %lld, %d steps per round, %d rounds, %d threads\n", n,
         (long long)ssm_model_step_batch(batched), steps, rounds, threads);

  enum { BATCHED, THREADS, ALONE, BATCHED1, MODES };
  const char *names[MODES] = {"together-batched", "together-threads", "alone", "batched-1"};
  int on[MODES];
  for (int m = 0; m < MODES; ++m) {
    const char *at = strstr(modes, names[m]);
    size_t len = strlen(names[m]);
    on[m] = at && (at == modes || at[-1] == ',') && (at[len] == ',' || at[len] == '\0');
  }
  Set sets[MODES] = {{0}};
  if (on[BATCHED]) make_set(&sets[BATCHED], batched, n, vocab);
  if (on[THREADS]) make_set(&sets[THREADS], plain, n, vocab);
  if (on[ALONE]) make_set(&sets[ALONE], plain, 1, vocab);
  if (on[BATCHED1]) make_set(&sets[BATCHED1], batched, 1, vocab);
  double rate[MODES][MAX_ROUNDS] = {{0}};
  for (int r = 0; r < rounds; ++r) {
    printf("round %d:", r);
    for (int m = 0; m < MODES; ++m) {
      int mode = r % 2 ? MODES - 1 - m : m; /* alternate the order */
      if (on[mode])
        rate[mode][r] = run(&sets[mode], steps, mode == ALONE, vocab, 1);
    }
    for (int m = 0; m < MODES; ++m)
      printf(" %s %.2f", names[m], rate[m][r]);
    printf(" tokens/s\n");
  }
  double med[MODES];
  printf("median tokens/s:");
  for (int m = 0; m < MODES; ++m) {
    med[m] = median(rate[m], rounds);
    printf(" %s %.2f", names[m], med[m]);
  }
  printf("\nratios: together-batched / together-threads %.2f, together-batched / alone %.2f, "
         "together-threads / alone %.2f, batched-1 / alone %.2f\n",
         med[BATCHED] / med[THREADS], med[BATCHED] / med[ALONE], med[THREADS] / med[ALONE],
         med[BATCHED1] / med[ALONE]);
  for (int m = 0; m < MODES; ++m)
    for (int i = 0; i < sets[m].n; ++i)
      ssm_stream_free(sets[m].streams[i]);
  ssm_model_free(batched);
  ssm_model_free(plain);
  return 0;
}
