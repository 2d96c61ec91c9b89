"""Checks coda/Runtime/Chain.cuh's rule on files emitted with --chain-launches: every kernel
launched with programmatic dependent launch waits (coda::rt::awaitPriorGrid) before anything
else, unless it is a kernel that by design does not wait (RowPass.cuh's pass beside the GEMM).

Usage: chained_waits.py TOOLS_DIR SOURCE_ROOT OUT_DIR
Emits every example of examples/cuda and every fused program of bench/programs/{small,
block/small} into OUT_DIR, then checks each file and the runtime's kernels it launches. Prints
how many chained kernels it checked; exits 1 with the offenders otherwise.
"""
import glob
import os
import re
import subprocess
import sys

tools, root, out = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
translate = [os.path.join(tools, "coda-translate"), "--coda-to-cuda", "--chain-launches"]
files = []
for program in sorted(glob.glob(os.path.join(root, "examples", "cuda", "*.mlir"))):
    cu = os.path.join(out, os.path.basename(program)[:-5] + ".cu")
    subprocess.run(translate + [program, "-o", cu], check=True)
    files.append(cu)
for folder in ("small", os.path.join("block", "small")):
    for program in sorted(glob.glob(os.path.join(root, "bench", "programs", folder, "*.mlir"))):
        fused = subprocess.run([os.path.join(tools, "coda-opt"), "--coda-fuse", program],
                               check=True, capture_output=True, text=True).stdout
        name = folder.replace(os.sep, "_") + "_" + os.path.basename(program)[:-5]
        cu = os.path.join(out, name + ".cu")
        subprocess.run(translate + ["-", "-o", cu], input=fused, text=True, check=True)
        files.append(cu)

# The runtime's kernels, by name: the first statement of each __global__ function.
runtime = ""
for header in glob.glob(os.path.join(root, "include", "coda", "Runtime", "*.cuh")):
    with open(header) as f:
        runtime += f.read()
WAITS_BY_DESIGN = {"rowPassBeside"}  # reads the GEMM's rows through published counts
KERNEL = r"__global__ void (?:__launch_bounds__\(\d+\) )?{name}\([^)]*\)\s*\{{\s*(?://[^\n]*\n\s*)*([^\n]*)"


def first_statement(text, name):
    m = re.search(KERNEL.format(name=re.escape(name)), text)
    return m.group(1).strip() if m else None


bad, checked = [], 0
for cu in files:
    with open(cu) as f:
        text = f.read()
    names = set(re.findall(r"launchProgrammatic\((\w+)", text))
    if "/*chained=*/" in text:
        names.add("combinePartials")
    for name in sorted(names):
        if name in WAITS_BY_DESIGN:
            continue
        first = first_statement(text, name) or first_statement(runtime, name)
        checked += 1
        if first != "coda::rt::awaitPriorGrid();" and first != "awaitPriorGrid();":
            bad.append(f"{os.path.basename(cu)}: {name} starts with {first!r}")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print(f"files: {len(files)}; chained kernels checked: {checked}")
