#!/usr/bin/env python3
"""Decode attention over a KV cache, coda against PyTorch, side by side in one run on the GPU.

Each case is a one-op coda program (coda.decode.attention_program: one query row per sequence,
Hq 32 / Hkv 8 or MQA, d 128, bf16, caches [B, Hkv, L, d]) emitted with its PyTorch binding and
built; it is timed interleaved with F.scaled_dot_product_attention (enable_gqa; a boolean
mask over the cache for ragged lengths), FlexAttention (compiled, its decoding kernel, a block
mask of each sequence's length) and torch.compile of the attention written out (q·kᵀ,
masked softmax, ·v), on the same inputs. Times are medians of CUDA events around single calls
queued behind a GPU sleep (the GPU time alone). GB/s counts the bytes the step must move: q,
each sequence's len[b] rows of K and V, and the output; fraction_of_copy divides it by the
device-to-device copy bandwidth measured in the same run (2 × bytes of a 1 GiB copy_ over its
time). A second table times appending one new K row per (sequence, head) at L from 1k to 32k:
coda.append (in place), torch.cat (a new cache) and index_copy_ (in place, HF's static cache).
A third table times a whole Llama-3-8B decode step at B 1 and 32 over an 8k cache: coda runs
`pre` (RMSNorm, QKV, RoPE, and the new K and V written into the caches [B, L, Hkv, d] at the
cache position with index_copy_) and `post` (o-projection + residual, RMSNorm, SwiGLU,
residual), the programs of bench/programs/block/llama3-8b-decode-b<B>/ fused by coda-opt,
around its decode attention, the caches read and written in place. The contenders run the
same step in PyTorch (index_copy_ into the caches, SDPA with enable_gqa) eagerly and under
torch.compile.

Writes bench/results/decode-<gpu>.json and, with matplotlib, a chart beside it
(decode-<gpu>.png: each case's share of the copy bandwidth, coda against the contenders);
`--chart JSON` draws the chart of a results file again. The JSON: {"device", "copy_gbps", "cases": {NAME: {coda_us,
sdpa_us, flex_us, compile_us, coda_gbps, fraction_of_copy, max_rel_err}}, "append": {L: {coda_us,
cat_us, index_copy_us}}, "step": {NAME: {coda_us, eager_us, compile_us, max_rel_err,
eager_max_rel_err}}} (errors of the step against the fp32 step).

Usage: decode.py --emit DIR [--build DIR]      (where LLVM is: write the .cu files)
       decode.py --emitted DIR [--only A,B] [--parts attention,append,step]
                                               (on the GPU machine: build, check, time)
       decode.py --chart RESULTS.json          (the chart of a results file)
"""
import argparse
import concurrent.futures
import json
import math
import os
import sys

from coda import decode, tools


def case(b, length, hkv=8, lens=None):
    return {"B": b, "Hq": 32, "Hkv": hkv, "Sq": 1, "cap": length, "d": 128, "layout": "bhsd",
            "dtype": "bf16", "mask": {}, "lse": False, "lens": lens}


CASES = {f"b{b}_l{length}": case(b, length) for length in (4096, 32768) for b in (1, 8, 32, 64)}
# Eight sequences of ragged lengths in a 32k cache, and multi-query attention.
CASES["ragged_b8_l32768"] = case(8, 32768, lens=(32768, 17, 4097, 30000, 1, 12345, 8192, 2049))
CASES["mqa_b8_l32768"] = case(8, 32768, hkv=1)
APPEND_LENGTHS = (1024, 2048, 4096, 8192, 16384, 32768)
STEP_BATCHES, STEP_LENGTH = (1, 32), 8192


def step_case(b):
    return {"B": b, "Hq": 32, "Hkv": 8, "Sq": 1, "cap": STEP_LENGTH, "d": 128, "layout": "bshd",
            "dtype": "bf16", "mask": {}, "lse": False}


def append_case(length):
    return {"B": 1, "Hq": 32, "Hkv": 8, "Sq": 1, "cap": length, "d": 128, "layout": "bhsd",
            "dtype": "bf16", "mask": {}, "lse": False}


