// Fuzzes the safetensors reader (import/Safetensors.h): any bytes give a file
// or a message; every tensor of a parsed file converts to floats or says why.
#include "import/Safetensors.h"

#include <cstdlib>

using namespace ssm::importer;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StFile file;
  std::string error;
  if (!parseSafetensors(data, size, file, error, "fuzz.safetensors")) {
    if (error.empty())
      std::abort();
    return 0;
  }
  for (const StTensor &t : file.tensors) {
    std::vector<float> values;
    std::string e;
    toFloats(t, values, e);
  }
  std::vector<uint8_t> out;
  serializeSafetensors(file, out, error);
  return 0;
}
