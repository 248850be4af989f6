// Prefill of one long sequence across MPI ranks: each rank runs a contiguous slice, the slices' state summaries composed by the scan's associativity.
//
// The module is ssm-compile's output of a model graph after the
// `ssm-distribute-prefill` pass (passes/Passes.td): public functions
// dist_embed, dist_layer<i> (which also return each recurrent state's
// slice summary, the composed transition T), dist_step<i> and dist_head,
// compiled for this rank's slice length (ranks may have different lengths),
// or for a call length C with a tail module for the rest (prefill() below).
// Per layer i, on every rank r of the communicator (ranks in sequence order):
//
//   1. halo: the last `haloRows` rows of the layer's input before the slice
//      (gathered from the ranks before: several when their slices are
//      short) run through dist_step<i> from zero states; the window states
//      that gives (the short causal conv's last inputs) are exact, as they
//      depend only on the layer's input rows;
//   2. rank 0 runs dist_layer_plain<i> on its slice: exact, as its initial
//      state is zero; ranks 1..R-2 run dist_layer<i> from those windows and
//      zero recurrent states: final states s_r and transitions T_r; the
//      last rank runs nothing yet (its summary is nobody's input);
//   3. one MPI_Allgather of (T_r, s_r) for every recurrent state (plus a
//      status flag, so a failing rank stops the others instead of hanging
//      them); rank r composes h0_r = T_{r-1} (.) h0_{r-1} + s_{r-1}, from
//      h0_0 = the initial state (elementwise for the diagonal transitions
//      of Mamba-1/2 and RWKV-5/6; h0 P + s for RWKV-7's matrix; with the
//      running maximum for RWKV-4: docs/distributed.md, "The summary per op");
//   4. ranks 1..R-1 run dist_layer_plain<i> from (windows, h0_r): their
//      slice's outputs and final states are now those of a single pass
//      (DESIGN.md section 1).
//
// A layer with no summary (an RWKV channel mix, which the pass made a layer
// of its own) is exact from its windows: every rank runs it once after the
// halo, with no exchange. Results named "carry..." (RWKV-7's v_first) are
// kept on the rank and passed to the later layers that take them.
//
// So the middle ranks compute their slice twice per layer (the "rerun"
// correction), rank 0 and the last rank once. Rank 0 goes on to the next
// layer while the last rank runs this one: with per-layer work w_r
// (L_0, 2 L_r, L_{R-1}), the ranks settle to one exchange every max_r w_r,
// the last rank one layer behind; slices weighted (2, 1, ..., 1, 2) balance
// it (docs/distributed.md has the cost model and the measurements).
// The last rank ends with every layer's final state and, through dist_head,
// the logits after the last token. States start at `stateInit` (the
// model's init values); weights must be float32.
//
// Errors: a module without the dist_ functions or whose arguments are not
// h, tokens, states and weights (Mismatch), a weight missing (Mismatch), a
// slice of no tokens (InvalidArgument), a kernel failure (KernelFailed), an
// MPI failure or another rank's failure (Internal, naming the rank). Every
// rank returns the same outcome for the collective parts.
#ifndef SSM_RUNTIME_DISTRIBUTED_PREFILL_H
#define SSM_RUNTIME_DISTRIBUTED_PREFILL_H

#include "runtime/Module.h"
#include "runtime/Status.h"
#include "runtime/Weights.h"

#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ssm::dist {

struct PrefillResult {
  /// On the last rank: the logits after the last token (vocab values) and
  /// each layer state's final value by name ("layers.0.ssm_state" ...).
  std::vector<float> logits;
  std::vector<std::pair<std::string, std::vector<float>>> states;
  int64_t totalTokens = 0;         // every rank's slice together
  int64_t bytesExchangedPerLayer = 0; // received by this rank per layer (halo + summaries)
  double seconds = 0;              // this rank's wall time of the layer loop and head
};

/// Runs on every rank of `comm` (collective); `tokens` are this rank's
/// slice (n >= 1), in rank order along the sequence. `haloRows` is the
/// dist_layer functions' ssm.halo_rows. `stateInit`: each state's initial
/// value by name (model.json's "init"; absent: 0), e.g. RWKV-4's pp = -1e30.
///
/// `module` is compiled for C tokens (its dist_embed's length): C = n, or
/// C < n, and then each function runs over the slice as calls of C tokens,
/// each from the states the one before left (the conv window and the
/// recurrent state; the summaries chained), the last n mod C tokens through
/// `tail`, the same graph compiled for n mod C tokens (needed when C does
/// not divide n; Mismatch naming both lengths otherwise). Calls of a few
/// hundred tokens keep a layer's intermediates in cache: at mamba-130m
/// shapes, one thread, a layer took 124 us per token as one call of 8,192
/// tokens and 86 us as calls of 256 (docs/distributed.md, "Measured").
rt::Status prefill(MPI_Comm comm, rt::CompiledModule &module, rt::WeightFile &weights,
                   const int32_t *tokens, int64_t n, int64_t haloRows, PrefillResult &out,
                   const std::map<std::string, float> &stateInit = {},
                   rt::CompiledModule *tail = nullptr);

/// For a rank that cannot call prefill() (its files did not load): takes
/// part in prefill()'s first agreement as a failure, so that the ranks that
/// did call it return Internal ("rank k failed") instead of waiting.
void agreeFailure(MPI_Comm comm);

} // namespace ssm::dist

#endif
