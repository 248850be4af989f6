// The default schedules per target (see ScheduleDefaults.h).
#include "dialect/ScheduleDefaults.h"

#include "dialect/SsmDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;

namespace ssm {

MatmulDefaults defaultMatmulSchedule(int64_t m, int64_t n, int64_t k, bool transposeB,
                                     const TargetTraits &t) {
  MatmulDefaults s;
  s.vectorWidth = t.vectorWidth;
  s.matvec = transposeB && m <= 4;
  s.parallel = m * n * k >= (1 << 16);
  if (s.matvec) {
    s.tileCols = t.vectorWidth; // one block of vector-width columns per task
    s.packB = false;
    return s;
  }
  const bool wide = t.vectorWidth >= 16 || t.wideRegisterFile;
  s.tileRows = wide ? 8 : 4;
  s.tileCols = (t.vectorWidth >= 16 ? 2 : 3) * t.vectorWidth;
  s.rowTiles = 4;
  s.tileK = 0;
  s.packB = transposeB;
  return s;
}

int64_t defaultChannelTile(int64_t channels, int64_t vw) {
  if (channels <= vw)
    return vw;
  int64_t tile = channels / 32;
  tile = std::max<int64_t>(vw, std::min<int64_t>(256, tile));
  return (tile / vw) * vw;
}

bool takesStageSchedule(Operation *op) {
  llvm::StringRef n = op->getName().getStringRef();
  if (n.starts_with("ssm.") || isScheduledMatmul(n) || n == "arith.constant" ||
      n == "tensor.empty" || n.starts_with("func."))
    return false;
  return llvm::any_of(op->getResultTypes(), [](Type t) { return isa<RankedTensorType>(t); });
}

bool hasReductionLoop(Operation *op) {
  llvm::StringRef n = op->getName().getStringRef();
  if (n == "linalg.reduce" || n == "linalg.matvec" || n == "linalg.vecmat" ||
      n == "linalg.dot" || n.starts_with("linalg.batch_matmul"))
    return true;
  // linalg.generic lists its loops in `iterator_types`; read the printed
  // form so this file needs no linalg headers.
  if (auto iters = op->getAttrOfType<ArrayAttr>("iterator_types"))
    for (Attribute a : iters) {
      std::string s;
      llvm::raw_string_ostream os(s);
      a.print(os);
      if (llvm::StringRef(os.str()).contains("reduction"))
        return true;
    }
  return false;
}

} // namespace ssm
