// The default schedules per target: one place for the heuristics that ssm-assign-schedules writes and codegen falls back to.
//
// No MLIR pass or Halide here: ssm-assign-schedules (passes/) writes these
// values into the IR, and codegen (codegen/schedules/) uses the same
// functions for a field an attribute leaves out, so both always agree.
#ifndef SSM_DIALECT_SCHEDULEDEFAULTS_H
#define SSM_DIALECT_SCHEDULEDEFAULTS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mlir {
class Operation;
} // namespace mlir

namespace ssm {

/// What the defaults need to know of a target.
struct TargetTraits {
  int64_t vectorWidth = 8;     // f32 lanes: 4 (NEON, SSE), 8 (AVX2), 16 (AVX-512)
  bool wideRegisterFile = false; // 32 vector registers (AVX-512, NEON) rather than 16
};

/// #ssm.matmul with every field resolved: what ssm-assign-schedules writes
/// and what codegen applies (one struct for both).
struct MatmulParams {
  bool dot = false; // algorithm = dot (true) or tiled (false)
  int64_t vectorWidth = 8;
  int64_t tileRows = 4, tileCols = 24, tileK = 0, rowTiles = 4, colTiles = 1;
  bool packB = true, parallel = true;
  int64_t gpuTile = 16; // GPU targets only: output tile side of a block (codegen/schedules/gpu/)
};

/// Whether C[M, N] = A[M, K] B[K, N] (B given as (N, K) when `transposeB`)
/// defaults to algorithm = dot: for a transposed B when M <= 4 (decode: the
/// weight streamed once, in place) or K >= 128 (long rows: the partial sums'
/// final reduction is paid once per 8+ vector steps, and no k-major copy of
/// the weight is made per call); tiled otherwise.
bool defaultMatmulIsDot(int64_t m, int64_t n, int64_t k, bool transposeB);

/// The defaults for that product with the given algorithm (`dot`; when
/// absent, defaultMatmulIsDot decides).
///  tiled: register tiles that fit the vector registers with room for the B
///    vectors and the broadcast A value (16 registers: 4 rows x 3 vectors, the
///    BLIS-style shape, 1.6-2x faster than 8 x 2 on AVX2, which spills; 32
///    registers: 8 rows x 2 vectors of 16 lanes or 8 x 3 of fewer), 4 row
///    tiles per task, B packed k-major when transposed.
///  dot: register tiles of 8 A rows x 3 weight rows (32 registers; 4 x 2 with
///    16), 1 x 16 when M = 1 (1 x 8 with 16 registers); tasks are cache
///    blocks of about 384 KB of weight rows x 1.5 MB of A rows (measured on a
///    2-core AVX-512 Xeon at M = 512, K = 768 and 1536: 115-120 GFLOP/s on
///    one core, against 33 for the tiled form with its per-call packing),
///    shrunk until there are 8 tasks.
///    The M = 1 tile: see kDotTileColsWide.
/// Threads from 64K multiply-adds (waking the pool costs more than a smaller
/// product).
MatmulParams defaultMatmulSchedule(int64_t m, int64_t n, int64_t k, bool transposeB,
                                   const TargetTraits &t, std::optional<bool> dot = std::nullopt);

/// True when the dot form of an (M, N, K) product runs K in cache blocks of
/// `s.tileK` elements (codegen/schedules/MatmulSchedule.cpp): tile_k > 1, a
/// whole number of vectors below K that splits K's vectors into whole
/// blocks, M and N whole register tiles and the tile counts whole task
/// blocks. Otherwise tile_k is not read by the dot form. Codegen adds the
/// conditions of the weight (not q8). The defaults set tile_k only where
/// this holds.
bool dotBlocksK(const MatmulParams &s, int64_t m, int64_t n, int64_t k);

/// Weight rows per register tile of the M = 1 dot (decode matvec): 16 with
/// 32 vector registers (the 16 accumulators and the loads' temporaries
/// fit), 8 with 16. More rows keep more short row streams in flight at
/// once. The tile is the same for every weight width (f32, f16, bf16, int8).
/// Tasks keep the f32-sized cache block (384 KB of f32 rows), i.e. 8 tiles
/// of 16 rows at K = 768. 16 rows beat 8, 24 and 32 at mamba-130m decode
/// shapes on the x86 machines measured (docs/tuning.md, "Measured
/// defaults"); NEON (also 32 registers) follows unmeasured.
constexpr int64_t kDotTileColsWide = 16;
constexpr int64_t kDotTileCols = 8;

/// The dot form's K block (tile_k, elements) for products with M >
/// tile_rows and K >= kDotKBlockFrom: the first of kDotKBlocks that splits K
/// into whole blocks of vectors (768 measured best at K = 3072; the others
/// are its neighbours); shorter K runs unblocked (see defaultMatmulSchedule).
constexpr int64_t kDotKBlocks[] = {768, 512, 1024, 640, 896};
constexpr int64_t kDotKBlockFrom = 2048;

/// Stages with fewer elements than this run on one thread.
constexpr int64_t kParallelStageElements = 1 << 14;
/// The least elements of one parallel task of a stage.
constexpr int64_t kStageTaskElements = 1 << 13;

/// Channel tiles of an ssm op by default: at least two tasks per core on
/// up to 16 cores when the op is wide enough.
constexpr int64_t kChannelTileTasks = 32;
/// Channels per parallel task of an ssm op with `channels` channels:
/// channels / `tasks` (default kChannelTileTasks), a multiple of the vector
/// width, at most 256 (a tile's state stays in L1/L2).
int64_t defaultChannelTile(int64_t channels, int64_t vectorWidth,
                           int64_t tasks = kChannelTileTasks);
/// The chunk (#ssm.schedule `chunk`) of ssm.gated_delta_rule over `len`
/// tokens (dynamic: negative) on a CPU (`gpu` false) or GPU target.
/// CPU: kCpuDeltaRuleChunk (16) from kCpuDeltaRuleChunkFrom tokens (64;
/// kCpuDeltaRuleChunkFromPerChannel, 2048, with a gate per key channel),
/// else 0 (token by token; also for a dynamic length). Measured at the
/// Qwen3.5-0.8B layer shape (16 heads, Dk = Dv = 128), 2 threads
/// (bench/delta_rule_bench.py, the op alone): scalar gate, serial / chunk
/// 16 = 1.32x at L 64, 1.22x at 128 and 256, 1.55x at 512, 1.73x at 4096
/// (chunk 32 1.72x, 64 1.40x); per key channel 0.8x at L 64-256, 1.7x at
/// 4096. The tuner's space keeps 0..128.
/// GPU: 0 when 0 <= len < 8 (decode steps and short calls, where a chunk's
/// matrix work would be mostly padding); else kDeltaRuleChunk, or
/// kDeltaRuleChunkPerChannel with a gate per key channel (its decay ratios
/// are exps inside the key sums, C^2 Dk per chunk, so shorter chunks, as
/// llama.cpp's KDA uses 16).
constexpr int64_t kDeltaRuleChunk = 64;
constexpr int64_t kCpuDeltaRuleChunk = 16;
constexpr int64_t kCpuDeltaRuleChunkFrom = 64;
constexpr int64_t kCpuDeltaRuleChunkFromPerChannel = 2048;
constexpr int64_t kDeltaRuleChunkPerChannel = 16;
int64_t defaultDeltaRuleChunk(int64_t len, bool perChannelGate, bool gpu = false);
/// The chunk of ssm.wkv7 over `len` tokens (dynamic: negative) on a CPU or
/// GPU target. CPU: kCpuWkv7Chunk (16) from kCpuWkv7ChunkFrom (64) tokens,
/// else 0 (token by token; also for a dynamic length, decode steps among
/// them). Measured at RWKV-7 0.1B's layer shape (12 heads of 64), 2 threads,
/// the op alone (bench/delta_rule_bench.py --op wkv7), serial / chunk 16:
/// 1.68x at L 512, 3.42x at 4096 (1 thread 4.04x; docs/tuning.md), about
/// 1.3-1.4x at 64-256 and within noise below (sub-millisecond calls). GPU: 0 (the
/// chunked form compiles and runs there, but is not measured).
constexpr int64_t kCpuWkv7Chunk = 16;
constexpr int64_t kCpuWkv7ChunkFrom = 64;
int64_t defaultWkv7Chunk(int64_t len, bool gpu = false);
/// Tasks of one decode step (ssm.selective_update): its whole work is a few
/// microseconds, so each task must be worth more than handing it out (at 1536
/// channels x 16 states, 8 tasks ran in 7-8 us against 12-14 us with 32 on 2 threads).
constexpr int64_t kDecodeStepTasks = 8;

// ---- GPU targets (cuda, opencl): codegen/schedules/gpu/ -----------------

/// Threads per block of an ssm op (#ssm.schedule gpu_threads): channel
/// lanes per block; blocks cover the other channels and the batch.
constexpr int64_t kGpuOpThreads = 128;
/// Threads per block of a stage (#ssm.stage gpu_threads).
constexpr int64_t kGpuStageThreads = 256;
/// Output tile side of a matmul block (#ssm.matmul gpu_tile).
constexpr int64_t kGpuMatmulTile = 16;

/// True when codegen has a GPU schedule for op `opName` (an ssm op, a
/// matmul or a stage op). ssm-assign-schedules refuses a GPU target for an
/// op without one, naming it, rather than give it a CPU schedule.
bool hasGpuSchedule(llvm::StringRef opName);

/// True for ops that codegen lowers to a Halide stage of their own and that
/// take a #ssm.stage: not ssm ops, not matmuls, not constants, empty
/// tensors or func ops, and with a ranked tensor result.
bool takesStageSchedule(mlir::Operation *op);
/// True for an op whose stage has an update loop (a linalg reduction).
bool hasReductionLoop(mlir::Operation *op);

} // namespace ssm

#endif
