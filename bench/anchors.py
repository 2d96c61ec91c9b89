#!/usr/bin/env python3
"""First speed numbers: coda's kernels for DESIGN.md's anchor cases against cuBLAS GEMM alone.

The kernels are the examples of examples/cuda (built as test/gpu/check_examples.py builds them)
at Llama-3-8B sizes, M = 8192, bf16. Each case checks coda's result against the PyTorch
reference once, then times coda and the plain cuBLAS GEMM of the same shape (torch.matmul)
interleaved, A B A B ..., with CUDA events around single calls; the GPU's clocks are left alone.
Reported: medians over the alternations and their ratio (coda / cuBLAS GEMM alone).

Usage: bench/anchors.py [--emitted DIR] [--builds DIR] [--reps N] [--json FILE]
"""
import argparse
import json
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "test", "gpu"))
import check_examples as ex  # noqa: E402

M = 8192
# name: (example, N, K, the cuBLAS GEMM alone as (M, N, K))
CASES = {
    "bias_gelu": ("bias_gelu", 14336, 4096),
    "residual_rmsnorm": ("residual_rmsnorm", 4096, 4096),
    "swiglu": ("swiglu", 28672, 4096),
    "qk_rope": ("rope", 5120, 4096),
    "lm_head_ce": ("lm_head_ce", 128256, 4096),
    "down_residual": ("down_residual", 4096, 14336),
}


def time_interleaved(fns, reps):
    times = [[] for _ in fns]
    for _ in range(3):
        for f in fns:
            f()
    torch.cuda.synchronize()
    for _ in range(reps):
        for i, f in enumerate(fns):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            f()
            end.record()
            end.synchronize()
            times[i].append(start.elapsed_time(end))
    return [statistics.median(t) for t in times]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.environ.get("CODA_BUILD_DIR", os.path.join(ex.ROOT, "build")))
    parser.add_argument("--emitted", dest="out", default=None)
    parser.add_argument("--builds", default=None)
    parser.add_argument("--reps", type=int, default=21)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    args.out = args.out or os.path.join(args.build, "gpu")
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0a")
    results = {"device": torch.cuda.get_device_name(), "M": M, "reps": args.reps, "cases": {}}
    print(f"device: {results['device']}  M={M}  medians of {args.reps} interleaved alternations")
    for case, (name, n, k) in CASES.items():
        module, _ = ex.build(name, ex.emit(name, args), args)
        fn = module.main_k0
        torch.manual_seed(0)
        inputs, refs = ex.EXAMPLES[name](M, n, k)
        outs = fn(*inputs)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        err = max(ex.rel_err(o, r) for o, r in zip(outs, refs))
        del refs
        a, b = inputs[0], inputs[1]
        w = b if b.shape[1] == k else b.t()  # [N, K] either way for the plain GEMM
        plain = lambda: torch.matmul(a, w.t())
        coda_ms, cublas_ms = time_interleaved([lambda: fn(*inputs), plain], args.reps)
        flops = 2.0 * M * n * k
        results["cases"][case] = {"coda_ms": coda_ms, "cublas_gemm_ms": cublas_ms,
                                  "ratio_vs_gemm": coda_ms / cublas_ms, "max_rel_err": err,
                                  "N": n, "K": k, "coda_tflops": flops / coda_ms / 1e9}
        print(f"{case:18s} N={n:<6d} K={k:<6d} coda {coda_ms:7.3f} ms  cuBLAS {cublas_ms:7.3f} ms  "
              f"ratio {coda_ms / cublas_ms:5.3f}  ({flops / coda_ms / 1e9:5.0f} TFLOP/s)  rel err {err:.1e}")
        del inputs, outs
        torch.cuda.empty_cache()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
