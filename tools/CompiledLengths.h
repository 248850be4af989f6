// The sequence lengths a model folder is compiled for when nobody names them:
// ssm-run's first use of a folder without compiled modules
// (tools/ssm-run/ModelRunner.cpp, CompilingStream) and `ssm-import --compile`
// without `--seq-len` compile the same ladder, so a deployed folder runs
// prompts exactly as a folder compiled on first use does.
//
// The model library runs a prompt as the longest compiled @forward_sequence
// call that fits what is left, then @forward_step for the rest
// (runtime/Model.h, Stream::prefill). With calls of 256 tokens and of the
// import's --seq-len (16 by default), a 512-token prompt is 2 calls, a
// 300-token one 1 + 2 calls and 12 steps; 16 alone made the 512-token
// prompt 32 calls.
#ifndef SSM_TOOLS_COMPILEDLENGTHS_H
#define SSM_TOOLS_COMPILEDLENGTHS_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ssm::tools {

/// The long call's length (tokens) before the KV caches bound it.
constexpr int64_t kDefaultLongCall = 256;
/// model.mlir's @forward_sequence length when ssm-import is given no --seq-len.
constexpr int64_t kDefaultSeqLen = 16;

/// The default ladder, longest first: kDefaultLongCall, at most `context`
/// (the positions the model's KV caches hold; 0 for no caches), then
/// `seqLen` (model.json's "seq_len", the import's --seq-len) when it is
/// longer than one token and shorter than the first.
inline std::vector<int64_t> defaultCompiledLengths(int64_t context, int64_t seqLen) {
  int64_t big = kDefaultLongCall;
  if (context > 0)
    big = std::min(big, context);
  std::vector<int64_t> lengths = {big};
  if (seqLen > 1 && seqLen < big)
    lengths.push_back(seqLen);
  return lengths;
}

} // namespace ssm::tools

#endif
