// Fuzzes the compile manifest (manifest.json of ssm-compile's output, read by
// runtime/Module.h before anything is dlopen'ed): a module or a message.
#include "runtime/Module.h"

#include <cstdlib>
#include <filesystem>

#include "fuzz/FuzzUtil.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string dir = ssm::fuzz::scratchDir() + "/module";
  static bool made = std::filesystem::create_directories(dir);
  (void)made;
  ssm::fuzz::writeFile(dir + "/manifest.json", data, size);
  std::string error;
  auto module = ssm::rt::CompiledModule::load(dir, error);
  if (!module && error.empty())
    std::abort();
  return 0;
}
