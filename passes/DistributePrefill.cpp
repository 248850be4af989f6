// ssm-distribute-prefill: per-layer functions whose recurrent scans also return their slice summary.
//
// Passes.td describes what is written; runtime/distributed/Prefill.h runs it
// across MPI ranks; docs/distributed.md gives the exchange and its cost.
#include "dialect/SsmOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace ssm {
#define GEN_PASS_DEF_SSMDISTRIBUTEPREFILL
#include "passes/Passes.h.inc"
} // namespace ssm

using namespace mlir;
using namespace ssm;

namespace {

/// A model function split at its layer calls.
struct Chain {
  func::FuncOp fn;
  SmallVector<func::CallOp> calls;
  SmallVector<Operation *> pre, post;
  func::ReturnOp ret;
};

LogicalResult splitChain(func::FuncOp fn, Chain &c) {
  c.fn = fn;
  Block &body = fn.getBody().front();
  c.ret = cast<func::ReturnOp>(body.getTerminator());
  for (Operation &op : body.without_terminator()) {
    if (auto call = dyn_cast<func::CallOp>(op)) {
      if (!c.post.empty())
        return op.emitError("ssm-distribute-prefill: op between the layer calls of @")
               << fn.getName() << " (only a chain of layer calls can be split)";
      c.calls.push_back(call);
    } else if (c.calls.empty()) {
      c.pre.push_back(&op);
    } else {
      c.post.push_back(&op);
    }
  }
  if (c.calls.empty())
    return fn.emitError("ssm-distribute-prefill: @") << fn.getName() << " calls no layer function";
  for (auto [i, call] : llvm::enumerate(c.calls)) {
    if (call.getNumOperands() == 0 || call.getNumResults() == 0 ||
        call.getOperand(0).getType() != call.getResult(0).getType())
      return call.emitError("ssm-distribute-prefill: layer ")
             << i << " does not take and return the residual stream first";
    for (Value v : call.getOperands().drop_front())
      if (!isa<BlockArgument>(v) || cast<BlockArgument>(v).getOwner() != &body)
        return call.emitError("ssm-distribute-prefill: layer ")
               << i << " reads a value from another layer besides the residual stream (a carry): "
                       "not supported";
    if (i > 0 && call.getOperand(0) != c.calls[i - 1].getResult(0))
      return call.emitError("ssm-distribute-prefill: layer ")
             << i << " does not read the previous layer's output";
  }
  return success();
}

/// The attributes of the function's result that returns `v`, or null.
DictionaryAttr returnedAs(Chain &c, Value v) {
  for (auto [k, operand] : llvm::enumerate(c.ret.getOperands()))
    if (operand == v)
      return c.fn.getResultAttrDict(k);
  return nullptr;
}

/// Writes a public function `name` from `ops` of `src`: its arguments are
/// `inputs` (attributes `inputAttrs`) then every argument of `src` the ops
/// read (with src's attributes, in src's order); its results `outputs`.
func::FuncOp outline(OpBuilder &b, func::FuncOp src, StringRef name, ArrayRef<Operation *> ops,
                     ArrayRef<Value> inputs, ArrayRef<DictionaryAttr> inputAttrs,
                     ArrayRef<Value> outputs, ArrayRef<DictionaryAttr> outputAttrs) {
  llvm::SetVector<Value> used;
  for (Operation *op : ops) {
    for (Value v : op->getOperands())
      used.insert(v);
    for (Region &r : op->getRegions()) {
      llvm::SetVector<Value> above;
      getUsedValuesDefinedAbove(r, above);
      used.insert(above.begin(), above.end());
    }
  }
  SmallVector<unsigned> args;
  for (BlockArgument a : src.getArguments())
    if (used.contains(a) && !llvm::is_contained(inputs, a))
      args.push_back(a.getArgNumber());
  SmallVector<Type> argTypes, resultTypes;
  for (Value v : inputs)
    argTypes.push_back(v.getType());
  for (unsigned a : args)
    argTypes.push_back(src.getArgument(a).getType());
  for (Value v : outputs)
    resultTypes.push_back(v.getType());
  auto fn = b.create<func::FuncOp>(src.getLoc(), name, b.getFunctionType(argTypes, resultTypes));
  Block *entry = fn.addEntryBlock();
  IRMapping map;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    map.map(v, entry->getArgument(i));
    if (inputAttrs[i])
      fn.setArgAttrs(i, inputAttrs[i]);
  }
  for (auto [i, a] : llvm::enumerate(args)) {
    map.map(src.getArgument(a), entry->getArgument(inputs.size() + i));
    fn.setArgAttrs(inputs.size() + i, src.getArgAttrDict(a));
  }
  OpBuilder body = OpBuilder::atBlockEnd(entry);
  // Constants defined outside the ops (a shared zero) are copied in.
  llvm::SmallPtrSet<Operation *, 16> inside(ops.begin(), ops.end());
  for (Value v : used)
    if (Operation *def = v.getDefiningOp())
      if (!inside.contains(def) && !map.contains(v) && def->hasTrait<OpTrait::ConstantLike>())
        body.clone(*def, map);
  for (Operation *op : ops)
    body.clone(*op, map);
  SmallVector<Value> results;
  for (Value v : outputs)
    results.push_back(map.lookupOrDefault(v));
  body.create<func::ReturnOp>(src.getLoc(), results);
  for (auto [i, attrs] : llvm::enumerate(outputAttrs))
    if (attrs)
      fn.setResultAttrs(i, attrs);
  return fn;
}

