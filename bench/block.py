#!/usr/bin/env python3
"""The Llama-3-8B block forward: coda's kernels around SDPA against torch.compile, same run.

coda runs `post(sdpa(pre(x)), x)` (bench/block_programs.py): `pre` and `post` are the programs
of bench/programs/block/llama3-8b fused by `coda-opt --coda-fuse` and emitted with their PyTorch
binding (weights prepared once through `main_prepare`), attention is
torch.nn.functional.scaled_dot_product_attention (causal), with its reshapes under torch.compile
as in the contenders. The contenders are the same PyTorch
`forward` eagerly and under torch.compile (default and max-autotune-no-cudagraphs). After a
check of coda's output against the fp32 forward (max|out - ref| / max|ref|, beside bf16
PyTorch's own), the contenders run interleaved, medians of --reps alternations; the result,
with coda's kernels and their times, goes into bench/results/block-h200.json (on another GPU
block-<gpu>.json, bench/gpu_results.py).

Usage: bench/block.py [--emitted DIR] [--builds DIR] [--reps N] [--tuning-db FILE] [--staged-halves]
"""
import argparse
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "gpu"))
import anchors  # noqa: E402
import block_programs as block  # noqa: E402
import check_examples  # noqa: E402
import gpu_results  # noqa: E402


def random_inputs(s):
    """`forward`'s arguments on the GPU, the same every run: x ~ N(0, 1), weights ~ N(0, 0.05²),
    norm weights near 1, Llama-3's RoPE tables (base 500000)."""
    torch.manual_seed(0)
    xs = list(block.inputs(s, device="cuda", make=lambda *shape: (
        torch.randn(*shape, device="cuda") * 0.05).to(torch.bfloat16)))
    xs[0] = (torch.randn(s["M"], s["D"], device="cuda")).to(torch.bfloat16)
    for g in (1, 6):  # norm weights near 1
        xs[g] = (1 + 0.1 * torch.randn(s["D"], device="cuda")).to(torch.bfloat16)
    pos = torch.arange(s["M"], device="cuda", dtype=torch.float32)[:, None]
    freq = 500000.0 ** (-torch.arange(0, s["HD"], 2, device="cuda").float() / s["HD"])
    angles = torch.cat([pos * freq, pos * freq], dim=-1)
    xs[3], xs[4] = torch.cos(angles).to(torch.bfloat16), torch.sin(angles).to(torch.bfloat16)
    return xs


def half_setup(half, s=block.LLAMA3_8B):
    """For bench/tune.py: the arguments of one half ("pre" or "post") of the block, the PyTorch
    function its program computes, and cuBLAS's products of that half alone (the yardstick).
    `post` gets the attention of `pre`'s eager result, as in the block."""
    x, g1, w_qkv, cos, sin, w_o, g2, w_gu, w_down = random_inputs(s)
    if half == "pre":
        return [x, g1, w_qkv, cos, sin], block.pre, lambda: torch.matmul(x, w_qkv.t())
    attn = block.attention(*block.pre(x, g1, w_qkv, cos, sin), s)
    act = torch.randn(s["M"], s["FFN"], device="cuda").to(torch.bfloat16)
    return [attn, x, w_o, g2, w_gu, w_down], block.post, lambda: (
        torch.matmul(attn, w_o.t()), torch.matmul(x, w_gu.t()), torch.matmul(act, w_down.t()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.environ.get("CODA_BUILD_DIR", os.path.join(ROOT, "build")))
    parser.add_argument("--emitted", dest="out", default=None)
    parser.add_argument("--builds", default=None)
    parser.add_argument("--reps", type=int, default=25)
    anchors.add_tuning_db_argument(parser)
    parser.add_argument("--staged-halves", action="store_true",
                        help="emit with coda-translate --cuda-without=tma-halves (RoPE's pairs staged, "
                             "then copied into their halves; files block_<half>_staged_halves.cu)")
    args = parser.parse_args()
    anchors.resolve_tuning_db(args)
    args.out = args.out or os.path.join(args.build, "block")
    os.makedirs(args.out, exist_ok=True)
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0a")
    s = block.LLAMA3_8B
    modules = {}
    for half in ("pre", "post"):
        program = os.path.join(HERE, "programs", "block", "llama3-8b", f"{half}.mlir")
        name = f"block_{half}" + ("_staged_halves" if args.staged_halves else "")
        flags = ("--cuda-without=tma-halves",) if args.staged_halves else ()
        modules[half], _ = check_examples.build(
            name, anchors.fuse_and_emit(name, program, args, translate_flags=flags), args)

    xs = random_inputs(s)
    x, g1, w_qkv, cos, sin, w_o, g2, w_gu, w_down = xs

    pre = check_examples.prepared_call(modules["pre"], [x, g1, w_qkv, cos, sin])
    attn_shape = torch.empty(s["M"], s["NQ"] * s["HD"], dtype=torch.bfloat16, device="cuda")
    post = check_examples.prepared_call(modules["post"], [attn_shape, x, w_o, g2, w_gu, w_down])

    # The attention between the halves (SDPA and its reshapes, GQA's repeat) is the same code
    # as in the contenders, compiled like theirs: what differs is what coda replaces.
    attention = torch.compile(block.attention)

    def coda():
        q, k, v = pre(x, g1, w_qkv, cos, sin)
        return post(attention(q, k, v, s), x, w_o, g2, w_gu, w_down)

    def eager():
        return block.forward(*xs, s)

    out = coda()
    ref = block.forward(*[t.float() for t in xs], s)
    err = check_examples.rel_err(out, ref)
    # bf16 PyTorch's own distance to the fp32 forward: the yardstick for coda's.
    eager_err = check_examples.rel_err(eager(), ref)
    del ref
    compiled = torch.compile(block.forward)
    autotuned = torch.compile(block.forward, mode="max-autotune-no-cudagraphs")
    fns = {"coda": coda, "eager": eager, "compile": lambda: compiled(*xs, s),
           "compile_max_autotune": lambda: autotuned(*xs, s)}
    for f in fns.values():
        f()
    ms = anchors.time_interleaved(fns, args.reps)
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "reps": args.reps,
              "sizes": s, "staged_halves": args.staged_halves, "max_rel_err": err, "eager_max_rel_err": eager_err,
              **{f"{k}_ms": v for k, v in ms.items()},
              "speedup_vs_compile": ms["compile"] / ms["coda"],
              "speedup_vs_compile_max_autotune": ms["compile_max_autotune"] / ms["coda"],
              "speedup_queued_vs_compile": ms["compile_queued"] / ms["coda_queued"],
              "speedup_queued_vs_compile_max_autotune": ms["compile_max_autotune_queued"] / ms["coda_queued"],
              "coda_kernels_us": anchors.kernel_times(coda)}
    print(json.dumps(result, indent=2))
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(gpu_results.results_path(os.path.join(HERE, "results"), "block", result["device"], "json"),
              "w") as f:
        json.dump(result, f, indent=2)
    # Within the bound, or no farther from fp32 than bf16 PyTorch itself.
    return 0 if err <= max(anchors.BOUND, 1.5 * eager_err) else 1


if __name__ == "__main__":
    sys.exit(main())
