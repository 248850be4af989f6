// Evicting a kernel's operands from the CPU caches (see CacheFlush.h).
#include "tools/ssm-run/CacheFlush.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#define SSM_HAVE_CLFLUSH 1
#endif

namespace ssm {

void CacheFlusher::flush(const std::vector<std::pair<const void *, size_t>> &ranges) {
#ifdef SSM_HAVE_CLFLUSH
  for (const auto &[p, bytes] : ranges) {
    auto begin = reinterpret_cast<uintptr_t>(p) & ~uintptr_t(63);
    auto end = reinterpret_cast<uintptr_t>(p) + bytes;
    for (uintptr_t line = begin; line < end; line += 64)
      _mm_clflush(reinterpret_cast<const void *>(line));
  }
  _mm_mfence();
#else
  (void)ranges;
  if (buffer_.empty()) {
    long llc = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
    llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    size_t bytes = std::max<size_t>(size_t(64) << 20, llc > 0 ? 2 * static_cast<size_t>(llc) : 0);
    buffer_.assign(bytes / sizeof(long), 1);
  }
  long sum = 0;
  for (size_t i = 0; i < buffer_.size(); i += 64 / sizeof(long))
    sum += buffer_[i];
  sink_ = sink_ + sum;
#endif
}

} // namespace ssm
