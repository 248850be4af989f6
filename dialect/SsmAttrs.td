// Attributes of the `ssm` dialect: the schedule that codegen reads.
#ifndef SSM_ATTRS_TD
#define SSM_ATTRS_TD

include "dialect/SsmDialect.td"
include "mlir/IR/AttrTypeBase.td"

def SSM_ScheduleAttr : AttrDef<SSM_Dialect, "Schedule"> {
  let mnemonic = "schedule";
  let summary = "how codegen tiles, vectorises and parallelises one op";
  let description = [{
    The schedule of one op, attached as the discardable attribute
    `ssm.schedule` by `ssm-assign-schedules` (or written by hand, or by
    `ssm-tune` from its database) and read by the Halide translation.
    Compare IREE's `lowering_config`. Every field is one coordinate of the
    tuning search space with a known legal range:

    | field | meaning | legal values |
    |---|---|---|
    | `vector_width` | f32 lanes of the innermost vectorised loop | 1, 2, 4, 8, 16, 32 |
    | `channel_tile` | channels (or heads x head dim) per parallel task | 1 .. 65536, a multiple of `vector_width` (or 1) |
    | `time_chunk` | time steps per kernel call; longer inputs run as a host loop over chunks carrying the state | 1 .. 1048576 |
    | `parallel` | parallelise over batch x channel tiles | true, false |
    | `unroll_state` | unroll the state dim (keeps the state in registers) | true, false |
    | `gpu_block` | GPU threads per block (0: CPU schedule) | 0, or 32 .. 1024, a multiple of 32 |

    ```mlir
    %y, %h = ssm.selective_scan time_major ... {ssm.schedule = #ssm.schedule<vector_width = 8, channel_tile = 64, time_chunk = 512>}
    ```
    Fields left out take their defaults (8, 64, 512, true, true, 0).
  }];
  let parameters = (ins
    DefaultValuedParameter<"int64_t", "8">:$vector_width,
    DefaultValuedParameter<"int64_t", "64">:$channel_tile,
    DefaultValuedParameter<"int64_t", "512">:$time_chunk,
    DefaultValuedParameter<"bool", "true">:$parallel,
    DefaultValuedParameter<"bool", "true">:$unroll_state,
    DefaultValuedParameter<"int64_t", "0">:$gpu_block
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // SSM_ATTRS_TD
