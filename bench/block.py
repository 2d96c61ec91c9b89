#!/usr/bin/env python3
"""The Llama-3-8B block forward: coda's kernels and attention against torch.compile, same run.

`coda` runs the whole block as one program (bench/programs/block/llama3-8b/forward.mlir, fused
by `coda-opt --coda-fuse`: four GEMM kernels with their epilogues and coda.attention, emitted
with its PyTorch binding, weights prepared once through `main_prepare`). `coda_sdpa` runs
`post(sdpa(pre(x)), x)` (python/coda/bench/blocks.py): the programs `pre` and `post` around
torch.nn.functional.scaled_dot_product_attention (causal), with its reshapes under
torch.compile as in the contenders. The contenders are the same PyTorch `forward` eagerly and
under torch.compile (default and max-autotune-no-cudagraphs). After a check of both coda
outputs against the fp32 forward (max|out - ref| / max|ref|, beside bf16 PyTorch's own), all
run interleaved, medians of --reps alternations; the result, with coda's kernels and their
times, goes into bench/results/block-h200.json (on another GPU block-<gpu>.json,
python/coda/gpus.py).

Usage: bench/block.py [--emitted DIR] [--builds DIR] [--reps N] [--tuning-db FILE] [--cuda-without PATH[,PATH...]]
"""
import argparse
import json
import os
import sys

import torch

from coda import extension, gpus, paths
from coda.bench import anchors, blocks


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=paths.build_dir())
    parser.add_argument("--emitted", dest="out", default=None)
    parser.add_argument("--builds", default=None)
    parser.add_argument("--reps", type=int, default=25)
    anchors.add_tuning_db_argument(parser)
    parser.add_argument("--cuda-without", default=None, metavar="PATH[,PATH...]",
                        help="emit with coda-translate --cuda-without=PATH,... (default paths "
                             "left out; files block_<half>_without_<paths>.cu)")
    args = parser.parse_args()
    anchors.resolve_tuning_db(args)
    args.out = args.out or os.path.join(args.build, "block")
    os.makedirs(args.out, exist_ok=True)
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0a")
    s = blocks.LLAMA3_8B
    modules = {}
    for half in ("forward", "pre", "post"):
        program = os.path.join(paths.BENCH, "programs", "block", "llama3-8b", f"{half}.mlir")
        without = args.cuda_without
        name = f"block_{half}" + (f"_without_{without.replace('-', '_').replace(',', '_')}"
                                  if without else "")
        flags = (f"--cuda-without={without}",) if without else ()
        modules[half], _ = extension.build(
            name, anchors.fuse_and_emit(name, program, args, translate_flags=flags), args)

    xs = blocks.random_inputs(s)
    x, g1, w_qkv, cos, sin, w_o, g2, w_gu, w_down = xs

    whole = extension.prepared_call(modules["forward"], xs)
    pre = extension.prepared_call(modules["pre"], [x, g1, w_qkv, cos, sin])
    attn_shape = torch.empty(s["M"], s["NQ"] * s["HD"], dtype=torch.bfloat16, device="cuda")
    post = extension.prepared_call(modules["post"], [attn_shape, x, w_o, g2, w_gu, w_down])

    # The attention between the halves (SDPA and its reshapes, GQA's repeat) is the same code
    # as in the contenders, compiled like theirs: what differs is what coda replaces.
    attention = torch.compile(blocks.attention)

    def coda():
        return whole(*xs)

    def coda_sdpa():
        q, k, v = pre(x, g1, w_qkv, cos, sin)
        return post(attention(q, k, v, s), x, w_o, g2, w_gu, w_down)

    def eager():
        return blocks.forward(*xs, s)

    ref = blocks.forward(*[t.float() for t in xs], s)
    err = extension.rel_err(coda(), ref)
    sdpa_err = extension.rel_err(coda_sdpa(), ref)
    # bf16 PyTorch's own distance to the fp32 forward: the yardstick for coda's.
    eager_err = extension.rel_err(eager(), ref)
    del ref
    compiled = torch.compile(blocks.forward)
    autotuned = torch.compile(blocks.forward, mode="max-autotune-no-cudagraphs")
    fns = {"coda": coda, "coda_sdpa": coda_sdpa, "eager": eager, "compile": lambda: compiled(*xs, s),
           "compile_max_autotune": lambda: autotuned(*xs, s)}
    for f in fns.values():
        f()
    ms = anchors.time_interleaved(fns, args.reps)
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "reps": args.reps,
              "sizes": s, "cuda_without": args.cuda_without, "max_rel_err": err, "coda_sdpa_max_rel_err": sdpa_err,
              "eager_max_rel_err": eager_err,
              **{f"{k}_ms": v for k, v in ms.items()},
              "speedup_vs_compile": ms["compile"] / ms["coda"],
              "speedup_vs_compile_max_autotune": ms["compile_max_autotune"] / ms["coda"],
              "speedup_queued_vs_compile": ms["compile_queued"] / ms["coda_queued"],
              "speedup_queued_vs_compile_max_autotune": ms["compile_max_autotune_queued"] / ms["coda_queued"],
              "coda_kernels_us": anchors.kernel_times(coda)}
    print(json.dumps(result, indent=2))
    os.makedirs(os.path.join(paths.BENCH, "results"), exist_ok=True)
    with open(gpus.results_path(os.path.join(paths.BENCH, "results"), "block", result["device"], "json"),
              "w") as f:
        json.dump(result, f, indent=2)
    # Within the bound, or no farther from fp32 than bf16 PyTorch itself.
    return 0 if max(err, sdpa_err) <= max(anchors.BOUND, 1.5 * eager_err) else 1


if __name__ == "__main__":
    sys.exit(main())
