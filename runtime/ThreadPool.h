//===- ThreadPool.h - the pool the kernels' parallel loops run on ---------===//
//
// A compiled module's parallel loops (Halide's `parallel()` schedules) call
// `halide_do_par_for` of the Halide runtime inside the module. Halide's own
// pool puts its workers to sleep on a condition variable as soon as a loop
// ends, and a decode step at real sizes runs a hundred or more short loops
// (each matvec of each layer is one): waking the workers again costs
// microseconds per loop, and far more on a shared, oversubscribed host,
// where a sleeping vCPU is descheduled. Measured at mamba-130m shapes, 2
// threads: 5% of the step in futex and scheduler code.
//
// The runtime therefore runs those loops on pthreadpool (Marat Dukhan's,
// BSD-2-Clause, Debian libpthreadpool; the pool XNNPACK and PyTorch's
// mobile runtime use), whose workers spin for a while after a loop before
// they sleep (about 20 ms of CPU per worker after the last loop, measured
// on this machine kind), as llama.cpp's ggml threads do. One pool per
// thread count is shared by every module of the process that asks for that
// count, and is created at the first loop that needs it.
//
// A parallel loop runs on the pool when the thread that starts it is inside
// a call with a ParallelScope, the pool is not busy, and no other work
// competes for the CPUs (cpusContended()). When another
// application thread holds the pool (two streams stepped from two threads),
// the loop runs on the module's own Halide pool instead, so concurrent
// callers still run in parallel and never wait for each other; a loop
// nested inside a task of another loop runs its tasks on the thread that
// reached it (all threads are busy with the outer loop). Each task computes
// the same values whichever thread runs it, so the results do not depend
// on where a loop ran.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <cstdint>

namespace ssm::rt {

class KernelThreadPool {
public:
  /// The largest pool; more threads go to Halide's pool (which caps at 256).
  static constexpr int kMaxThreads = 256;

  /// The process's pool with `threads` threads, the calling thread included
  /// (0: resolve(0)). Created on first use and kept until exit (one per
  /// thread count used, at most one per CPU count). Returns null, and the
  /// loops run on the module's Halide pool set to the same count, for one
  /// thread; for more threads than the CPUs the process may use (spinning
  /// workers then wait for each other a scheduler tick per loop); and when
  /// the threads cannot be created (a process or cgroup limit). After
  /// fork(), the child makes pools of its own.
  static KernelThreadPool *get(int threads);

  /// The thread count `threads` stands for: itself when positive, else
  /// HL_NUM_THREADS when that is set (as Halide's pool reads it), else the
  /// CPUs of this process's affinity mask.
  static int resolve(int threads);

  /// Runs tasks [min, min + size) of a Halide parallel loop; the signature
  /// of `halide_do_par_for`. Returns 0, or the first nonzero code a task
  /// returned (the remaining tasks still run).
  int run(void *userContext, int (*task)(void *, int, uint8_t *), int min, int size,
          uint8_t *closure);

  /// Claims the pool for one loop; false when another thread holds it.
  bool tryAcquire() { return !busy.exchange(true, std::memory_order_acquire); }
  void release() { busy.store(false, std::memory_order_release); }

  int threads() const { return count; }
  /// Loops run on the pool since it was created (for tests and profiles).
  uint64_t loops() const { return loopCount.load(std::memory_order_relaxed); }

private:
  explicit KernelThreadPool(void *pool, int count) : pool(pool), count(count) {}
  void *pool; // pthreadpool_t
  int count;
  std::atomic<bool> busy{false};
  std::atomic<uint64_t> loopCount{0};
};

/// True while other work competes for this process's CPUs: within the last
/// 200 ms a pool loop ended 0.5 ms or more after its last task (a worker
/// the scheduler had preempted checked in late), for the second time in
/// 100 ms. Loops then run on the
/// module's Halide pool instead of the spinning one (ThreadPool.cpp,
/// ContentionMonitor).
bool cpusContended();

/// Pool loops of this process that ended so (for tests and profiles).
uint64_t stalledLoops();

/// The signature of `halide_do_par_for`.
using ParallelForFn = int (*)(void *, int (*)(void *, int, uint8_t *), int, int, uint8_t *);

/// Makes the module loaded at `handle` (a dlopen handle of a compiled
/// module's shared library) run its parallel loops through the runtime:
/// installs the runner of this file as its `halide_do_par_for` and returns
/// the module's Halide runner (`halide_default_do_par_for`, its own pool),
/// the fallback to pass to ParallelScope. Safe to call again for the same
/// handle. Returns null, and changes nothing, for a module without
/// `halide_set_custom_do_par_for`.
ParallelForFn installParallelFor(void *handle);

/// While alive, the parallel loops this thread starts inside a module
/// where installParallelFor ran use `pool`, or `fallback` (the module's
/// Halide pool) when `pool` is null or busy. Scopes nest.
class ParallelScope {
public:
  ParallelScope(KernelThreadPool *pool, ParallelForFn fallback);
  ~ParallelScope();
  ParallelScope(const ParallelScope &) = delete;
  ParallelScope &operator=(const ParallelScope &) = delete;

private:
  KernelThreadPool *previousPool;
  ParallelForFn previousFallback;
};

} // namespace ssm::rt
