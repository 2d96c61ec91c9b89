#!/usr/bin/env python3
"""Compile the device half of emitted .cu files ahead, where no PyTorch (and no GPU) is.

An emitted file with a PyTorch binding is two halves: the kernels and their extern "C"
launchers (CUDA and CUTLASS: nvcc needs most of a minute for it), then, from the line
`// PyTorch binding:`, the binding (torch headers: seconds). This tool compiles the first half
of each file into OUT/<key>.o, where <key> hashes that half (comment lines aside), the coda
runtime headers it includes and the nvcc flags, so an object can never stand for other code. On the GPU machine,
with CODA_KERNEL_OBJECTS=OUT set, coda.extension.build (and so test/gpu/check_examples.py,
bench/anchors.py, block.py and tune.py) finds the object of a file's kernel half and compiles
only the binding, linking the object in; a file whose object is missing is built whole as before.
The code is python/coda/kernels.py.

Usage: kernel_objects.py [-j N] OUT FILE_OR_FOLDER...   (nvcc from PATH or /usr/local/cuda;
CUTLASS from $CUTLASS_DIR or the nvidia-cutlass package)
"""
import argparse
import os
import sys

from coda import kernels


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-j", type=int, default=os.cpu_count(), help="parallel nvcc (default: cores)")
    parser.add_argument("out", help="folder for the objects")
    parser.add_argument("paths", nargs="+", help=".cu files, or folders of them")
    args = parser.parse_args()
    try:
        files = kernels.cu_files(args.paths)
    except ValueError as e:
        sys.exit(f"kernel_objects: {e}")
    ok = True
    for good, line in kernels.compile_all(files, args.out, args.j):
        ok &= good
        print(line, flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
