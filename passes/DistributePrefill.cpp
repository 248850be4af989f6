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

#include <functional>

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
  /// Values a layer passes to later layers besides the residual stream
  /// (RWKV-7's v_first, the first layer's values per token): per-token
  /// rows that stay on the rank, named "carry<layer>_<result>".
  llvm::DenseMap<Value, std::string> carries;
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
    for (Value v : call.getOperands().drop_front()) {
      if (isa<BlockArgument>(v) && cast<BlockArgument>(v).getOwner() == &body)
        continue;
      // A carry: a result (not the residual stream) of an earlier layer, one
      // row per token like the residual stream.
      auto from = v.getDefiningOp<func::CallOp>();
      auto rows = dyn_cast<RankedTensorType>(v.getType());
      auto hType = cast<RankedTensorType>(call.getOperand(0).getType());
      int producer = from ? static_cast<int>(llvm::find(c.calls, from) - c.calls.begin()) : -1;
      unsigned r = from ? cast<OpResult>(v).getResultNumber() : 0;
      if (!from || producer >= static_cast<int>(i) || r == 0 || !rows || rows.getRank() == 0 ||
          rows.getShape()[0] != hType.getShape()[0])
        return call.emitError("ssm-distribute-prefill: layer ")
               << i << " reads a value that is neither the residual stream, a model input nor "
                       "an earlier layer's per-token output";
      c.carries[v] = "carry" + std::to_string(producer) + "_" + std::to_string(r);
    }
    if (i > 0 && call.getOperand(0) != c.calls[i - 1].getResult(0))
      return call.emitError("ssm-distribute-prefill: layer ")
             << i << " does not read the previous layer's output";
  }
  return success();
}

DictionaryAttr named(OpBuilder &b, StringRef name);

/// The attributes of the function's result that returns `v` (a state), or
/// its carry name, or null.
DictionaryAttr returnedAs(Chain &c, Value v) {
  if (auto it = c.carries.find(v); it != c.carries.end()) {
    OpBuilder b(v.getContext());
    return named(b, it->second);
  }
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
                     ArrayRef<Value> outputs, ArrayRef<DictionaryAttr> outputAttrs,
                     SmallVectorImpl<unsigned> *argsOut = nullptr) {
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
  if (argsOut)
    argsOut->assign(args.begin(), args.end());
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
  // Constants defined outside the ops (a shared zero, a zero-filled output
  // buffer) are copied in.
  llvm::SmallPtrSet<Operation *, 16> inside(ops.begin(), ops.end());
  std::function<bool(Value)> copyIn = [&](Value v) {
    if (map.contains(v))
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || inside.contains(def))
      return false;
    bool copyable = def->hasTrait<OpTrait::ConstantLike>() || isa<tensor::EmptyOp>(def) ||
                    (isa<linalg::FillOp>(def) && def->getNumRegions() == 1);
    if (!copyable || !llvm::all_of(def->getOperands(), copyIn))
      return false;
    body.clone(*def, map);
    return true;
  };
  for (Value v : used)
    copyIn(v);
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

/// The values `op` reads: its operands and those its regions use from above.
SmallVector<Value> readsOf(Operation *op) {
  SmallVector<Value> out(op->getOperands());
  for (Region &r : op->getRegions()) {
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(r, above);
    out.append(above.begin(), above.end());
  }
  return out;
}

/// Where a block function is cut in two: its ops before the cut, the ones
/// after (those that depend on the cut value), and the cut value.
struct Cut {
  Value at;
  SmallVector<Operation *> first, second; // program order
  llvm::SmallPtrSet<Operation *, 16> copied; // in both: recomputed by the second part
};

