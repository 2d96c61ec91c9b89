#!/usr/bin/env python3
"""The eight anchor cases of the benchmarks as PyTorch functions, and their linalg programs.

Each case is a bf16 PyTorch function with its weights as arguments (python/coda/bench/programs.py).
This script exports every case with torch-mlir (`fx.export_and_import(..., "linalg-on-tensors")`)
into OUT_DIR/<case>.mlir, the programs `coda-opt --coda-fuse` and `coda-translate` compile; the
same functions are the PyTorch reference and the eager / torch.compile contenders of
bench/anchors.py.

    python3 bench/anchor_programs.py OUT_DIR [--small] [--only CASE]

(--small: M = 256 and small model sizes, for quick checks; default: M = 8192, Llama-3-8B.)
Needs torch and torch-mlir (PyPI), on any machine; the GPU machine needs only the outputs.
"""
import argparse
import os

from coda.bench.programs import ANCHOR, CASES, SMALL, inputs, write_program


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--only", default=None)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    sizes = SMALL if args.small else ANCHOR
    for case in [args.only] if args.only else CASES:
        write_program(args.out, case, f"{case} at {sizes}, written by bench/anchor_programs.py (torch-mlir)",
                      CASES[case], inputs(case, sizes))


if __name__ == "__main__":
    main()