DictionaryAttr named(OpBuilder &b, StringRef name) {
  return b.getDictionaryAttr(b.getNamedAttr("ssm.name", b.getStringAttr(name)));
}

/// A tensor of `type` filled with `value`, built before `at`.
Value splat(OpBuilder &b, Location loc, Type type, float value) {
  auto t = cast<RankedTensorType>(type);
  Value init = b.create<tensor::EmptyOp>(loc, t.getShape(), t.getElementType());
  Value c = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(value));
  return b.create<linalg::FillOp>(loc, ValueRange{c}, ValueRange{init}).getResult(0);
}

/// Follows the single-use reshapes from `v` to the function's return:
/// the returned operand's index, and the reshapes in order. -1 if `v` is not returned so.
int returnedThrough(Value v, SmallVectorImpl<Operation *> &chain) {
  while (true) {
    if (!v.hasOneUse())
      return -1;
    Operation *user = *v.getUsers().begin();
    if (auto ret = dyn_cast<func::ReturnOp>(user)) {
      for (OpOperand &o : ret->getOpOperands())
        if (o.get() == v)
          return static_cast<int>(o.getOperandNumber());
      return -1;
    }
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(user))
      return -1;
    chain.push_back(user);
    v = user->getResult(0);
  }
}

/// A copy of block function `block` named `name` that also returns, after
/// its own results, the composed transition of each recurrent scan whose
/// final state it returns. `stateResults` gets, per summary, the index of
/// the block result holding that state.
FailureOr<func::FuncOp> summaryFunction(OpBuilder &b, func::FuncOp block, StringRef name,
                                        SmallVectorImpl<int> &stateResults, int64_t &halo) {
  auto fn = cast<func::FuncOp>(b.clone(*block));
  fn.setName(name);
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  SmallVector<Value> extra, dropped;
  halo = 0;
  LogicalResult ok = success();
  SmallVector<Operation *> ops;
  fn.walk([&](Operation *op) { ops.push_back(op); });
  auto visit = [&](Operation *op) {
    if (auto conv = dyn_cast<CausalConv1dOp>(op)) {
      auto w = cast<RankedTensorType>(conv.getWeight().getType());
      halo = std::max<int64_t>(halo, w.getShape().back() - 1);
      return;
    }
    Value hLast;
    unsigned inputIndex = 0, stateIndex = 0;
    if (auto scan = dyn_cast<SelectiveScanOp>(op)) {
      if (!scan.getH0()) {
        ok = scan.emitError("ssm-distribute-prefill: a selective scan without h0 cannot start "
                            "from the previous slices' state");
        return;
      }
      hLast = scan.getHLast();
      inputIndex = scan.getUMutable().getOperandNumber();
      stateIndex = scan.getH0Mutable()[0].getOperandNumber();
    } else if (auto ssd = dyn_cast<SsdScanOp>(op)) {
      if (!ssd.getInitialState()) {
        ok = ssd.emitError("ssm-distribute-prefill: an ssd scan without initial_state cannot start "
                           "from the previous slices' state");
        return;
      }
      hLast = ssd.getFinalState();
      inputIndex = ssd.getXMutable().getOperandNumber();
      stateIndex = ssd.getInitialStateMutable()[0].getOperandNumber();
    } else {
      return;
    }
    SmallVector<Operation *> chain;
    int k = returnedThrough(hLast, chain);
    if (k < 0) {
      ok = op->emitError("ssm-distribute-prefill: the scan's final state is not returned as a "
                         "layer state");
      return;
    }
    // The homogeneous scan: zero input, all-ones initial state. Its final
    // state is the product of the transitions over the slice.
    OpBuilder at(op->getContext());
    at.setInsertionPointAfter(op);
    Location loc = op->getLoc();
    Value zeros = splat(at, loc, op->getOperand(inputIndex).getType(), 0.0f);
    Value ones = splat(at, loc, op->getOperand(stateIndex).getType(), 1.0f);
    Operation *h = at.clone(*op);
    h->setOperand(inputIndex, zeros);
    h->setOperand(stateIndex, ones);
    IRMapping map;
    map.map(hLast, h->getResult(1));
    Value t = h->getResult(1);
    for (Operation *r : chain)
      t = at.clone(*r, map)->getResult(0), map.map(r->getResult(0), t);
    extra.push_back(t);
    stateResults.push_back(k);
    // The clone's output is returned too (and dropped by the caller): the
    // kernels compute a scan's final state together with its output, and
    // Halide rejects the final state alone (codegen/kernels/SelectiveScanKernel.h).
    dropped.push_back(h->getResult(0));
  };
  for (Operation *op : ops)
    if (succeeded(ok))
      visit(op);
  if (failed(ok))
    return failure();
  extra.append(dropped);
  SmallVector<Value> results(ret.getOperands());
  results.append(extra);
  OpBuilder rb(ret);
  rb.create<func::ReturnOp>(ret.getLoc(), results);
  ret.erase();
  SmallVector<Type> types(fn.getFunctionType().getResults());
  for (Value v : extra)
    types.push_back(v.getType());
  fn.setFunctionType(b.getFunctionType(fn.getFunctionType().getInputs(), types));
  return fn;
}