/// Finds where a block function whose token shift reads what its recurrent
/// scan made (RWKV: the channel mix reads the previous token of the time
/// mix's output) splits into two layer functions: the first value V of the
/// residual stream's type such that the ops depending on V read, of the ops
/// that do not, only V and values computed from function arguments other
/// than the residual stream without a scan (constants, zero fills, weight
/// transforms: the second part recomputes them), return the block's
/// residual stream and read a state argument (`isState`). Each part's
/// windows then depend only on that part's input rows, so the halo rebuilds
/// them. The step form, whose recurrence is plain arithmetic, cuts at the
/// same place (the residual stream after the time mix). None when no such V
/// exists (Mamba blocks: their residual add is the last op).
std::optional<Cut> findCut(func::FuncOp block, const llvm::SmallDenseSet<unsigned> &isState) {
  Block &body = block.getBody().front();
  Value h = block.getArgument(0);
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  auto isScan = [](Operation *op) {
    return isa<SelectiveScanOp, SsdScanOp, Wkv4Op, Wkv7Op, GatedDeltaRuleOp>(op);
  };
  // Ops computed from arguments other than h without a scan.
  llvm::SmallPtrSet<Operation *, 32> free;
  for (Operation *op : ops) {
    if (isScan(op))
      continue;
    bool ok = true;
    for (Value r : readsOf(op)) {
      if (r == h)
        ok = false;
      else if (Operation *d = r.getDefiningOp(); d && d->getBlock() == &body && !free.contains(d))
        ok = false;
    }
    if (ok)
      free.insert(op);
  }
  Operation *out = body.getTerminator()->getOperand(0).getDefiningOp();
  for (auto it = ops.begin(); it != ops.end(); ++it) {
    for (Value v : (*it)->getResults()) {
      if (v.getType() != h.getType())
        continue;
      // The ops that depend on v.
      llvm::SmallPtrSet<Operation *, 32> after;
      SmallVector<Operation *> work(v.getUsers().begin(), v.getUsers().end());
      while (!work.empty()) {
        Operation *op = work.pop_back_val();
        while (op->getBlock() != &body)
          op = op->getParentOp();
        if (isa<func::ReturnOp>(op) || !after.insert(op).second)
          continue;
        for (Value r : op->getResults())
          work.append(r.getUsers().begin(), r.getUsers().end());
      }
      if (after.empty() || !out || !after.contains(out))
        continue;
      Cut cut;
      cut.at = v;
      bool ok = true, readsState = false;
      llvm::SmallPtrSet<Operation *, 16> needed;
      for (Operation *op : ops) {
        if (!after.contains(op))
          continue;
        for (Value r : readsOf(op)) {
          if (r == h)
            ok = false;
          else if (Operation *d = r.getDefiningOp();
                   d && d->getBlock() == &body && !after.contains(d) && r != v) {
            if (free.contains(d))
              needed.insert(d);
            else
              ok = false;
          }
        }
      }
      if (!ok)
        continue;
      // What the recomputed ops read, recomputed too.
      SmallVector<Operation *> more(needed.begin(), needed.end());
      while (!more.empty()) {
        Operation *op = more.pop_back_val();
        for (Value r : readsOf(op))
          if (Operation *d = r.getDefiningOp(); d && d->getBlock() == &body && needed.insert(d).second)
            more.push_back(d);
      }
      for (Operation *op : ops) {
        if (!after.contains(op))
          cut.first.push_back(op);
        if (after.contains(op) || needed.contains(op)) {
          cut.second.push_back(op);
          for (Value r : readsOf(op))
            if (auto a = dyn_cast<BlockArgument>(r);
                a && a.getOwner() == &body && isState.contains(a.getArgNumber()))
              readsState = true;
        }
      }
      if (!readsState)
        continue;
      cut.copied = needed;
      return cut;
    }
  }
  return std::nullopt;
}

