// Fuzzes golden cases (reference/GoldenCase.h): case.json is the fuzzed
// input; for every input and expected output it declares with a small shape,
// the harness writes a float32 .npy of that shape, so the loader's shape and
// attribute checks and its MLIR builder are reached. A case the loader
// accepts must give a function that parses, verifies and runs on the
// reference interpreter, as `ssm-run --golden` does.
#include "frontend/SafeParse.h"
#include "reference/Interpreter.h"
#include "runtime/Npy.h"
#include "reference/GoldenCase.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>

#include "fuzz/FuzzUtil.h"
#include "fuzz/MlirFuzzContext.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string dir = ssm::fuzz::scratchDir() + "/case";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir + "/inputs", ec);
  std::filesystem::create_directories(dir + "/expected", ec);
  ssm::fuzz::writeFile(dir + "/case.json", data, size);
  nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_object()) {
    for (const char *section : {"inputs", "expected"}) {
      if (!j.contains(section) || !j[section].is_object())
        continue;
      for (auto it = j[section].begin(); it != j[section].end(); ++it) {
        if (!it.value().is_object() || !it.value().contains("shape") ||
            !it.value()["shape"].is_array() || it.key().find('/') != std::string::npos)
          continue;
        std::vector<int64_t> shape;
        int64_t n = 1;
        for (const auto &d : it.value()["shape"])
          if (d.is_number_integer() && d.get<int64_t>() >= 0 && d.get<int64_t>() <= 4096 &&
              !__builtin_mul_overflow(n, d.get<int64_t>(), &n))
            shape.push_back(d.get<int64_t>());
          else
            n = -1;
        if (n < 0 || n > 4096 || shape.size() > 6)
          continue;
        std::vector<double> values(n);
        for (int64_t i = 0; i < n; ++i)
          values[i] = 0.125 * double((i * 37) % 17) - 1.0;
        std::string error;
        ssm::writeNpyDoubles(dir + "/" + section + "/" + it.key() + ".npy", "<f4", shape, values,
                             error);
      }
    }
  }
  ssm::GoldenCase gc;
  std::string error;
  if (!ssm::loadGoldenCase(dir, gc, error)) {
    if (error.empty())
      std::abort();
    return 0;
  }
  mlir::MLIRContext *ctx = ssm::fuzz::mlirFuzzContext().ctx.get();
  auto module = ssm::parseModuleChecked(gc.mlir, "case.json", ctx);
  if (!module)
    return 0; // reported as "does not verify" by ssm-run (exit 2)
  auto f = module->lookupSymbol<mlir::func::FuncOp>("main");
  if (!f)
    std::abort(); // the loader built a module without @main
  std::vector<ssm::ref::Array> args;
  for (const std::string &name : gc.argNames)
    for (const ssm::NamedArray &a : gc.inputs)
      if (a.name == name)
        args.emplace_back(a.shape, a.data);
  auto results = ssm::ref::runFunction(f, args);
  if (!results)
    llvm::consumeError(results.takeError());
  return 0;
}
