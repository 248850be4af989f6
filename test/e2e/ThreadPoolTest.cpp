// The pool the kernels' parallel loops run on (runtime/ThreadPool.h): every task of a
// loop runs once, a task's error reaches the caller, and a compiled module's loops run
// on it and compute, bit for bit, what the module's own Halide pool computes with one
// thread, also while two application threads call the module at once (one of them then
// falls back to Halide's pool). Expected values: a matvec computed here in double.
#include "runtime/ThreadPool.h"

#include "StateGraphs.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include <sched.h>
#include <sys/wait.h>

namespace {

using ssm::rt::KernelThreadPool;
using state_graphs::random;

int cpus() {
  cpu_set_t set;
  return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
}

TEST(ThreadPoolTest, NoPoolForOneThreadOrMoreThreadsThanCpus) {
  EXPECT_EQ(KernelThreadPool::get(1), nullptr);
  EXPECT_EQ(KernelThreadPool::get(cpus() + 1), nullptr)
      << "spinning workers without a CPU each wait a scheduler tick per loop";
  EXPECT_EQ(KernelThreadPool::get(100000), nullptr);
  EXPECT_EQ(KernelThreadPool::resolve(3), 3);
  EXPECT_GE(KernelThreadPool::resolve(0), 1);
}

TEST(ThreadPoolTest, EveryTaskRunsOnce) {
  if (cpus() < 2)
    GTEST_SKIP() << "one CPU: no pool";
  KernelThreadPool *pool = KernelThreadPool::get(2);
  ASSERT_TRUE(pool);
  EXPECT_EQ(pool, KernelThreadPool::get(2)) << "one pool per thread count";
  EXPECT_EQ(pool->threads(), 2);
  EXPECT_EQ(KernelThreadPool::get(1), nullptr) << "one thread: no pool";
  for (int size : {2, 3, 17, 1000}) {
    std::vector<std::atomic<int>> runs(size + 5);
    struct Ctx {
      std::vector<std::atomic<int>> *runs;
    } ctx{&runs};
    auto task = [](void *, int i, uint8_t *closure) {
      (*reinterpret_cast<Ctx *>(closure)->runs)[i].fetch_add(1);
      return 0;
    };
    ASSERT_TRUE(pool->tryAcquire());
    EXPECT_FALSE(pool->tryAcquire()) << "held";
    EXPECT_EQ(pool->run(nullptr, task, 5, size, reinterpret_cast<uint8_t *>(&ctx)), 0);
    pool->release();
    for (int i = 0; i < size + 5; ++i)
      ASSERT_EQ(runs[i].load(), i < 5 ? 0 : 1) << "task " << i << " of [5, " << size + 5 << ")";
  }
}

TEST(ThreadPoolTest, ATasksErrorReachesTheCaller) {
  if (cpus() < 2)
    GTEST_SKIP() << "one CPU: no pool";
  KernelThreadPool *pool = KernelThreadPool::get(2);
  ASSERT_TRUE(pool);
  auto task = [](void *, int i, uint8_t *) { return i == 37 ? -7 : 0; };
  EXPECT_EQ(pool->run(nullptr, task, 0, 100, nullptr), -7);
  EXPECT_EQ(pool->run(nullptr, task, 40, 100, nullptr), 0);
}

// y = x W^T at a size the heuristic schedule splits over threads.
constexpr int kK = 256, kRows = 1024;

std::string matvecText() {
  std::string x = "tensor<1x" + std::to_string(kK) + "xf32>",
              w = "tensor<" + std::to_string(kRows) + "x" + std::to_string(kK) + "xf32>",
              y = "tensor<1x" + std::to_string(kRows) + "xf32>";
  return "func.func @main(%x: " + x + ", %w: " + w + " {ssm.param = \"w\"}) -> " + y + " {\n" +
         "  %zero = arith.constant 0.0 : f32\n  %e = tensor.empty() : " + y + "\n" +
         "  %f = linalg.fill ins(%zero : f32) outs(%e : " + y + ") -> " + y + "\n" +
         "  %y = linalg.matmul_transpose_b ins(%x, %w : " + x + ", " + w + ") outs(%f : " + y +
         ") -> " + y + "\n  return %y : " + y + "\n}\n";
}

std::string compileMatvec() {
  std::string dir = ::testing::TempDir() + "ssm-thread-pool-" + std::to_string(getpid());
  std::ofstream(dir + ".mlir") << matvecText();
  std::string cmd = std::string(SSM_COMPILE_PATH) + " " + dir + ".mlir -o " + dir + " --force";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return dir;
}

TEST(ThreadPoolTest, ModuleLoopsRunOnThePoolAndMatchOneThread) {
  if (cpus() < 2)
    GTEST_SKIP() << "one CPU: no pool";
  std::string dir = compileMatvec();
  std::string error;
  auto module = ssm::rt::CompiledModule::load(dir, error);
  ASSERT_TRUE(module) << error;

  std::mt19937 rng(3);
  auto x = random({1, kK}, rng, -1, 1), w = random({kRows, kK}, rng, -1, 1);
  std::vector<double> want(kRows, 0.0);
  for (int r = 0; r < kRows; ++r)
    for (int k = 0; k < kK; ++k)
      want[r] += double(x.f32()[k]) * w.f32()[size_t(r) * kK + k];

  auto runWith = [&](int threads) {
    module->setThreads(threads);
    std::vector<ssm::rt::HostTensor> out;
    auto call = module->bind(*module->find("main"), {&x, &w}, out, error);
    EXPECT_TRUE(call) << error;
    EXPECT_TRUE(call && call->invoke(error)) << error;
    return out.empty() ? std::vector<float>() : std::vector<float>(out[0].f32().begin(), out[0].f32().end());
  };
  std::vector<float> one = runWith(1);
  KernelThreadPool *pool = KernelThreadPool::get(2);
  ASSERT_TRUE(pool);
  uint64_t before = pool->loops();
  std::vector<float> two = runWith(2);
  EXPECT_GT(pool->loops(), before) << "the module's parallel loops did not run on the pool";
  ASSERT_EQ(one.size(), size_t(kRows));
  ASSERT_EQ(two, one) << "the pool changed the results";
  for (int r = 0; r < kRows; ++r)
    ASSERT_NEAR(one[r], want[r], 1e-4 * (1 + std::fabs(want[r]))) << "row " << r;

  // Two application threads at once: one holds the pool, the other's loops
  // run on the module's Halide pool; both compute the same values.
  module->setThreads(2);
  std::vector<std::vector<float>> results(2);
  std::vector<std::string> errors(2);
  std::vector<std::thread> callers;
  for (int c = 0; c < 2; ++c)
    callers.emplace_back([&, c] {
      std::vector<ssm::rt::HostTensor> out;
      auto call = module->bind(*module->find("main"), {&x, &w}, out, errors[c]);
      for (int i = 0; call && i < 200; ++i) {
        if (!call->invoke(errors[c]))
          return;
        if (!std::equal(one.begin(), one.end(), out[0].f32().begin(), out[0].f32().end())) {
          errors[c] = "call " + std::to_string(i) + " differs";
          return;
        }
      }
      if (call)
        results[c].assign(out[0].f32().begin(), out[0].f32().end());
    });
  for (std::thread &t : callers)
    t.join();
  for (int c = 0; c < 2; ++c) {
    EXPECT_EQ(errors[c], "") << "caller " << c;
    EXPECT_EQ(results[c], one) << "caller " << c;
  }
}

} // namespace

