// The module manifest (manifest.json): one schema for ssm-compile, which writes it, and the runtime, which reads it.
//
// {"format": "ssm-opt-module", "version": 1, "compiler", "target",
//  "requested_target", "shared_library": "lib<name>.so" or null (a cross
//  target, linked where it runs), "autoscheduler" (when one scheduled it),
//  "static_library", "header", "symbol_prefix",
//  "functions": [{"name", "symbol", "internal" (when true), "arguments": [T],
//                 "results": [T], "kernel_extra_arguments": [T] (when any),
//                 "time_chunking": {"chunk", "length", "argument_time_axes",
//                   "result_time_axes", "state_argument", "state_result"}}
//                | {"name", "arguments", "results", "steps": [{"function",
//                   "inputs", "outputs"}], "step_values", "result_values"}],
//  "shared_library_bytes", "shared_library_xxh3" (when linked: the
//  library's size and XXH3-64 checksum, runtime/Checksum.h)}
// with T = {"name", "param" (weights), "state" (carried states), "shape",
// "dtype": float32 | int32 | float16 | bfloat16 | int8 (the last three for
// arguments only), "append": {"axis", "argument", "position", "length"}
// (results only, TensorInfo::Append)}. No MLIR and no Halide: codegen/Compile.cpp and
// runtime/Module.cpp both include it.
#ifndef SSM_RUNTIME_MANIFEST_H
#define SSM_RUNTIME_MANIFEST_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ssm::rt {

struct TensorInfo {
  std::string name;
  std::string param; // weight name (ssm.param), empty for plain inputs
  std::string state; // streaming-state name (ssm.state), empty otherwise
  std::vector<int64_t> shape;
  std::string dtype;
  /// Results only (manifest "append"): the result is argument `argument`
  /// with the `length` rows from p along `axis` replaced, p the int32 value
  /// of argument `position` (a KV cache after ssm.attention writes a call's
  /// keys or values). The kernel computes whatever rows its output buffer
  /// covers and never reads the result, so a runtime may pass the window
  /// [p, p + length) of the argument's own memory as the result and write
  /// the cache in place (BoundCall::carryState does on CPU modules).
  ///
  /// `rows` (manifest "rows": true; several streams per call, a batched
  /// step): `position` is (B) int32, one per stream (dim 0), axis 1, and
  /// stream b's rows go to [position[b], + length), clamped as the kernel
  /// does to [0, rows - length]. The kernel's own output buffer is then
  /// the new rows alone, shaped as the result with `length` along `axis`;
  /// the runtime (runtime/Module.cpp) builds the result from the argument
  /// and those rows, or, carried, writes them into the argument in place.
  struct Append {
    int axis = -1, argument = -1, position = -1;
    int64_t length = 0;
    bool rows = false;
  };
  std::optional<Append> append;
};

/// A function the runtime runs as a host loop over time chunks, carrying
/// the state between kernel calls (manifest "time_chunking").
struct TimeChunking {
  int64_t chunk = 0, length = 0;
  std::vector<int> argumentTimeAxes, resultTimeAxes; // MLIR axis or -1
  int stateArgument = -1; // kernel argument index of the initial state
  int stateResult = -1;   // result index of the final state
};

/// One kernel call of a segmented function (manifest "steps"): values are
/// numbered arguments first, then each step's results in order.
struct SegmentStep {
  std::string function; // the internal function called
  std::vector<int> inputs, outputs;
};

struct FunctionInfo {
  std::string name;   // MLIR symbol
  std::string symbol; // C symbol (empty for a segmented function)
  /// A kernel the module's segmented functions call, not meant for users.
  bool internal = false;
  /// Non-empty (or `segmented`): the function runs as these kernel calls
  /// (a model graph calling one function per layer, codegen/Segments.h).
  bool segmented = false;
  std::vector<SegmentStep> steps;
  int stepValues = 0;
  std::vector<int> resultValues; // value id of each result
  std::vector<TensorInfo> arguments, results;
  /// Kernel arguments after `arguments` that callers do not pass (the
  /// carried state of a chunked scan).
  std::vector<TensorInfo> kernelExtraArguments;
  std::optional<TimeChunking> chunking;
};

/// manifest.json as a struct (the header comment gives the JSON).
struct ModuleManifest {
  std::string compiler, target, requestedTarget;
  std::optional<std::string> sharedLibrary; // none: a cross target
  std::optional<uint64_t> sharedLibraryBytes;
  std::optional<std::string> sharedLibraryXxh3; // 16 hex digits (runtime/Checksum.h)
  std::string autoscheduler; // empty: the schedules of the IR
  std::string staticLibrary, header, symbolPrefix;
  std::vector<FunctionInfo> functions;
};

/// The JSON text of `m` (two-space indent, keys in the order above).
std::string manifestToJson(const ModuleManifest &m);

/// Parses and checks manifest text: the format tag, every field's JSON
/// type, integers that fit their type, tensor dtypes, segmented functions
/// whose values are each defined once before they are read, time chunking
/// whose axes and indices fit the function. False with `error` ("<path>:
/// <problem>", `path` naming the file) otherwise.
bool manifestFromJson(const std::string &text, const std::string &path, ModuleManifest &out,
                      std::string &error);

} // namespace ssm::rt

#endif
