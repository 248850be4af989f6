//===- ThreadPool.cpp - the pool the kernels' parallel loops run on -------===//
#include "runtime/ThreadPool.h"

#include <pthreadpool.h>

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

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
};

void runOne(void *context, size_t i) {
  auto *loop = static_cast<Loop *>(context);
  if (int r = loop->task(loop->userContext, loop->min + static_cast<int>(i), loop->closure)) {
    int expected = 0;
    loop->result.compare_exchange_strong(expected, r, std::memory_order_relaxed);
  }
}

int serialLoop(void *uc, Task task, int min, int size, uint8_t *closure) {
  for (int i = min; i < min + size; ++i)
    if (int r = task(uc, i, closure))
      return r;
  return 0;
}

/// The `halide_do_par_for` installed in every module.
int parallelFor(void *uc, Task task, int min, int size, uint8_t *closure) {
  KernelThreadPool *pool = currentPool;
  if (size <= 1 || (!pool && !currentFallback))
    return serialLoop(uc, task, min, size, closure);
  if (pool && pool->tryAcquire()) {
    // The tasks of this loop run on the pool; a loop that one of them
    // starts finds no scope on a worker thread (and none here: cleared
    // while the pool works) and runs serially.
    KernelThreadPool *saved = currentPool;
    ParallelForFn savedFallback = currentFallback;
    currentPool = nullptr;
    currentFallback = nullptr;
    int r = pool->run(uc, task, min, size, closure);
    currentPool = saved;
    currentFallback = savedFallback;
    pool->release();
    return r;
  }
  if (currentFallback)
    return currentFallback(uc, task, min, size, closure);
  return serialLoop(uc, task, min, size, closure);
}

} // namespace

KernelThreadPool *KernelThreadPool::get(int threads) {
  if (threads <= 0) {
    const char *env = std::getenv("HL_NUM_THREADS");
    threads = env ? std::atoi(env) : 0;
    if (threads <= 0)
      threads = static_cast<int>(std::thread::hardware_concurrency());
  }
  if (threads <= 1)
    return nullptr;
  static std::mutex mutex;
  // Never destroyed: a module may still run a loop while static objects of
  // the process are torn down, and the workers die with the process.
  static auto *pools = new std::map<int, KernelThreadPool *>();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = pools->find(threads);
  if (it != pools->end())
    return it->second;
  pthreadpool_t p = pthreadpool_create(static_cast<size_t>(threads));
  KernelThreadPool *pool = p ? new KernelThreadPool(p, threads) : nullptr;
  (*pools)[threads] = pool;
  return pool;
}

int KernelThreadPool::run(void *uc, Task task, int min, int size, uint8_t *closure) {
  Loop loop{uc, task, min, closure};
  loopCount.fetch_add(1, std::memory_order_relaxed);
  pthreadpool_parallelize_1d(static_cast<pthreadpool_t>(pool), runOne, &loop,
                             static_cast<size_t>(size), 0);
  return loop.result.load(std::memory_order_relaxed);
}

ParallelForFn installParallelFor(void *handle) {
  using SetFn = ParallelForFn (*)(ParallelForFn);
  auto set = reinterpret_cast<SetFn>(dlsym(handle, "halide_set_custom_do_par_for"));
  return set ? set(parallelFor) : nullptr;
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
