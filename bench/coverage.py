#!/usr/bin/env python3
"""The speed of the paths beside the aligned 16-bit GEMM: unaligned rows, fp32 inputs, batches.

Each row times one coda kernel (the examples of examples/cuda, through their PyTorch bindings,
at shapes of its own: every launcher takes any M, N, K) against what PyTorch runs for the same
product, interleaved in one run (coda.bench.anchors.time_interleaved, GPU time queued behind a
sleep), after checking coda's result against an fp32 (fp64 for exact fp32) reference:

- unaligned: bias + GELU at K or N one less than 4096 (rows the launcher copies to 16-byte
  pitches) next to the aligned 4096³, each against cuBLAS's bf16 GEMM at the same shape;
- fp32: bias + GELU on fp32 inputs, one TF32 product and three (--fp32-products=3xtf32),
  against torch.matmul on fp32 with TF32 allowed and without (cuBLAS's fp32 GEMM);
- batched: bias + GELU over 16 products of 1024³ with a weight each, against torch.bmm.

Writes bench/results/coverage-<gpu>.json: {"device", "cases": [{case, shape, coda_ms,
<contender>_ms..., max_rel_err}]}.

Usage: bench/coverage.py [--emitted DIR] [--builds DIR] [--reps N]
"""
import argparse
import json
import os
import sys

import torch

from coda import extension, gpus, paths
from coda.bench import anchors

# The example each case runs, as test/gpu/check_examples.py emits it.
MODULES = ["bias_gelu", "bias_gelu_f32", "bias_gelu_f32_exact", "batched_bias_gelu"]


def gelu_tanh(z):
    return 0.5 * z * (1 + torch.tanh(0.7978845608 * (z + 0.044715 * z ** 3)))


def bf16(*shape):
    return (torch.randn(*shape, device="cuda") * 0.5).to(torch.bfloat16)


def unaligned_cases(mods):
    fn = mods["bias_gelu"].main_k0
    for m, n, k in [(4096, 4096, 4096), (4096, 4096, 4095), (4096, 4095, 4096)]:
        x, w, b, s = bf16(m, k), bf16(n, k), bf16(n), torch.ones(m, device="cuda")
        ref = gelu_tanh(x.float() @ w.float().t() + b.float())
        yield (f"bias_gelu {'aligned' if k % 8 == 0 and n % 8 == 0 else 'unaligned'}", (m, n, k),
               lambda: fn(x, w, b, s), ref, {"cublas": lambda: torch.matmul(x, w.t())})


def fp32_cases(mods):
    m = n = k = 4096
    x, w, b = (torch.randn(*shape, device="cuda") for shape in [(m, k), (n, k), (n,)])
    ref = gelu_tanh(x.double() @ w.double().t() + b.double())

    def matmul(tf32):
        def run():
            torch.backends.cuda.matmul.allow_tf32 = tf32
            try:
                return torch.matmul(x, w.t())
            finally:
                torch.backends.cuda.matmul.allow_tf32 = False
        return run
    contenders = {"torch_tf32": matmul(True), "torch_fp32": matmul(False)}
    yield "fp32 tf32", (m, n, k), lambda: mods["bias_gelu_f32"].main_k0(x, w, b), ref, contenders
    yield ("fp32 3xtf32", (m, n, k), lambda: mods["bias_gelu_f32_exact"].main_k0(x, w, b), ref,
           contenders)


def batched_cases(mods):
    l, m, n, k = 16, 1024, 1024, 1024
    x, w, b = bf16(l, m, k), bf16(l, n, k), bf16(n)
    ref = gelu_tanh(x.float() @ w.float().transpose(1, 2) + b.float())
    wt = w.transpose(1, 2)
    yield ("batched", (l, m, n, k), lambda: mods["batched_bias_gelu"].main_k0(x, w, b), ref,
           {"cublas": lambda: torch.bmm(x, wt)})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--emitted", default=os.path.join(paths.build_dir(), "gpu"),
                        help="folder of the emitted examples (test/gpu/check_examples.py's)")
    parser.add_argument("--builds", default=None)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--results", default=os.path.join(paths.BENCH, "results"))
    args = parser.parse_args()
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0a")
    args.out, args.builds = args.emitted, args.builds or args.emitted
    mods = {name: extension.build(name, os.path.join(args.emitted, f"{name}.cu"), args)[0]
            for name in MODULES}
    device = torch.cuda.get_device_name()
    results = {"device": device, "torch": torch.__version__, "reps": args.reps, "cases": []}
    ok = True
    for make in (unaligned_cases, fp32_cases, batched_cases):
        for case, shape, coda, ref, contenders in make(mods):
            err = extension.rel_err(coda(), ref)
            bound = anchors.BOUND if "3xtf32" not in case else 2e-5
            ok &= err <= bound
            ms = anchors.time_interleaved({"coda": coda, **contenders}, args.reps)
            row = {"case": case, "shape": list(shape), "max_rel_err": err,
                   **{f"{name}_ms": ms[f"{name}_queued"] for name in ["coda", *contenders]}}
            results["cases"].append(row)
            ratios = " ".join(f"{name} {row['coda_ms'] / row[f'{name}_ms']:.3f}x" for name in contenders)
            print(f"{case:20s} {str(shape):26s} coda {row['coda_ms']:.3f} ms  coda/{ratios}  "
                  f"rel {err:.1e}{'' if err <= bound else '  FAIL'}", flush=True)
    os.makedirs(args.results, exist_ok=True)
    with open(gpus.results_path(args.results, "coverage", device, "json"), "w") as f:
        json.dump(results, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
