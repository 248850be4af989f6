// Attributes of the `ssm` dialect: the schedules that codegen reads.
//
// Every op that codegen lowers to its own Halide stages carries one schedule
// in the discardable attribute `ssm.schedule`, of the family that fits the
// op: `#ssm.schedule` (ssm ops), `#ssm.matmul` (linalg.matmul and its
// transposed forms), `#ssm.stage` (every other lowered op: elementwise,
// linalg.generic, reductions, fills, reshapes, slices). Fields are optional:
// a field left out takes the default that the op's schedule function
// documents; a field written on an op it does not apply to is a verifier
// error (SSMDialect::verifyOperationAttribute), so every field an op accepts
// changes its generated code. These tables are the tuner's search space; their
// machine-readable form is ssm::scheduleFields (dialect/ScheduleSpace.h), which
// the verifiers and ssm-tune read (`ssm-tune --print-space` prints it).
#ifndef SSM_ATTRS_TD
#define SSM_ATTRS_TD

include "dialect/SsmDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class SSM_OptInt<string desc> : OptionalParameter<"std::optional<int64_t>", desc>;
class SSM_OptBool<string desc> : OptionalParameter<"std::optional<bool>", desc> {
  let printer = [{ $_printer << (*$_self ? "true" : "false") }];
}

