#!/usr/bin/env python3
"""The CUDA every shipped program emits, against the files committed in emitted/.

Programs: every examples/cuda program (with the PyTorch binding), every anchor of
bench/programs/anchor fused and emitted with each GPU's tuning database (as bench/anchors.py
does), the transformer blocks of bench/programs/block, and the bf16 layers of examples/torch
fused. A change to the backend that should not change what it prints is checked by
`emitted.py --build BUILD`; a change that should is committed with `--update`, which rewrites
emitted/ (the diff then shows what changed).
"""

import argparse
import difflib
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
GOLDEN = os.path.join(HERE, "emitted")
DATABASES = {"h200": "data/tuning/tuning-h200.json",
             "h100": "data/tuning/tuning-h100-80gb-hbm3.json"}


def cases():
    """(name, program, fuse first, extra coda-translate flags) for every emitted file."""
    for path in sorted(glob.glob(os.path.join(ROOT, "examples/cuda/*.mlir"))):
        yield "example_" + os.path.basename(path)[:-5], path, False, ["--emit-torch-binding"]
    for path in sorted(glob.glob(os.path.join(ROOT, "bench/programs/anchor/*.mlir"))):
        for gpu, db in DATABASES.items():
            yield (f"anchor_{os.path.basename(path)[:-5]}_{gpu}", path, True,
                   ["--emit-torch-binding", "--tuning-db=" + os.path.join(ROOT, db)])
    for path in sorted(glob.glob(os.path.join(ROOT, "bench/programs/block/*/*.mlir"))):
        size = os.path.basename(os.path.dirname(path))
        yield f"block_{size}_{os.path.basename(path)[:-5]}", path, True, ["--emit-torch-binding"]
    for path in sorted(glob.glob(os.path.join(ROOT, "examples/torch/*_bf16.mlir"))):
        yield "torch_" + os.path.basename(path)[:-5], path, True, []


def emit(build, name, program, fuse, flags, tmp):
    opt, translate = (os.path.join(build, "bin", t) for t in ("coda-opt", "coda-translate"))
    if fuse:
        fused = os.path.join(tmp, name + ".mlir")
        subprocess.run([opt, "--coda-fuse", program, "-o", fused], check=True)
        program = fused
    out = os.path.join(tmp, name + ".cu")
    subprocess.run([translate, "--coda-to-cuda", *flags, program, "-o", out], check=True,
                   stderr=subprocess.DEVNULL)
    with open(out) as f:
        return f.read()


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True, help="the build directory (bin/coda-opt, ...)")
    parser.add_argument("--update", action="store_true", help="rewrite the committed files")
    args = parser.parse_args()
    names, changed = set(), []
    with tempfile.TemporaryDirectory() as tmp:
        for name, program, fuse, flags in cases():
            names.add(name + ".cu")
            text = emit(args.build, name, program, fuse, flags, tmp)
            golden = os.path.join(GOLDEN, name + ".cu")
            old = open(golden).read() if os.path.exists(golden) else None
            if old == text:
                continue
            changed.append(name)
            if args.update:
                with open(golden, "w") as f:
                    f.write(text)
            else:
                sys.stdout.writelines(difflib.unified_diff(
                    (old or "").splitlines(True), text.splitlines(True),
                    "emitted/" + name + ".cu", name + ".cu (now)", n=2))
    stale = sorted(set(os.listdir(GOLDEN)) - names)
    for name in stale:
        if args.update:
            os.remove(os.path.join(GOLDEN, name))
        else:
            print(f"emitted/{name}: no program emits it any more")
    print(f"emitted: {len(names)} files, {len(changed)} changed, {len(stale)} stale"
          + (" (updated)" if args.update else ""))
    return 0 if args.update or not (changed or stale) else 1


if __name__ == "__main__":
    sys.exit(main())
