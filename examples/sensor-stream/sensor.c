/* A long stream of sensor readings into a fixed-size state: the compiled filter bank
 * (filter.mlir, ssm-compile --name sensor) is called on 16 readings per channel at a time,
 * carrying its 16 x 4 state, for a million readings per channel. The process's resident
 * memory is printed as it goes: it stays flat, where a Transformer's KV cache would grow
 * with every reading (printed beside it for one attention layer as wide as the input).
 * Every output is checked against a double-precision loop run alongside.
 *
 *   sensor [readings per channel, default 1000000]
 * Exit 0 when the outputs agree (1e-3 + 1e-3 |ref|) and the memory after the first report
 * stays within 1% (and 256 KiB); 1 otherwise. */
#include "sensor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { D = 16, N = 4, T = 16 };

static halide_buffer_t tensor(float *data, int rank, const int *shape, halide_dimension_t *dims) {
  halide_buffer_t b;
  memset(&b, 0, sizeof b);
  int stride = 1;
  for (int k = 0; k < rank; ++k) { /* Halide's dim 0 is the last MLIR axis */
    dims[k].min = 0;
    dims[k].extent = shape[rank - 1 - k];
    dims[k].stride = stride;
    dims[k].flags = 0;
    stride *= dims[k].extent;
  }
  b.host = (uint8_t *)data;
  b.type.code = halide_type_float;
  b.type.bits = 32;
  b.type.lanes = 1;
  b.dimensions = rank;
  b.dim = dims;
  return b;
}

static long rssKiB(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
      break;
  if (f)
    fclose(f);
  return kib;
}

int main(int argc, char **argv) {
  long total = argc > 1 ? atol(argv[1]) : 1000000;
  if (total <= 0 || total % T) {
    fprintf(stderr, "sensor: the reading count must be a positive multiple of %d\n", T);
    return 2;
  }
  static float u[T * D], delta[T * D], B[T * N], C[T * N], y[T * D], A[D * N], Dv[D];
  static float h[D * N], hNext[D * N];
  static double ref[D * N];
  for (int d = 0; d < D; ++d) {
    Dv[d] = 0.5f;
    for (int n = 0; n < N; ++n)
      A[d * N + n] = -(0.05f + 0.3f * n + 0.02f * d); /* slow to fast decays per channel */
  }
  halide_dimension_t dims[9][3];
  int seq[3] = {1, T, D}, bc[3] = {1, T, N}, as[2] = {D, N}, ds[1] = {D}, hs[3] = {1, D, N};
  halide_buffer_t bh0 = tensor(h, 3, hs, dims[0]), bu = tensor(u, 3, seq, dims[1]),
                  bdt = tensor(delta, 3, seq, dims[2]), bA = tensor(A, 2, as, dims[3]),
                  bB = tensor(B, 3, bc, dims[4]), bC = tensor(C, 3, bc, dims[5]),
                  bD = tensor(Dv, 1, ds, dims[6]), by = tensor(y, 3, seq, dims[7]),
                  bh = tensor(hNext, 3, hs, dims[8]);
  double worst = 0;
  long firstRss = -1, lastRss = -1;
  unsigned noise = 1;
  printf("%12s %10s %14s\n", "readings", "rss_KiB", "kv_cache_KiB");
  for (long t0 = 0; t0 < total; t0 += T) {
    for (int t = 0; t < T; ++t) {
      double time = (double)(t0 + t);
      for (int d = 0; d < D; ++d) {
        noise = noise * 1664525u + 1013904223u;
        u[t * D + d] = (float)(sin(time * (0.001 + 0.0005 * d)) + 0.1 * ((noise >> 8) / 16777216.0 - 0.5));
        delta[t * D + d] = -1.0f + 0.1f * (float)(d % 4);
      }
      for (int n = 0; n < N; ++n) {
        B[t * N + n] = 1.0f / (1 + n);
        C[t * N + n] = n % 2 ? -0.5f : 1.0f;
      }
    }
    int rc = sensor_chunk(&bh0, &bu, &bdt, &bA, &bB, &bC, &bD, &by, &bh);
    if (rc != 0) {
      fprintf(stderr, "sensor: the kernel returned Halide error %d\n", rc);
      return 2;
    }
    memcpy(h, hNext, sizeof h); /* the state the next call starts from */
    for (int t = 0; t < T; ++t) /* the same filters in double, with their own state */
      for (int d = 0; d < D; ++d) {
        double dt = log1p(exp((double)delta[t * D + d])), acc = 0;
        for (int n = 0; n < N; ++n) {
          ref[d * N + n] = exp(dt * A[d * N + n]) * ref[d * N + n] + dt * B[t * N + n] * u[t * D + d];
          acc += C[t * N + n] * ref[d * N + n];
        }
        acc += Dv[d] * u[t * D + d];
        worst = fmax(worst, fabs(y[t * D + d] - acc) / (1e-3 + 1e-3 * fabs(acc)));
      }
    long done = t0 + T;
    if (done % (total / 10 > T ? total / 10 / T * T : T) == 0 || done == total) {
      lastRss = rssKiB();
      if (firstRss < 0)
        firstRss = lastRss;
      /* One attention layer keeps K and V (D floats each) for every reading so far. */
      printf("%12ld %10ld %14ld\n", done, lastRss, (long)(done * 2 * D * sizeof(float) / 1024));
      fflush(stdout);
    }
  }
  int flat = lastRss <= firstRss + firstRss / 100 + 256;
  printf("outputs vs double loop: worst=%.3g %s\n", worst, worst <= 1 ? "PASS" : "FAIL");
  printf("state: %d floats; rss %ld -> %ld KiB: %s\n", D * N, firstRss, lastRss,
         flat ? "flat PASS" : "grew FAIL");
  return worst <= 1 && flat ? 0 : 1;
}
