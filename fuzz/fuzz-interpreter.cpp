// Fuzzes the reference interpreter (reference/Interpreter.h) on small verified
// graphs: IR that parses, verifies and stays within the static limits, whose
// functions have static shapes of at most kMaxElements elements in every
// value, runs on deterministic inputs and returns results of the declared
// shapes or a message. Out-of-bounds reads/writes show up under ASan.
#include "frontend/SafeParse.h"
#include "frontend/StaticLimits.h"
#include "reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cstdlib>

#include "fuzz/MlirFuzzContext.h"

namespace {

constexpr int64_t kMaxElements = 1 << 14; // per value
constexpr int64_t kMaxWork = 1 << 20;     // per linalg op: its iteration space

/// Small enough to interpret in well under a second.
bool smallGraph(mlir::func::FuncOp f) {
  bool small = true;
  f.walk([&](mlir::Operation *op) {
    auto check = [&](mlir::Type t) {
      if (auto st = mlir::dyn_cast<mlir::ShapedType>(t))
        if (!st.hasStaticShape() || st.getNumElements() > kMaxElements)
          small = false;
    };
    for (mlir::Type t : op->getResultTypes())
      check(t);
    for (mlir::Region &r : op->getRegions())
      for (mlir::Block &b : r)
        for (mlir::BlockArgument a : b.getArguments())
          check(a.getType());
    if (auto l = mlir::dyn_cast<mlir::linalg::LinalgOp>(op)) {
      int64_t work = 1;
      for (int64_t r : l.getStaticLoopRanges())
        if (r < 0 || __builtin_mul_overflow(work, r, &work) || work > kMaxWork)
          small = false;
    }
  });
  return small;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext *ctx = ssm::fuzz::mlirFuzzContext().ctx.get();
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module = ssm::parseModuleChecked(text, "fuzz.mlir", ctx);
  if (!module)
    return 0;
  for (mlir::func::FuncOp f : module->getOps<mlir::func::FuncOp>()) {
    if (f.isExternal() || !smallGraph(f))
      continue;
    // Callees must be small too: the interpreter follows func.call.
    bool calleesSmall = true;
    f.walk([&](mlir::func::CallOp call) {
      auto callee = module->lookupSymbol<mlir::func::FuncOp>(call.getCallee());
      if (!callee || !smallGraph(callee))
        calleesSmall = false;
    });
    if (!calleesSmall)
      continue;
    std::vector<ssm::ref::Array> args;
    for (mlir::Type t : f.getFunctionType().getInputs()) {
      auto rt = mlir::dyn_cast<mlir::RankedTensorType>(t);
      std::vector<int64_t> shape = rt ? std::vector<int64_t>(rt.getShape().begin(), rt.getShape().end())
                                      : std::vector<int64_t>{};
      ssm::ref::Array a(shape);
      for (size_t i = 0; i < a.data.size(); ++i)
        a.data[i] = 0.25 * double(int64_t(i % 7) - 3); // small, signed, some zeros
      args.push_back(std::move(a));
    }
    auto results = ssm::ref::runFunction(f, args);
    if (!results) {
      llvm::consumeError(results.takeError());
      continue;
    }
    auto resultTypes = f.getFunctionType().getResults();
    if (results->size() != resultTypes.size())
      std::abort();
    for (size_t i = 0; i < results->size(); ++i) {
      auto rt = mlir::dyn_cast<mlir::RankedTensorType>(resultTypes[i]);
      std::vector<int64_t> want = rt ? std::vector<int64_t>(rt.getShape().begin(), rt.getShape().end())
                                     : std::vector<int64_t>{};
      const ssm::ref::Array &r = (*results)[i];
      if (r.shape != want || int64_t(r.data.size()) != ssm::ref::numelOf(r.shape))
        std::abort(); // a result of the wrong shape is a wrong answer
    }
  }
  return 0;
}
