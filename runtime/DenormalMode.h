// Denormal floats flushed to zero while compiled kernels run (FTZ and DAZ on x86, FZ on AArch64).
//
// Why: a chunked scan's decays are products of many factors below 1, so real
// models drive them, and the terms they scale, below float32's normal range
// (1.2e-38). x86 then computes each such multiply-add through a microcode
// assist about a hundred times slower than a normal one. Measured on
// Granite 4.0-H-350M shapes (prefill of 512 tokens, 2 threads): the SSD
// chunk-state and output products of ssm.ssd_scan took 78 and 79 ms per
// layer with denormals, 3.3 and 3.9 ms with them flushed; the whole prompt
// about 1.7x faster. A denormal is below 1.2e-38 of the value it is added
// to, so flushing it changes no result at the tolerances the reference
// interpreter is checked with (docs/numerics.md).
//
// DenormalsFlushed sets the mode on the calling thread for a scope and puts
// the caller's back after it, so a program that embeds the runtime keeps its
// own floating-point environment. flushDenormalsOnThisThread() sets it for
// good on the runtime's own worker threads (the kernel thread pool's).
// Threads a module's Halide pool creates during a call inherit the mode
// from the creating thread (POSIX: a new thread inherits the creator's
// floating-point environment).
#ifndef SSM_RUNTIME_DENORMALMODE_H
#define SSM_RUNTIME_DENORMALMODE_H

#include <cstdint>

namespace ssm::rt {

/// Sets flush-to-zero (and denormals-are-zero where the ISA has it) on this
/// thread and leaves it set. Cheap when already set (one register read).
void flushDenormalsOnThisThread();

class DenormalsFlushed {
public:
  DenormalsFlushed();
  ~DenormalsFlushed();
  DenormalsFlushed(const DenormalsFlushed &) = delete;
  DenormalsFlushed &operator=(const DenormalsFlushed &) = delete;

private:
  uint64_t saved_ = 0;
  bool changed_ = false;
};

} // namespace ssm::rt

#endif
