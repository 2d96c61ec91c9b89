# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "CODA"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.coda_obj_root, "test")
# Inputs/ hold the reference programs that tests compare against; unit/ has its own config.
config.excludes = ["Inputs", "gpu", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%coda_src", config.coda_src_root))
config.substitutions.append(("%coda_obj", config.coda_obj_root))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# The Python scripts under test (bench/, test/gpu/) import the coda package of this checkout's
# python/ folder, whether or not scripts/setup.sh has installed it.
llvm_config.with_environment("PYTHONPATH", os.path.join(config.coda_src_root, "python"),
                             append_path=True)
tool_dirs = [config.coda_tools_dir, config.llvm_tools_dir]
tools = ["coda-opt", "coda-translate", "coda-run", "split-file"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

import subprocess
# coda.compile's export needs torch and torch-mlir (not installed by scripts/setup.sh: the
# tests that need them say so and are skipped without them).
if subprocess.run(["python3", "-c", "import torch, torch_mlir"], capture_output=True).returncode == 0:
    config.available_features.add("torch-mlir")

# T2 needs nvcc and the CUTLASS headers of the pinned nvidia-cutlass package.
nvcc = "/usr/local/cuda/bin/nvcc"
try:
    cutlass_root = subprocess.run(
        ["python3", "-c",
         "import cutlass_library, os; print(os.path.join(os.path.dirname(cutlass_library.__file__), 'source'))"],
        capture_output=True, text=True, check=True).stdout.strip()
except Exception:
    cutlass_root = ""
# `lit -Dnvcc=0` skips them for a quick local run (CI runs them).
want_nvcc = lit_config.params.get("nvcc", "1") not in ("0", "off", "false")
if want_nvcc and os.path.exists(nvcc) and cutlass_root and \
        os.path.isdir(os.path.join(cutlass_root, "include")):
    config.available_features.add("nvcc-cutlass")
    config.substitutions.append(("%nvcc", nvcc))
    # The flags of docs/cuda-backend.md: sm_90a machine code only (no compute_90 PTX, which
    # cannot hold wgmma and would cost a second device compile), and the implicit 16-bit
    # conversions off, as torch.utils.cpp_extension builds the bindings.
    config.substitutions.append(("%cuda_flags",
        "-std=c++17 -O3 -DNDEBUG --expt-relaxed-constexpr -gencode arch=compute_90a,code=sm_90a "
        "-D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ "
        "-D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__"))
    # The emitted kernels include coda's runtime headers and CUTLASS.
    config.substitutions.append(("%kernel_includes",
        "-I{0}/include -I{1}/include -I{1}/tools/util/include".format(config.coda_src_root, cutlass_root)))
