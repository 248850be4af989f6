// Fuzzes the rwkv.cpp .bin reader (import/RwkvFile.h) and the model analysis
// after it (import/RwkvModel.h): a file, a configuration or a message.
#include "import/RwkvFile.h"
#include "import/RwkvModel.h"

#include <cstdlib>

using namespace ssm::importer;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  RwkvFile file;
  std::string error;
  if (!parseRwkvFile(data, size, file, error, "fuzz.bin")) {
    if (error.empty())
      std::abort();
    return 0;
  }
  RwkvConfig config;
  analyseRwkv(file, config, error);
  return 0;
}
