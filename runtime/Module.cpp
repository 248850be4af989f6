// Loading compiled modules (dlopen + manifest) and calling their kernels.
#include "runtime/Module.h"
#include "runtime/Checksum.h"
#include "runtime/Shape.h"

#include "runtime/CpuFeatures.h"
#include "runtime/MappedFaults.h"
#include "runtime/DenormalMode.h"
#include "runtime/ThreadPool.h"

#include "HalideBuffer.h"

#include <sstream>

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <unordered_map>

namespace ssm::rt {

using ArgvFn = int (*)(void **);

namespace {
/// Halide's runtime reports a failed check (a buffer of the wrong size, a
/// constraint) through halide_error, whose default handler aborts the
/// process. Ours keeps the message for the failing call to return.
thread_local std::string lastHalideError;
void recordHalideError(void *, const char *msg) {
  lastHalideError = msg ? msg : "";
  while (!lastHalideError.empty() &&
         (lastHalideError.back() == '\n' || lastHalideError.back() == ' '))
    lastHalideError.pop_back();
}

/// Halide's allocator contract: 128-byte aligned blocks.
constexpr size_t kScratchAlign = 128;

/// The kernels allocate their intermediate buffers on every call. Through
/// malloc, blocks of 128 KiB and more are fresh mmap'd pages each time, and
/// the page faults cost more than the kernels' work (40% of a 512-token
/// RWKV prefill). The pool keeps freed blocks by size for the next call:
/// a module's calls allocate the same sizes every time, so after the first
/// call nothing is allocated. Memory held: the largest set of blocks live
/// at once (the scratch peak), per size.
struct BlockPool {
  std::mutex mutex;
  std::unordered_map<size_t, std::vector<void *>> free; // by block size
};
BlockPool &blockPool() {
  static BlockPool *pool = new BlockPool(); // never destroyed: kernels may run at exit
  return *pool;
}

void *poolMalloc(void *, size_t size) {
  size = (size + kScratchAlign - 1) / kScratchAlign * kScratchAlign;
  BlockPool &pool = blockPool();
  {
    std::lock_guard<std::mutex> lock(pool.mutex);
    auto it = pool.free.find(size);
    if (it != pool.free.end() && !it->second.empty()) {
      void *p = it->second.back();
      it->second.pop_back();
      return p;
    }
  }
  // The block's size sits in front of it, for poolFree.
  void *raw = ::operator new(size + kScratchAlign, std::align_val_t(kScratchAlign), std::nothrow);
  if (!raw)
    return nullptr;
  char *block = static_cast<char *>(raw) + kScratchAlign;
  reinterpret_cast<size_t *>(block)[-1] = size;
  return block;
}

void poolFree(void *, void *ptr) {
  if (!ptr)
    return;
  size_t size = reinterpret_cast<size_t *>(ptr)[-1];
  BlockPool &pool = blockPool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  pool.free[size].push_back(ptr);
}

std::atomic<int64_t> liveScratch{0}, peakScratch{0};

/// Halide's allocator contract: 128-byte aligned blocks. The block size sits
/// in the header so that free can subtract it.
void *countingMalloc(void *, size_t size) {
  void *raw = std::malloc(size + kScratchAlign);
  if (!raw)
    return nullptr;
  auto *base = static_cast<char *>(raw);
  char *aligned = reinterpret_cast<char *>(
      (reinterpret_cast<uintptr_t>(base) + kScratchAlign) & ~(uintptr_t)(kScratchAlign - 1));
  reinterpret_cast<void **>(aligned)[-1] = raw;
  reinterpret_cast<size_t *>(aligned)[-2] = size;
  int64_t live = liveScratch.fetch_add(static_cast<int64_t>(size)) + static_cast<int64_t>(size);
  int64_t peak = peakScratch.load();
  while (live > peak && !peakScratch.compare_exchange_weak(peak, live)) {
  }
  return aligned;
}

void countingFree(void *, void *ptr) {
  if (!ptr)
    return;
  liveScratch.fetch_sub(static_cast<int64_t>(reinterpret_cast<size_t *>(ptr)[-2]));
  std::free(reinterpret_cast<void **>(ptr)[-1]);
}

} // namespace

struct BoundCall::Impl {
  ArgvFn fn = nullptr;
  std::string name;
  std::vector<Halide::Runtime::Buffer<void>> buffers; // kernel arguments, then results
  std::vector<void *> argv;
  // Time chunking: the loop below replaces buffers by per-chunk views.
  std::optional<TimeChunking> chunking;
  std::vector<int> timeAxes; // per kernel buffer: MLIR time axis or -1
  int stateArg = -1, stateResult = -1; // kernel buffer indices
  HostTensor carry;                    // the state between chunks
  Halide::Runtime::Buffer<void> carryBuffer;
  bool userState = false; // the caller passes the initial state
  // Segmented functions: the kernel calls, the buffers between them, and
  // results copied out at the end (arguments or values returned twice).
  std::vector<std::unique_ptr<BoundCall>> steps;
  std::vector<std::unique_ptr<HostTensor>> temps;
  std::vector<std::pair<const HostTensor *, HostTensor *>> copies;
  // GPU modules (cuda, opencl): Halide's runtime in the library copies an
  // input to the device when its host side is marked dirty and keeps the
  // device copy in the buffer, which lives as long as this call object. So
  // the weights (arguments with a parameter name) are uploaded on the first
  // call only; every other input is marked dirty before each call (the
  // caller may have changed it, e.g. the state between decode steps), and
  // each result is copied back to the host after the call. The buffers'
  // destructors free the device copies (before the library is unloaded:
  // call objects die before their module).
  bool device = false;
  bool uploaded = false;       // the weights are on the device
  size_t deviceInputs = 0;     // kernel buffers before the results
  std::vector<bool> isWeight;  // per kernel input buffer
  // States carried on the device (BoundCall::carryState). Per kernel
  // buffer, `keep`: the device copy is the one that counts, so an input is
  // not uploaded before the call (the previous call left the state there)
  // and a result is not copied back after it. Each Carry copies a result
  // buffer (of this call or of a step) into the input buffers that read the
  // argument, on the device, after every call.
  std::vector<bool> keep;
  struct Carry {
    Impl *from = nullptr;
    size_t fromBuffer = 0;
    std::vector<std::pair<Impl *, size_t>> to;
    bool resident = false; // the inputs' device copies hold the state
    // CPU modules: the result's buffer and the (one) input's trade their
    // host memory after each call, so the next call reads the state where
    // this one wrote it and writes the next state over the old one. After
    // an odd number of calls the state is in the result's memory
    // (resident), and `argumentHost`, the argument's own memory, is stale.
    bool swap = false;
    uint8_t *argumentHost = nullptr;
    // CPU modules, a result the manifest marks "append" (a KV cache): before
    // each call the result's buffer is pointed at the rows [p, p + length)
    // of the argument's own memory (p read from the position buffer), so
    // the kernel writes only this call's rows, in place, and the argument
    // always holds the state (never resident elsewhere).
    bool inPlace = false;
    size_t result = 0;          // the function's result index (carryState)
    int halideDim = 0;          // the append axis in Halide's dim order
    size_t positionBuffer = 0;  // c.from's kernel input holding p (int32)
    int64_t length = 0;
    int32_t rows = 0;           // the argument's rows (its capacity)
    bool rowsForm = false;      // a RowsResult's (written after the call, not windowed)
  };
  std::vector<Carry> carries;
  // Results in the rows form (TensorInfo::Append::rows: several streams,
  // each at its own position): the kernel writes only the new rows, into
  // `rows` (B, length, ...); after each call finishRows puts them into the
  // result, a copy of the argument with those rows replaced, or, carried
  // (BoundCall::carryState), straight into the argument's own memory.
  struct RowsResult {
    size_t buffer = 0, argumentBuffer = 0, positionBuffer = 0; // kernel buffer indices
    HostTensor rows;
    Halide::Runtime::Buffer<void> rowsBuffer;
    int64_t streams = 0, capacity = 0, length = 0, rowElements = 0; // B, C, L, one row's
    bool carried = false;
  };
  std::vector<RowsResult> rowsResults;
  const FunctionInfo *info = nullptr;
  int64_t transferBytes = 0;
  // The module's thread count (set again by CompiledModule::setThreads) and
  // its Halide runner: where this call's parallel loops run.
  const int *threads = nullptr;
  ParallelForFn halideParallelFor = nullptr;

