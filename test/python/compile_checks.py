#!/usr/bin/env python3
"""coda.compile's stages on the CPU: the emitting half on exported programs, the cache, the
diagnostics as exceptions, and a clear message where the exporter is missing; with torch and
torch-mlir installed (`--export`), also the export of a small model and the call key that lets a
second compile skip it. Prints one line per check; exits 1 on the first failure.

Usage: compile_checks.py BUILD_DIR [--export]
"""
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))

from coda import compiler, paths  # noqa: E402


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        sys.exit(1)


def main():
    build = sys.argv[1]
    os.environ["CODA_CACHE_DIR"] = tempfile.mkdtemp(prefix="coda-cache-")
    with open(os.path.join(paths.ROOT, "examples", "torch", "odd_mlp_bf16.mlir")) as f:
        text = f.read()

    # Fuse and emit into a cache entry named by the program's key.
    entry = compiler.emit_program(text, "program", build=build)
    names = sorted(os.listdir(entry))
    check(names == ["entry.json", "fused.mlir", "program.cu", "program.mlir", "report.txt"],
          f"entry holds the stages: {names}")
    with open(os.path.join(entry, "report.txt")) as f:
        report = f.read()
    check(report.startswith("@main: 2 fused kernels, 0 ops outside"), "report: " + report.splitlines()[0])
    with open(os.path.join(entry, "program.cu")) as f:
        check("PYBIND11_MODULE" in f.read(), "program.cu carries the PyTorch binding")

    # The same program again: the same entry, no tool run.
    stamp = os.stat(os.path.join(entry, "program.cu")).st_mtime_ns
    start = time.time()
    again = compiler.emit_program(text, "program", build=build)
    seconds = time.time() - start
    check(again == entry and os.stat(os.path.join(entry, "program.cu")).st_mtime_ns == stamp,
          f"cache hit in {seconds * 1000:.0f} ms")
    check(compiler.emit_program(text, "program", {"translate": ["--fp32-products=3xtf32"]},
                                build=build) != entry, "other flags, other entry")

    # A program coda-opt rejects: the tool's diagnostic with its location in the program kept
    # beside the cache (failed-<key>), no entry.
    def entries():
        return {d for d in os.listdir(compiler.cache_root())
                if os.path.exists(os.path.join(compiler.cache_root(), d, "entry.json"))}
    before = entries()
    try:
        compiler.emit_program("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %y : tensor<4xf32>\n}\n",
                              build=build)
        check(False, "a bad program raises CompileError")
    except compiler.CompileError as e:
        kept = str(e).rsplit("what was written of it: ", 1)[-1].rstrip(")")
        check(e.stage == "fuse" and e.diagnostic.startswith("program.mlir:2:10: error") and
              os.path.exists(os.path.join(kept, "program.mlir")) and
              "undeclared SSA value" in e.diagnostic,
              f"bad program: {e.stage}: {e.diagnostic.splitlines()[0]} (in {os.path.basename(kept)})")
    check(entries() == before, "no entry for a failed program")

    # No coda build: says where it looked and what to do.
    try:
        compiler.emit_program(text, build=os.path.join(build, "nowhere"))
        check(False, "a missing build raises CompileError")
    except compiler.CompileError as e:
        check("CODA_BUILD_DIR" in str(e), "missing tools: " + str(e).splitlines()[0])

    # torch-mlir missing: the message names the package to install.
    saved = sys.modules.get("torch_mlir")
    sys.modules["torch_mlir"] = None  # import raises ImportError
    try:
        compiler._import_exporter()
        check(False, "a missing torch-mlir raises CompileError")
    except compiler.CompileError as e:
        check("torch-mlir" in str(e) and "pip install" in str(e), "missing exporter: " + str(e))
    finally:
        if saved is None:
            del sys.modules["torch_mlir"]
        else:
            sys.modules["torch_mlir"] = saved

    if "--export" in sys.argv:
        import torch

        class Mlp(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.up = torch.nn.Linear(64, 256)
                self.down = torch.nn.Linear(256, 64)

            def forward(self, x):
                return self.down(torch.nn.functional.gelu(self.up(x))) + x

        model = Mlp().to(torch.bfloat16)
        x = torch.randn(2, 8, 64, dtype=torch.bfloat16)
        compiled = compiler.CompiledFunction(model, {"fuse": "", "translate": []}, build)
        start = time.time()
        entry = compiled.export_and_emit((x,))
        first = time.time() - start
        with open(os.path.join(entry, "report.txt")) as f:
            report = f.read()
        check(report.startswith("@main: 2 fused kernels"), f"export + fuse in {first:.1f} s: " + report.splitlines()[0])
        with open(os.path.join(entry, "program.mlir")) as f:
            head = f.read()
        check("func.func @main(%arg0: tensor<256x64xbf16>" in head, "weights are the function's first arguments")
        start = time.time()
        again = compiler.CompiledFunction(model, {"fuse": "", "translate": []}, build).export_and_emit((x,))
        check(again == entry and time.time() - start < 1.0,
              f"a second compile finds the entry by the call's key in {(time.time() - start) * 1000:.0f} ms")
    print("all passed")


if __name__ == "__main__":
    main()