namespace {

std::vector<float> invokeOnce(ssm::rt::CompiledModule &m, const ssm::rt::HostTensor &x,
                              const ssm::rt::HostTensor &w, std::string &error) {
  std::vector<ssm::rt::HostTensor> out;
  auto call = m.bind(*m.find("main"), {&x, &w}, out, error);
  if (!call || !call->invoke(error))
    return {};
  return std::vector<float>(out[0].f32().begin(), out[0].f32().end());
}

// One folder loaded by two modules: dlopen hands back the same library, whose
// parallel-loop runner is already ours; the second module's fallback must
// still be Halide's pool (it once was ours again, and a loop that fell back
// called itself forever).
TEST(ThreadPoolTest, OneLibraryLoadedTwice) {
  std::string dir = compileMatvec(), error;
  auto a = ssm::rt::CompiledModule::load(dir, error);
  ASSERT_TRUE(a) << error;
  auto b = ssm::rt::CompiledModule::load(dir, error);
  ASSERT_TRUE(b) << error;
  std::mt19937 rng(5);
  auto x = random({1, kK}, rng, -1, 1), w = random({kRows, kK}, rng, -1, 1);
  a->setThreads(1);
  std::vector<float> want = invokeOnce(*a, x, w, error);
  ASSERT_EQ(want.size(), size_t(kRows)) << error;
  for (int threads : {1, 2, cpus() + 1}) {
    b->setThreads(threads);
    EXPECT_EQ(invokeOnce(*b, x, w, error), want) << threads << " threads: " << error;
  }
}

// fork() after loops ran on the pool: the child has none of its workers and
// must make its own pool (it once waited forever in its first loop).
TEST(ThreadPoolTest, ChildOfForkRunsLoops) {
  std::string dir = compileMatvec(), error;
  auto m = ssm::rt::CompiledModule::load(dir, error);
  ASSERT_TRUE(m) << error;
  std::mt19937 rng(6);
  auto x = random({1, kK}, rng, -1, 1), w = random({kRows, kK}, rng, -1, 1);
  m->setThreads(std::min(2, cpus()));
  std::vector<float> want = invokeOnce(*m, x, w, error);
  ASSERT_EQ(want.size(), size_t(kRows)) << error;
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(60); // a hang ends as SIGALRM, which the parent reports
    std::string e;
    bool same = true;
    for (int i = 0; i < 20 && same; ++i)
      same = invokeOnce(*m, x, w, e) == want;
    _exit(same ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << WTERMSIG(status)
                                 << (WTERMSIG(status) == SIGALRM ? " (it hung)" : "");
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child's results differ";
}

} // namespace

namespace {

// Other work competing for the CPUs (here: busy threads of this process, one
// per CPU): the spinning pool's loops would each wait a time slice for a
// preempted worker, so loops go to the module's Halide pool while the
// competition lasts, and back to the pool after it ends. Results stay equal.
TEST(ThreadPoolTest, ContendedCpusUseHalidesPool) {
  if (cpus() < 2)
    GTEST_SKIP() << "one CPU: no pool";
  std::string dir = compileMatvec(), error;
  auto m = ssm::rt::CompiledModule::load(dir, error);
  ASSERT_TRUE(m) << error;
  std::mt19937 rng(7);
  auto x = random({1, kK}, rng, -1, 1), w = random({kRows, kK}, rng, -1, 1);
  m->setThreads(1);
  std::vector<float> want = invokeOnce(*m, x, w, error);
  ASSERT_EQ(want.size(), size_t(kRows)) << error;
  m->setThreads(2);
  KernelThreadPool *pool = KernelThreadPool::get(2);
  ASSERT_TRUE(pool);
  using Clock = std::chrono::steady_clock;
  auto callUntil = [&](bool contended, double seconds) {
    auto end = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < end) {
      EXPECT_EQ(invokeOnce(*m, x, w, error), want) << error;
      if (ssm::rt::cpusContended() == contended)
        return true;
    }
    return false;
  };

  std::atomic<bool> stop{false};
  std::vector<std::thread> busy;
  for (int i = 0; i < cpus(); ++i)
    busy.emplace_back([&] {
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
  bool seen = callUntil(true, 10);
  uint64_t before = pool->loops();
  std::vector<float> during = invokeOnce(*m, x, w, error);
  bool stillContended = ssm::rt::cpusContended();
  uint64_t after = pool->loops();
  stop = true;
  for (std::thread &t : busy)
    t.join();
  ASSERT_TRUE(seen) << "busy threads on every CPU for 10 s were not seen as contention";
  EXPECT_EQ(during, want) << error;
  if (stillContended)
    EXPECT_EQ(after, before) << "a loop ran on the spinning pool while the CPUs were contended";

  EXPECT_TRUE(callUntil(false, 10)) << "contention still reported 10 s after it ended";
  before = pool->loops();
  EXPECT_EQ(invokeOnce(*m, x, w, error), want) << error;
  if (!ssm::rt::cpusContended())
    EXPECT_GT(pool->loops(), before) << "loops did not return to the pool after contention";
}

} // namespace