/// Splits each block function `fwd` calls where findCut says (both parts
/// private, `<name>_a` and `<name>_b`) and each call in two. `cuts` counts
/// the blocks split.
LogicalResult splitBlocks(OpBuilder &b, SymbolTable &symbols, func::FuncOp fwd, int &cuts) {
  struct Parts {
    func::FuncOp a, b;
    SmallVector<unsigned> argsA, argsB;
    SmallVector<std::pair<int, unsigned>> result; // per original result: (part, index)
  };
  llvm::StringMap<std::optional<Parts>> done;
  SmallVector<func::CallOp> calls;
  fwd.walk([&](func::CallOp c) { calls.push_back(c); });
  for (func::CallOp call : calls) {
    StringRef callee = call.getCallee();
    if (!done.count(callee)) {
      auto block = symbols.lookup<func::FuncOp>(callee);
      std::optional<Cut> cut;
      if (block && !block.isExternal() && block.getNumArguments() > 0) {
        // The block's arguments that are model states at this call.
        llvm::SmallDenseSet<unsigned> isState;
        for (auto [i, v] : llvm::enumerate(call.getOperands()))
          if (auto a = dyn_cast<BlockArgument>(v))
            if (a.getOwner() == &fwd.getBody().front() && fwd.getArgAttr(a.getArgNumber(), "ssm.state"))
              isState.insert(i);
        cut = findCut(block, isState);
      }
      if (!cut) {
        done[callee] = std::nullopt;
      } else {
        Parts p;
        auto ret = cast<func::ReturnOp>(block.getBody().front().getTerminator());
        llvm::SmallPtrSet<Operation *, 32> second(cut->second.begin(), cut->second.end());
        SmallVector<Value> outA{cut->at}, outB{ret.getOperand(0)};
        p.result.push_back({1, 0});
        for (Value v : ret.getOperands().drop_front()) {
          Operation *d = v.getDefiningOp();
          bool inB = d && second.contains(d) && !cut->copied.contains(d);
          SmallVector<Value> &out = inB ? outB : outA;
          p.result.push_back({inB ? 1 : 0, static_cast<unsigned>(out.size())});
          out.push_back(v);
        }
        // The first part keeps only what its results need (a window the
        // second part reads, recomputed there, would be a dead argument).
        llvm::SmallPtrSet<Operation *, 32> live;
        SmallVector<Operation *> work;
        for (Value v : outA)
          if (Operation *d = v.getDefiningOp())
            work.push_back(d);
        while (!work.empty()) {
          Operation *op = work.pop_back_val();
          if (op->getBlock() != &block.getBody().front() || !live.insert(op).second)
            continue;
          for (Value r : readsOf(op))
            if (Operation *d = r.getDefiningOp())
              work.push_back(d);
        }
        llvm::erase_if(cut->first, [&](Operation *op) { return !live.contains(op); });
        SmallVector<DictionaryAttr> noAttrsA(outA.size()), noAttrsB(outB.size());
        p.a = outline(b, block, (callee + "_a").str(), cut->first, {block.getArgument(0)},
                      {block.getArgAttrDict(0)}, outA, noAttrsA, &p.argsA);
        p.b = outline(b, block, (callee + "_b").str(), cut->second, {cut->at}, {nullptr}, outB,
                      noAttrsB, &p.argsB);
        p.a.setPrivate();
        p.b.setPrivate();
        symbols.insert(p.a);
        symbols.insert(p.b);
        done[callee] = std::move(p);
        ++cuts;
      }
    }
    std::optional<Parts> &p = done[callee];
    if (!p)
      continue;
    OpBuilder at(call);
    SmallVector<Value> opsA{call.getOperand(0)}, opsB;
    for (unsigned a : p->argsA)
      opsA.push_back(call.getOperand(a));
    auto ca = at.create<func::CallOp>(call.getLoc(), p->a, opsA);
    opsB.push_back(ca.getResult(0));
    for (unsigned a : p->argsB)
      opsB.push_back(call.getOperand(a));
    auto cb = at.create<func::CallOp>(call.getLoc(), p->b, opsB);
    for (auto [k, where] : llvm::enumerate(p->result))
      call.getResult(k).replaceAllUsesWith((where.first ? cb : ca).getResult(where.second));
    call.erase();
  }
  return success();
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

/// A linalg.generic that only moves its one input's elements (a transpose:
/// RWKV-5/6 keep the scan's state with its last two dimensions swapped).
bool isPermutation(Operation *op) {
  auto g = dyn_cast<linalg::GenericOp>(op);
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      g.getNumReductionLoops() != 0)
    return false;
  Block &body = g.getRegion().front();
  auto y = dyn_cast<linalg::YieldOp>(body.getTerminator());
  return body.getOperations().size() == 1 && y && y.getNumOperands() == 1 &&
         y.getOperand(0) == body.getArgument(0) &&
         g.getDpsInitOperand(0)->get().getDefiningOp<tensor::EmptyOp>();
}

