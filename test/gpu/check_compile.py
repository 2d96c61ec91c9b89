#!/usr/bin/env python3
"""coda.compile on a Llama-style block (an nn.Module: coda.models.hf_llama with its weights as
parameters, bf16, [2, 8, 64]) against the same module in fp32, and the start-up of a second
process that compiles it again (from the cache: no export, no build; target at most 1 s).

On a machine with torch-mlir and coda's build, `--prepare DIR` exports, fuses and emits into the
cache DIR (and writes the tools' version beside it), so that a GPU machine without them builds
and runs from it: there, `--cache DIR` sets CODA_CACHE_DIR and CODA_TOOLS_VERSION. With
torch-mlir and the tools on the GPU machine, run it without either option.

Usage: check_compile.py [--prepare DIR | --cache DIR]
"""
import argparse
import os
import subprocess
import sys
import time

import torch

from coda import models
from coda.extension import rel_err

B, S, D, H, HD, KVH, F = 2, 8, 64, 4, 16, 2, 96


class LlamaBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)

        def weight(*shape):
            return torch.nn.Parameter(torch.randn(*shape) / (shape[-1] ** 0.5 if len(shape) == 2 else 1))
        self.ln1, self.ln2 = weight(D), weight(D)
        self.wq, self.wk, self.wv = weight(H * HD, D), weight(KVH * HD, D), weight(KVH * HD, D)
        self.wo, self.wg, self.wu, self.wd = weight(D, H * HD), weight(F, D), weight(F, D), weight(D, F)

    def forward(self, x, cos, sin):
        return models.hf_llama(x, self.ln1, self.wq, self.wk, self.wv, self.wo, self.ln2, self.wg,
                               self.wu, self.wd, cos, sin)


def inputs(device):
    torch.manual_seed(1)
    x = torch.randn(B, S, D)
    pos = torch.arange(S, dtype=torch.float32)[:, None]
    freq = 10000.0 ** (-torch.arange(0, HD, 2).float() / HD)
    angles = torch.cat([pos * freq] * 2, dim=-1)[None].expand(B, S, HD)
    return tuple(t.to(device, torch.bfloat16) for t in (x, torch.cos(angles), torch.sin(angles)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prepare", metavar="DIR")
    parser.add_argument("--cache", metavar="DIR")
    parser.add_argument("--second", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.prepare:
        os.environ["CODA_CACHE_DIR"] = os.path.abspath(args.prepare)
    if args.cache:
        os.environ["CODA_CACHE_DIR"] = os.path.abspath(args.cache)
        with open(os.path.join(args.cache, "tools-version")) as f:
            os.environ["CODA_TOOLS_VERSION"] = f.read().strip()
    import coda
    from coda import compiler, paths

    model = LlamaBlock().to(torch.bfloat16)
    if args.prepare:
        entry = compiler.CompiledFunction(model, {"fuse": "", "translate": []},
                                          paths.build_dir()).export_and_emit(inputs("cpu"))
        with open(os.path.join(args.prepare, "tools-version"), "w") as f:
            f.write(compiler.tools_version(paths.build_dir()))
        print(f"prepared {entry}")
        coda.explain(entry)
        return 0

    xs = inputs("cuda")
    model = model.cuda()
    start = time.time()
    compiled = coda.compile(model, *xs)
    seconds = time.time() - start
    if args.second:  # the start-up of a process that compiled this block before
        print(f"second start {seconds:.2f} s")
        return 0
    out = compiled(*xs)
    torch.cuda.synchronize()
    ref = LlamaBlock().cuda()(*(t.float() for t in xs))
    own = model(*xs)
    err, torch_err = rel_err(out, ref), rel_err(own, ref)
    ok = err <= max(1e-2, 2 * torch_err) and out.shape == ref.shape
    print(f"coda.compile: first compile {seconds:.1f} s, rel {err:.1e} (PyTorch bf16 {torch_err:.1e})"
          + ("" if ok else "  FAIL"))
    coda.explain(compiled)
    second = subprocess.run([sys.executable, __file__, "--second"] +
                            (["--cache", args.cache] if args.cache else []),
                            capture_output=True, text=True)
    line = (second.stdout.strip().splitlines() or ["(none)"])[-1]
    started = float(line.split()[2]) if line.startswith("second start") else float("inf")
    ok &= started <= 1.0
    print(f"coda.compile in a second process: {line}" + ("" if started <= 1.0 else "  FAIL"))
    if second.returncode != 0:
        print(second.stderr[-2000:])
    print("all passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
