// Fuzzes the model library's state and DLPack entries below the C API: the
// saved-state reader (runtime/StateFile.h: magic first, a size bound, every
// length against the bytes left, the checksum) and the checks of a caller's
// DLPack tensor (runtime/CApiSupport.h: ndim, a NULL shape, negative and
// overflowing dimensions, row-major strides) that ssm_stream_set_state_dlpack
// and ssm_module_call_dlpack run before touching any data.
//
// The first byte picks the entry: even, a state file (the rest of the input,
// read with a bound of 4 KiB or none); odd, a DLTensor whose ndim, dtype
// bits, shape and strides come from the input (shape and strides arrays of
// 64 entries, the unused ones 0, as a caller's could hold anything).
#include "runtime/CApiSupport.h"
#include "runtime/StateFile.h"

#include <cstdlib>
#include <cstring>

#include "fuzz/FuzzUtil.h"

namespace {

void stateFile(const uint8_t *data, size_t size, bool bounded) {
  std::string path = ssm::fuzz::scratchDir() + "/state.ssmstate";
  ssm::fuzz::writeFile(path, data, size);
  ssm::rt::SavedState s;
  const uint64_t bound = bounded ? 4096 : UINT64_MAX;
  ssm::rt::Status st = ssm::rt::readStateFile(path, s, bound);
  if (!st.isOk()) {
    if (st.message().empty())
      std::abort(); // every refusal names the file and the problem
    return;
  }
  if (size > bound)
    std::abort(); // read past the bound
  uint64_t values = s.logits.size();
  for (const ssm::rt::SavedTensor &t : s.states)
    values += t.values.size();
  if (values * 4 > size)
    std::abort(); // more values than the file held
}

void dlTensor(const uint8_t *data, size_t size) {
  int64_t shape[64] = {}, strides[64] = {};
  DLTensor t{};
  int32_t ndim = 0;
  if (size >= 4)
    std::memcpy(&ndim, data, 4);
  data += std::min<size_t>(size, 4);
  size -= std::min<size_t>(size, 4);
  t.ndim = ndim;
  t.dtype = {kDLFloat, static_cast<uint8_t>(size ? data[0] : 32), 1};
  if (size) {
    t.shape = (data[0] & 1) ? nullptr : shape;
    t.strides = (data[0] & 2) ? strides : nullptr;
    ++data;
    --size;
  }
  size_t n = std::min<size_t>(size / 8, 128);
  for (size_t k = 0; k < n; ++k)
    std::memcpy(k < 64 ? &shape[k] : &strides[k - 64], data + 8 * k, 8);
  int64_t numel = -1;
  std::string why = ssm::rt::capi::rowMajorProblem(t, numel);
  if (!why.empty()) {
    if (numel != 0)
      std::abort(); // a refused tensor reports no element count
    return;
  }
  // Accepted: a well-formed shape whose element count and byte size fit.
  if (t.ndim < 0 || t.ndim > 64 || (t.ndim > 0 && !t.shape) || numel < 0)
    std::abort();
  __int128 product = 1;
  for (int k = 0; k < t.ndim; ++k) {
    if (t.shape[k] < 0)
      std::abort();
    product *= t.shape[k];
    if (product > INT64_MAX)
      std::abort();
  }
  if (product != numel)
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  if ((data[0] & 1) == 0)
    stateFile(data + 1, size - 1, (data[0] & 2) != 0);
  else
    dlTensor(data + 1, size - 1);
  return 0;
}
