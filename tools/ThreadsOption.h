// --threads N, the one option the tools (ssm-run, ssm-tune) declare for the kernels' thread count.
//
// libLLVM registers a global cl option named "threads" when it loads (unrelated
// to ours), so declaring ours statically would register the name twice. The
// tools make theirs here, in main before parsing, after unregistering that
// one: --threads and --threads=N then parse as any cl option does.
#ifndef SSM_TOOLS_THREADSOPTION_H
#define SSM_TOOLS_THREADSOPTION_H

#include "llvm/Support/CommandLine.h"

namespace ssm::tools {

/// The --threads option in `category` (0, the default: one thread per core),
/// made on the first call.
inline llvm::cl::opt<unsigned> &threadsOption(llvm::cl::OptionCategory &category,
                                              const char *description) {
  llvm::StringMap<llvm::cl::Option *> &options = llvm::cl::getRegisteredOptions();
  if (auto it = options.find("threads"); it != options.end())
    it->second->removeArgument();
  static llvm::cl::opt<unsigned> threads("threads", llvm::cl::desc(description),
                                         llvm::cl::value_desc("N"), llvm::cl::init(0),
                                         llvm::cl::cat(category));
  return threads;
}

} // namespace ssm::tools

#endif