def draw(results, png):
    """Each case's bytes per second as a share of the copy bandwidth: coda and the contenders
    (the time coda's traffic would take at their speed)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no matplotlib: no chart)")
        return
    cases = list(results["cases"])
    fig, ax = plt.subplots(figsize=(11, 4.5))
    width = 0.2
    for k, (label, key) in enumerate([("coda", "coda_us"), ("SDPA", "sdpa_us"),
                                      ("FlexAttention", "flex_us"), ("torch.compile", "compile_us")]):
        shares = []
        for name in cases:
            r = results["cases"][name]
            t = r.get(key)
            shares.append(r["fraction_of_copy"] * r["coda_us"] / t if t else 0.0)
        ax.bar([i + (k - 1.5) * width for i in range(len(cases))], shares, width, label=label)
    ax.axhline(0.85, color="gray", linestyle="--", linewidth=0.8)
    ax.set_xticks(range(len(cases)), cases, rotation=30, ha="right")
    ax.set_ylabel("share of copy bandwidth")
    ax.set_title(f"Decode attention over a KV cache, {results['device']}")
    ax.legend(ncol=4, fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    print(f"wrote {png}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--emit", metavar="DIR", help="write each case's .cu into DIR and stop")
    parser.add_argument("--emitted", metavar="DIR", help="the cases' .cu files")
    parser.add_argument("--build", default=None, help="coda's build (coda-translate)")
    parser.add_argument("--builds", help="folder for the extensions (default: DIR/builds)")
    parser.add_argument("--only", help="comma-separated attention cases")
    parser.add_argument("--parts", default="attention,append,step",
                        help="which tables to measure (default: attention,append,step)")
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--results", default=os.path.join(os.path.dirname(__file__), "results"))
    parser.add_argument("--chart", metavar="JSON", help="draw the chart of a results file")
    parser.add_argument("--tuning-db", default=os.path.join(os.path.dirname(__file__), "..", "data",
                                                            "tuning", "tuning-h200.json"),
                        help="the GEMM configurations the step's halves are emitted with")
    args = parser.parse_args()
    if args.chart:
        with open(args.chart) as f:
            draw(json.load(f), os.path.splitext(args.chart)[0] + ".png")
        return 0
    names = args.only.split(",") if args.only else list(CASES)
    appends = [f"append_l{length}" for length in APPEND_LENGTHS]
    if args.emit:
        from coda.paths import build_dir

        programs = [(n, decode.attention_program(CASES[n])) for n in names]
        programs += [(f"append_l{length}", decode.append_program(append_case(length)))
                     for length in APPEND_LENGTHS]
        programs += [(f"step_attention_b{b}", decode.attention_program(step_case(b)))
                     for b in STEP_BATCHES]
        args.build = args.build or str(build_dir())
        decode.emit(programs, args.emit, args.build)
        for b in STEP_BATCHES:
            for half in ("pre", "post"):
                program = os.path.join(os.path.dirname(__file__), "programs", "block",
                                       f"llama3-8b-decode-b{b}", f"{half}.mlir")
                tools.fuse_and_emit(program, os.path.join(args.emit, f"step_{half}_b{b}.cu"),
                                    args.build, translate_flags=[f"--tuning-db={args.tuning_db}"])
        return 0
    if not args.emitted:
        sys.exit("decode.py: give --emit DIR or --emitted DIR")

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
    parts = args.parts.split(",")
    names = names if "attention" in parts else []
    appends = appends if "append" in parts else []
    steps = [f"step_{part}_b{b}" for b in STEP_BATCHES
             for part in ("pre", "post", "attention")] if "step" in parts else []
    every = names + appends + steps
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(every)) as pool:
        modules = dict(zip(every, pool.map(
            lambda n: build(n, os.path.join(args.emitted, f"{n}.cu"), args)[0], every)))

    # The copy bandwidth of this GPU, in the same run.
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    copy_ms = time_interleaved({"copy": lambda: dst.copy_(src)}, 10)["copy_queued"]
    copy_gbps = 2 * src.numel() / copy_ms / 1e6
    del src, dst
    print(f"device-to-device copy: {copy_gbps:.0f} GB/s", flush=True)

    def written_out(q, k, v, mask):
        # Each KV head's group of query heads as rows of one product (no repeated K and V).
        b, hq, _, d = q.shape
        hkv = k.shape[1]
        qg = q.view(b, hkv, hq // hkv, d)
        s = (qg @ k.transpose(-1, -2)).float() / math.sqrt(d)  # [B, Hkv, rep, L]
        s = s.masked_fill(~mask, float("-inf"))
        return (torch.softmax(s, dim=-1).to(q.dtype) @ v).view(b, hq, 1, d)

    compiled = torch.compile(written_out)
    results = {}
    for name in names:
        c = CASES[name]
        module = modules[name]
        b, hq, hkv, length, d = c["B"], c["Hq"], c["Hkv"], c["cap"], c["d"]
        torch.manual_seed(0)
        q = torch.randn(b, hq, 1, d, device="cuda", dtype=torch.bfloat16)
        k, v = (torch.randn(b, hkv, length, d, device="cuda", dtype=torch.bfloat16)
                for _ in range(2))
        lens = torch.tensor(c["lens"] or (length,) * b, dtype=torch.int32, device="cuda")
        mask = decode.visible(c, lens, torch)  # [B, 1, 1, L]
        out = module.main(q, k, v, lens)
        ref, _ = decode.reference(c, q, k, v, lens, torch)
        err = ((out.float() - ref).abs().max() / ref.abs().max()).item()
        del ref
        ragged = c["lens"] is not None
        len_list = lens.tolist()

        def mask_mod(bi, h, i, j):
            return j < lens[bi]

        block_mask = create_block_mask(mask_mod, b, None, 1, length, device="cuda")
        fns = {"coda": lambda: module.main(q, k, v, lens),
               "sdpa": (lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                                               enable_gqa=True)) if ragged else
               (lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)),
               "flex": lambda: flex(q, k, v, block_mask=block_mask, enable_gqa=True),
               "compile": lambda: compiled(q, k, v, mask)}
        # A contender that fails at this size (Inductor's 32-bit indexing) is reported as null.
        for contender in ("flex", "compile"):
            try:
                fns[contender]()
            except Exception as e:  # noqa: BLE001
                print(f"{name}: {contender} failed: {str(e).splitlines()[0][:120]}", flush=True)
                del fns[contender]
        times = time_interleaved(fns, args.reps)
        us = {n: times[n + "_queued"] * 1e3 for n in fns}
        us.update({n: None for n in ("flex", "compile") if n not in us})
        moved = (2 * b * hq * d + 2 * hkv * d * sum(len_list)) * 2
        gbps = moved / us["coda"] / 1e3
        row = {"coda_us": us["coda"], "sdpa_us": us["sdpa"], "flex_us": us["flex"],
               "compile_us": us["compile"], "coda_gbps": gbps,
               "fraction_of_copy": gbps / copy_gbps, "max_rel_err": err}
        results[name] = row
        others = "  ".join(f"{n} {us[n]:8.1f} ({us[n] / us['coda']:.2f}x)" if us[n] else f"{n} -"
                           for n in ("sdpa", "flex", "compile"))
        print(f"{name:18s} coda {us['coda']:8.1f} us ({gbps:6.0f} GB/s, "
              f"{row['fraction_of_copy']:.0%} of copy)  {others}  rel err {err:.1e}", flush=True)
        del q, k, v, mask, block_mask, fns

    append = {}
    for length in APPEND_LENGTHS if appends else ():
        module = modules[f"append_l{length}"]
        kc = torch.randn(1, 8, length, 128, device="cuda", dtype=torch.bfloat16)
        old = kc[:, :, : length - 1].clone()
        kn = torch.randn(1, 8, 1, 128, device="cuda", dtype=torch.bfloat16)
        pos = torch.tensor([length - 1], dtype=torch.int32, device="cuda")
        at = pos.long()
        expected = torch.cat([old, kn], dim=2)
        assert torch.equal(module.main(kn, kc, pos), expected), "append differs from torch.cat"
        fns = {"coda": lambda: module.main(kn, kc, pos),
               "cat": lambda: torch.cat([old, kn], dim=2),
               "index_copy": lambda: kc.index_copy_(2, at, kn)}
        times = time_interleaved(fns, args.reps)
        us = {n: times[n + "_queued"] * 1e3 for n in fns}
        append[length] = {"coda_us": us["coda"], "cat_us": us["cat"],
                          "index_copy_us": us["index_copy"]}
        print(f"append L {length:6d}  coda {us['coda']:6.1f} us  cat {us['cat']:7.1f} us "
              f"({us['cat'] / us['coda']:.1f}x)  index_copy_ {us['index_copy']:6.1f} us",
              flush=True)

    from coda import extension
    from coda.bench import blocks

    step = {}
    for b in STEP_BATCHES if steps else ():
        s, hkv, hq, hd = dict(blocks.LLAMA3_8B, M=b), 8, 32, 128
        x, g1, w_qkv, cos, sin, w_o, g2, w_gu, w_down = blocks.random_inputs(s)
        torch.manual_seed(1)
        k_cache, v_cache = (torch.randn(b, STEP_LENGTH, hkv, hd, device="cuda", dtype=torch.bfloat16)
                            for _ in range(2))
        lens = torch.full((b,), STEP_LENGTH, dtype=torch.int32, device="cuda")
        at = torch.tensor([STEP_LENGTH - 1], device="cuda")
        attn = torch.empty(b, hq * hd, device="cuda", dtype=torch.bfloat16)
        pre_args = [x, g1, w_qkv, cos, sin, k_cache, v_cache, at]
        pre = extension.prepared_call(modules[f"step_pre_b{b}"], pre_args)
        post = extension.prepared_call(modules[f"step_post_b{b}"], [attn, x, w_o, g2, w_gu, w_down])
        attend = modules[f"step_attention_b{b}"]

        def coda_step(kc, vc):
            kc, vc, q = pre(x, g1, w_qkv, cos, sin, kc, vc, at)
            o = attend.main(q.view(b, 1, hq, hd), kc, vc, lens)
            return post(o.view(b, hq * hd), x, w_o, g2, w_gu, w_down)

        def torch_step(kc, vc, x, g1, w_qkv, cos, sin, w_o, g2, w_gu, w_down):
            q, k, v = blocks.pre(x, g1, w_qkv, cos, sin)
            kc.index_copy_(1, at, k.view(b, 1, hkv, hd))
            vc.index_copy_(1, at, v.view(b, 1, hkv, hd))
            o = F.scaled_dot_product_attention(q.view(b, 1, hq, hd).transpose(1, 2),
                                               kc.transpose(1, 2), vc.transpose(1, 2),
                                               enable_gqa=True)
            return blocks.post(o.transpose(1, 2).reshape(b, hq * hd), x, w_o, g2, w_gu, w_down)

        weights = (x, g1, w_qkv, cos, sin, w_o, g2, w_gu, w_down)
        ref = torch_step(k_cache.float(), v_cache.float(), *(w.float() for w in weights))
        caches = [t.clone() for t in (k_cache, v_cache)]
        err = extension.rel_err(coda_step(*caches), ref)
        eager_err = extension.rel_err(torch_step(k_cache.clone(), v_cache.clone(), *weights), ref)
        del ref
        compiled = torch.compile(torch_step)
        torch_caches = [t.clone() for t in (k_cache, v_cache)]
        fns = {"coda": lambda: coda_step(*caches),
               "eager": lambda: torch_step(*torch_caches, *weights),
               "compile": lambda: compiled(*torch_caches, *weights)}
        times = time_interleaved(fns, args.reps)
        us = {n: times[n + "_queued"] * 1e3 for n in fns}
        step[f"b{b}_l{STEP_LENGTH}"] = {"coda_us": us["coda"], "eager_us": us["eager"],
                                        "compile_us": us["compile"], "max_rel_err": err,
                                        "eager_max_rel_err": eager_err}
        print(f"step b{b}_l{STEP_LENGTH}  coda {us['coda']:7.1f} us  eager {us['eager']:7.1f} us  "
              f"compile {us['compile']:7.1f} us ({us['compile'] / us['coda']:.2f}x)  rel err "
              f"{err:.1e} (bf16 PyTorch {eager_err:.1e})", flush=True)
        del caches, torch_caches, k_cache, v_cache

    os.makedirs(args.results, exist_ok=True)
    path = gpus.results_path(args.results, "decode", device, "json")
    with open(path, "w") as f:
        json.dump({"device": device, "copy_gbps": copy_gbps, "cases": results, "append": append,
                   "step": step}, f, indent=1)
    if results:
        draw({"device": device, "cases": results}, os.path.splitext(path)[0] + ".png")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
