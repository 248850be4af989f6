/* ssm_distributed.h: the distributed prefill's C entry, with a communicator the caller owns.
 *
 * One long prompt prefilled by the ranks of an MPI communicator, each running a
 * contiguous slice (docs/distributed.md; runtime/distributed/Prefill.h does the
 * work). Link libssm_distributed.a, the model library's static library
 * (libSSMRuntime.a) and MPI; the caller initialises MPI and owns `comm`.
 *
 * The module is ssm-compile's output of the model's graph for THIS rank's
 * slice length after the ssm-distribute-prefill pass:
 *
 *   ssm-import ... --seq-len <my slice> -o model        (or any graph of the model)
 *   ssm-opt --ssm-distribute-prefill model/model.mlir -o dist.mlir
 *   ssm-compile dist.mlir -o module-<my slice>
 *
 * A module compiled for a length C that divides the slice also does: the slice
 * then runs as calls of C tokens, the states carried from call to call (calls
 * of a few hundred tokens are faster per token than one long call:
 * runtime/distributed/Prefill.h). `halo_rows` is the `ssm.halo_rows` of its
 * dist_layer functions (the short conv's width - 1: 3 for Mamba-1 and Mamba-2).
 */
#ifndef SSM_DISTRIBUTED_H
#define SSM_DISTRIBUTED_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Collective over `comm`: every rank calls it with its own slice, in rank
 * order along the sequence (n >= 1 tokens each; lengths may differ).
 *
 *   comm         the address of the caller's MPI_Comm (an `MPI_Comm *` cast to
 *                `void *`: MPI_Comm is a pointer in Open MPI and an int in
 *                MPICH, so its address is the portable handle). Its error
 *                handler is set to MPI_ERRORS_RETURN.
 *   model_dir    the ssm-import folder (model.json, weights.safetensors; F32 weights)
 *   module_dir   this rank's compiled module (above)
 *   tokens, n    this rank's slice
 *   threads      kernel threads of this rank (0: one per core)
 *   logits       on the last rank, if not NULL: receives the logits after the
 *                prompt's last token, `vocab` floats (vocab must match the model)
 *   state_out    on the last rank, if not NULL: the path of a state file
 *                (runtime/StateFile.h) a single-process stream loads to go on
 *   error, error_size  if not NULL: the failure's message, NUL-terminated
 *
 * Returns an ssm_status_t value of ssm_runtime.h: 0 (SSM_OK) on every rank when
 * all succeeded; otherwise the failing rank's code on it and SSM_ERROR_INTERNAL
 * ("rank k failed") on the others, all returning, none left waiting.
 * Errors: a bad argument (1), a missing file (2), a module that is not a
 * distributed graph of this model or a weight missing (4), a kernel failure (6),
 * MPI (8). States start at the model's init values (model.json). */
int ssm_distributed_prefill(void *comm, const char *model_dir, const char *module_dir,
                            const int32_t *tokens, size_t n, int64_t halo_rows, int threads,
                            float *logits, size_t vocab, const char *state_out, char *error,
                            size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
