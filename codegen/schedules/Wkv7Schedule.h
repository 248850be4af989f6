// CPU schedule of the ssm.wkv7 kernel (codegen/kernels/Wkv7Kernel.h).
#ifndef SSM_CODEGEN_SCHEDULES_WKV7SCHEDULE_H
#define SSM_CODEGEN_SCHEDULES_WKV7SCHEDULE_H

#include "codegen/kernels/Kernel.h"
#include "codegen/kernels/Wkv7Kernel.h"
#include "codegen/schedules/gpu/GpuSchedules.h"

namespace ssm::codegen {

/// The scan at root: its time loop runs inside vectors of value rows i
/// (vectorWidth lanes; rows are independent), parallel over heads x batch
/// when `s.parallel`; the decay factors and the first rank-one term at root,
/// vectorised along their fastest dim; y and the final state vectorised (the
/// translator computes them at root). Chunked (k.chunk > 0): one task per
/// (head, stream) walks the chunks, each chunk's local stages computed at
/// its step of the pass (register-tiled reductions, ChunkedSchedule.h), the
/// pass vectorised along the value rows.
void scheduleWkv7(Wkv7Kernel &k, const CpuSchedule &s, const Halide::Target &t);

} // namespace ssm::codegen

#endif // SSM_CODEGEN_SCHEDULES_WKV7SCHEDULE_H