/// Follows the single-use reshapes (and transposes) from `v` to the function's return:
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
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(user) && !isPermutation(user))
      return -1;
    chain.push_back(user);
    v = user->getResult(0);
  }
}

/// An identity matrix in the last two dimensions of `type` (..., N, N).
Value identity(OpBuilder &b, Location loc, Type type) {
  auto t = cast<RankedTensorType>(type);
  int64_t rank = t.getRank();
  Value init = b.create<tensor::EmptyOp>(loc, t.getShape(), t.getElementType());
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto gen = b.create<linalg::GenericOp>(
      loc, TypeRange{t}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)}, iters,
      [&](OpBuilder &nb, Location nl, ValueRange) {
        Value i = nb.create<linalg::IndexOp>(nl, rank - 2);
        Value j = nb.create<linalg::IndexOp>(nl, rank - 1);
        Value eq = nb.create<arith::CmpIOp>(nl, arith::CmpIPredicate::eq, i, j);
        Value one = nb.create<arith::ConstantOp>(nl, nb.getF32FloatAttr(1.0f));
        Value zero = nb.create<arith::ConstantOp>(nl, nb.getF32FloatAttr(0.0f));
        nb.create<linalg::YieldOp>(nl, ValueRange{nb.create<arith::SelectOp>(nl, eq, one, zero)});
      });
  return gen.getResult(0);
}

/// Whether `v` is a function argument other than `h` (through reshapes).
bool fromArgument(Value v, Value h) {
  while (auto *d = v.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(d))
      return false;
    v = d->getOperand(0);
  }
  return isa<BlockArgument>(v) && v != h;
}

/// A summary the runtime composes: the block result of the state it
/// summarises and how it composes (runtime/distributed/Prefill.cpp):
/// "" elementwise T (.) h0 + s; "_matrix" h0 T + s per matrix in the last two
/// dimensions; "_wkv4aa", "_wkv4bb", "_wkv4pp" the three parts of an
/// ssm.wkv4 state, each with the slice's summed log decay.
struct Summary {
  int result;
  std::string kind;
};

