// A compiled module: the shared library and manifest ssm-compile wrote, loaded for execution.
//
// The runtime links neither libHalide nor MLIR/LLVM: it dlopens the kernel
// library (which carries its own Halide runtime) and calls each function
// through Halide's `<symbol>_argv` entry point.
#ifndef SSM_RUNTIME_MODULE_H
#define SSM_RUNTIME_MODULE_H

#include "runtime/HostTensor.h"
#include "runtime/Manifest.h"

#include <cstddef>
#include <cstdint>
#include <new>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct halide_buffer_t;

namespace ssm::rt {

/// Gives `t` the shape and dtype of `info`, its own storage zero-filled (none
/// when it is `external`). Storage of the same size is kept: bind() does
/// this to its outputs.
void shapeTensor(HostTensor &t, const TensorInfo &info);

class CompiledModule;
class KernelThreadPool;

/// A function with its argument and result buffers bound, ready to be
/// called many times (timing loops, streaming decode) without rebinding.
class BoundCall {
public:
  ~BoundCall();
  /// Runs the kernel; results land in the HostTensors given to bind().
  bool invoke(std::string &error);

  /// Declares that result `result` is the next call's input `argument` (a
  /// state carried across decode steps; same shape and dtype), so that it
  /// is not copied through the caller's HostTensors after each call:
  ///  * GPU modules: after each call the result is copied on the device
  ///    into that input's device buffer; the first call uploads the
  ///    argument from the host as usual.
  ///  * CPU modules: the result's and the argument's buffers trade their
  ///    memory after each call (ping-pong), so the next call reads the
  ///    state where this one wrote it and writes over the one before; the
  ///    argument's memory is written (it must be writable storage, not a
  ///    view). Refused where another buffer of the call shares either
  ///    memory.
  ///  * CPU modules, a result the manifest marks "append" to this very
  ///    argument (TensorInfo::Append: a KV cache after ssm.attention, one
  ///    stream): before each call the result's buffer is pointed at the
  ///    rows [p, p + length) of the argument's memory (p read from the
  ///    position argument), so the kernel writes only this call's rows, in
  ///    place; the argument's HostTensor always holds the state (nothing to
  ///    sync) and a position past the argument fails the call naming it.
  ///  * CPU modules, a result in the rows form (TensorInfo::Append::rows:
  ///    several streams, each at its own position): the kernel writes
  ///    the new rows into a buffer of the call's own, and after the call
  ///    they are copied into the argument's memory at each stream's
  ///    position (O(B x length) rows, not the B whole caches); the
  ///    argument's HostTensor always holds the state. Uncarried, such a
  ///    result is built after each call as a copy of the argument with
  ///    those rows written.
  /// Either way the result's HostTensor does not hold the state and the
  /// argument's HostTensor is stale until syncToHost(). Returns false,
  /// changing nothing, where it does not apply: a time-chunked function, a
  /// result that is an argument passed through or that a later step of
  /// the same call reads (CPU), an argument no kernel reads, or indices,
  /// shapes or dtypes that do not match; the caller then copies the result
  /// into the argument on the host, as before.
  bool carryState(size_t result, size_t argument);
  /// True when carryState(result, ...) writes the state in place (the
  /// "append" form above): the result's own HostTensor is then never
  /// written nor read, and its storage may be released by the caller.
  bool carriesInPlace(size_t result) const;
  /// Puts every carried state into its argument's HostTensor (from the
  /// device, or from the result's memory on a CPU module); the next call
  /// reads it from there again (so the host may change it in between). A
  /// no-op when nothing is carried or already synced.
  bool syncToHost(std::string &error);
  /// Bytes the calls so far asked to move between host and device: inputs
  /// marked for upload and results copied back (0 for a CPU module). For
  /// tests and measurements of what stays on the device.
  int64_t hostTransferBytes() const;

private:
  friend class CompiledModule;
  struct Impl;
  std::unique_ptr<Impl> impl;
};

class CompiledModule {
public:
  ~CompiledModule();
  /// Loads <dir>/manifest.json and the shared library it names. Errors name
  /// the file and the problem (missing, malformed manifest, missing symbol).
  static std::unique_ptr<CompiledModule> load(const std::string &dir, std::string &error);

  const std::vector<FunctionInfo> &functions() const { return fns; }
  /// The function named `name`, or null.
  const FunctionInfo *find(const std::string &name) const;
  /// The Halide target string the module was compiled for.
  const std::string &target() const { return targetString; }
  /// True for a GPU module (a cuda, opencl, metal, vulkan or d3d12compute
  /// target): its calls keep device copies of their buffers between calls
  /// (weights uploaded once per bound call) and copy results back to the
  /// host after each call, except the states declared with
  /// BoundCall::carryState, which stay on the device.
  bool onDevice() const;

  /// Binds `inputs` (one per argument, shapes as in the manifest) and
  /// `outputs` (resized here to the result shapes). The tensors must
  /// outlive the call object.
  ///
  /// `positionAxes` (when given: one per argument, -1 for none) lets an
  /// argument differ from the manifest's shape along that one axis (a KV
  /// cache opened with another capacity than the module was compiled for,
  /// Model::open's context). Only where the kernel that reads it returns it
  /// "append" along that axis (TensorInfo::Append, one stream; through the
  /// steps of a segmented function): its loop over positions then runs over
  /// the argument's own extent. Anything else is an error naming the
  /// argument. The result keeps the manifest's shape: the caller must carry
  /// it in place (carryState, carriesInPlace) and never read it.
  std::unique_ptr<BoundCall> bind(const FunctionInfo &fn,
                                  const std::vector<const HostTensor *> &inputs,
                                  std::vector<HostTensor> &outputs, std::string &error,
                                  const std::vector<int> *positionAxes = nullptr);

  /// Threads its parallel loops run on (0: one per core, or HL_NUM_THREADS):
  /// the runtime's spinning pool of that many threads (runtime/ThreadPool.h),
  /// and the module's Halide pool, which takes a loop while another thread
  /// holds the first.
  void setThreads(int n);

  /// Routes the kernels' heap allocations (their scratch buffers) through
  /// a counting allocator instead of the block pool load() installs (which
  /// reuses freed blocks across calls); peakScratchBytes() then reports the high-water
  /// mark since the call. Process-wide: meant for measurement runs.
  void trackScratch();
  static int64_t peakScratchBytes();

private:
  CompiledModule() = default;
  static std::unique_ptr<CompiledModule> loadManifest(const std::string &dir, std::string &error);
  /// Routes the kernels' heap allocations (halide_malloc/halide_free of the
  /// library's runtime) through `allocate` and `release`.
  void setAllocator(void *(*allocate)(void *, std::size_t), void (*release)(void *, void *));
  /// bind() with results written to `outputs` (sized by the caller).
  std::unique_ptr<BoundCall> bindTo(const FunctionInfo &fn,
                                    const std::vector<const HostTensor *> &inputs,
                                    const std::vector<HostTensor *> &outputs, std::string &error,
                                    const std::vector<int> *positionAxes);
  void *handle = nullptr;
  std::string dir, targetString;
  std::vector<FunctionInfo> fns;
  std::vector<void *> entries; // <symbol>_argv per function (null when segmented)
  // Where the parallel loops run (runtime/ThreadPool.h): the runtime's pool
  // for the thread count, and the module's own Halide runner as fallback.
  int threads = 0; // setThreads; the pool is looked up per call
  int (*halideParallelFor)(void *, int (*)(void *, int, uint8_t *), int, int, uint8_t *) = nullptr;
};

} // namespace ssm::rt

#endif
