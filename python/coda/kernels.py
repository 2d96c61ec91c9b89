"""Emitted files' kernel halves compiled ahead into objects, and found again.

split() cuts an emitted file at its `// PyTorch binding:` line; compile_kernels() compiles the
kernel half with nvcc into OUT/<key>.o, key() hashing the code, coda's runtime headers and the
flags; object_for() finds that object again for coda.extension.build, which then compiles only
the binding and links the object in. nvcc only: no torch, no GPU. The command line, and why:
test/gpu/kernel_objects.py.
"""
import concurrent.futures
import glob
import hashlib
import os
import re
import shutil
import subprocess
import time

from coda.paths import ROOT

MARKER = "// PyTorch binding:"
# The flags coda.extension.build gives torch.utils.cpp_extension for a whole file's nvcc, and
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
    # Absolute: the extension is linked from inside its own build folder.
    path = os.path.abspath(os.path.join(objects, key(kernels) + ".o"))
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


def cu_files(paths):
    """The .cu files among `paths` and in the folders among them (a folder's sorted by name)."""
    files = []
    for path in paths:
        if os.path.isdir(path):
            files += sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".cu"))
        elif path.endswith(".cu") and os.path.isfile(path):
            files.append(path)
        else:
            raise ValueError(f"{path}: not a .cu file or a folder")
    return files


def compile_all(files, out, jobs):
    """compile_kernels of every file into `out`, `jobs` nvcc at a time: (whether it compiled, a
    line saying what became of it) per file, in the files' order, each as soon as it is there."""
    os.makedirs(out, exist_ok=True)

    def one(cu):
        try:
            target, seconds = compile_kernels(cu, out)
            return True, f"{cu} -> {os.path.basename(target)} ({seconds:.0f} s)"
        except (ValueError, subprocess.CalledProcessError) as e:
            return False, f"{cu}: FAILED: {e}"

    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
        yield from pool.map(one, files)