  bool kept(size_t i) const { return i < keep.size() && keep[i]; }
  static halide_buffer_t *raw(Impl *im, size_t i) {
    return static_cast<halide_buffer_t *>(im->argv[i]);
  }

  int syncedCall() {
    if (device)
      for (size_t i = 0; i < deviceInputs && i < argv.size(); ++i)
        if ((!uploaded || !isWeight[i]) && !kept(i)) {
          auto *b = static_cast<halide_buffer_t *>(argv[i]);
          b->set_host_dirty(true);
          transferBytes += static_cast<int64_t>(b->size_in_bytes());
        }
    int rc;
    {
      ParallelScope scope(threads ? KernelThreadPool::get(*threads) : nullptr, halideParallelFor);
      DenormalsFlushed flushed; // runtime/DenormalMode.h: the caller's mode is put back after
      rc = fn(argv.data());
    }
    if (!device || rc != 0)
      return rc;
    uploaded = true;
    for (size_t i = deviceInputs; i < argv.size(); ++i) {
      auto *b = static_cast<halide_buffer_t *>(argv[i]);
      if (kept(i))
        continue;
      if (b->device_dirty() && b->device_interface) {
        if (int r = b->device_interface->copy_to_host(nullptr, b))
          return r;
        transferBytes += static_cast<int64_t>(b->size_in_bytes());
      }
    }
    return 0;
  }

  /// After a call: each carried result into the inputs that read its
  /// argument, on the device; through the host where either side has no
  /// device copy (then the argument's HostTensor holds the state).
  bool moveCarries(std::string &error) {
    for (Carry &c : carries) {
      if (c.inPlace)
        continue; // written where it lives
      if (c.swap) {
        std::swap(raw(c.from, c.fromBuffer)->host, raw(c.to[0].first, c.to[0].second)->host);
        c.resident = !c.resident;
        continue;
      }
      halide_buffer_t *src = raw(c.from, c.fromBuffer);
      bool onDevice = src->device && src->device_interface;
      for (auto &[im, k] : c.to) {
        halide_buffer_t *dst = raw(im, k);
        onDevice = onDevice && dst->device && dst->device_interface == src->device_interface;
      }
      if (onDevice) {
        for (auto &[im, k] : c.to) {
          halide_buffer_t *dst = raw(im, k);
          if (int rc = src->device_interface->buffer_copy(nullptr, src, dst->device_interface,
                                                           dst)) {
            error = "kernel " + c.from->name + ": copying a carried state on the device failed "
                    "with Halide error " + std::to_string(rc);
            return false;
          }
          // Neither side is newer: the device copy is used as it is.
          dst->set_host_dirty(false);
          dst->set_device_dirty(false);
          im->keep[k] = true;
        }
        c.resident = true;
        continue;
      }
      if (src->device_dirty() && src->device_interface) {
        if (int rc = src->device_interface->copy_to_host(nullptr, src)) {
          error = "kernel " + c.from->name + ": copying a state to the host failed with Halide "
                  "error " + std::to_string(rc);
          return false;
        }
        c.from->transferBytes += static_cast<int64_t>(src->size_in_bytes());
      }
      for (auto &[im, k] : c.to) {
        halide_buffer_t *dst = raw(im, k);
        std::copy(src->host, src->host + src->size_in_bytes(), dst->host);
        im->keep[k] = false;
      }
      c.resident = false;
    }
    return true;
  }

