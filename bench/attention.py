#!/usr/bin/env python3
"""coda.attention against PyTorch's attention, side by side in one run on the GPU.

Each case is a one-op coda program (coda.attention.program writes it) emitted with its
PyTorch binding and built; it is timed interleaved with F.scaled_dot_product_attention (dense
and causal: PyTorch picks cuDNN or FlashAttention) and with FlexAttention
(torch.nn.attention.flex_attention, compiled, with its block mask) for the masks, on the same
bf16 inputs. Runtime masks (block-sparse, BigBird) are prepared once (coda.attention.
prepare_mask; FlexAttention's block mask likewise), outside the timing. Times are medians of CUDA events around single calls queued behind a GPU sleep (the
GPU time alone). TFLOP/s count useful work only: 4·d FLOPs per visible (query, key) pair.

Writes bench/results/attention-<gpu>.json: {"device", "cases": {NAME: {coda_ms, sdpa_ms,
flex_ms, coda_tflops, ratio_vs_sdpa, ratio_vs_flex, max_rel_err}}} (ratios: the other's time
over coda's, > 1 when coda is faster; null where a contender does not run the case).

Usage: attention.py --emit DIR [--build DIR]      (where LLVM is: write the .cu files)
       attention.py --emitted DIR [--only A,B]    (on the GPU machine: build, check, time)
"""
import argparse
import concurrent.futures
import json
import os
import sys

from coda import attention

# name: (B, Hq, Hkv, Sq, Sk, d, layout, mask, dtype, lse, softcap)
CASES = {
    "dense_8k": (2, 32, 32, 8192, 8192, 128, "bhsd", {}, "bf16", False, None),
    "causal_8k": (2, 32, 32, 8192, 8192, 128, "bhsd", {"causal": 1}, "bf16", False, None),
    "causal_4k": (2, 32, 32, 4096, 4096, 128, "bhsd", {"causal": 1}, "bf16", False, None),
    "causal_1k": (2, 32, 32, 1024, 1024, 128, "bhsd", {"causal": 1}, "bf16", False, None),
    "causal_8k_d64": (2, 32, 32, 8192, 8192, 64, "bhsd", {"causal": 1}, "bf16", False, None),
    "sliding1024_8k": (2, 32, 32, 8192, 8192, 128, "bhsd", {"causal": 1, "left": 1023}, "bf16",
                       False, None),
    "longformer512_8k": (2, 32, 32, 8192, 8192, 128, "bhsd",
                         {"left": 256, "right": 256, "global": 16}, "bf16", False, None),
    "dilated4_8k": (2, 32, 32, 8192, 8192, 128, "bhsd", {"causal": 1, "dilation": 4}, "bf16",
                    False, None),
    # Runtime masks (coda.attention's blocks and bits), prepared once outside the timing.
    "block_sparse25_8k": (2, 32, 32, 8192, 8192, 128, "bhsd",
                          {"runtime": ("block_sparse", 0.25, 0)}, "bf16", False, None),
    "bigbird_8k": (2, 32, 32, 8192, 8192, 128, "bhsd", {"runtime": ("bigbird", 512, 64, 3, 0)},
                   "bf16", False, None),
}
SDPA_CASES = {"dense_8k", "causal_8k", "causal_4k", "causal_1k", "causal_8k_d64"}


def visible_pairs(case, torch):
    return int(attention.visible(case, torch, "cuda").sum().item())


