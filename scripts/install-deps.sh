#!/usr/bin/env bash
# Installs the Debian 12 packages ssm-opt builds and tests with; idempotent, quiet when all are present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache python3
  llvm-19-dev llvm-19-tools libmlir-19-dev mlir-19-tools   # MLIR 19 (Apache-2.0 WITH LLVM-exception)
  libhalide14-0-dev                                        # Halide 14 (MIT), code generation
  libgtest-dev libbenchmark-dev                            # tests and benchmarks (BSD, Apache-2.0)
  nlohmann-json3-dev                                       # case.json and manifests (MIT)
  libsqlite3-dev                                           # the tuning database of ssm-tune (public domain)
  python3-matplotlib                                       # ssm-tune --report chart (PSF-based licence)
  pkgconf                                                  # the installed-package test builds with pkg-config (ISC)
  libdlpack-dev                                            # DLPack tensors in the runtime's C API (Apache-2.0)
  libpthreadpool-dev                                       # the spinning pool the kernels' parallel loops run on (BSD-2-Clause)
  libfp16-dev                                              # half <-> float conversions, header-only (MIT): runtime/Float16.h
  libpcre2-dev                                             # the tokenizers' regexes, Unicode properties and lookahead (BSD-3-Clause): runtime/tokenizer/Regex.cpp
  libutf8proc-dev                                          # NFC and Unicode properties for the tokenizers (MIT): runtime/tokenizer/Unicode.cpp
  libxxhash-dev                                            # checksums of compiled libraries, header-only use (BSD-2-Clause): runtime/Checksum.cpp
  libcpp-httplib-dev                                       # ssm-serve's HTTP server (MIT; Debian's build, libcpp-httplib.so): server/Server.cpp
  clang-19 libclang-rt-19-dev                              # libFuzzer + sanitizers for fuzz/ (Apache-2.0 WITH LLVM-exception)
  python3-torch python3-numpy                              # PyTorch 1.13 for the torch-op tests (runtime/python/ssm_torch.py; BSD-3-Clause), not linked
  libopenmpi-dev openmpi-bin                               # distributed prefill over MPI (Open MPI, BSD-3-Clause): runtime/distributed/, -DSSM_MPI
  pocl-opencl-icd ocl-icd-opencl-dev                       # OpenCL on the CPU for the opencl engine's tests (MIT, BSD-2-Clause); loaded at run time by the kernels, not linked
)

# --bench adds what the peers of bench/run.py, model_bench.py and realsize_bench.py need besides
# PyTorch (libopenblas-dev for the sgemm peer of bench/matmul_bench.py),
# with OpenBLAS: Debian's torch calls the system BLAS, and the reference libblas3
# it otherwise gets runs its matmuls several times slower.
if [ "${1:-}" = "--bench" ]; then
  packages+=(libopenblas0-pthread libopenblas-dev)
fi

missing=()
for p in "${packages[@]}"; do
  [[ "$p" == \#* ]] && continue
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
