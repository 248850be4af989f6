// CPUID against Halide's x86 target features (runtime/CpuFeatures.h).
//
// Bits from the Intel SDM, vol. 2A, CPUID: leaf 1 ECX (SSE4.1 19, FMA 12,
// AVX 28, OSXSAVE 27, F16C 29), leaf 7 subleaf 0 EBX (AVX2 5, AVX512F 16,
// AVX512DQ 17, AVX512IFMA 21, AVX512PF 26, AVX512ER 27, AVX512CD 28, AVX512BW 30, AVX512VL 31), ECX
// (AVX512VBMI 1) and EDX (AVX512-FP16 23), leaf 7 subleaf 1 EAX (AVX-VNNI 4,
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

namespace ssm::rt {
namespace {

#if defined(__x86_64__) || defined(__i386__)
struct Cpuid {
  unsigned l1c = 0, l7b = 0, l7c = 0, l7d = 0, l71a = 0;
  uint64_t xcr0 = 0;
  Cpuid() {
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d))
      l1c = c;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
      l7b = b, l7c = c, l7d = d;
      unsigned maxSub = a;
      if (maxSub >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d))
        l71a = a;
    }
    if ((l1c >> 27) & 1) { // OSXSAVE: XGETBV is available
      unsigned lo, hi;
      __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
      xcr0 = (uint64_t(hi) << 32) | lo;
    }
  }
};

const Cpuid &cpu() {
  static const Cpuid c;
  return c;
}

bool bit(unsigned reg, int n) { return (reg >> n) & 1; }
#endif

} // namespace

bool cpuRunsFeature(const std::string &f) {
#if defined(__x86_64__) || defined(__i386__)
  const Cpuid &c = cpu();
  const bool osAvx = (c.xcr0 & 0x6) == 0x6, osAvx512 = osAvx && (c.xcr0 & 0xe0) == 0xe0;
  const bool avx512 = osAvx512 && bit(c.l7b, 16);
  const bool skylake = avx512 && bit(c.l7b, 28) && bit(c.l7b, 30) && bit(c.l7b, 17) &&
                       bit(c.l7b, 31);
  const bool cannonlake = skylake && bit(c.l7b, 21) && bit(c.l7c, 1);
  if (f == "sse41")
    return bit(c.l1c, 19);
  if (f == "avx")
    return osAvx && bit(c.l1c, 28);
  if (f == "f16c")
    return osAvx && bit(c.l1c, 29);
  if (f == "fma")
    return osAvx && bit(c.l1c, 12);
  if (f == "avx2")
    return osAvx && bit(c.l7b, 5);
  if (f == "avx512")
    return avx512;
  if (f == "avx512_skylake")
    return skylake;
  if (f == "avx512_cannonlake")
    return cannonlake;
  if (f == "avx512_sapphirerapids")
    return cannonlake && bit(c.l71a, 4) && bit(c.l71a, 5) && bit(c.l7d, 23);
  if (f == "avx512_knl") // Knights Landing: F CD ER PF
    return avx512 && bit(c.l7b, 28) && bit(c.l7b, 27) && bit(c.l7b, 26);
#else
  (void)f;
#endif
  return true;
}

std::string runnableFeatures() {
  std::string out;
#if defined(__x86_64__) || defined(__i386__)
  for (const char *f : {"sse41", "avx", "f16c", "fma", "avx2", "avx512", "avx512_skylake",
                        "avx512_cannonlake", "avx512_sapphirerapids", "avx512_knl"})
    if (cpuRunsFeature(f))
      out += (out.empty() ? "" : "-") + std::string(f);
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
