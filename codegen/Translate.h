// Translation of a func.func of ssm and upstream ops into one Halide pipeline.
#ifndef SSM_CODEGEN_TRANSLATE_H
#define SSM_CODEGEN_TRANSLATE_H

#include "Halide.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <string>
#include <vector>

namespace ssm::codegen {

/// One argument or result as the manifest and the runtime see it.
struct TensorSignature {
  std::string name;           // C identifier used in the generated header
  std::string param;          // the `ssm.param` weight name, if any
  std::string state;          // the `ssm.state` name: streaming sessions carry it across calls
  std::vector<int64_t> shape; // MLIR order, static
  std::string dtype = "float32";
  /// Results only: the rows [p, p + length) along `axis` of argument
  /// `argument` are what the function writes, p the value of the int32
  /// argument `position`; the rest equals the argument (a KV cache after
  /// ssm.attention, one stream). The output's `axis` is left unbounded so
  /// that the runtime may pass that window of the argument's memory
  /// (rt::TensorInfo::Append in the manifest).
  ///
  /// `rows`: several streams per call (a batched step: position is (B), one
  /// per stream, so the written rows are no box of the argument). The
  /// kernel's output buffer is then the new rows alone, (B, length, ...),
  /// row b's going to rows [position[b], + length) of the argument; the
  /// manifest shape stays the argument's, and the runtime either writes
  /// the rows into the argument in place or builds the whole result from
  /// the argument and the rows (runtime/Module.cpp).
  struct Append {
    int axis = -1, argument = -1, position = -1;
    int64_t length = 0;
    bool rows = false;
  };
  std::optional<Append> append;
};

/// How the runtime runs a long sequence as a host loop over time chunks,
/// carrying the state between kernel calls, so that scratch memory stays
/// O(tile x N x chunk) whatever the length (DESIGN.md section 5). The kernel
/// is compiled with a symbolic time extent; each call sees views of the
/// inputs and outputs cropped to one chunk.
struct TimeChunking {
  int64_t chunk = 0;                // time steps per call (a multiple of 32)
  int64_t length = 0;               // the function's full sequence length
  std::vector<int> argTimeAxis;     // per argument: MLIR axis of time, or -1
  std::vector<int> resultTimeAxis;  // per result: likewise
  int stateArg = -1;    // kernel argument holding the initial state
  bool stateArgAdded = false; // true: the kernel's last argument, not in the MLIR function
  int stateResult = -1; // result holding the final state (fed to the next call)
};

struct TranslatedFunction {
  std::string name;   // the MLIR symbol
  std::string symbol; // the C symbol of the compiled function
  Halide::Pipeline pipeline;
  std::vector<Halide::Argument> arguments; // inputs, in order
  std::vector<TensorSignature> inputs, results;
  /// Kernel arguments after `inputs` that the MLIR function does not have
  /// (the carried state of a chunked scan).
  std::vector<TensorSignature> kernelExtraInputs;
  std::optional<TimeChunking> chunking;
};

/// The signature of a function argument or result of tensor `type` with
/// attributes `attrs`: named by its ssm.name, else its ssm.param, else
/// `fallback` (made a C identifier); ssm.param and ssm.state recorded;
/// dtype as storageDtype names it.
TensorSignature tensorSignature(mlir::RankedTensorType type, mlir::DictionaryAttr attrs,
                                const std::string &fallback);
/// The manifest's dtype of an element type: "int32", "int8", "float16",
/// "bfloat16", else "float32".
std::string storageDtype(mlir::Type elem);

/// The time-chunking plan of `func`, if ssm-chunk-time set `ssm.time_chunk`
/// on it (a single ssm.selective_scan whose sequence is longer than that).
std::optional<TimeChunking> planTimeChunking(mlir::func::FuncOp func);

struct TranslateOptions {
  /// Empty: every op's schedule attribute is applied by its schedule
  /// function (codegen/schedules/). Else the name of a loaded Halide
  /// autoscheduler plugin ("Adams2019", "Li2018", "Mullapudi2016") that
  /// schedules the unscheduled pipeline instead (the tuner's baseline).
  std::string autoscheduler;
  Halide::MachineParams machine = Halide::MachineParams::generic();
};

/// Builds the pipeline of `func` for `target`: every value lowered by the
/// op's entry in the lowering table, each op's stages scheduled from its
/// `ssm.schedule` attribute (fields left out at the target's defaults;
/// stages without one computed at root), or by the autoscheduler. Emits a
/// diagnostic on the offending op and returns failure for an unsupported
/// op, type, shape or schedule.
mlir::FailureOr<TranslatedFunction> translateFunction(mlir::func::FuncOp func,
                                                      const Halide::Target &target,
                                                      const TranslateOptions &options = {});

} // namespace ssm::codegen

#endif