  /// How many kernel buffers of this call (and of its steps) have `host` as
  /// their memory, counting the results copied out at the end.
  int buffersOn(const uint8_t *host) const {
    int n = 0;
    for (void *b : argv)
      n += static_cast<halide_buffer_t *>(b)->host == host;
    for (const auto &s : steps)
      n += s->impl->buffersOn(host);
    auto on = [&](const HostTensor *t) {
      auto at = [&](const void *p) { return p && static_cast<const uint8_t *>(p) == host; };
      return at(t->external) + at(t->view) + (!t->storage.empty() && at(t->storage.data()));
    };
    for (const auto &[from, to] : copies)
      n += on(from) + on(to);
    return n;
  }

  /// Kernel buffer index of result `k` (after the inputs and any added
  /// arguments).
  size_t resultBuffer(size_t k) const { return argv.size() - info->results.size() + k; }

  /// Where BoundCall::carryState's state lives: the kernel buffer that
  /// writes result `result` (c.from, c.fromBuffer) and the kernel input
  /// buffers that read argument `argument` (c.to); for a segmented function
  /// also whether a later step reads the result in the same call. False
  /// where there is nothing to carry: a result that is an argument passed
  /// through, or one no step writes or an argument no step reads.
  bool locateCarry(size_t result, size_t argument, Carry &c, bool &readByAStep) {
    const FunctionInfo &fn = *info;
    readByAStep = false;
    if (!fn.segmented) {
      c.from = this;
      c.fromBuffer = resultBuffer(result);
      c.to.push_back({this, argument});
      return true;
    }
    // The step that writes the result's value, and every step input that
    // reads the argument (values: arguments first, then the steps' results).
    int value = fn.resultValues[result];
    if (value < static_cast<int>(fn.arguments.size()))
      return false;
    for (size_t j = 0; j < fn.steps.size(); ++j) {
      Impl *step = steps[j]->impl.get();
      const SegmentStep &st = fn.steps[j];
      for (size_t k = 0; k < st.outputs.size(); ++k)
        if (st.outputs[k] == value) {
          c.from = step;
          c.fromBuffer = step->resultBuffer(k);
        }
      for (size_t k = 0; k < st.inputs.size(); ++k) {
        readByAStep = readByAStep || st.inputs[k] == value;
        if (st.inputs[k] == static_cast<int>(argument))
          c.to.push_back({step, k});
      }
    }
    return c.from && !c.to.empty();
  }

  /// Carry::inPlace for `c` (not carried yet: carryOnHost checks) where the
  /// result is marked "append" to the very argument it is carried to, in
  /// the same kernel, and nothing else of the call shares either memory.
  bool carryInPlace(Carry &c) {
    Impl *k = c.from;
    if (c.to[0].first != k || k->chunking || !k->info || k->device)
      return false;
    const size_t firstResult = k->argv.size() - k->info->results.size();
    if (c.fromBuffer < firstResult)
      return false;
    const TensorInfo &r = k->info->results[c.fromBuffer - firstResult];
    if (!r.append || static_cast<size_t>(r.append->argument) != c.to[0].second ||
        static_cast<size_t>(r.append->position) >= firstResult)
      return false;
    halide_buffer_t *src = raw(k, c.fromBuffer), *dst = raw(k, c.to[0].second);
    if (!src->host || !dst->host || src->host == dst->host || buffersOn(dst->host) != 1 ||
        src->dimensions != dst->dimensions || r.append->axis >= dst->dimensions)
      return false;
    if (r.append->rows) {
      auto it = std::find_if(k->rowsResults.begin(), k->rowsResults.end(),
                             [&](const RowsResult &rr) { return rr.buffer == c.fromBuffer; });
      if (it == k->rowsResults.end())
        return false;
      it->carried = true;
      c.inPlace = c.rowsForm = true;
      carries.push_back(c);
      return true;
    }
    c.inPlace = true;
    c.halideDim = dst->dimensions - 1 - r.append->axis;
    c.positionBuffer = static_cast<size_t>(r.append->position);
    c.length = r.append->length;
    c.rows = dst->dim[c.halideDim].extent;
    carries.push_back(c);
    return true;
  }

  /// The CPU form of BoundCall::carryState for the buffers locateCarry
  /// found: the result's and the argument's buffers trade memory after each
  /// call (Carry::swap). Only where exactly one kernel buffer reads the
  /// argument, no later step of the same call reads the result, neither
  /// kernel is time-chunked, and neither memory backs any other buffer of
  /// the call.
  bool carryOnHost(Carry c, bool readByAStep) {
    if (readByAStep || c.to.size() != 1)
      return false;
    for (const Carry &other : carries)
      if ((other.from == c.from && other.fromBuffer == c.fromBuffer) || other.to[0] == c.to[0])
        return false; // already carried
    if (carryInPlace(c))
      return true;
    Impl *to = c.to[0].first;
    if (c.from->chunking || to->chunking)
      return false;
    halide_buffer_t *src = raw(c.from, c.fromBuffer), *dst = raw(to, c.to[0].second);
    if (!src->host || !dst->host || src->host == dst->host ||
        src->size_in_bytes() != dst->size_in_bytes() || buffersOn(src->host) != 1 ||
        buffersOn(dst->host) != 1)
      return false;
    c.swap = true;
    c.argumentHost = dst->host;
    carries.push_back(std::move(c));
    return true;
  }

