// The x86 instruction-set features of the CPU this process runs on, read
// with CPUID, against the features a Halide target string names.
//
// A module compiled for features the CPU lacks (an AVX-512 build copied to
// an AVX2 machine, or Halide 14's avx512_sapphirerapids on a CPU without
// AVX512-FP16) dies with SIGILL in its first kernel; the runtime refuses it
// at load instead, as IREE does for an executable's required CPU features.
// No dependencies: the runtime and the code generator both use it.
#ifndef SSM_RUNTIME_CPUFEATURES_H
#define SSM_RUNTIME_CPUFEATURES_H

#include <string>

namespace ssm::rt {

/// True when this CPU executes the instructions Halide's x86 target feature
/// `feature` (its spelling in target strings: "sse41", "avx", "avx2", "fma",
/// "f16c", "avx512", "avx512_skylake", "avx512_cannonlake",
/// "avx512_sapphirerapids", "avx512_knl") lets the compiler use. Names that
/// are not x86 instruction-set features (os, arch, "opencl", "no_runtime", ...) and every
/// name on a non-x86 host are reported as runnable.
bool cpuRunsFeature(const std::string &feature);

/// The first feature of the Halide target string `target` (for example
/// "x86-64-linux-avx-avx2-avx512-fma-sse41") this CPU cannot run, or "" when
/// it runs them all or the target is not an x86 one.
std::string unrunnableFeature(const std::string &target);

/// The x86 features above this CPU runs, joined by '-' in that order ("" on
/// other hosts): what "host" resolves to, for keys of compiled code that
/// machines with different CPUs may share (the compile cache).
std::string runnableFeatures();

} // namespace ssm::rt

#endif
