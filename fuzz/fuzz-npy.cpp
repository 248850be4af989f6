// Fuzzes the .npy reader (runtime/Npy.h): any bytes give an array or a message.
// A parsed array must be self-consistent and survive the conversions and a
// write/read round trip.
#include "runtime/Npy.h"

#include <cstdlib>

#include "fuzz/FuzzUtil.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ssm::NpyArray a;
  std::string error;
  if (!ssm::parseNpy(data, size, a, error, "fuzz.npy")) {
    if (error.empty())
      std::abort(); // a refusal must say why
    return 0;
  }
  size_t item = ssm::npyItemSize(a.dtype);
  if (item == 0 || a.numel() < 0 || a.bytes.size() != size_t(a.numel()) * item)
    std::abort();
  std::vector<double> d;
  std::vector<float> f;
  ssm::npyToDoubles(a, d, error);
  ssm::npyToFloats(a, f, error);
  if (a.bytes.size() <= (1 << 20)) {
    std::string path = ssm::fuzz::scratchDir() + "/roundtrip.npy";
    ssm::NpyArray back;
    if (!ssm::writeNpy(path, a, error) || !ssm::readNpy(path, back, error) ||
        back.shape != a.shape || back.bytes != a.bytes)
      std::abort();
  }
  return 0;
}
