// Denormals flushed to zero around kernel calls (runtime/DenormalMode.h).
#include "runtime/DenormalMode.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace ssm::rt {
namespace {

#if defined(__x86_64__) || defined(__i386__)
// MXCSR: FTZ (bit 15) flushes denormal results, DAZ (bit 6) reads denormal
// inputs as zero.
constexpr uint64_t kFlush = (1u << 15) | (1u << 6);
uint64_t readMode() { return _mm_getcsr(); }
void writeMode(uint64_t m) { _mm_setcsr(static_cast<unsigned>(m)); }
#elif defined(__aarch64__)
// FPCR.FZ (bit 24): denormal inputs and results are zero.
constexpr uint64_t kFlush = uint64_t(1) << 24;
uint64_t readMode() {
  uint64_t v;
  __asm__ volatile("mrs %0, fpcr" : "=r"(v));
  return v;
}
void writeMode(uint64_t m) { __asm__ volatile("msr fpcr, %0" : : "r"(m)); }
#else
constexpr uint64_t kFlush = 0; // other ISAs: the mode is left as it is
uint64_t readMode() { return 0; }
void writeMode(uint64_t) {}
#endif

} // namespace

void flushDenormalsOnThisThread() {
  if (kFlush == 0)
    return;
  uint64_t m = readMode();
  if ((m & kFlush) != kFlush)
    writeMode(m | kFlush);
}

DenormalsFlushed::DenormalsFlushed() {
  if (kFlush == 0)
    return;
  saved_ = readMode();
  if ((saved_ & kFlush) != kFlush) {
    writeMode(saved_ | kFlush);
    changed_ = true;
  }
}

DenormalsFlushed::~DenormalsFlushed() {
  if (changed_)
    writeMode(saved_);
}

} // namespace ssm::rt
