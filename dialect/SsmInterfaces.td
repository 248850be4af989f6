// The op interfaces of the `ssm` dialect.
#ifndef SSM_INTERFACES_TD
#define SSM_INTERFACES_TD

include "mlir/IR/OpBase.td"

// Every ssm op implements this interface (SSM_Op declares it), so the
// schedule fields, GPU support and parallel extent of an op are stated once,
// next to the op, and an op without them does not link (the undefined symbol
// names the op class). ssm-assign-schedules, the attribute verifier, codegen
// and ssm-tune read them from here; see docs/adding-an-op.md.
def SSM_ScheduledOpInterface : OpInterface<"ScheduledOpInterface"> {
  let cppNamespace = "::ssm";
  let description = [{
    How an `ssm` op is scheduled: which fields of `#ssm.schedule` it reads,
    whether codegen has a GPU branch for it, and the channel extent its
    parallel tasks split (for the default `channel_tile`).
  }];
  let methods = [
    StaticInterfaceMethod<[{
        The `#ssm.schedule` fields the op reads, in the attribute's
        parameter order; empty for an op with no loop nest of its own (it is
        read inside its users' loops and takes no schedule).
      }],
      "::llvm::ArrayRef<::llvm::StringRef>", "getScheduleFields">,
    StaticInterfaceMethod<[{
        True when codegen has a GPU schedule for the op
        (codegen/schedules/gpu/); ssm-assign-schedules refuses a GPU target
        for an op without one, naming it.
      }],
      "bool", "hasGpuSchedule">,
    InterfaceMethod<[{
        The channels the op's parallel tasks split (the extent
        `channel_tile` tiles); 0 when the op has no `channel_tile` or the
        extent is dynamic.
      }],
      "int64_t", "getScheduleChannels">,
    InterfaceMethod<[{
        The state size N per channel that `unroll_state` unrolls; 0 when the
        op has no `unroll_state` or N is dynamic.
      }],
      "int64_t", "getScheduleStateSize">,
  ];
}

#endif // SSM_INTERFACES_TD
