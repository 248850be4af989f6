// The C API's handles (ssm_runtime.h's opaque types) over the C++ classes, for the C API's source files that share them.
#ifndef SSM_RUNTIME_CAPIHANDLES_H
#define SSM_RUNTIME_CAPIHANDLES_H

#include "runtime/Model.h"
#include "runtime/Sampling.h"
#include "runtime/tokenizer/Tokenizer.h"

#include <memory>

struct ssm_model {
  std::unique_ptr<ssm::rt::Model> impl;
};
struct ssm_stream {
  std::unique_ptr<ssm::rt::Stream> impl;
};
struct ssm_tokenizer {
  std::unique_ptr<ssm::rt::tok::Tokenizer> impl;
};
struct ssm_sampler {
  ssm::rt::Sampler impl;
};

#endif
