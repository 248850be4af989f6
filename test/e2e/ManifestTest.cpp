// manifest.json (runtime/Manifest.h): the writer's output parses back to the
// same struct, and damaged manifests are refused, naming the problem, before
// any library is loaded (cases found by a hostile trial).
#include "runtime/Manifest.h"
#include "runtime/Module.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace ssm::rt;

namespace {

/// A module of one kernel @k (x (4) f32 -> y (4) f32) and a segmented
/// @seg calling it twice, as ssm-compile writes them.
ModuleManifest sample() {
  ModuleManifest m;
  m.compiler = "ssm-opt test";
  m.target = "x86-64-linux";
  m.requestedTarget = "host";
  m.sharedLibrary = "libssm_module.so";
  m.staticLibrary = "ssm_module.a";
  m.header = "ssm_module.h";
  m.symbolPrefix = "ssm";
  FunctionInfo k;
  k.name = "k";
  k.symbol = "ssm_k";
  k.internal = true;
  k.arguments = {{"x", "", "", {4}, "float32"}};
  k.results = {{"y", "", "", {4}, "float32"}};
  FunctionInfo seg;
  seg.name = "seg";
  seg.segmented = true;
  seg.arguments = {{"x", "", "h", {4}, "float32"}, {"w", "w.weight", "", {4}, "float16"}};
  seg.results = {{"y", "", "h", {4}, "float32"}};
  seg.steps = {{"k", {0}, {2}}, {"k", {2}, {3}}};
  seg.stepValues = 4;
  seg.resultValues = {3};
  m.functions = {seg, k};
  return m;
}

std::string errorOf(const std::string &text) {
  ModuleManifest m;
  std::string error;
  EXPECT_FALSE(manifestFromJson(text, "m/manifest.json", m, error)) << text;
  return error;
}

/// `text` with the first occurrence of `from` replaced by `to`.
std::string with(std::string text, const std::string &from, const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

} // namespace

TEST(ManifestTest, WriterAndReaderAgree) {
  ModuleManifest m = sample();
  m.sharedLibraryBytes = 1234;
  m.functions[1].chunking = TimeChunking{32, 512, {0}, {0}, 1, 0};
  m.functions[1].kernelExtraArguments = {{"carried_state", "", "", {4}, "float32"}};
  std::string text = manifestToJson(m), error;
  ModuleManifest back;
  ASSERT_TRUE(manifestFromJson(text, "m/manifest.json", back, error)) << error;
  EXPECT_EQ(manifestToJson(back), text);
  EXPECT_EQ(back.sharedLibraryBytes, 1234u);
  ASSERT_TRUE(back.functions[1].chunking);
  EXPECT_EQ(back.functions[1].chunking->length, 512);
  EXPECT_EQ(back.functions[0].steps[1].inputs, std::vector<int>{2});
  // A cross target's manifest names no shared library.
  m.sharedLibrary.reset();
  ASSERT_TRUE(manifestFromJson(manifestToJson(m), "m/manifest.json", back, error)) << error;
  EXPECT_FALSE(back.sharedLibrary);
}

TEST(ManifestTest, DamagedManifestsAreRefusedNamingTheProblem) {
  const std::string good = manifestToJson(sample());
  EXPECT_NE(errorOf(with(good, "\"version\": 1", "\"version\": 2")).find("manifest version 2"),
            std::string::npos);
  EXPECT_NE(errorOf(with(good, "\"libssm_module.so\"", "\"../libc.so.6\""))
                .find("not a file name in the module's folder"),
            std::string::npos);
  EXPECT_NE(errorOf(with(good, "\"libssm_module.so\"", "\"/lib/libc.so.6\""))
                .find("not a file name in the module's folder"),
            std::string::npos);
  EXPECT_NE(errorOf(with(good, "\"libssm_module.so\"", "5")).find("\"shared_library\" is 5"),
            std::string::npos);
  EXPECT_NE(errorOf(with(good, "\"dtype\": \"float32\"", "\"dtype\": null"))
                .find("'x' has dtype null, not a string"),
            std::string::npos);
  EXPECT_NE(errorOf(with(good, "\"name\": \"k\"", "\"name\": \"seg\"")).find("@seg is listed twice"),
            std::string::npos);
  // Two arguments of one name (two "position" arguments made the model
  // library bind a null weight in the other's place).
  EXPECT_NE(errorOf(with(good, "\"name\": \"w\"", "\"name\": \"x\"")).find("@seg has two arguments named 'x'"),
            std::string::npos);
  // Steps: a value read before it is defined, a write out of order, a
  // result that is another value's type (the runtime copies by the
  // manifest's sizes: it read past the tokens buffer), a kernel's argument
  // of another dtype.
  std::string e = errorOf(with(good, "\"inputs\": [\n            0", "\"inputs\": [\n            3"));
  EXPECT_NE(e.find("step 0 reads value 3, not defined before it: values 0 to 1"),
            std::string::npos) << e;
  e = errorOf(with(good, "\"outputs\": [\n            2", "\"outputs\": [\n            1"));
  EXPECT_NE(e.find("step 0 writes value 1, expected the next new value 2"), std::string::npos) << e;
  e = errorOf(with(good, "\"result_values\": [\n        3", "\"result_values\": [\n        1"));
  EXPECT_NE(e.find("result 0 ('y') is value 1 ('w'), of another shape or dtype"),
            std::string::npos) << e;
  e = errorOf(with(good, "\"inputs\": [\n            0", "\"inputs\": [\n            1"));
  EXPECT_NE(e.find("passes value 1 ('w') as argument 'x' of @k, of another shape or dtype"),
            std::string::npos) << e;
  e = errorOf(with(good, "\"function\": \"k\"", "\"function\": \"seg\""));
  EXPECT_NE(e.find("step 0 calls @seg, which is not a kernel of this manifest"),
            std::string::npos) << e;
}

TEST(ManifestTest, TheRuntimeRefusesADamagedManifestBeforeLoadingALibrary) {
  std::string dir = ::testing::TempDir() + "ssm-manifest-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/manifest.json")
      << with(manifestToJson(sample()), "\"libssm_module.so\"", "\"../../lib/libc.so.6\"");
  std::string error;
  EXPECT_FALSE(CompiledModule::load(dir, error));
  EXPECT_NE(error.find("not a file name in the module's folder"), std::string::npos) << error;
  std::filesystem::remove_all(dir);
}