def SSM_ScheduleAttr : AttrDef<SSM_Dialect, "Schedule"> {
  let mnemonic = "schedule";
  let summary = "Schedule of one ssm op: vector width, channel tiles, threads, unrolling, time chunks; GPU threads";
  let description = [{
    The schedule of one `ssm` op on a CPU or GPU target, attached as the
    discardable attribute `ssm.schedule` by `ssm-assign-schedules` (or
    written by hand, or by `ssm-tune`) and applied by the op's schedule
    function (`codegen/schedules/<Op>Schedule.cpp`) to the Halide stages its
    kernel builder defines (`codegen/kernels/<Op>Kernel.cpp`). Compare
    IREE's `lowering_config`. Each field is one coordinate of the tuning
    search space (`ssm-tune --print-space` prints the same table from
    `ssm::scheduleFields` in `dialect/ScheduleSpace.h`, which the verifier
    and the tuner read):

    | field | meaning | legal values | default |
    |---|---|---|---|
    | `vector_width` | f32 lanes of the innermost vectorised loop | 1, 2, 4, 8, 16, 32 | the target's natural width (4 NEON/SSE, 8 AVX2, 16 AVX-512) |
    | `channel_tile` | channels (or heads x head dim) per parallel task; `ssm.attention`: queries per task (at most 64) | 1 .. 65536, a multiple of `vector_width` (or 1) | 64; `ssm.attention`: 2 x `vector_width` |
    | `parallel` | run the tiles on the thread pool | true, false | true |
    | `unroll_state` | unroll the state dim N (keeps the state in registers) | true, false | true |
    | `chunk` | tokens per chunk of the chunked form of a scan (the work inside a chunk as small matrix products, one pass of the state per chunk); 0: token by token. It picks the algorithm, so GPU targets read it too | 0 .. 1024 | `ssm.gated_delta_rule`: 0 when L < 8 (decode), else 64 (16 with a gate per key channel); `ssm.wkv7`: 16 from 64 tokens on a CPU, else 0 (dynamic lengths, GPU targets); `ssm.attention`: the keys per key tile (0: 64, or 256 for one query) |
    | `gpu_threads` | GPU targets: threads per block along the channels (or heads x head dim); blocks cover the rest of the channels and the batch | 1 .. 1024 | 128 |

    The fields each op accepts (any other is a verifier error):

    | op | vector_width | channel_tile | parallel | unroll_state | chunk | gpu_threads |
    |---|---|---|---|---|---|---|
    | `ssm.discretize` | yes | | yes | | | yes |
    | `ssm.affine_scan` | yes | yes | yes | | | yes |
    | `ssm.selective_scan` | yes | yes | yes | yes | | yes |
    | `ssm.selective_update` | yes | yes | yes | yes | | yes |
    | `ssm.lti_kernel` | yes | | yes | | | yes |
    | `ssm.lti_conv` | yes | | yes | | | yes |
    | `ssm.causal_conv1d` | yes | yes | yes | | | yes |
    | `ssm.ssd_scan` | yes | | yes | | | yes |
    | `ssm.wkv4` | yes | | yes | | | yes |
    | `ssm.wkv7` | yes | | yes | | yes | yes |
    | `ssm.gated_delta_rule` | yes | | yes | | yes | yes |
    | `ssm.rope` | yes | | yes | | | yes |
    | `ssm.attention` | yes | yes | yes | | yes | yes |

    A GPU target (`cuda`, `opencl`)
    reads only `gpu_threads` and `chunk` (`ssm-assign-schedules` writes
    only `gpu_threads` there); a CPU target ignores `gpu_threads`, and
    `ssm-tune` (which measures CPU schedules) does not search it. The GPU schedules
    (`codegen/schedules/gpu/`) give one GPU thread per (batch, channel)
    lane, which walks time serially as mamba_ssm's selective-scan kernel
    does (the state in the kernel's scratch buffer, not yet in registers).
    Time chunking (the host loop over time chunks) is a property of the
    function, not of one op: `ssm-chunk-time` sets `ssm.time_chunk` on the
    `func.func`.

    ```mlir
    %y, %h = ssm.selective_scan time_major ... {ssm.schedule = #ssm.schedule<vector_width = 8, channel_tile = 64>}
    ```
  }];
  let parameters = (ins
    SSM_OptInt<"f32 lanes">:$vector_width,
    SSM_OptInt<"channels per task">:$channel_tile,
    SSM_OptBool<"parallel tiles">:$parallel,
    SSM_OptBool<"unroll the state dim">:$unroll_state,
    SSM_OptInt<"tokens per chunk of a chunked scan (0: token by token)">:$chunk,
    SSM_OptInt<"GPU threads per block">:$gpu_threads
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def SSM_MatmulAlgorithm : I32EnumAttr<"MatmulAlgorithm",
    "how a matmul is computed", [
      I32EnumAttrCase<"tiled", 0>,
      I32EnumAttrCase<"dot", 1>]> {
  let cppNamespace = "::ssm";
}

def SSM_MatmulScheduleAttr : AttrDef<SSM_Dialect, "MatmulSchedule"> {
  let mnemonic = "matmul";
  let summary = "Schedule of a linalg matmul: register tile, cache blocks, packing, threads; GPU tile";
  let description = [{
    The schedule of `linalg.matmul`, `linalg.matmul_transpose_a` and
    `linalg.matmul_transpose_b` (C[M, N] = A B, with the nn.Linear weight
    layout for `transpose_b`) on a CPU target, applied by
    `codegen/schedules/MatmulSchedule.cpp`.

    `algorithm = tiled` (outer products): C is computed in register tiles of
    `tile_rows` rows x `tile_cols` columns (vectors of `vector_width`
    columns; the accumulators stay in vector registers while the reduction
    runs, each step broadcasting one A value against the B vectors),
    `row_tiles` row tiles per parallel task; the reduction loop runs in
    unrolled blocks of `tile_k` steps (0: not blocked); with `pack_b` the B
    operand is first copied into a k-major panel (for `transpose_b`, whose B
    is (N, K)), so the inner loop loads contiguous vectors of B. Halide's
    test/performance/matrix_multiplication and BLIS's micro-kernel are the
    models. Best when K is short (a few vectors) or B is already k-major.

    `algorithm = dot` (`transpose_b` only; the nn.Linear layout read in
    place, as ggml's vec_dot kernels do): both A's rows and the (N, K)
    weight's rows are contiguous along K, so each output is a dot product
    accumulated in `vector_width` partial-sum lanes and summed across the
    lanes once at the end. The register tile is `tile_rows` rows of A x
    `tile_cols` rows of the weight (tile_rows x tile_cols accumulator
    vectors, each step loading tile_rows + tile_cols vectors: 8 x 3 on
    AVX-512); a parallel task is a cache block of `row_tiles` x
    `col_tiles` register tiles, walked weight-block-major so that the
    block of weight rows stays in L2 while the rows of A pass over it. No
    copy of the weight is made, so a prefill (M = 512) and a decode step
    (M = 1, `tile_rows` = 1: a streaming matvec at the memory bandwidth)
    use the same weights in place. With `tile_k` (K elements, a multiple
    of `vector_width`) the dot form runs K in cache blocks (BLIS's kc
    loop): a task keeps the partial sums of all its register tiles in a
    buffer across the blocks, and each block copies its panel of weight
    rows into rows `tile_k` + 16 floats apart (weight rows whose length is
    a multiple of 4 KB would otherwise put all of a tile's streams into
    one L1 set) and walks the task's tiles over it, so a tile's rows stay
    in L1. It applies when M and N are whole tiles, the tile counts whole
    task blocks and K's vectors whole blocks, and `tile_k` is a multiple of
    the vector width in effect (otherwise K is not blocked; the verifier
    checks the multiple when the attribute names `algorithm = dot` and
    `vector_width`), and not to q8 weights.

    | field | meaning | legal values | default (x86 AVX2 / AVX-512 / Arm NEON) |
    |---|---|---|---|
    | `algorithm` | tiled or dot | `tiled`; `dot` for `transpose_b` | dot for `transpose_b` when M <= 4 or K >= 128 |
    | `vector_width` | f32 lanes (tiled: columns per vector; dot: partial sums along K) | 1, 2, 4, 8, 16, 32 | 8 / 16 / 4 |
    | `tile_rows` | rows of the register tile | 1 .. 16 | tiled 4 / 8 / 8; dot min(M, 4 / 8 / 8) |
    | `tile_cols` | columns of the register tile; tiled: a multiple of `vector_width` | tiled 1 .. 4096, dot 1 .. 64 | tiled 24 / 32 / 12; dot 2 / 3 / 3; when M = 1, 8 / 16 / 16 whatever the weight's storage |
    | `tile_k` | tiled: reduction steps per unrolled block; dot: K elements per cache block (a multiple of `vector_width`); 0 or 1: the k loop is not blocked | 0 .. 65536 | 0; dot with M > `tile_rows`, K >= 2048 and whole tiles: the first of 768, 512, 1024, 640, 896 that splits K into whole blocks of vectors (with `row_tiles` and `col_tiles` the largest divisors of the tile counts up to 16 and 8, smaller while there are fewer than 8 tasks) |
    | `row_tiles` | row tiles per parallel task | 1 .. 1024 | tiled 4; dot: A rows of about 1.5 MB |
    | `col_tiles` | column tiles per parallel task (dot) | 1 .. 4096 | weight rows of about 384 KB (counted as f32 rows whatever the weight's storage) |
    | `pack_b` | k-major copy of B (tiled, `transpose_b`) | true, false | true |
    | `parallel` | use the thread pool | true, false | true from 64K multiply-adds |
    | `gpu_tile` | GPU targets: the output tile of one block, `gpu_tile` x `gpu_tile` threads (fewer rows when M is smaller), one output element per thread, the reduction in a private accumulator | 1 .. 32 | 16 |

    A GPU target reads only `algorithm` and `gpu_tile` (`ssm-assign-schedules`
    writes `algorithm = tiled, gpu_tile = 16` there); a CPU target ignores
    `gpu_tile`.

    The dot defaults shrink `row_tiles`, then `col_tiles`, until there are
    at least 8 parallel tasks. The verifier rejects a field that the chosen
    algorithm does not read (`pack_b` with `dot`, `col_tiles`
    with `tiled`) and `dot` on ops other than `linalg.matmul_transpose_b`.
  }];
  let parameters = (ins
    OptionalParameter<"std::optional<::ssm::MatmulAlgorithm>", "tiled or dot">:$algorithm,
    SSM_OptInt<"f32 lanes">:$vector_width,
    SSM_OptInt<"register tile rows">:$tile_rows,
    SSM_OptInt<"register tile columns">:$tile_cols,
    SSM_OptInt<"reduction block">:$tile_k,
    SSM_OptInt<"row tiles per task">:$row_tiles,
    SSM_OptInt<"column tiles per task (dot)">:$col_tiles,
    SSM_OptBool<"pack B k-major">:$pack_b,
    SSM_OptBool<"use threads">:$parallel,
    SSM_OptInt<"GPU output tile side">:$gpu_tile
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def SSM_ComputeLevel : I32EnumAttr<"ComputeLevel",
    "where a stage is computed", [
      I32EnumAttrCase<"root", 0>,
      I32EnumAttrCase<"inline_", 1, "inline">]> {
  let cppNamespace = "::ssm";
}

def SSM_StageScheduleAttr : AttrDef<SSM_Dialect, "StageSchedule"> {
  let mnemonic = "stage";
  let summary = "Schedule of an elementwise, generic or reduction stage: fusion, vectors, threads; GPU threads";
  let description = [{
    The schedule of every other op that codegen lowers to a Halide stage:
    elementwise `arith`/`math` ops on tensors, `linalg.generic` and the
    named linalg ops (with or without reductions), fills, transposes,
    broadcasts and the `tensor` reshapes, slices and concats.

    `compute = inline` fuses the stage into its single consumer (the fusion
    groups of `ssm-fuse`): it gets no loop nest or buffer of its own, and no
    other field applies. Only a stage without a reduction may be inlined
    (the verifier checks it); `ssm-fuse` inlines only stages whose one user
    reads each element once, since any other user would recompute it. `compute = root`: the stage gets its own loop nest,
    its contiguous dim vectorised by `vector_width` (when at least that
    long) and its outermost dim split into parallel tasks of at least
    `task_elements` elements when `parallel` and the stage has at least
    16K elements.

    | field | meaning | legal values | default |
    |---|---|---|---|
    | `compute` | `root` or `inline` | root, inline | root |
    | `vector_width` | f32 lanes | 1, 2, 4, 8, 16, 32 | the target's |
    | `parallel` | split the outer dim into parallel tasks | true, false | true |
    | `task_elements` | least elements of one parallel task | 1 .. 2^30 | 8192 |
    | `gpu_threads` | GPU targets: threads per block over the stage's elements (all its dims fused; a reduction runs inside each thread) | 1 .. 1024 | 256 |

    A GPU target reads `compute` and `gpu_threads` only; a CPU target
    ignores `gpu_threads`.
  }];
  let parameters = (ins
    OptionalParameter<"std::optional<::ssm::ComputeLevel>", "root or inline">:$compute,
    SSM_OptInt<"f32 lanes">:$vector_width,
    SSM_OptBool<"parallel tasks">:$parallel,
    SSM_OptInt<"least elements per task">:$task_elements,
    SSM_OptInt<"GPU threads per block">:$gpu_threads
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // SSM_ATTRS_TD
