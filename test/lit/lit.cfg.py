# -*- Python -*-
# lit configuration of the ssm-opt test suite (CIRCT style).
#
# Loaded by the lit.site.cfg.py that CMake configures into
# <build>/test/lit from lit.site.cfg.py.in; that file sets ssm_src_root,
# ssm_obj_root, ssm_tools_dir and llvm_tools_dir.

import os

import lit.formats
from lit.llvm import llvm_config

if not hasattr(config, "ssm_obj_root"):
    lit_config.fatal("run lit on the configured suite, <build>/test/lit, "
                     "not on the source directory")

config.name = "SSM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]

config.test_source_root = os.path.dirname(__file__)
# Output/ goes next to the configured lit.site.cfg.py (<build>/test/lit).
config.test_exec_root = config.ssm_test_exec_root

# Inputs/ folders hold files that RUN lines read; they are not tests.
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "lit.site.cfg.py.in"]


llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])

# FileCheck, not and count: from the LLVM 19 install.
llvm_tools_dirs = [d for d in [config.llvm_tools_dir, "/usr/lib/llvm-19/bin"]
                   if d and os.path.isdir(d)]
for d in llvm_tools_dirs:
    if os.path.exists(os.path.join(d, "FileCheck")):
        config.llvm_tools_dir = d
        break
else:
    lit_config.fatal("FileCheck not found in %s" % llvm_tools_dirs)

llvm_config.use_default_substitutions()

# ssm-opt, ssm-run: RUN lines name them bare and find them on PATH, in front
# of any other copy.
tool_dirs = [config.ssm_tools_dir, config.llvm_tools_dir]
llvm_config.with_environment("PATH", tool_dirs, append_path=True)

if not os.path.exists(os.path.join(config.ssm_tools_dir, "ssm-opt")):
    lit_config.warning("ssm-opt not found in %s" % config.ssm_tools_dir)

# Tests that execute graphs say `REQUIRES: ssm-run`.
if os.path.exists(os.path.join(config.ssm_tools_dir, "ssm-run")):
    config.available_features.add("ssm-run")

# NumPy oracles: tests that compute their expected values with NumPy say
# `REQUIRES: numpy` and run %numpy_python (Debian's /usr/bin/python3 has
# NumPy; the python3 on PATH may not).
import shutil
import subprocess
config.numpy_python = ""
for candidate in ["/usr/bin/python3", shutil.which("python3")]:
    if candidate and os.path.exists(candidate) and subprocess.run(
            [candidate, "-c", "import numpy"], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL).returncode == 0:
        config.numpy_python = candidate
        config.available_features.add("numpy")
        break
config.substitutions.append(("%numpy_python", config.numpy_python or "false"))

# ../shared (golden cases, models): tests that read it say `REQUIRES: shared-data`
# and use %shared. Its absence fails the ctest `golden.data-present` loudly.
config.ssm_shared_dir = getattr(config, "ssm_shared_dir", "")
if config.ssm_shared_dir and os.path.isdir(os.path.join(config.ssm_shared_dir, "golden")):
    config.available_features.add("shared-data")
config.substitutions.append(("%shared", config.ssm_shared_dir))
# %ssm_version: the project's version, which every tool's --version prints.
config.substitutions.append(("%ssm_version", getattr(config, "ssm_version", "")))

# %cache: one compile cache for the whole suite, in the build tree (never the
# user's $HOME), also the default SSM_CACHE_DIR of tests that set none. Its
# entries are keyed by the IR text, the target, the compiler version and the
# ssm-compile binary (driver/CompileCache.h), published by one rename and safe
# to share between processes, so the many tests that run the same tiny models
# compile each module once per build (about half of the suite's compiles were
# repeats when each test had its own cache). Tests that look at, damage or
# count their cache's entries keep a cache of their own (%t.cache, %t/cache).
config.ssm_compile_cache = os.path.join(config.test_exec_root, "compile-cache")
config.substitutions.append(("%cache", config.ssm_compile_cache))
config.environment["SSM_CACHE_DIR"] = config.ssm_compile_cache
# A rebuilt ssm-compile keys new entries: keep the folder to 1 GiB, least
# recently used first (entries a running test uses are kept).
if os.path.isdir(config.ssm_compile_cache) and os.path.exists(os.path.join(config.ssm_tools_dir, "ssm-run")):
    subprocess.run([os.path.join(config.ssm_tools_dir, "ssm-run"), "--cache-prune", "--cache-max-mb", "1024"],
                   env=dict(os.environ, SSM_CACHE_DIR=config.ssm_compile_cache),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

# Gpu/: the GPU engine the tests run (%gpu: engine and target flags). opencl
# (PoCL in CI) by default; scripts/gpu-check.sh sets SSM_LIT_GPU to e.g.
# "--engine cuda --target host-cuda-cuda_capability_80" on an NVIDIA machine.
config.substitutions.append(("%gpu", os.environ.get("SSM_LIT_GPU", "--engine opencl")))