/// A copy of block function `block` named `name` that also returns, after
/// its own results, the composed transition of each recurrent scan whose
/// final state it returns (`summaries`: what each is). `halo` gets the rows
/// of the previous slice the block's windows read: width - 1 of a causal
/// conv, the rows a token shift concatenates in front (1).
FailureOr<func::FuncOp> summaryFunction(OpBuilder &b, func::FuncOp block, StringRef name,
                                        SmallVectorImpl<Summary> &summaries, int64_t &halo) {
  auto fn = cast<func::FuncOp>(b.clone(*block));
  fn.setName(name);
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  SmallVector<Value> extra, dropped;
  halo = 0;
  LogicalResult ok = success();
  SmallVector<Operation *> ops;
  fn.walk([&](Operation *op) { ops.push_back(op); });
  Value hArg = fn.getArgument(0);
  auto visit = [&](Operation *op) {
    if (auto conv = dyn_cast<CausalConv1dOp>(op)) {
      auto w = cast<RankedTensorType>(conv.getWeight().getType());
      halo = std::max<int64_t>(halo, w.getShape().back() - 1);
      return;
    }
    // A token shift: a state argument read as k rows of the layer's width
    // (RWKV's previous normed row; at one token it is not concatenated).
    if (auto ex = dyn_cast<tensor::ExpandShapeOp>(op)) {
      auto t = cast<RankedTensorType>(ex.getType());
      auto hType = cast<RankedTensorType>(hArg.getType());
      if (fromArgument(ex.getSrc(), hArg) && t.getRank() == 2 && hType.getRank() == 2 &&
          t.getShape()[1] == hType.getShape()[1])
        halo = std::max<int64_t>(halo, t.getShape()[0]);
      return;
    }
    // (operand index, value) replacements of the homogeneous clone, the
    // results that are final states, and the kinds of their summaries.
    SmallVector<std::pair<unsigned, Value>> with;
    SmallVector<Value> finals;
    SmallVector<std::string> kinds;
    unsigned transition = 1; // the clone's result whose chain gives T
    OpBuilder at(op->getContext());
    at.setInsertionPointAfter(op);
    Location loc = op->getLoc();
    auto operandOf = [&](OpOperand &o) { return o.getOperandNumber(); };
    if (auto scan = dyn_cast<SelectiveScanOp>(op)) {
      if (!scan.getH0()) {
        ok = scan.emitError("ssm-distribute-prefill: a selective scan without h0 cannot start "
                            "from the previous slices' state");
        return;
      }
      with.push_back({scan.getUMutable().getOperandNumber(), splat(at, loc, scan.getU().getType(), 0.0f)});
      with.push_back({operandOf(scan.getH0Mutable()[0]), splat(at, loc, scan.getH0().getType(), 1.0f)});
      finals.push_back(scan.getHLast());
      kinds.push_back("");
    } else if (auto ssd = dyn_cast<SsdScanOp>(op)) {
      if (!ssd.getInitialState()) {
        ok = ssd.emitError("ssm-distribute-prefill: an ssd scan without initial_state cannot start "
                           "from the previous slices' state");
        return;
      }
      // S_t = exp(A_t) (.) S_{t-1} + X_t B_t^T: X = 0 leaves the decays (per
      // head, or per key channel with the RWKV-5/6 bonus form).
      with.push_back({ssd.getXMutable().getOperandNumber(), splat(at, loc, ssd.getX().getType(), 0.0f)});
      with.push_back({operandOf(ssd.getInitialStateMutable()[0]),
                      splat(at, loc, ssd.getInitialState().getType(), 1.0f)});
      finals.push_back(ssd.getFinalState());
      kinds.push_back("");
    } else if (auto w7 = dyn_cast<Wkv7Op>(op)) {
      if (!w7.getInitialState()) {
        ok = w7.emitError("ssm-distribute-prefill: a wkv7 scan without initial_state cannot start "
                          "from the previous slices' state");
        return;
      }
      // S_t = S_{t-1} (diag(exp w_t) + a_t b_t^T) + v_t k_t^T: v = 0 from
      // S_0 = I leaves the product of the transitions, a dense (N, N)
      // matrix per head that multiplies the true initial state on the right.
      with.push_back({w7.getVMutable().getOperandNumber(), splat(at, loc, w7.getV().getType(), 0.0f)});
      with.push_back({operandOf(w7.getInitialStateMutable()[0]),
                      identity(at, loc, w7.getInitialState().getType())});
      finals.push_back(w7.getFinalState());
      kinds.push_back("_matrix");
    } else if (auto w4 = dyn_cast<Wkv4Op>(op)) {
      if (!w4.getAa()) {
        ok = w4.emitError("ssm-distribute-prefill: a wkv4 scan without a state cannot start "
                          "from the previous slices' state");
        return;
      }
      // v = 0, k = -1e30 (no token adds), aa = 0, bb = 1, pp = 0: the final
      // pp is the slice's summed log decay (its transition e^{L w} in the
      // stabilised form's exponent).
      with.push_back({w4.getKMutable().getOperandNumber(), splat(at, loc, w4.getK().getType(), -1e30f)});
      with.push_back({w4.getVMutable().getOperandNumber(), splat(at, loc, w4.getV().getType(), 0.0f)});
      with.push_back({operandOf(w4.getAaMutable()[0]), splat(at, loc, w4.getAa().getType(), 0.0f)});
      with.push_back({operandOf(w4.getBbMutable()[0]), splat(at, loc, w4.getBb().getType(), 1.0f)});
      with.push_back({operandOf(w4.getPpMutable()[0]), splat(at, loc, w4.getPp().getType(), 0.0f)});
      finals = {w4.getAaOut(), w4.getBbOut(), w4.getPpOut()};
      kinds = {"_wkv4aa", "_wkv4bb", "_wkv4pp"};
      transition = 3;
    } else {
      return;
    }
    Operation *h = at.clone(*op);
    for (auto [i, v] : with)
      h->setOperand(i, v);
    for (auto [f, kind] : llvm::zip(finals, kinds)) {
      SmallVector<Operation *> chain;
      int k = returnedThrough(f, chain);
      if (k < 0) {
        ok = op->emitError("ssm-distribute-prefill: the scan's final state is not returned as a "
                           "layer state");
        return;
      }
      if (kind == "_matrix" && llvm::any_of(chain, isPermutation)) {
        ok = op->emitError("ssm-distribute-prefill: the wkv7 state is returned transposed: its "
                           "summary composes on the right of the scan's layout (not supported)");
        return;
      }
      // The transition through the same reshapes as the state it goes with
      // (before the return: a transpose's output buffer comes later).
      IRMapping map;
      map.map(f, h->getResult(transition));
      Value t = h->getResult(transition);
      OpBuilder end(ret);
      for (Operation *r : chain)
        t = end.clone(*r, map)->getResult(0), map.map(r->getResult(0), t);
      extra.push_back(t);
      summaries.push_back({k, kind});
    }
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
      else if (isa<GatedDeltaRuleOp>(op))
        why = "the gated delta rule is not supported yet: its slice summary (a d_k x d_k "
              "transition product per head, as for ssm.wkv7) is not built";
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
    OpBuilder b(m.getBodyRegion());
    b.setInsertionPointToEnd(m.getBody());
    // Blocks whose later windows read what a scan made (RWKV's channel
    // mix) become two layers each, in both forms.
    int cutSeq = 0, cutStep = 0;
    if (failed(splitBlocks(b, symbols, seq, cutSeq)) || failed(splitBlocks(b, symbols, step, cutStep)))
      return signalPassFailure();
    if (cutSeq != cutStep) {
      seq.emitError("ssm-distribute-prefill: @forward_sequence's blocks split in ")
          << cutSeq << " places but @forward_step's in " << cutStep;
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

    DictionaryAttr hAttr = named(b, "h");

    // Summary copies of each block function, once per callee.
    llvm::StringMap<func::FuncOp> summaryOf;
    llvm::StringMap<SmallVector<Summary>> summaryStates;
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
      SmallVector<Summary> states;
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
      for (auto [j, sum] : llvm::enumerate(summaryStates[call.getCallee()])) {
        DictionaryAttr a = outAttrs[sum.result];
        auto state = a ? a.getAs<StringAttr>("ssm.state") : StringAttr();
        if (!state) {
          call.emitError("ssm-distribute-prefill: layer ") << i << "'s scan state has no ssm.state name";
          scall.erase();
          return signalPassFailure();
        }
        outs.push_back(scall.getResult(call.getNumResults() + j));
        outAttrs.push_back(named(b, ("summary" + sum.kind + "." + state.getValue()).str()));
      }
      // Inputs: the residual stream, then the carries it reads.
      SmallVector<Value> ins{call.getOperand(0)};
      SmallVector<DictionaryAttr> inAttrs{hAttr};
      for (Value v : call.getOperands().drop_front())
        if (auto it = cs.carries.find(v); it != cs.carries.end())
          ins.push_back(v), inAttrs.push_back(named(b, it->second));
      func::FuncOp fn = outline(b, seq, ("dist_layer" + std::to_string(i)).c_str(),
                                {scall.getOperation()}, ins, inAttrs, outs, outAttrs);
      fn->setAttr("ssm.halo_rows", b.getI64IntegerAttr(haloOf[call.getCallee()]));
      scall.erase();
      // dist_layer_plain<i>: the same without the summaries (the last
      // rank's run and the reruns need none).
      outs.assign({call.getResult(0)});
      outAttrs.resize(call.getNumResults());
      for (unsigned r = 1; r < call.getNumResults(); ++r)
        outs.push_back(call.getResult(r));
      outline(b, seq, ("dist_layer_plain" + std::to_string(i)).c_str(), {call.getOperation()},
              ins, inAttrs, outs, outAttrs);
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
      SmallVector<Value> ins{call.getOperand(0)};
      SmallVector<DictionaryAttr> inAttrs{hAttr};
      for (Value v : call.getOperands().drop_front())
        if (auto it = ct.carries.find(v); it != ct.carries.end())
          ins.push_back(v), inAttrs.push_back(named(b, it->second));
      outline(b, step, ("dist_step" + std::to_string(i)).c_str(), {call.getOperation()},
              ins, inAttrs, outs, outAttrs);
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