def flex_mask(case, torch):
    """The case's mask as a FlexAttention mask_mod (a runtime mask read from its dense
    boolean form)."""
    _, _, _, sq, sk, _, _, mask, *_ = case
    shift = sk - sq
    dense = attention.runtime_mask(case, torch, "cuda")[0, 0] if "runtime" in mask else None

    def mask_mod(b, h, i, j):
        r = i + shift
        band = j >= 0
        if mask.get("causal"):
            band = band & (j <= r)
        if "left" in mask:
            band = band & (j >= r - mask["left"])
        if "right" in mask:
            band = band & (j <= r + mask["right"])
        if mask.get("dilation", 1) > 1:
            band = band & ((r - j) % mask["dilation"] == 0)
        if mask.get("global"):
            band = band | (j < mask["global"]) | (r < mask["global"])
        if dense is not None:
            band = band & dense[i, j]
        return band

    return mask_mod


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--emit", metavar="DIR", help="write each case's .cu into DIR and stop")
    parser.add_argument("--emitted", metavar="DIR", help="the cases' .cu files")
    parser.add_argument("--build", default=None, help="coda's build (coda-translate)")
    parser.add_argument("--builds", help="folder for the extensions (default: DIR/builds)")
    parser.add_argument("--only", help="comma-separated cases")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--results", default=os.path.join(os.path.dirname(__file__), "results"))
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(CASES)
    if args.emit:
        from coda.paths import build_dir

        attention.emit([(name, CASES[name]) for name in names], args.emit,
                       args.build or str(build_dir()))
        return 0
    if not args.emitted:
        sys.exit("attention.py: give --emit DIR or --emitted DIR")

    import torch
    import torch.nn.functional as F
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    from coda import gpus
    from coda.bench.anchors import time_interleaved
    from coda.extension import build

    args.out = args.emitted
    args.builds = args.builds or os.path.join(args.emitted, "builds")
    flex = torch.compile(flex_attention)
    device = torch.cuda.get_device_name()
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(names)) as pool:
        modules = dict(zip(names, pool.map(
            lambda n: build(n, os.path.join(args.emitted, f"{n}.cu"), args)[0], names)))
    results = {}
    for name in names:
        case = CASES[name]
        module = modules[name]
        b, hq, hkv, sq, sk, d = case[:6]
        torch.manual_seed(0)
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
                   for h, s in ((hq, sq), (hkv, sk), (hkv, sk)))
        prepared = []
        if "runtime" in case[7]:
            prepared = attention.prepare_mask(attention.runtime_mask(case, torch, "cuda"), torch)
        out = module.main(q, k, v, *prepared)
        ref, _ = attention.reference(case, q, k, v, torch)
        err = ((out.float() - ref).abs().max() / ref.abs().max()).item()
        del ref
        fns = {"coda": lambda: module.main(q, k, v, *prepared)}
        if name in SDPA_CASES:
            causal = bool(case[7].get("causal"))
            fns["sdpa"] = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        block_mask = create_block_mask(flex_mask(case, torch), None, None, sq, sk, device="cuda")
        fns["flex"] = lambda: flex(q, k, v, block_mask=block_mask)
        times = time_interleaved(fns, args.reps)
        ms = {n: times[n + "_queued"] for n in fns}
        flops = 4.0 * d * visible_pairs(case, torch) * b * hq
        row = {"coda_ms": ms["coda"], "sdpa_ms": ms.get("sdpa"), "flex_ms": ms.get("flex"),
               "coda_tflops": flops / ms["coda"] / 1e9,
               "ratio_vs_sdpa": ms["sdpa"] / ms["coda"] if "sdpa" in ms else None,
               "ratio_vs_flex": ms["flex"] / ms["coda"] if "flex" in ms else None,
               "max_rel_err": err}
        results[name] = row
        print(f"{name:18s} coda {ms['coda']:8.3f} ms ({row['coda_tflops']:6.1f} TFLOP/s)"
              + (f"  sdpa {ms['sdpa']:8.3f} ({row['ratio_vs_sdpa']:.2f}x)" if "sdpa" in ms else "")
              + (f"  flex {ms['flex']:8.3f} ({row['ratio_vs_flex']:.2f}x)" if "flex" in ms else "")
              + f"  rel err {err:.1e}", flush=True)
    os.makedirs(args.results, exist_ok=True)
    path = gpus.results_path(args.results, "attention", device, "json")
    with open(path, "w") as f:
        json.dump({"device": device, "cases": results}, f, indent=1)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