struct SsmDistributePrefillPass
    : ssm::impl::SsmDistributePrefillBase<SsmDistributePrefillPass> {
  using SsmDistributePrefillBase::SsmDistributePrefillBase;

  void runOnOperation() override {
    ModuleOp m = getOperation();
    // Refusals first, before anything changes.
    WalkResult refused = m.walk([&](Operation *op) {
      const char *why = nullptr;
      if (isa<AttentionOp>(op))
        why = "attention layers keep a KV cache, not a fixed-size state summary: distributed "
              "prefill of hybrids needs a ring exchange of keys and values, which is not built";
      else if (isa<Wkv4Op, Wkv7Op>(op) ||
               (isa<SsdScanOp>(op) && cast<SsdScanOp>(op).getBonus()))
        why = "RWKV blocks are not supported yet: the channel mix's token shift reads the "
              "attention output, which depends on the recurrent state, so the block needs two "
              "exchanges (not built)";
      else if (isa<GatedDeltaRuleOp>(op))
        why = "the gated delta rule's slice summary is a matrix product (not built)";
      if (!why)
        return WalkResult::advance();
      op->emitError("ssm-distribute-prefill: ") << why;
      return WalkResult::interrupt();
    });
    if (refused.wasInterrupted())
      return signalPassFailure();

    SymbolTable symbols(m);
    auto seq = symbols.lookup<func::FuncOp>("forward_sequence");
    auto step = symbols.lookup<func::FuncOp>("forward_step");
    if (!seq || !step) {
      m.emitError("ssm-distribute-prefill: the module needs @forward_sequence and @forward_step "
                  "(a model graph from import/ModelBuilder.h)");
      return signalPassFailure();
    }
    Chain cs, ct;
    if (failed(splitChain(seq, cs)) || failed(splitChain(step, ct)))
      return signalPassFailure();
    if (cs.calls.size() != ct.calls.size()) {
      seq.emitError("ssm-distribute-prefill: @forward_sequence has ")
          << cs.calls.size() << " layers but @forward_step " << ct.calls.size();
      return signalPassFailure();
    }

    OpBuilder b(m.getBodyRegion());
    b.setInsertionPointToEnd(m.getBody());
    DictionaryAttr hAttr = named(b, "h");

    // Summary copies of each block function, once per callee.
    llvm::StringMap<func::FuncOp> summaryOf;
    llvm::StringMap<SmallVector<int>> summaryStates;
    llvm::StringMap<int64_t> haloOf;
    for (func::CallOp call : cs.calls) {
      StringRef callee = call.getCallee();
      if (summaryOf.count(callee))
        continue;
      auto block = symbols.lookup<func::FuncOp>(callee);
      if (!block || block.isExternal()) {
        call.emitError("ssm-distribute-prefill: no body for @") << callee;
        return signalPassFailure();
      }
      SmallVector<int> states;
      int64_t halo = 0;
      FailureOr<func::FuncOp> fn =
          summaryFunction(b, block, (callee + "_summary").str(), states, halo);
      if (failed(fn))
        return signalPassFailure();
      fn->setPrivate();
      summaryOf[callee] = *fn;
      summaryStates[callee] = states;
      haloOf[callee] = halo;
    }

    // dist_embed.
    if (cs.pre.empty() && isa<BlockArgument>(cs.calls[0].getOperand(0))) {
      seq.emitError("ssm-distribute-prefill: nothing before the first layer (no embedding)");
      return signalPassFailure();
    }
    outline(b, seq, "dist_embed", cs.pre, {}, {}, {cs.calls[0].getOperand(0)}, {hAttr});

    // dist_layer<i>: the summary copy of the block.
    for (auto [i, call] : llvm::enumerate(cs.calls)) {
      func::FuncOp sum = summaryOf[call.getCallee()];
      OpBuilder tmp(call);
      auto scall = tmp.create<func::CallOp>(call.getLoc(), sum, call.getOperands());
      SmallVector<Value> outs;
      SmallVector<DictionaryAttr> outAttrs;
      outs.push_back(scall.getResult(0));
      outAttrs.push_back(hAttr);
      for (unsigned r = 1; r < call.getNumResults(); ++r) {
        DictionaryAttr a = returnedAs(cs, call.getResult(r));
        if (!a) {
          call.emitError("ssm-distribute-prefill: layer ")
              << i << "'s result " << r << " is not returned as a model state";
          scall.erase();
          return signalPassFailure();
        }
        outs.push_back(scall.getResult(r));
        outAttrs.push_back(a);
      }
      for (auto [j, k] : llvm::enumerate(summaryStates[call.getCallee()])) {
        DictionaryAttr a = outAttrs[k];
        auto state = a ? a.getAs<StringAttr>("ssm.state") : StringAttr();
        if (!state) {
          call.emitError("ssm-distribute-prefill: layer ") << i << "'s scan state has no ssm.state name";
          scall.erase();
          return signalPassFailure();
        }
        outs.push_back(scall.getResult(call.getNumResults() + j));
        outAttrs.push_back(named(b, ("summary." + state.getValue()).str()));
      }
      func::FuncOp fn = outline(b, seq, ("dist_layer" + std::to_string(i)).c_str(),
                                {scall.getOperation()}, {call.getOperand(0)}, {hAttr}, outs, outAttrs);
      fn->setAttr("ssm.halo_rows", b.getI64IntegerAttr(haloOf[call.getCallee()]));
      scall.erase();
      // dist_layer_plain<i>: the same without the summaries (the last
      // rank's run and the reruns need none).
      outs.assign({call.getResult(0)});
      outAttrs.resize(call.getNumResults());
      for (unsigned r = 1; r < call.getNumResults(); ++r)
        outs.push_back(call.getResult(r));
      outline(b, seq, ("dist_layer_plain" + std::to_string(i)).c_str(), {call.getOperation()},
              {call.getOperand(0)}, {hAttr}, outs, outAttrs);
    }

    // dist_step<i>.
    for (auto [i, call] : llvm::enumerate(ct.calls)) {
      SmallVector<Value> outs;
      SmallVector<DictionaryAttr> outAttrs;
      outs.push_back(call.getResult(0));
      outAttrs.push_back(hAttr);
      for (unsigned r = 1; r < call.getNumResults(); ++r) {
        outs.push_back(call.getResult(r));
        outAttrs.push_back(returnedAs(ct, call.getResult(r)));
      }
      outline(b, step, ("dist_step" + std::to_string(i)).c_str(), {call.getOperation()},
              {call.getOperand(0)}, {hAttr}, outs, outAttrs);
    }

    // dist_head: what follows the last layer, returning the logits.
    Value last = cs.calls.back().getResult(0);
    outline(b, seq, "dist_head", cs.post, {last}, {hAttr}, {cs.ret.getOperand(0)},
            {seq.getResultAttrDict(0)});

    // The forward functions go, and the block functions nothing calls now.
    for (StringRef name : {"forward_sequence", "forward_step", "forward_step_batched"})
      if (Operation *f = symbols.lookup(name))
        f->erase();
    bool erased = true;
    while (erased) {
      erased = false;
      for (auto f : llvm::make_early_inc_range(m.getOps<func::FuncOp>()))
        if (f.isPrivate() && SymbolTable::symbolKnownUseEmpty(f, m)) {
          f.erase();
          erased = true;
        }
    }
  }
};

} // namespace
