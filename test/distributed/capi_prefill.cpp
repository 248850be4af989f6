// The C entry ssm_distributed_prefill under mpirun, with MPI_COMM_WORLD passed by address.
//
//   capi_prefill <model-dir> <module-dir> <tokens.npy> <vocab> <state-out> <logits-out.npy>
//
// Splits the tokens evenly over the ranks (each rank's module must be compiled
// for its slice: run_case.sh uses an even split), calls the entry with the
// caller's communicator, and on the last rank writes the state file and the
// logits. Exit 0, or 1 with the entry's message.
#include "runtime/Npy.h"
#include "runtime/distributed/ssm_distributed.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 7) {
    std::fprintf(stderr, "usage: capi_prefill <model-dir> <module-dir> <tokens.npy> <vocab> "
                         "<state-out> <logits-out.npy>\n");
    MPI_Finalize();
    return 2;
  }
  std::vector<int32_t> tokens;
  std::string error;
  if (!ssm::readTokenIds(argv[3], tokens, error)) {
    std::fprintf(stderr, "capi_prefill: %s\n", error.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  size_t n = tokens.size() / size, begin = n * rank;
  if (rank == size - 1)
    n = tokens.size() - begin;
  MPI_Comm comm = MPI_COMM_WORLD;
  const bool last = rank == size - 1;
  std::vector<float> logits(static_cast<size_t>(std::atol(argv[4])));
  char message[512] = {0};
  int rc = ssm_distributed_prefill(&comm, argv[1], argv[2], tokens.data() + begin, n, 3, 1,
                                   last ? logits.data() : nullptr, logits.size(),
                                   last ? argv[5] : nullptr, message, sizeof message);
  if (rc != 0) {
    std::fprintf(stderr, "capi_prefill: rank %d: error %d: %s\n", rank, rc, message);
    MPI_Finalize();
    return 1;
  }
  if (last && !ssm::writeNpy(argv[6], "<f4", {static_cast<int64_t>(logits.size())}, logits.data(),
                             error)) {
    std::fprintf(stderr, "capi_prefill: %s\n", error.c_str());
    MPI_Finalize();
    return 1;
  }
  MPI_Finalize();
  return 0;
}