  /// Points each in-place carry's result buffer at this call's window of
  /// its argument (Carry::inPlace); false with `error` for a position
  /// outside the argument (the model checks the context before a call).
  bool placeWindows(std::string &error) {
    for (Carry &c : carries) {
      if (!c.inPlace || c.rowsForm)
        continue;
      halide_buffer_t *out = raw(c.from, c.fromBuffer);
      halide_buffer_t *arg = raw(c.to[0].first, c.to[0].second);
      const halide_buffer_t *pos = raw(c.from, c.positionBuffer);
      const int32_t p = *reinterpret_cast<const int32_t *>(pos->host);
      halide_dimension_t &full = arg->dim[c.halideDim];
      if (p < 0 || static_cast<int64_t>(p) + c.length > static_cast<int64_t>(c.rows)) {
        error = "kernel " + c.from->name + ": position " + std::to_string(p) + " + " +
                std::to_string(c.length) + " rows is outside the " + std::to_string(c.rows) +
                " rows of the state it appends to";
        return false;
      }
      // The kernel reads rows 0 .. p + length - 1 of the argument (its keys
      // loop runs over the argument's extent) and writes p .. p + length - 1.
      full.extent = p + static_cast<int32_t>(c.length);
      out->host = arg->host + static_cast<int64_t>(p) * full.stride * arg->type.bytes();
      out->dim[c.halideDim].min = p;
      out->dim[c.halideDim].extent = static_cast<int32_t>(c.length);
      out->dim[c.halideDim].stride = full.stride;
    }
    return true;
  }

  bool call(std::string &error) {
    lastHalideError.clear();
    int rc = syncedCall();
    if (rc != 0) {
      error = "kernel " + name + " failed with Halide error " + std::to_string(rc);
      if (!lastHalideError.empty())
        error += ": " + lastHalideError;
      return false;
    }
    finishRows();
    return true;
  }

  /// Each RowsResult's rows to where they belong: stream b's to rows
  /// [p_b, p_b + L) of the result (first a copy of the argument) or, when
  /// carried, of the argument itself; p_b clamped to [0, C - L] as the
  /// kernel clamps it.
  void finishRows() {
    for (RowsResult &r : rowsResults) {
      const halide_buffer_t *arg = raw(this, r.argumentBuffer);
      uint8_t *dst = arg->host;
      const size_t rowBytes = static_cast<size_t>(r.rowElements) * sizeof(float);
      if (!r.carried) {
        dst = buffers[r.buffer].raw_buffer()->host; // argv holds the rows' buffer
        std::memcpy(dst, arg->host, static_cast<size_t>(r.streams * r.capacity) * rowBytes);
      }
      const auto *pos = reinterpret_cast<const int32_t *>(raw(this, r.positionBuffer)->host);
      const auto *src = static_cast<const uint8_t *>(r.rows.elements());
      for (int64_t b = 0; b < r.streams; ++b) {
        const int64_t p = std::clamp<int64_t>(pos[b], 0, r.capacity - r.length);
        std::memcpy(dst + static_cast<size_t>(b * r.capacity + p) * rowBytes,
                    src + static_cast<size_t>(b * r.length) * rowBytes,
                    static_cast<size_t>(r.length) * rowBytes);
      }
    }
  }

