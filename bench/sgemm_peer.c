/* The peers of bench/matmul_bench.py: OpenBLAS sgemm and this machine's read bandwidth.
 *
 *   sgemm_peer gemm M N K REPEAT   C[M, N] = A[M, K] B[N, K]^T (the nn.Linear layout,
 *                                  as our matmul_transpose_b), cblas_sgemm row-major;
 *                                  prints median_ms=<x> over REPEAT calls after a warm-up.
 *   sgemm_peer read BYTES REPEAT THREADS
 *                                  sums a BYTES-long float array with THREADS threads
 *                                  (each its contiguous part); prints median_ms and GB/s.
 * Threads of OpenBLAS: OPENBLAS_NUM_THREADS. Build: cc -O3 -march=native sgemm_peer.c -lopenblas -lpthread
 */
#include <cblas.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, n, sizeof(double), cmp);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct part { const float *p; size_t n; float sum; };

static void *sum_part(void *arg) {
  struct part *q = arg;
  float s[64] = {0}; /* four vectors of partial sums: four loads in flight */
  size_t i = 0;
  for (; i + 64 <= q->n; i += 64)
    for (int l = 0; l < 64; ++l)
      s[l] += q->p[i + l];
  for (; i < q->n; ++i)
    s[0] += q->p[i];
  float t = 0;
  for (int l = 0; l < 64; ++l)
    t += s[l];
  q->sum = t;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc >= 6 && strcmp(argv[1], "gemm") == 0) {
    int m = atoi(argv[2]), n = atoi(argv[3]), k = atoi(argv[4]), rep = atoi(argv[5]);
    float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * n * k),
          *c = malloc(sizeof(float) * m * n);
    for (long i = 0; i < (long)m * k; ++i) a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    for (long i = 0; i < (long)n * k; ++i) b[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
    double *t = malloc(sizeof(double) * rep);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a, k, b, k, 0.0f, c, n);
    for (int r = 0; r < rep; ++r) {
      double t0 = now_ms();
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a, k, b, k, 0.0f, c, n);
      t[r] = now_ms() - t0;
    }
    printf("median_ms=%.6f checksum=%g\n", median(t, rep), (double)c[0]);
    return 0;
  }
  if (argc >= 5 && strcmp(argv[1], "read") == 0) {
    size_t bytes = strtoull(argv[2], NULL, 10);
    int rep = atoi(argv[3]), threads = atoi(argv[4]);
    size_t n = bytes / sizeof(float);
    float *p = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; ++i) p[i] = 1.0f;
    double *t = malloc(sizeof(double) * rep);
    pthread_t th[64];
    struct part parts[64];
    float total = 0;
    for (int r = -1; r < rep; ++r) {
      double t0 = now_ms();
      for (int i = 0; i < threads; ++i) {
        parts[i].p = p + n / threads * i;
        parts[i].n = i == threads - 1 ? n - n / threads * i : n / threads;
        pthread_create(&th[i], NULL, sum_part, &parts[i]);
      }
      for (int i = 0; i < threads; ++i) {
        pthread_join(th[i], NULL);
        total += parts[i].sum;
      }
      if (r >= 0)
        t[r] = now_ms() - t0;
    }
    double ms = median(t, rep);
    printf("median_ms=%.6f gb_per_s=%.3f checksum=%g\n", ms, bytes / ms / 1e6, (double)total);
    return 0;
  }
  fprintf(stderr, "usage: sgemm_peer gemm M N K REPEAT | read BYTES REPEAT THREADS\n");
  return 2;
}
