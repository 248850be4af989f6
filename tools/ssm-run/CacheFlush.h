// Evicting a kernel's operands from the CPU caches between timed runs
// (ssm-run --flush-cache), as TVM's runner does with enable_cpu_cache_flush.
//
// A kernel timed alone and repeated finds its operands in the caches from the
// run before: a decode-step matvec's 2-10 MB weight then comes from the 32 MB
// L3, while inside a model the other layers' weights have evicted it and it
// streams from memory. Schedules ranked hot can rank the other way in the
// model (mamba-130m's 1 x 768 x 1536 out_proj on the Zen 5 kind: a scalar
// schedule 0.026 against the heuristic's 0.030 ms hot, 0.28-0.30 against
// 0.26-0.29 ms over eight weights in turn).
//
// The operands are written back and invalidated line by line (x86 CLFLUSH,
// which every x86-64 CPU has): reading a large buffer instead does not
// reliably evict them, since a last-level cache that protects reused lines
// keeps the kernel's (measured so on the Zen 5 kind: after reading 64 MB the
// out_proj above still ran at 121 GB/s). Elsewhere a buffer of twice the
// last-level cache is read, the best a user-space program can do.
#ifndef SSM_TOOLS_CACHEFLUSH_H
#define SSM_TOOLS_CACHEFLUSH_H

#include <cstddef>
#include <utility>
#include <vector>

namespace ssm {

class CacheFlusher {
public:
  /// Evicts every byte of `ranges` (pointer, bytes) from all cache levels.
  void flush(const std::vector<std::pair<const void *, size_t>> &ranges);

private:
  std::vector<long> buffer_; // the fallback's buffer, made on first use
  volatile long sink_ = 0;
};

} // namespace ssm

#endif