  bool invokeChunked(std::string &error) {
    const TimeChunking &c = *chunking;
    Halide::Runtime::Buffer<void> &state = buffers[stateResult];
    std::vector<Halide::Runtime::Buffer<void>> views(buffers.size());
    for (int64_t t0 = 0; t0 < c.length; t0 += c.chunk) {
      int64_t ext = std::min(c.chunk, c.length - t0);
      for (size_t i = 0; i < buffers.size(); ++i) {
        if (timeAxes[i] < 0) {
          views[i] = buffers[i];
        } else {
          int d = buffers[i].dimensions() - 1 - timeAxes[i];
          views[i] = buffers[i].cropped(d, static_cast<int>(t0), static_cast<int>(ext))
                         .translated(d, -static_cast<int>(t0));
        }
        argv[i] = views[i].raw_buffer();
      }
      // The first chunk starts from the caller's state (or zeros), the others
      // from the state the previous chunk left.
      if (t0 > 0 || !userState)
        argv[stateArg] = carryBuffer.raw_buffer();
      uploaded = false; // fresh per-chunk views: upload everything
      if (!call(error))
        return false;
      const float *st = static_cast<const float *>(state.data());
      std::copy(st, st + state.number_of_elements(), carry.f32().begin());
    }
    for (size_t i = 0; i < buffers.size(); ++i)
      argv[i] = buffers[i].raw_buffer();
    return true;
  }
};

namespace {
/// Bytes of a tensor's elements in its dtype.
size_t byteSize(const HostTensor &t) {
  size_t n = t.dtype == "float16" || t.dtype == "bfloat16" ? 2 : t.dtype == "int8" ? 1 : 4;
  for (int64_t d : t.shape)
    n *= static_cast<size_t>(d);
  return n;
}
} // namespace

BoundCall::~BoundCall() = default;

bool BoundCall::invoke(std::string &error) {
  if (!impl->placeWindows(error))
    return false;
  if (!impl->fn) {
    for (auto &s : impl->steps)
      if (!s->invoke(error))
        return false;
    for (auto &[from, to] : impl->copies) {
      if (to->external) { // a result in the caller's memory (same shape and dtype)
        std::memcpy(to->external, from->elements(), byteSize(*to));
        continue;
      }
      if (from->external) { // an argument in the caller's memory, returned
        std::memcpy(to->storage.data(), from->external, byteSize(*to));
        continue;
      }
      if (from->view)
        std::memcpy(to->storage.data(), from->view, to->storage.size());
      else
        to->storage = from->storage;
    }
    return impl->moveCarries(error);
  }
  if (impl->chunking) {
    // Each call starts from the caller's state (or zeros), not the last call's.
    std::fill(impl->carry.f32().begin(), impl->carry.f32().end(), 0.0f);
    return impl->invokeChunked(error);
  }
  return impl->call(error) && impl->moveCarries(error);
}

bool BoundCall::carryState(size_t result, size_t argument) {
  Impl &im = *impl;
  if (!im.info || result >= im.info->results.size() || argument >= im.info->arguments.size())
    return false;
  const FunctionInfo &fn = *im.info;
  const TensorInfo &r = fn.results[result], &a = fn.arguments[argument];
  if (r.shape != a.shape || r.dtype != a.dtype)
    return false;
  Impl::Carry c;
  c.result = result;
  bool readByAStep = false;
  if (!im.locateCarry(result, argument, c, readByAStep))
    return false;
  bool device = im.device;
  for (const auto &s : im.steps)
    device = device || s->impl->device;
  if (!device)
    return im.carryOnHost(std::move(c), readByAStep);
  // GPU: every kernel of the call on the device, none time-chunked.
  if (!fn.segmented && (!im.device || im.chunking))
    return false;
  for (const auto &s : im.steps)
    if (!s->impl->device || s->impl->chunking)
      return false;
  if (readByAStep) { // a later step reads it from the host: keep copying it back
    im.carries.push_back(std::move(c));
    return true;
  }
  c.from->keep[c.fromBuffer] = true;
  im.carries.push_back(std::move(c));
  return true;
}

bool BoundCall::carriesInPlace(size_t result) const {
  for (const Impl::Carry &k : impl->carries)
    if (k.inPlace && k.result == result)
      return true;
  return false;
}

bool BoundCall::syncToHost(std::string &error) {
  for (Impl::Carry &c : impl->carries) {
    if (!c.resident)
      continue;
    if (c.swap) { // the state into the argument's memory, and the buffers back
      halide_buffer_t *src = Impl::raw(c.from, c.fromBuffer);
      halide_buffer_t *dst = Impl::raw(c.to[0].first, c.to[0].second);
      std::memcpy(c.argumentHost, dst->host, dst->size_in_bytes());
      src->host = dst->host;
      dst->host = c.argumentHost;
      c.resident = false;
      continue;
    }
    auto [im, k] = c.to.front();
    halide_buffer_t *dst = Impl::raw(im, k);
    dst->set_device_dirty(true);
    if (int rc = dst->device_interface->copy_to_host(nullptr, dst)) {
      error = "kernel " + im->name + ": copying a carried state to the host failed with Halide "
              "error " + std::to_string(rc);
      return false;
    }
    im->transferBytes += static_cast<int64_t>(dst->size_in_bytes());
    for (auto &[other, i] : c.to)
      other->keep[i] = false;
    c.resident = false;
  }
  return true;
}

int64_t BoundCall::hostTransferBytes() const {
  int64_t n = impl->transferBytes;
  for (const auto &s : impl->steps)
    n += s->hostTransferBytes();
  return n;
}

namespace {
/// An address inside the loaded library `handle` (its dynamic section), or null.
const void *addressIn(void *handle) {
  struct link_map *map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map)
    return nullptr;
  return map->l_ld;
}
} // namespace

CompiledModule::~CompiledModule() {
  if (handle) {
    if (const void *at = addressIn(handle))
      unregisterMappedLibrary(at);
    dlclose(handle);
  }
}

std::unique_ptr<CompiledModule> CompiledModule::load(const std::string &dir, std::string &error) {
  return loadManifest(dir, error);
}

std::unique_ptr<CompiledModule> CompiledModule::loadManifest(const std::string &dir,
                                                             std::string &error) {
  std::string manifestPath = dir + "/manifest.json";
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(manifestPath, ec);
  if (std::filesystem::is_directory(st)) {
    error = manifestPath + ": is a directory, not a manifest";
    return nullptr;
  }
  // A FIFO would block the open, a device (/dev/zero) never end the read.
  if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) {
    error = manifestPath + ": is " +
            (std::filesystem::is_fifo(st) ? "a FIFO" : "a device or socket") +
            ", not a manifest (an ssm-compile output's manifest.json is a file)";
    return nullptr;
  }
  if (auto size = std::filesystem::file_size(manifestPath, ec); !ec && size > (64u << 20)) {
    error = manifestPath + ": is " + std::to_string(size) +
            " bytes, not a manifest (ssm-compile's are a few KB)";
    return nullptr;
  }
  std::ifstream in(manifestPath);
  if (!in) {
    error = manifestPath + ": cannot open (is '" + dir + "' an ssm-compile output?)";
    return nullptr;
  }
  std::stringstream text;
  text << in.rdbuf();
  ModuleManifest manifest;
  if (!manifestFromJson(text.str(), manifestPath, manifest, error))
    return nullptr;
  if (!manifest.sharedLibrary) {
    error = manifestPath + ": names no shared library (compiled for " + manifest.target +
            ", another machine: link its static library there)";
    return nullptr;
  }
  std::unique_ptr<CompiledModule> m(new CompiledModule());
  m->dir = dir;
  m->targetString = manifest.target;
  m->fns = std::move(manifest.functions);
  std::string lib = dir + "/" + *manifest.sharedLibrary;
  // A truncated library would fault inside dlopen (SIGBUS) when it maps the
  // missing pages: check its size against the one ssm-compile recorded.
  if (manifest.sharedLibraryBytes) {
    std::error_code ec;
    auto size = std::filesystem::file_size(lib, ec);
    if (ec || size != *manifest.sharedLibraryBytes) {
      error = lib + ": " +
              (ec ? "cannot read its size (" + ec.message() + ")"
                  : "has " + std::to_string(size) + " bytes, but the manifest says " +
                        std::to_string(*manifest.sharedLibraryBytes) + " (truncated or replaced?)");
      return nullptr;
    }
  }
  // A library damaged in place (its size unchanged) would crash in dlopen
  // or in its first call: check its checksum too, when recorded.
  if (manifest.sharedLibraryXxh3) {
    std::string sum;
    if (!fileChecksum(lib, sum, error))
      return nullptr;
    if (sum != *manifest.sharedLibraryXxh3) {
      error = lib + ": its checksum " + sum + " is not the manifest's " +
              *manifest.sharedLibraryXxh3 + " (damaged or replaced? compile it again)";
      return nullptr;
    }
  }
  // Kernels built for instructions this CPU lacks would die with SIGILL in
  // the first call (a module compiled on another machine, or for a named
  // target): refuse them here, naming the feature.
  std::string missing = unrunnableFeature(m->targetString);
  if (!missing.empty()) {
    error = dir + ": compiled for " + m->targetString + ", and this CPU cannot run its '" +
            missing + "' instructions (compile it here with --target host)";
    return nullptr;
  }
  m->handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!m->handle) {
    const char *why = dlerror();
    error = lib + ": cannot load (" + (why ? why : "unknown error") + ")";
    return nullptr;
  }
  // Its code is read from the file as it runs: a library truncated in place
  // now is a named error at the next fault, not a bare SIGBUS.
  if (const void *at = addressIn(m->handle))
    registerMappedLibrary(at, lib);
  for (const FunctionInfo &f : m->fns) {
    if (f.segmented) { // its steps were checked against the kernels it calls (Manifest.cpp)
      m->entries.push_back(nullptr);
      continue;
    }
    void *sym = dlsym(m->handle, (f.symbol + "_argv").c_str());
    if (!sym) {
      error = lib + ": no symbol " + f.symbol + "_argv";
      return nullptr;
    }
    m->entries.push_back(sym);
  }
  m->setAllocator(poolMalloc, poolFree);
  m->halideParallelFor = installParallelFor(m->handle);
  using ErrorHandler = void (*)(void *, const char *);
  using SetErrorHandler = ErrorHandler (*)(ErrorHandler);
  if (auto set = reinterpret_cast<SetErrorHandler>(dlsym(m->handle, "halide_set_error_handler")))
    set(recordHalideError);
  return m;
}

