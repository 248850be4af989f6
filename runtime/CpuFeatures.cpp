// CPUID against Halide's x86 target features (runtime/CpuFeatures.h).
//
// Bits from the Intel SDM, vol. 2A, CPUID: leaf 1 ECX (SSE4.1 19, FMA 12,
// AVX 28, OSXSAVE 27, F16C 29), leaf 7 subleaf 0 EBX (AVX2 5, AVX512F 16,
// AVX512DQ 17, AVX512IFMA 21, AVX512PF 26, AVX512ER 27, AVX512CD 28,
// AVX512BW 30, AVX512VL 31), ECX (AVX512VBMI 1) and EDX (AVX512-FP16 23), leaf 7 subleaf 1 EAX (AVX-VNNI 4,
// AVX512-BF16 5). Halide 14's own host detection (Target.cpp) groups them
// the same way: skylake = F CD BW DQ VL, cannonlake = skylake + IFMA VBMI,
// sapphirerapids = cannonlake + AVX-VNNI + BF16, for which LLVM also uses
// AVX512-FP16. AVX and AVX-512 also need the OS to save their registers
// (XGETBV: XCR0 bits 1-2, and 5-7 for AVX-512).
#include "runtime/CpuFeatures.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <cstdint>
#include <sstream>
#include <vector>

namespace ssm::rt {
namespace {

#if defined(__x86_64__) || defined(__i386__)
struct Feature {
  const char *name; // Halide's spelling in target strings
  bool runs;
};

bool bit(unsigned reg, int n) { return (reg >> n) & 1; }

/// Halide's x86 features and whether this CPU runs each, read once.
const std::vector<Feature> &features() {
  static const std::vector<Feature> table = [] {
    unsigned a, b, c, d, l1c = 0, l7b = 0, l7c = 0, l7d = 0, l71a = 0;
    uint64_t xcr0 = 0;
    if (__get_cpuid(1, &a, &b, &c, &d))
      l1c = c;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
      l7b = b, l7c = c, l7d = d;
      unsigned maxSub = a;
      if (maxSub >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d))
        l71a = a;
    }
    if (bit(l1c, 27)) { // OSXSAVE: XGETBV is available
      unsigned lo, hi;
      __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
      xcr0 = (uint64_t(hi) << 32) | lo;
    }
    const bool osAvx = (xcr0 & 0x6) == 0x6, osAvx512 = osAvx && (xcr0 & 0xe0) == 0xe0;
    const bool avx512 = osAvx512 && bit(l7b, 16);
    const bool skylake = avx512 && bit(l7b, 28) && bit(l7b, 30) && bit(l7b, 17) && bit(l7b, 31);
    const bool cannonlake = skylake && bit(l7b, 21) && bit(l7c, 1);
    return std::vector<Feature>{
        {"sse41", bit(l1c, 19)},
        {"avx", osAvx && bit(l1c, 28)},
        {"f16c", osAvx && bit(l1c, 29)},
        {"fma", osAvx && bit(l1c, 12)},
        {"avx2", osAvx && bit(l7b, 5)},
        {"avx512", avx512},
        {"avx512_skylake", skylake},
        {"avx512_cannonlake", cannonlake},
        {"avx512_sapphirerapids", cannonlake && bit(l71a, 4) && bit(l71a, 5) && bit(l7d, 23)},
        // Knights Landing: F CD ER PF
        {"avx512_knl", avx512 && bit(l7b, 28) && bit(l7b, 27) && bit(l7b, 26)},
    };
  }();
  return table;
}
#endif

} // namespace

bool cpuRunsFeature(const std::string &f) {
#if defined(__x86_64__) || defined(__i386__)
  for (const Feature &feature : features())
    if (f == feature.name)
      return feature.runs;
#else
  (void)f;
#endif
  return true;
}

std::string runnableFeatures() {
  std::string out;
#if defined(__x86_64__) || defined(__i386__)
  for (const Feature &f : features())
    if (f.runs)
      out += (out.empty() ? "" : "-") + std::string(f.name);
#endif
  return out;
}

std::string unrunnableFeature(const std::string &target) {
#if defined(__x86_64__) || defined(__i386__)
  std::istringstream parts(target);
  std::string part;
  if (!std::getline(parts, part, '-') || part != "x86")
    return "";
  while (std::getline(parts, part, '-'))
    if (!cpuRunsFeature(part))
      return part;
#else
  (void)target;
#endif
  return "";
}

} // namespace ssm::rt
