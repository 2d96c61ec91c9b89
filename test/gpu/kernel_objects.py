#!/usr/bin/env python3
"""Compile the device half of emitted .cu files ahead, where no PyTorch (and no GPU) is.

An emitted file with a PyTorch binding is two halves: the kernels and their extern "C"
launchers (CUDA and CUTLASS: nvcc needs most of a minute for it), then, from the line
`// PyTorch binding:`, the binding (torch headers: seconds). This tool compiles the first half
of each file into OUT/<key>.o, where <key> hashes that half (comment lines aside), the coda
runtime headers it includes and the nvcc flags, so an object can never stand for other code. On the GPU machine,
with CODA_KERNEL_OBJECTS=OUT set, check_examples.build (and so bench/anchors.py, block.py and
tune.py) finds the object of a file's kernel half and compiles only the binding, linking the
object in; a file whose object is missing is built whole as before.

Usage: kernel_objects.py [-j N] OUT FILE_OR_FOLDER...   (nvcc from PATH or /usr/local/cuda;
CUTLASS from $CUTLASS_DIR or the nvidia-cutlass package)
"""
import argparse
import concurrent.futures
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARKER = "// PyTorch binding:"
# The flags check_examples.build gives torch.utils.cpp_extension for a whole file's nvcc, and
# for an object made here, those plus the ones the extension adds itself for a 9.0a build.
EXTENSION_CUDA_FLAGS = ["-std=c++17", "-O3", "-DNDEBUG", "--expt-relaxed-constexpr"]
NVCC_FLAGS = ["-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
              "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__",
              "-gencode=arch=compute_90a,code=sm_90a", "--compiler-options", "-fPIC",
              *EXTENSION_CUDA_FLAGS]
EXTERN_C = re.compile(r'^extern "C" (?:__attribute__\(\(weak\)\) )?(.*\))\s*\{\s*$')


def cutlass_dir():
    cutlass = os.environ.get("CUTLASS_DIR")  # a folder with CUTLASS 4.2's include/, tools/
    if not cutlass:
        import cutlass_library  # pip install nvidia-cutlass==4.2.0.0
        cutlass = os.path.join(os.path.dirname(cutlass_library.__file__), "source")
    return cutlass


def include_paths():
    cutlass = cutlass_dir()
    return [os.path.join(ROOT, "include"), os.path.join(cutlass, "include"),
            os.path.join(cutlass, "tools", "util", "include")]


def split(text):
    """(kernel half, binding half) of an emitted file; the binding half opens with what it needs
    of the kernel half: the status codes and a prototype of every extern "C" function."""
    at = text.find(MARKER)
    if at < 0:
        raise ValueError(f"no '{MARKER}' line: emit with --emit-torch-binding")
    kernels = text[:at]
    status = re.search(r"^enum coda_status \{.*?^\};\n", kernels, re.S | re.M)
    if not status:
        raise ValueError("no 'enum coda_status' in the kernel half")
    prototypes = [f'extern "C" {m.group(1)};' for m in map(EXTERN_C.match, kernels.splitlines())
                  if m]
    prelude = ["// The kernels and their launchers are in a separate object (kernel_objects.py).",
               "#include <cstddef>", "#include <cuda_runtime.h>", "", status.group(0)]
    return kernels, "\n".join(prelude + prototypes) + "\n\n" + text[at:]


def key(kernels):
    """The object's name: a hash of the kernel half, the runtime headers and the flags. Lines
    that are only a comment do not count: a file emitted from a tuning database and the stage-2
    variant it chose differ only there."""
    code = "\n".join(line for line in kernels.splitlines() if not line.lstrip().startswith("//"))
    h = hashlib.sha256(code.encode())
    for header in sorted(glob.glob(os.path.join(ROOT, "include", "coda", "Runtime", "*"))):
        with open(header, "rb") as f:
            h.update(f.read())
    h.update(" ".join(NVCC_FLAGS).encode())
    return h.hexdigest()[:24]


def object_for(cu, objects):
    """(object path or None, binding half) for an emitted file and a folder of objects."""
    with open(cu) as f:
        kernels, binding = split(f.read())
    path = os.path.join(objects, key(kernels) + ".o")
    return (path if os.path.exists(path) else None), binding


def compile_kernels(cu, out):
    """nvcc -c of a file's kernel half into out/<key>.o (kept if it is there already)."""
    with open(cu) as f:
        kernels, _ = split(f.read())
    target = os.path.join(out, key(kernels) + ".o")
    if os.path.exists(target):
        return target, 0.0
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    source = target[:-2] + ".cu"
    with open(source, "w") as f:
        f.write(kernels)
    start = time.time()
    partial = target + ".part"
    try:
        subprocess.run([nvcc, "-c", *NVCC_FLAGS, *[f"-I{p}" for p in include_paths()], source,
                        "-o", partial], check=True)
        os.replace(partial, target)  # only a finished object gets the name builds look for
    finally:
        for leftover in (source, partial):
            if os.path.exists(leftover):
                os.remove(leftover)
    return target, time.time() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-j", type=int, default=os.cpu_count(), help="parallel nvcc (default: cores)")
    parser.add_argument("out", help="folder for the objects")
    parser.add_argument("paths", nargs="+", help=".cu files, or folders of them")
    args = parser.parse_args()
    files = []
    for path in args.paths:
        if os.path.isdir(path):
            files += sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".cu"))
        elif path.endswith(".cu") and os.path.isfile(path):
            files.append(path)
        else:
            sys.exit(f"kernel_objects: {path}: not a .cu file or a folder")
    os.makedirs(args.out, exist_ok=True)

    def one(cu):
        try:
            target, seconds = compile_kernels(cu, args.out)
            return True, f"{cu} -> {os.path.basename(target)} ({seconds:.0f} s)"
        except (ValueError, subprocess.CalledProcessError) as e:
            return False, f"{cu}: FAILED: {e}"

    ok = True
    with concurrent.futures.ThreadPoolExecutor(max(1, args.j)) as pool:
        for good, line in pool.map(one, files):
            ok &= good
            print(line, flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
