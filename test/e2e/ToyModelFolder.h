// Hand-written model folders of the runtime's tests (StateKindsTest.cpp,
// BatchedPrefillBlocksTest.cpp): the test writes DIR/model.json, its weights and
// DIR/graph.mlir; these compile the graph with ssm-compile (SSM_COMPILE_PATH)
// into DIR/compiled/m and open the folder as a Model.
#ifndef SSM_TEST_E2E_TOY_MODEL_FOLDER_H
#define SSM_TEST_E2E_TOY_MODEL_FOLDER_H

#include "runtime/Model.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

namespace toy_model {

/// Compiles `dir`/graph.mlir into `dir`/compiled/m; true when ssm-compile exits 0.
inline bool compileGraph(const std::string &dir) {
  std::string cmd = std::string(SSM_COMPILE_PATH) + " " + dir + "/graph.mlir -o " + dir + "/compiled/m";
  return std::system(cmd.c_str()) == 0;
}

/// Opens the folder `dir`; a failed compile (`compiled` false) or open fails the
/// test (non-fatally) with its message; returns the Model (null when the open failed).
inline std::unique_ptr<ssm::rt::Model> open(const std::string &dir, bool compiled) {
  EXPECT_TRUE(compiled) << "ssm-compile failed on " << dir << "/graph.mlir";
  ssm::rt::Status st;
  std::unique_ptr<ssm::rt::Model> m = ssm::rt::Model::open(dir, st);
  EXPECT_TRUE(st) << st.message();
  return m;
}

} // namespace toy_model

#endif
