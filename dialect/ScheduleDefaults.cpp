// The default schedules per target (see ScheduleDefaults.h).
#include "dialect/ScheduleDefaults.h"

#include "dialect/SsmDialect.h"
#include "dialect/SsmOpList.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;

namespace ssm {

bool defaultMatmulIsDot(int64_t m, int64_t, int64_t k, bool transposeB) {
  return transposeB && (m <= 4 || k >= 128);
}

MatmulParams defaultMatmulSchedule(int64_t m, int64_t n, int64_t k, bool transposeB,
                                   const TargetTraits &t, std::optional<bool> dot) {
  MatmulParams s;
  s.vectorWidth = t.vectorWidth;
  s.dot = dot.value_or(defaultMatmulIsDot(m, n, k, transposeB));
  s.parallel = m * n * k >= (1 << 16);
  const bool wide = t.vectorWidth >= 16 || t.wideRegisterFile;
  if (s.dot) {
    s.packB = false;
    s.tileK = 0;
    s.tileRows = std::max<int64_t>(1, std::min<int64_t>(m, wide ? 8 : 4));
    const int64_t matvecCols = wide ? kDotTileColsWide : kDotTileCols;
    s.tileCols = std::max<int64_t>(1, std::min<int64_t>(n, m == 1 ? matvecCols : wide ? 3 : 2));
    // Cache blocks sized for f32 rows whatever the weight's width (measured
    // so; narrower weights only make a block lighter on L2).
    const int64_t rowBytes = std::max<int64_t>(1, k) * 4;
    // At least one tile each way: an empty product (m or n 0) clamped its
    // tile counts into [1, 0] and then divided by 0 (SIGFPE in ssm-compile).
    const int64_t rowTileCount = std::max<int64_t>(1, (m + s.tileRows - 1) / s.tileRows);
    const int64_t colTileCount = std::max<int64_t>(1, (n + s.tileCols - 1) / s.tileCols);
    s.colTiles = std::clamp<int64_t>((384 << 10) / (s.tileCols * rowBytes), 1,
                                     std::min<int64_t>(colTileCount, 4096));
    s.rowTiles = std::clamp<int64_t>((3 << 19) / (s.tileRows * rowBytes), 1,
                                     std::min<int64_t>(rowTileCount, 1024));
    auto tasks = [&](const MatmulParams &p) {
      return ((colTileCount + p.colTiles - 1) / p.colTiles) *
             ((rowTileCount + p.rowTiles - 1) / p.rowTiles);
    };
    // Fewer tiles per task (row tiles first) until there are 8 tasks, each
    // count stepped by `smaller`.
    auto atLeast8Tasks = [&](MatmulParams &p, auto smaller) {
      while (tasks(p) < 8 && (p.rowTiles > 1 || p.colTiles > 1)) {
        if (p.rowTiles > 1)
          p.rowTiles = smaller(rowTileCount, p.rowTiles);
        else
          p.colTiles = smaller(colTileCount, p.colTiles);
      }
    };
    // A long K (prefill products with K >= 2048: RWKV's FFN value, 3072)
    // runs in cache blocks of tile_k elements (codegen/schedules/
    // MatmulSchedule.cpp): a register tile's tile_rows + tile_cols rows
    // of A and of the weight then stay in L1 instead of streaming all of K
    // from L2. Blocking needs whole task blocks, so these are the largest
    // divisors of the tile counts up to 16 row tiles x 8 column tiles, and
    // the K block the first of kDotKBlocks for which it applies (dotBlocksK).
    // 512 x 768 x 3072 on 2 AMD EPYC (Zen 5) cores: 11.9 ms unblocked, 8.8
    // blocked (tile_k 256: 10.5, 512: 10.0, 768: 8.8).
    if (m > s.tileRows && k >= kDotKBlockFrom) {
      auto divisorBelow = [](int64_t count, int64_t below) {
        for (int64_t d = std::min(count, below - 1); d > 1; --d)
          if (count % d == 0)
            return d;
        return int64_t(1);
      };
      MatmulParams b = s;
      b.rowTiles = divisorBelow(rowTileCount, 17);
      b.colTiles = divisorBelow(colTileCount, 9);
      atLeast8Tasks(b, divisorBelow);
      for (int64_t kBlock : kDotKBlocks) {
        b.tileK = kBlock;
        if (dotBlocksK(b, m, n, k))
          return b;
      }
    }
    atLeast8Tasks(s, [](int64_t, int64_t tiles) { return (tiles + 1) / 2; });
    return s;
  }
  s.tileRows = wide ? 8 : 4;
  s.tileCols = (t.vectorWidth >= 16 ? 2 : 3) * t.vectorWidth;
  s.rowTiles = 4;
  s.colTiles = 1;
  s.tileK = 0;
  s.packB = transposeB;
  return s;
}

bool dotBlocksK(const MatmulParams &s, int64_t m, int64_t n, int64_t k) {
  const int64_t vw = std::max<int64_t>(1, s.vectorWidth);
  const int64_t tr = std::max<int64_t>(1, std::min(s.tileRows, m));
  const int64_t tc = std::max<int64_t>(1, std::min(s.tileCols, n));
  if (!s.dot || s.tileK <= 1 || s.tileK < vw || s.tileK % vw != 0 || s.tileK >= k)
    return false;
  return (k / vw) % (s.tileK / vw) == 0 && m % tr == 0 && n % tc == 0 &&
         (m / tr) % std::max<int64_t>(1, s.rowTiles) == 0 &&
         (n / tc) % std::max<int64_t>(1, s.colTiles) == 0;
}

int64_t defaultChannelTile(int64_t channels, int64_t vw, int64_t tasks) {
  if (channels <= vw)
    return vw;
  int64_t tile = channels / std::max<int64_t>(1, tasks);
  tile = std::max<int64_t>(vw, std::min<int64_t>(256, tile));
  return (tile / vw) * vw;
}

int64_t defaultDeltaRuleChunk(int64_t len, bool perChannelGate, bool gpu) {
  if (!gpu) {
    // Dynamic lengths (decode steps among them) stay token by token.
    int64_t from = perChannelGate ? kCpuDeltaRuleChunkFromPerChannel : kCpuDeltaRuleChunkFrom;
    return len >= from ? kCpuDeltaRuleChunk : 0;
  }
  if (len >= 0 && len < 8)
    return 0;
  return perChannelGate ? kDeltaRuleChunkPerChannel : kDeltaRuleChunk;
}

int64_t defaultWkv7Chunk(int64_t len, bool gpu) {
  if (gpu)
    return 0;
  return len >= kCpuWkv7ChunkFrom ? kCpuWkv7Chunk : 0;
}

bool hasGpuSchedule(llvm::StringRef opName) {
  // Matmuls and stage ops have a GPU branch (codegen/schedules/gpu/); an ssm
  // op says so itself (ScheduledOpInterface::hasGpuSchedule).
  if (!opName.starts_with("ssm."))
    return true;
  SsmOpScheduling facts;
  return lookupSsmOpScheduling(opName, facts) && facts.gpu;
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
