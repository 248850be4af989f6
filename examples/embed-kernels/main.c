/* Two kernel modules in one C program: the selective scan compiled twice with different
 * `ssm-compile --name`s (short_scan_scan over 16 steps in one call, long_scan_scan over 600
 * steps in time chunks with the carried state), called through Halide's buffer ABI and
 * checked against a plain double-precision loop; then a call with a wrongly shaped buffer,
 * which returns an error code. Exit 0 when both agree within 1e-4 + 1e-4 |ref| and the
 * wrong call returned an error without writing. Usage: embed-kernels <chunk>, the long
 * scan's "time_chunking" "chunk" from its manifest.json.
 *
 * The calling convention (docs/embedding.md): one halide_buffer_t per MLIR argument in
 * order, then the hidden arguments the manifest lists under "kernel_extra_arguments",
 * then one per result; Halide's dim 0 is the MLIR shape's last (contiguous) axis. */
#include "HalideRuntime.h"
#include "long_scan.h"
#include "short_scan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { D = 16, N = 4 };
static int CHUNK;

/* A row-major tensor of MLIR shape `shape` as a Halide buffer: dims reversed. */
static halide_buffer_t tensor(float *data, int rank, const int *shape, halide_dimension_t *dims) {
  halide_buffer_t b;
  memset(&b, 0, sizeof b);
  int stride = 1;
  for (int k = 0; k < rank; ++k) {
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

static float *alloc(size_t n) { /* kernels' vector loads like 128-byte aligned buffers */
  float *p = aligned_alloc(128, (n * sizeof(float) + 127) / 128 * 128);
  memset(p, 0, n * sizeof(float));
  return p;
}

static unsigned lcg = 12345;
static float uniform(float lo, float hi) {
  lcg = lcg * 1664525u + 1013904223u;
  return lo + (hi - lo) * (float)(lcg >> 8) / 16777216.0f;
}

/* selective_scan_ref of mamba_ssm, time-major, delta_softplus, D skip, h0 = 0. */
static void reference(int L, const float *u, const float *delta, const float *A, const float *B,
                      const float *C, const float *Dv, double *y, double *h) {
  memset(h, 0, sizeof(double) * D * N);
  for (int t = 0; t < L; ++t)
    for (int d = 0; d < D; ++d) {
      double dt = delta[t * D + d], acc = 0;
      dt = dt > 20 ? dt : log1p(exp(dt));
      for (int n = 0; n < N; ++n) {
        h[d * N + n] = exp(dt * A[d * N + n]) * h[d * N + n] + dt * B[t * N + n] * u[t * D + d];
        acc += C[t * N + n] * h[d * N + n];
      }
      y[t * D + d] = acc + Dv[d] * u[t * D + d];
    }
}

static int check(const char *what, int L, const float *y, const float *h, const double *ry,
                 const double *rh) {
  double worst = 0;
  for (int i = 0; i < L * D; ++i)
    worst = fmax(worst, fabs(y[i] - ry[i]) / (1e-4 + 1e-4 * fabs(ry[i])));
  for (int i = 0; i < D * N; ++i)
    worst = fmax(worst, fabs(h[i] - rh[i]) / (1e-4 + 1e-4 * fabs(rh[i])));
  printf("%s: L=%d worst=%.3g %s\n", what, L, worst, worst <= 1 ? "PASS" : "FAIL");
  return worst <= 1;
}

/* Runs one module on L steps; `chunked`: the 600-step module, called per time chunk. */
static int run(const char *what, int L, int chunked) {
  float *u = alloc(L * D), *delta = alloc(L * D), *B = alloc(L * N), *C = alloc(L * N);
  float *A = alloc(D * N), *Dv = alloc(D), *y = alloc(L * D), *h = alloc(D * N), *carry = alloc(D * N);
  for (int i = 0; i < L * D; ++i) {
    u[i] = uniform(-1, 1);
    delta[i] = uniform(-2, 1);
  }
  for (int i = 0; i < L * N; ++i) {
    B[i] = uniform(-1, 1);
    C[i] = uniform(-1, 1);
  }
  for (int i = 0; i < D * N; ++i)
    A[i] = -uniform(0.1f, 2);
  for (int d = 0; d < D; ++d)
    Dv[d] = uniform(0.5f, 1.5f);

  halide_dimension_t dims[9][3];
  int seqShape[3] = {1, L, D}, bcShape[3] = {1, L, N}, aShape[2] = {D, N}, dShape[1] = {D};
  int hShape[3] = {1, D, N};
  int rc = 0;
  if (!chunked) {
    halide_buffer_t bu = tensor(u, 3, seqShape, dims[0]), bdt = tensor(delta, 3, seqShape, dims[1]),
                    bA = tensor(A, 2, aShape, dims[2]), bB = tensor(B, 3, bcShape, dims[3]),
                    bC = tensor(C, 3, bcShape, dims[4]), bD = tensor(Dv, 1, dShape, dims[5]),
                    by = tensor(y, 3, seqShape, dims[6]), bh = tensor(h, 3, hShape, dims[7]);
    rc = short_scan_scan(&bu, &bdt, &bA, &bB, &bC, &bD, &by, &bh);
  } else {
    /* Compiled with a symbolic time extent: each call gets views of one chunk (time is
     * MLIR axis 1, Halide dim 1), and carried_state is the state the chunk starts from:
     * zeros first, then the h_last of the chunk before. */
    for (int t0 = 0; t0 < L && rc == 0; t0 += CHUNK) {
      int ext = L - t0 < CHUNK ? L - t0 : CHUNK;
      int cs[3] = {1, ext, D}, cb[3] = {1, ext, N};
      halide_buffer_t bu = tensor(u + t0 * D, 3, cs, dims[0]), bdt = tensor(delta + t0 * D, 3, cs, dims[1]),
                      bA = tensor(A, 2, aShape, dims[2]), bB = tensor(B + t0 * N, 3, cb, dims[3]),
                      bC = tensor(C + t0 * N, 3, cb, dims[4]), bD = tensor(Dv, 1, dShape, dims[5]),
                      bcarry = tensor(carry, 3, hShape, dims[6]),
                      by = tensor(y + t0 * D, 3, cs, dims[7]), bh = tensor(h, 3, hShape, dims[8]);
      rc = long_scan_scan(&bu, &bdt, &bA, &bB, &bC, &bD, &bcarry, &by, &bh);
      memcpy(carry, h, sizeof(float) * D * N);
    }
  }
  if (rc != 0) {
    fprintf(stderr, "%s: the kernel returned Halide error %d\n", what, rc);
    return 0;
  }
  double *ry = malloc(sizeof(double) * L * D), *rh = malloc(sizeof(double) * D * N);
  reference(L, u, delta, A, B, C, Dv, ry, rh);
  int ok = check(what, L, y, h, ry, rh);
  free(u), free(delta), free(B), free(C), free(A), free(Dv), free(y), free(h), free(carry);
  free(ry), free(rh);
  return ok;
}

/* A call with a buffer of the wrong shape returns a Halide error code and writes nothing:
 * the library installs an error handler that prints Halide's message to stderr and
 * returns (Halide's default one aborts the process). A handler the program installs
 * with halide_set_error_handler gets the message instead. */
static int handledErrors;
static void countError(void *userContext, const char *msg) {
  (void)userContext;
  ++handledErrors;
  fprintf(stderr, "the program's handler: %s\n", msg);
}

static int wrongShape(void) {
  enum { L = 16 };
  float *u = alloc(L * D), *delta = alloc(L * D), *B = alloc(L * N), *C = alloc(L * N);
  float *A = alloc(D * N), *Dv = alloc(D), *y = alloc(L * D), *h = alloc(D * N);
  for (int i = 0; i < L * D; ++i)
    y[i] = 12345.0f;
  halide_dimension_t dims[8][3];
  int shortShape[3] = {1, L - 1, D}; /* u one step short of the 16 the kernel reads */
  int seqShape[3] = {1, L, D}, bcShape[3] = {1, L, N}, aShape[2] = {D, N}, dShape[1] = {D};
  int hShape[3] = {1, D, N};
  halide_buffer_t bu = tensor(u, 3, shortShape, dims[0]), bdt = tensor(delta, 3, seqShape, dims[1]),
                  bA = tensor(A, 2, aShape, dims[2]), bB = tensor(B, 3, bcShape, dims[3]),
                  bC = tensor(C, 3, bcShape, dims[4]), bD = tensor(Dv, 1, dShape, dims[5]),
                  by = tensor(y, 3, seqShape, dims[6]), bh = tensor(h, 3, hShape, dims[7]);
  int rc = short_scan_scan(&bu, &bdt, &bA, &bB, &bC, &bD, &by, &bh);
  int untouched = 1;
  for (int i = 0; i < L * D; ++i)
    untouched &= y[i] == 12345.0f;
  halide_set_error_handler(countError);
  int rc2 = short_scan_scan(&bu, &bdt, &bA, &bB, &bC, &bD, &by, &bh);
  int ok = rc < 0 && untouched && rc2 == rc && handledErrors == 1;
  printf("wrong shape: Halide error %d, output %s; with the program's handler: error %d, "
         "%d message(s) %s\n",
         rc, untouched ? "untouched" : "WRITTEN", rc2, handledErrors, ok ? "PASS" : "FAIL");
  free(u), free(delta), free(B), free(C), free(A), free(Dv), free(y), free(h);
  return ok;
}

int main(int argc, char **argv) {
  CHUNK = argc > 1 ? atoi(argv[1]) : 0;
  if (CHUNK <= 0) {
    fprintf(stderr, "usage: %s <chunk> (long_scan's time chunk, from its manifest.json)\n", argv[0]);
    return 2;
  }
  int ok = run("short_scan_scan", 16, 0);
  ok &= run("long_scan_scan", 600, 1);
  ok &= wrongShape();
  printf("embed-kernels: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