bool CompiledModule::onDevice() const {
  for (const char *f : {"-cuda", "-opencl", "-metal", "-vulkan", "-d3d12compute"})
    if (targetString.find(f) != std::string::npos)
      return true;
  return false;
}

const FunctionInfo *CompiledModule::find(const std::string &name) const {
  for (const FunctionInfo &f : fns)
    if (f.name == name)
      return &f;
  return nullptr;
}

void CompiledModule::setThreads(int n) {
  using SetFn = int (*)(int);
  if (auto set = reinterpret_cast<SetFn>(dlsym(handle, "halide_set_num_threads")))
    set(n);
  threads = n;
}

namespace {
/// A Halide buffer over a row-major host tensor (Halide's dim 0 = last dim).
halide_type_t halideType(const std::string &dtype) {
  return dtype == "int32"      ? halide_type_t(halide_type_int, 32)
         : dtype == "float16"  ? halide_type_t(halide_type_float, 16)
         : dtype == "bfloat16" ? halide_type_t(halide_type_bfloat, 16)
         : dtype == "int8"     ? halide_type_t(halide_type_int, 8)
                               : halide_type_t(halide_type_float, 32);
}

Halide::Runtime::Buffer<void> wrap(const HostTensor &t) {
  std::vector<int> extents(t.shape.rbegin(), t.shape.rend());
  if (t.external)
    return Halide::Runtime::Buffer<void>(halideType(t.dtype), t.external, extents);
  return Halide::Runtime::Buffer<void>(halideType(t.dtype), const_cast<void *>(t.elements()),
                                       extents);
}
} // namespace

std::unique_ptr<BoundCall> CompiledModule::bind(const FunctionInfo &fn,
                                                const std::vector<const HostTensor *> &inputs,
                                                std::vector<HostTensor> &outputs,
                                                std::string &error,
                                                const std::vector<int> *positionAxes) {
  if (positionAxes && positionAxes->size() != fn.arguments.size()) {
    error = "@" + fn.name + ": " + std::to_string(positionAxes->size()) +
            " position axes for " + std::to_string(fn.arguments.size()) + " arguments";
    return nullptr;
  }
  outputs.resize(fn.results.size());
  std::vector<HostTensor *> outs;
  for (HostTensor &t : outputs)
    outs.push_back(&t);
  return bindTo(fn, inputs, outs, error, positionAxes);
}

namespace {
/// True when `got` is `want` but along `axis` (a position axis, bind's
/// positionAxes), where it holds at least one position.
bool sameButAxis(const std::vector<int64_t> &got, const std::vector<int64_t> &want, int axis) {
  if (axis < 0 || got.size() != want.size() || static_cast<size_t>(axis) >= got.size() ||
      got[axis] < 1)
    return false;
  for (size_t d = 0; d < got.size(); ++d)
    if (static_cast<int>(d) != axis && got[d] != want[d])
      return false;
  return true;
}
} // namespace

void shapeTensor(HostTensor &t, const TensorInfo &info) {
  t.shape = info.shape;
  t.dtype = info.dtype;
  int64_t n = 1;
  for (int64_t d : t.shape)
    n *= d;
  if (t.external) // the caller's memory holds it
    t.storage.clear();
  else if (t.dtype == "int32")
    t.allocate<int32_t>(static_cast<size_t>(n), 0);
  else
    t.allocate<float>(static_cast<size_t>(n), 0.0f);
}

