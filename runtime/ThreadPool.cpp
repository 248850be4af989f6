//===- ThreadPool.cpp - the pool the kernels' parallel loops run on -------===//
#include "runtime/ThreadPool.h"

#include "runtime/DenormalMode.h"

#include <pthreadpool.h>

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace ssm::rt {
namespace {

thread_local KernelThreadPool *currentPool = nullptr;
thread_local ParallelForFn currentFallback = nullptr;

using Task = int (*)(void *, int, uint8_t *);

struct Loop {
  void *userContext;
  Task task;
  int min;
  uint8_t *closure;
  std::atomic<int> result{0};
  std::atomic<int64_t> lastTaskEnd{0}; // nowNs() after the latest task
  pthread_t caller = pthread_self();   // runs tasks too; its mode is its caller's business
};

int64_t nowNs();

void runOne(void *context, size_t i) {
  auto *loop = static_cast<Loop *>(context);
  // The pool's workers keep denormals flushed (DenormalMode.h; one register
  // read once set). The thread that started the loop also runs tasks: it is
  // inside a kernel call's DenormalsFlushed scope, which puts its mode back.
  if (!pthread_equal(pthread_self(), loop->caller))
    flushDenormalsOnThisThread();
  if (int r = loop->task(loop->userContext, loop->min + static_cast<int>(i), loop->closure)) {
    int expected = 0;
    loop->result.compare_exchange_strong(expected, r, std::memory_order_relaxed);
  }
  // The latest end wins even when a thread stores after a later one.
  int64_t end = nowNs(), seen = loop->lastTaskEnd.load(std::memory_order_relaxed);
  while (end > seen &&
         !loop->lastTaskEnd.compare_exchange_weak(seen, end, std::memory_order_relaxed)) {
  }
}

int serialLoop(void *uc, Task task, int min, int size, uint8_t *closure) {
  for (int i = min; i < min + size; ++i)
    if (int r = task(uc, i, closure))
      return r;
  return 0;
}

int64_t nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

/// Tells when other work competes for this process's CPUs. Spinning workers
/// then cost far more than they save: a pthreadpool loop ends only when
/// every worker has checked in, and a worker the scheduler preempted (it
/// spins, so it stays runnable) checks in a time slice later, after the
/// caller has long stolen and finished its tasks. Two processes with two
/// spinning threads each on 2 CPUs ran a 10 us decode step 100000 times in
/// 9.5 s each instead of 1.3 s alone, and a tuner measured a 0.016 ms kernel
/// at 16 ms. Such a loop is seen directly: its last task ended kStall or
/// more before the loop did. (The rate of involuntary context switches was
/// tried first and does not separate the cases on a shared VM: 50-200 per
/// second alone, 250 per second contended.) After two such loops close
/// together, and for kHold, loops go to the module's Halide pool, whose
/// workers sleep and whose caller waits only for tasks already claimed;
/// then the spinning pool is tried again, at the cost of one more stall
/// while the competition lasts.
class ContentionMonitor {
public:
  static constexpr int64_t kStall = 500000;   // ns
  static constexpr int64_t kHold = 200000000; // ns
  static constexpr int64_t kPair = 100000000; // ns

  /// True while loops should avoid the spinning pool. `now`: nowNs().
  bool contended(int64_t now) const { return now < until.load(std::memory_order_relaxed); }

  /// A pool loop whose last task ended at `lastTaskEnd` returned at `end`.
  void loopEnded(int64_t lastTaskEnd, int64_t end) {
    if (end - lastTaskEnd < kStall)
      return;
    stalls.fetch_add(1, std::memory_order_relaxed);
    // One stall alone happens about once a second on an idle shared VM (a
    // worker preempted by the host's own work); competition stalls every
    // loop. So a second stall within kPair of the first, or the first stall
    // within kPair after a contended period ended, starts one.
    int64_t previous = lastStall.exchange(end, std::memory_order_relaxed);
    if (end - previous < kPair || end - until.load(std::memory_order_relaxed) < kPair)
      until.store(end + kHold, std::memory_order_relaxed);
  }

  uint64_t stalledLoops() const { return stalls.load(std::memory_order_relaxed); }

private:
  std::atomic<int64_t> until{INT64_MIN / 2};
  std::atomic<int64_t> lastStall{INT64_MIN / 2};
  std::atomic<uint64_t> stalls{0};
};

ContentionMonitor &contentionMonitor() {
  static ContentionMonitor *m = new ContentionMonitor(); // never destroyed, as the registry
  return *m;
}

/// The `halide_do_par_for` installed in every module.
int parallelFor(void *uc, Task task, int min, int size, uint8_t *closure) {
  KernelThreadPool *pool = currentPool;
  if (size <= 1 || (!pool && !currentFallback))
    return serialLoop(uc, task, min, size, closure);
  if (pool && !(currentFallback && contentionMonitor().contended(nowNs())) &&
      pool->tryAcquire()) {
    // The tasks of this loop run on the pool; a loop that one of them
    // starts finds no scope on a worker thread (and none here: cleared
    // while the pool works) and runs serially.
    int r;
    {
      ParallelScope cleared(nullptr, nullptr);
      r = pool->run(uc, task, min, size, closure);
    }
    pool->release();
    return r;
  }
  if (currentFallback)
    return currentFallback(uc, task, min, size, closure);
  return serialLoop(uc, task, min, size, closure);
}

} // namespace

namespace {

/// CPUs this process may run on (its affinity mask; containers and taskset
/// narrow it), at least 1.
int availableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

/// True when `n - 1` threads can be created now. pthreadpool_create waits
/// forever for a worker whose pthread_create failed (RLIMIT_NPROC, a
/// cgroup's pids limit, address space), so the pool is only built after a
/// probe of the same number of threads succeeded.
bool canStartThreads(int n) {
  std::vector<std::thread> probe;
  bool ok = true;
  try {
    for (int i = 1; i < n; ++i)
      probe.emplace_back([] {});
  } catch (const std::system_error &) {
    ok = false;
  }
  for (std::thread &t : probe)
    t.join();
  return ok;
}

struct Registry {
  std::mutex mutex;
  // Per thread count: the pool, once created (or refused: `tried`).
  std::atomic<KernelThreadPool *> pools[KernelThreadPool::kMaxThreads + 1] = {};
  std::atomic<bool> tried[KernelThreadPool::kMaxThreads + 1] = {};
};

Registry &registry();

// fork(): the child has none of the parent's workers, and a pool whose
// workers are gone never finishes a loop. The child forgets every pool
// (leaked: their memory belongs to the parent's threads) and makes new ones
// when it needs them. The registry's mutex is held across fork so that no
// other thread of the parent leaves it locked in the child.
void prepareFork() { registry().mutex.lock(); }
void parentAfterFork() { registry().mutex.unlock(); }
void childAfterFork() {
  Registry &r = registry();
  for (int i = 0; i <= KernelThreadPool::kMaxThreads; ++i) {
    r.pools[i].store(nullptr, std::memory_order_relaxed);
    r.tried[i].store(false, std::memory_order_relaxed);
  }
  r.mutex.unlock();
}

Registry &registry() {
  // Never destroyed: a module may still run a loop while static objects of
  // the process are torn down, and the workers die with the process.
  static Registry *r = [] {
    auto *reg = new Registry();
    pthread_atfork(prepareFork, parentAfterFork, childAfterFork);
    return reg;
  }();
  return *r;
}

} // namespace

int KernelThreadPool::resolve(int threads) {
  if (threads > 0)
    return threads;
  // Read once, as Halide's pool reads HL_NUM_THREADS once.
  static const int fallback = [] {
    const char *env = std::getenv("HL_NUM_THREADS");
    int n = env ? std::atoi(env) : 0;
    return n > 0 ? n : availableCpus();
  }();
  return fallback;
}

KernelThreadPool *KernelThreadPool::get(int threads) {
  threads = resolve(threads);
  // Spinning workers only pay when each has a CPU: with more threads than
  // CPUs the caller waits a scheduler tick for a descheduled worker at
  // every loop (measured: 500 tiny decode steps 0.015 s with 2 threads on
  // 2 CPUs, 11.8 s with 3). Halide's sleeping pool takes those counts.
  if (threads <= 1 || threads > kMaxThreads)
    return nullptr;
  static const int cpus = availableCpus();
  if (threads > cpus)
    return nullptr;
  Registry &r = registry();
  if (KernelThreadPool *p = r.pools[threads].load(std::memory_order_acquire))
    return p;
  if (r.tried[threads].load(std::memory_order_acquire))
    return nullptr;
  std::lock_guard<std::mutex> lock(r.mutex);
  if (KernelThreadPool *p = r.pools[threads].load(std::memory_order_acquire))
    return p;
  if (r.tried[threads].load(std::memory_order_acquire))
    return nullptr;
  KernelThreadPool *pool = nullptr;
  if (canStartThreads(threads))
    if (pthreadpool_t p = pthreadpool_create(static_cast<size_t>(threads)))
      pool = new KernelThreadPool(p, threads);
  r.pools[threads].store(pool, std::memory_order_release);
  r.tried[threads].store(true, std::memory_order_release);
  return pool;
}

int KernelThreadPool::run(void *uc, Task task, int min, int size, uint8_t *closure) {
  Loop loop{uc, task, min, closure};
  loopCount.fetch_add(1, std::memory_order_relaxed);
  pthreadpool_parallelize_1d(static_cast<pthreadpool_t>(pool), runOne, &loop,
                             static_cast<size_t>(size), 0);
  contentionMonitor().loopEnded(loop.lastTaskEnd.load(std::memory_order_relaxed), nowNs());
  return loop.result.load(std::memory_order_relaxed);
}

bool cpusContended() { return contentionMonitor().contended(nowNs()); }

uint64_t stalledLoops() { return contentionMonitor().stalledLoops(); }

ParallelForFn installParallelFor(void *handle) {
  using SetFn = ParallelForFn (*)(ParallelForFn);
  auto set = reinterpret_cast<SetFn>(dlsym(handle, "halide_set_custom_do_par_for"));
  if (!set)
    return nullptr;
  ParallelForFn previous = set(parallelFor);
  // The fallback is the module's own Halide pool. A library loaded twice
  // (one folder opened by two models: dlopen returns the same handle) hands
  // back parallelFor itself as the previous runner, so ask for Halide's
  // default by name.
  auto halideDefault = reinterpret_cast<ParallelForFn>(dlsym(handle, "halide_default_do_par_for"));
  if (halideDefault)
    return halideDefault;
  return previous == parallelFor ? nullptr : previous;
}

ParallelScope::ParallelScope(KernelThreadPool *pool, ParallelForFn fallback)
    : previousPool(currentPool), previousFallback(currentFallback) {
  currentPool = pool;
  currentFallback = fallback;
}

ParallelScope::~ParallelScope() {
  currentPool = previousPool;
  currentFallback = previousFallback;
}

} // namespace ssm::rt
