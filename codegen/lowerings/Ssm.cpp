// Lowerings of the ssm ops: each gathers its operands and attributes and calls
// the op's kernel builder in codegen/kernels/<Op>Kernel.cpp.
#include "codegen/Lowering.h"
#include "codegen/lowerings/ActivationBlocks.h"
#include "codegen/kernels/LtiConvFftKernel.h"
#include "codegen/kernels/Wkv7Kernel.h"
#include "codegen/schedules/LtiConvFftSchedule.h"
#include "codegen/schedules/Schedules.h"
#include "codegen/schedules/Wkv7Schedule.h"

#include "dialect/SsmOpList.h"

using namespace mlir;

namespace ssm::codegen {
namespace {

std::optional<TensorFunc> optional(LoweringState &state, Value v) {
  if (!v)
    return std::nullopt;
  return state.get(v);
}

/// Records a kernel's results as the op's results (computed at root).
LogicalResult finish(Operation *op, LoweringState &state, const KernelResult &r) {
  if (r.outputs.size() != op->getNumResults())
    return op->emitError() << "kernel returned " << r.outputs.size() << " results, expected "
                           << op->getNumResults();
  for (unsigned i = 0; i < op->getNumResults(); ++i) {
    state.kernelOutputs.push_back(r.outputs[i]);
    state.set(op->getResult(i), r.outputs[i]);
  }
  return success();
}

/// Applies the op's schedule to the kernel's stages (unless the pipeline is
/// left to the autoscheduler) and records its results.
template <typename Kernel>
LogicalResult finishKernel(Operation *op, LoweringState &state, Kernel k,
                           void (*schedule)(Kernel &, const CpuSchedule &, const Halide::Target &)) {
  if (state.manualSchedules)
    schedule(k, state.scheduleOf(op), state.target);
  return finish(op, state, k.result);
}

LogicalResult lower(DiscretizeOp op, LoweringState &state) {
  Operation *o = op;
  DiscretizeKernelInputs in{state.get(op.getA()), state.get(op.getB()), state.get(op.getDelta()),
                            op.getAMethod(), op.getBMethod()};
  return finishKernel(o, state, buildDiscretize(in), scheduleDiscretize);
}

LogicalResult lower(AffineScanOp op, LoweringState &state) {
  Operation *o = op;
  AffineScanKernelInputs in;
  in.a = state.get(op.getA());
  in.b = state.get(op.getB());
  in.h0 = optional(state, op.getH0());
  in.reset = optional(state, op.getReset());
  in.dim = static_cast<int>(op.getDim());
  in.reverse = op.getReverse();
  return finishKernel(o, state, buildAffineScan(in), scheduleAffineScan);
}

LogicalResult lower(SelectiveScanOp op, LoweringState &state) {
  Operation *o = op;
  SelectiveScanKernelInputs in;
  in.u = state.get(op.getU());
  in.delta = state.get(op.getDelta());
  in.A = state.get(op.getA());
  in.B = state.get(op.getB());
  in.C = state.get(op.getC());
  in.D = optional(state, op.getD());
  in.z = optional(state, op.getZ());
  in.deltaBias = optional(state, op.getDeltaBias());
  in.h0 = optional(state, op.getH0());
  if (!in.h0)
    in.h0 = state.carriedState;
  in.deltaSoftplus = op.getDeltaSoftplus();
  in.timeMajor = op.getLayout() == Layout::time_major;
  return finishKernel(o, state, buildSelectiveScan(in), scheduleSelectiveScan);
}

LogicalResult lower(SelectiveUpdateOp op, LoweringState &state) {
  Operation *o = op;
  SelectiveUpdateKernelInputs in;
  in.state = state.get(op.getState());
  in.x = state.get(op.getX());
  in.dt = state.get(op.getDt());
  in.A = state.get(op.getA());
  in.B = state.get(op.getB());
  in.C = state.get(op.getC());
  in.D = optional(state, op.getD());
  in.z = optional(state, op.getZ());
  in.dtBias = optional(state, op.getDtBias());
  in.dtSoftplus = op.getDtSoftplus();
  return finishKernel(o, state, buildSelectiveUpdate(in), scheduleSelectiveUpdate);
}

LogicalResult lower(LtiKernelOp op, LoweringState &state) {
  Operation *o = op;
  LtiKernelKernelInputs in{state.get(op.getA()), optional(state, op.getB()),
                           state.get(op.getC()), state.get(op.getDelta()),
                           op.getDiscretization(), op.getBMethod(),
                           op.getK().getType().getDimSize(1)};
  return finishKernel(o, state, buildLtiKernel(in), scheduleLtiKernel);
}

LogicalResult lower(LtiConvOp op, LoweringState &state) {
  Operation *o = op;
  LtiConvKernelInputs in;
  in.u = state.get(op.getU());
  in.K = state.get(op.getK());
  in.D = optional(state, op.getD());
  in.algorithm = op.getAlgorithm();
  if (in.algorithm == ssm::ConvAlgorithm::fft)
    return finishKernel(o, state, buildLtiConvFft(in), scheduleLtiConvFft);
  return finishKernel(o, state, buildLtiConv(in, ltiConvTimeBlock(state.scheduleOf(o))),
                      scheduleLtiConv);
}

LogicalResult lower(CausalConv1dOp op, LoweringState &state) {
  Operation *o = op;
  CausalConv1dKernelInputs in;
  in.x = state.get(op.getX());
  in.weight = state.get(op.getWeight());
  in.bias = optional(state, op.getBias());
  in.initialStates = optional(state, op.getInitialStates());
  in.activation = op.getActivation();
  return finishKernel(o, state, buildCausalConv1d(in), scheduleCausalConv1d);
}

LogicalResult lower(SsdScanOp op, LoweringState &state) {
  Operation *o = op;
  SsdScanKernelInputs in{state.get(op.getX()), state.get(op.getA()), state.get(op.getB()),
                         state.get(op.getC()), optional(state, op.getInitialState()),
                         optional(state, op.getBonus()),
                         static_cast<int>(static_cast<int64_t>(op.getChunkSize()))};
  return finishKernel(o, state, buildSsdScan(in, state.scheduleOf(o).vectorWidth),
                      scheduleSsdScan);
}

LogicalResult lower(Wkv4Op op, LoweringState &state) {
  Operation *o = op;
  Wkv4KernelInputs in;
  in.w = state.get(op.getW());
  in.u = state.get(op.getU());
  in.k = state.get(op.getK());
  in.v = state.get(op.getV());
  in.aa = optional(state, op.getAa());
  in.bb = optional(state, op.getBb());
  in.pp = optional(state, op.getPp());
  return finishKernel(o, state, buildWkv4(in), scheduleWkv4);
}

LogicalResult lower(Wkv7Op op, LoweringState &state) {
  Operation *o = op;
  Wkv7KernelInputs in{state.get(op.getR()), state.get(op.getW()), state.get(op.getK()),
                      state.get(op.getV()), state.get(op.getA()), state.get(op.getB()),
                      optional(state, op.getInitialState())};
  // The chunk picks the algorithm: read on every target.
  in.chunk = state.scheduleOf(o).chunk;
  if (in.chunk < 0)
    in.chunk = static_cast<int>(
        defaultWkv7Chunk(cast<RankedTensorType>(op.getR().getType()).getDimSize(1),
                         targetFamily(state.target) == TargetFamily::Gpu));
  return finishKernel(o, state, buildWkv7(in), scheduleWkv7);
}

LogicalResult lower(GatedDeltaRuleOp op, LoweringState &state) {
  Operation *o = op;
  GatedDeltaRuleKernelInputs in{state.get(op.getQ()),    state.get(op.getK()),
                                state.get(op.getV()),    state.get(op.getG()),
                                state.get(op.getBeta()), optional(state, op.getInitialState()),
                                op.getScale().convertToDouble()};
  // The chunk picks the algorithm, so it is read with or without manual
  // schedules and on every target.
  CpuSchedule sched = state.scheduleOf(o);
  in.chunk = sched.chunk;
  in.lanes = sched.vectorWidth;
  if (in.chunk < 0)
    in.chunk = static_cast<int>(defaultDeltaRuleChunk(
        cast<RankedTensorType>(op.getQ().getType()).getDimSize(1),
        cast<RankedTensorType>(op.getG().getType()).getRank() == 4,
        targetFamily(state.target) == TargetFamily::Gpu));
  return finishKernel(o, state, buildGatedDeltaRule(in), scheduleGatedDeltaRule);
}

LogicalResult lower(RopeOp op, LoweringState &state) {
  Operation *o = op;
  RopeKernelInputs in{state.get(op.getX()), state.get(op.getPosition()),
                      op.getTheta().convertToDouble(), static_cast<int>(op.getRotaryDim()),
                      op.getStyle()};
  return finishKernel(o, state, buildRope(in), scheduleRope);
}

LogicalResult lower(AttentionOp op, LoweringState &state) {
  Operation *o = op;
  AttentionKernelInputs in{state.get(op.getQ()),      state.get(op.getK()),
                           state.get(op.getV()),      state.get(op.getKCache()),
                           state.get(op.getVCache()), state.get(op.getPosition()),
                           op.getScale().convertToDouble(),
                           static_cast<int64_t>(op.getWindow())};
  // The tiles shape the algorithm (the partials per key tile), so they are
  // read with or without manual schedules and on every target.
  CpuSchedule sched = state.scheduleOf(o);
  in.queryTile = sched.channelTile > 0 ? std::min(sched.channelTile, 64) : 16;
  in.keyTile = sched.chunk > 0 ? sched.chunk : 0;
  in.lanes = sched.vectorWidth;
  return finishKernel(o, state, buildAttention(in), scheduleAttention);
}

/// ssm.dequantize: a view, not a stage. The readers of the result (a
/// matmul's loads of its weight, a gather, a kernel) convert each element
/// where they load it, so the f32 tensor is never stored. A 16-bit argument
/// is already an f32 view of its 16-bit buffer (codegen/Translate.cpp).
LogicalResult lower(DequantizeOp op, LoweringState &state) {
  const TensorFunc &in = state.get(op.getInput());
  if (!op.getScale()) {
    state.set(op.getResult(), in);
    return success();
  }
  const TensorFunc &scale = state.get(op.getScale());
  std::vector<Halide::Var> vs(in.rank());
  std::vector<Halide::Expr> sIdx(vs.begin(), vs.end());
  sIdx[0] = vs[0] / static_cast<int>(op.getBlockSize()); // Halide dim 0: the last MLIR dim
  Halide::Func view(state.uniqueName("dequantize"));
  Halide::Expr w = Halide::cast(Halide::Float(32), in.func(vs)) *
                   Halide::cast(Halide::Float(32), scale.func(sIdx));
  if (op.getMin()) // blocks with an offset (Q4_K): q * s - mn, as ggml's d1 * q - m1
    w = w - Halide::cast(Halide::Float(32), state.get(op.getMin()).func(sIdx));
  view(vs) = w;
  state.set(op.getResult(), TensorFunc{view, in.shape});
  return success();
}

/// `v` (f32) rounded to the nearest bf16 (ties to even), as an f32.
Halide::Expr roundToBf16(Halide::Expr v) {
  using namespace Halide;
  auto u32 = [](uint64_t c) { return Internal::make_const(UInt(32), c); };
  Expr bits = reinterpret(UInt(32), v);
  return reinterpret(Float(32),
                     (bits + u32(0x7fff) + ((bits >> u32(16)) & u32(1))) & u32(0xffff0000u));
}

/// ssm.quantize_activations: generic stages (computed at root, scheduled as
/// elementwise stages on every target). q8_0 / q8_1: a stage of each
/// block's max |x|, then y = round(x * 127 / amax) * f16(amax / 127);
/// q8_K: a stage of each block's signed max (the first of largest |x|),
/// then y = min(127, round(x * -127 / m)) * (1 / (-127 / m)); f16 / bf16:
/// one rounding stage. The formulas are the op's (dialect/SsmOps.td).
LogicalResult lower(QuantizeActivationsOp op, LoweringState &state) {
  const TensorFunc &x = state.get(op.getInput());
  const std::string format = op.getFormat().str();
  const int64_t block = activationQuantBlock(format);
  if (block == 0) {
    const bool half = format == "f16";
    state.set(op.getResult(), state.define("quantize_act", x.shape, [&](const auto &idx) {
      Halide::Expr v = at(x, idx);
      return half ? roundToHalf(v, state.target) : roundToBf16(v);
    }));
    return success();
  }
  if (block < 0)
    return op.emitOpError() << "unknown format '" << format << "'";
  // Each block's max |x| (q8_0) or its first x of largest |x| (q8_K), then q * d.
  ActivationBlocks blocks =
      ActivationBlocks::define(state, x, static_cast<int>(block), format == "q8_K");
  state.set(op.getResult(), state.define("quantize_act", x.shape, [&](const auto &idx) {
    return blocks.value(idx);
  }));
  return success();
}

} // namespace

/// One entry per ssm op (dialect/SsmOpList.h): an op without a `lower`
/// overload above does not compile.
void registerSsmLowerings(llvm::StringMap<LowerFn> &table) {
  forEachSsmOpType([&](auto *tag) {
    using Op = std::remove_pointer_t<decltype(tag)>;
    auto handler = [](auto op, LoweringState &state) -> decltype(lower(op, state)) {
      return lower(op, state);
    };
    static_assert(detail::requireHandler<Op, decltype(handler), LoweringState &>());
    table[Op::getOperationName()] = [handler](Operation *o, LoweringState &state) {
      return handler(cast<Op>(o), state);
    };
  });
}

} // namespace ssm::codegen