std::unique_ptr<BoundCall> CompiledModule::bindTo(const FunctionInfo &fn,
                                                  const std::vector<const HostTensor *> &inputs,
                                                  const std::vector<HostTensor *> &outputs,
                                                  std::string &error,
                                                  const std::vector<int> *positionAxes) {
  if (inputs.size() != fn.arguments.size()) {
    error = "@" + fn.name + " takes " + std::to_string(fn.arguments.size()) + " arguments, got " +
            std::to_string(inputs.size());
    return nullptr;
  }
  auto call = std::unique_ptr<BoundCall>(new BoundCall());
  call->impl = std::make_unique<BoundCall::Impl>();
  call->impl->fn = reinterpret_cast<ArgvFn>(entries[&fn - fns.data()]);
  call->impl->name = fn.symbol;
  call->impl->info = &fn;
  call->impl->threads = &threads;
  call->impl->halideParallelFor = halideParallelFor;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i]->dtype != fn.arguments[i].dtype) {
      error = "argument '" + fn.arguments[i].name + "' of @" + fn.name + " is " + inputs[i]->dtype +
              " but the compiled function expects " + fn.arguments[i].dtype;
      return nullptr;
    }
    const int axis = positionAxes ? (*positionAxes)[i] : -1;
    if (inputs[i]->shape != fn.arguments[i].shape &&
        !sameButAxis(inputs[i]->shape, fn.arguments[i].shape, axis)) {
      error = "argument '" + fn.arguments[i].name + "' of @" + fn.name + " has shape " +
              shapeString(inputs[i]->shape) + " but the compiled function expects " +
              shapeString(fn.arguments[i].shape);
      return nullptr;
    }
    // Another extent along a position axis: only where this kernel appends
    // to the argument along it (its positions loop reads the buffer's
    // extent); a segmented function's steps check their own.
    if (inputs[i]->shape != fn.arguments[i].shape && !fn.segmented) {
      const bool appended = std::any_of(fn.results.begin(), fn.results.end(), [&](const TensorInfo &r) {
        return r.append && !r.append->rows && r.append->argument == static_cast<int>(i) &&
               r.append->axis == axis;
      });
      if (!appended || onDevice() || fn.chunking) {
        error = "argument '" + fn.arguments[i].name + "' of @" + fn.name + " holds " +
                std::to_string(inputs[i]->shape[axis]) + " positions, and the kernel was "
                "compiled for exactly " + std::to_string(fn.arguments[i].shape[axis]) +
                (onDevice() ? " (a GPU module)" : fn.chunking ? " (a time-chunked kernel)"
                                                              : " (it does not append to it in place)");
        return nullptr;
      }
    }
    if (!fn.segmented)
      call->impl->buffers.push_back(wrap(*inputs[i]));
  }
  for (size_t i = 0; i < fn.results.size(); ++i)
    shapeTensor(*outputs[i], fn.results[i]);
  if (fn.segmented) {
    // Each value lives in an argument, a result, or a temporary buffer. A
    // temporary is reused, for a value of the same shape and dtype, by the
    // steps after the last one that reads it (the steps run in order), so the
    // buffers between layers cost one or two layers' worth, not one per layer.
    BoundCall::Impl &im = *call->impl;
    std::vector<const HostTensor *> values(fn.stepValues, nullptr);
    std::vector<HostTensor *> writable(fn.stepValues, nullptr);
    for (size_t i = 0; i < inputs.size(); ++i)
      values[i] = inputs[i];
    const int kForever = static_cast<int>(fn.steps.size());
    std::vector<int> lastUse(fn.stepValues, -1);
    for (size_t j = 0; j < fn.steps.size(); ++j)
      for (int v : fn.steps[j].inputs)
        lastUse[v] = static_cast<int>(j);
    for (int v : fn.resultValues) // results may be copied out at the end
      lastUse[v] = kForever;
    std::vector<HostTensor *> freeTemps;
    std::vector<bool> isTemp(fn.stepValues, false);
    std::vector<bool> resultBound(fn.results.size(), false);
    for (size_t j = 0; j < fn.steps.size(); ++j) {
      const SegmentStep &st = fn.steps[j];
      const FunctionInfo &callee = *find(st.function);
      std::vector<const HostTensor *> ins;
      std::vector<int> stepAxes;
      for (int v : st.inputs) {
        ins.push_back(values[v]);
        // A resized argument keeps its position axis in the steps that read it.
        stepAxes.push_back(positionAxes && v < static_cast<int>(inputs.size()) &&
                                   inputs[v]->shape != fn.arguments[v].shape
                               ? (*positionAxes)[v]
                               : -1);
      }
      std::vector<HostTensor *> outs;
      for (size_t k = 0; k < st.outputs.size(); ++k) {
        int v = st.outputs[k];
        HostTensor *target = nullptr;
        for (size_t r = 0; r < fn.results.size() && !target; ++r)
          if (fn.resultValues[r] == v && !resultBound[r] &&
              fn.results[r].shape == callee.results[k].shape) {
            resultBound[r] = true;
            target = outputs[r];
          }
        if (!target) {
          const TensorInfo &want = callee.results[k];
          auto it = std::find_if(freeTemps.begin(), freeTemps.end(), [&](HostTensor *t) {
            return t->shape == want.shape && t->dtype == want.dtype;
          });
          if (it != freeTemps.end()) {
            target = *it;
            freeTemps.erase(it);
          } else {
            im.temps.push_back(std::make_unique<HostTensor>());
            target = im.temps.back().get();
          }
          isTemp[v] = true;
        }
        values[v] = writable[v] = target;
        outs.push_back(target);
      }
      std::unique_ptr<BoundCall> sub = bindTo(callee, ins, outs, error, &stepAxes);
      if (!sub) {
        error = "@" + fn.name + ": " + error;
        return nullptr;
      }
      // A step's callee has no parameter names of its own: its inputs that
      // are this function's weights stay on the device between calls too.
      if (sub->impl->device)
        for (size_t k = 0; k < st.inputs.size(); ++k)
          if (st.inputs[k] < static_cast<int>(inputs.size()) &&
              !fn.arguments[st.inputs[k]].param.empty())
            sub->impl->isWeight[k] = true;
      im.steps.push_back(std::move(sub));
      // Only now, so that no output of this step shares a buffer with its
      // inputs or with its other outputs.
      auto release = [&](int v) {
        if (isTemp[v] && lastUse[v] <= static_cast<int>(j)) {
          freeTemps.push_back(writable[v]);
          isTemp[v] = false;
        }
      };
      for (int v : st.inputs)
        release(v);
      for (int v : st.outputs)
        release(v);
    }
    for (size_t r = 0; r < fn.results.size(); ++r)
      if (!resultBound[r]) {
        if (checkedNumel(values[fn.resultValues[r]]->shape) !=
            checkedNumel(outputs[r]->shape)) { // a resized argument returned as it came
          error = "@" + fn.name + " returns '" + fn.results[r].name + "' as " +
                  shapeString(outputs[r]->shape) + " from a value of shape " +
                  shapeString(values[fn.resultValues[r]]->shape);
          return nullptr;
        }
        im.copies.push_back({values[fn.resultValues[r]], outputs[r]});
      }
    return call;
  }
  for (size_t i = 0; i < fn.results.size(); ++i)
    call->impl->buffers.push_back(wrap(*outputs[i]));
  if (fn.chunking) {
    BoundCall::Impl &im = *call->impl;
    im.chunking = fn.chunking;
    const TimeChunking &c = *fn.chunking;
    const TensorInfo &stateInfo = fn.results[c.stateResult];
    im.carry.shape = stateInfo.shape;
    int64_t stateElems = 1;
    for (int64_t d : stateInfo.shape)
      stateElems *= d;
    im.carry.allocate<float>(static_cast<size_t>(stateElems), 0.0f);
    im.carryBuffer = wrap(im.carry);
    im.userState = static_cast<size_t>(c.stateArgument) < fn.arguments.size();
    // Kernel buffers: the arguments, the added state argument, the results.
    std::vector<Halide::Runtime::Buffer<void>> ordered(im.buffers.begin(),
                                                        im.buffers.begin() + inputs.size());
    im.timeAxes = c.argumentTimeAxes;
    for (size_t i = 0; i < fn.kernelExtraArguments.size(); ++i) {
      ordered.push_back(im.carryBuffer);
      im.timeAxes.push_back(-1);
    }
    ordered.insert(ordered.end(), im.buffers.begin() + inputs.size(), im.buffers.end());
    im.timeAxes.insert(im.timeAxes.end(), c.resultTimeAxes.begin(), c.resultTimeAxes.end());
    im.buffers = std::move(ordered);
    im.stateArg = c.stateArgument;
    im.stateResult = static_cast<int>(inputs.size() + fn.kernelExtraArguments.size()) + c.stateResult;
  }
  for (auto &b : call->impl->buffers)
    call->impl->argv.push_back(b.raw_buffer());
  for (size_t i = 0; i < fn.results.size(); ++i) {
    const TensorInfo &r = fn.results[i];
    if (!r.append || !r.append->rows)
      continue;
    BoundCall::Impl &im = *call->impl;
    if (onDevice() || fn.chunking) {
      error = "@" + fn.name + ": result '" + r.name + "' is in the rows form (manifest "
              "\"append\" with \"rows\"), which only CPU modules without time chunks have";
      return nullptr;
    }
    BoundCall::Impl::RowsResult rr;
    rr.buffer = inputs.size() + i;
    rr.argumentBuffer = static_cast<size_t>(r.append->argument);
    rr.positionBuffer = static_cast<size_t>(r.append->position);
    rr.streams = r.shape[0];
    rr.capacity = r.shape[1];
    rr.length = r.append->length;
    rr.rowElements = 1;
    for (size_t d = 2; d < r.shape.size(); ++d)
      rr.rowElements *= r.shape[d];
    rr.rows.shape = r.shape;
    rr.rows.shape[1] = rr.length;
    rr.rows.dtype = "float32";
    rr.rows.allocate<float>(static_cast<size_t>(rr.streams * rr.length * rr.rowElements), 0.0f);
    rr.rowsBuffer = wrap(rr.rows);
    im.rowsResults.push_back(std::move(rr));
  }
  for (auto &rr : call->impl->rowsResults)
    call->impl->argv[rr.buffer] = rr.rowsBuffer.raw_buffer();
  if (onDevice()) {
    BoundCall::Impl &im = *call->impl;
    im.device = true;
    im.deviceInputs = inputs.size() + fn.kernelExtraArguments.size();
    for (size_t i = 0; i < im.deviceInputs; ++i)
      im.isWeight.push_back(i < inputs.size() && !fn.arguments[i].param.empty());
    im.keep.assign(im.argv.size(), false);
  }
  return call;
}

void CompiledModule::setAllocator(void *(*allocate)(void *, size_t),
                                  void (*release)(void *, void *)) {
  using MallocFn = void *(*)(void *, size_t);
  using FreeFn = void (*)(void *, void *);
  using SetMalloc = MallocFn (*)(MallocFn);
  using SetFree = FreeFn (*)(FreeFn);
  auto setMalloc = reinterpret_cast<SetMalloc>(dlsym(handle, "halide_set_custom_malloc"));
  auto setFree = reinterpret_cast<SetFree>(dlsym(handle, "halide_set_custom_free"));
  if (setMalloc && setFree) {
    setMalloc(allocate);
    setFree(release);
  }
}

void CompiledModule::trackScratch() {
  setAllocator(countingMalloc, countingFree);
  peakScratch = liveScratch.load();
}

int64_t CompiledModule::peakScratchBytes() { return peakScratch.load(); }

} // namespace ssm::rt
