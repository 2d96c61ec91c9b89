#!/usr/bin/env python3
"""T3 for coda.attention: each case below is a one-op program (`@main(q, k, v) -> out[, lse]`),
emitted by coda-translate with its PyTorch binding, built, and run on the GPU against an fp32
PyTorch reference computed from the same bf16/f16 inputs. The reference builds each mask as a
boolean [Sq, Sk] matrix from the #coda.mask rules (docs/semantics.md), independently of the
generated index arithmetic. An output passes when max|out - ref| / max|ref| <= 1e-2; rows that
see no key must be exactly 0 with lse = -inf. The per-sequence lengths case runs a full, a
short and an empty sequence; the runtime-mask cases pass blocks and bits that
coda.attention.prepare_mask builds from a boolean mask. Exit status 0 when every case passes.

Usage: check_attention.py --emit DIR [--build DIR]     (where LLVM is: write the .cu files)
       check_attention.py --emitted DIR [--only A,B]   (on the GPU machine: build and run)
       check_attention.py --list
"""
import argparse
import concurrent.futures
import os
import sys

from coda.attention import (check_rows, emit, prepare_mask, reference, runtime_mask, shapes,
                            visible)
from coda.paths import build_dir

BOUND = 1e-2

# name: (B, Hq, Hkv, Sq, Sk, d, layout, mask, dtype, lse, softcap)
CASES = {
    "dense_d64": (2, 8, 8, 129, 129, 64, "bhsd", {}, "bf16", False, None),
    "causal_gqa4_d128_bshd": (2, 8, 2, 1000, 1000, 128, "bshd", {"causal": 1}, "bf16", True, None),
    "causal_gqa8_decode": (1, 16, 2, 7, 4097, 64, "bhsd", {"causal": 1}, "bf16", True, None),
    "causal_one_query_f16": (2, 4, 4, 1, 129, 128, "bshd", {"causal": 1}, "f16", False, None),
    "sliding_window": (1, 4, 2, 1000, 1000, 64, "bshd", {"causal": 1, "left": 255}, "bf16", False,
                       None),
    "longformer": (1, 4, 4, 1000, 1000, 64, "bhsd", {"left": 64, "right": 64, "global": 8}, "bf16",
                   False, None),
    # Dilated masks whose rate divides Sq and Sk run one residue class per CTA (strided views;
    # with GQA, token-major heads, a window, Sq < Sk, lengths, LSE, d 96); 1001 rows do not
    # divide by 4 and take the mask on whole heads.
    "dilated4": (1, 4, 4, 1000, 1000, 64, "bhsd", {"causal": 1, "dilation": 4}, "bf16", False, None),
    "dilated2_window_gqa_d128": (2, 8, 2, 1024, 1024, 128, "bshd",
                                 {"causal": 1, "left": 300, "dilation": 2}, "bf16", True, None),
    "dilated4_cross_d64": (1, 4, 4, 516, 1000, 64, "bhsd", {"causal": 1, "dilation": 4}, "f16",
                           True, None),
    "dilated3_varlen": (3, 4, 2, 999, 999, 128, "bshd", {"causal": 1, "dilation": 3, "lens": True},
                        "bf16", True, None),
    "dilated4_d96": (1, 4, 4, 400, 400, 96, "bhsd", {"causal": 1, "dilation": 4}, "bf16", True,
                     None),
    "dilated4_undivided": (1, 4, 4, 1001, 1001, 64, "bhsd", {"causal": 1, "dilation": 4}, "bf16",
                           False, None),
    "chunked": (1, 4, 4, 1000, 1000, 128, "bshd", {"causal": 1, "chunk": 128}, "bf16", False, None),
    "sinks": (1, 4, 2, 1000, 1000, 64, "bshd", {"causal": 1, "left": 127, "sinks": 4}, "bf16", True,
              None),
    "softcap": (2, 8, 4, 129, 129, 128, "bshd", {"causal": 1}, "bf16", False, 30.0),
    "fully_masked_rows": (1, 4, 4, 129, 64, 64, "bhsd", {"causal": 1}, "bf16", True, None),
    "long_causal": (2, 32, 8, 4097, 4097, 128, "bshd", {"causal": 1}, "bf16", True, None),
    "varlen": (3, 8, 2, 1000, 1000, 64, "bshd", {"causal": 1, "lens": True}, "bf16", True, None),
    # Runtime masks: tiles of every class per head (with causal on top), BigBird broadcast
    # over heads, and the mma.sync kernel's reading of them.
    "runtime_tiles_d128": (2, 4, 2, 1000, 1000, 128, "bhsd", {"causal": 1, "runtime": ("tiles", 1)},
                           "bf16", True, None),
    "runtime_bigbird_d64": (1, 4, 4, 1000, 1000, 64, "bshd",
                            {"runtime": ("bigbird", 128, 16, 2, 2)}, "bf16", False, None),
    "runtime_tiles_d32": (1, 2, 2, 300, 300, 32, "bhsd", {"runtime": ("tiles", 3)}, "f16", True,
                          None),
    # A few query rows against short keys: the plan's model picks the row-wise kernel (so it
    # does for causal_one_query_f16).
    "rows_gqa2_bshd": (1, 4, 2, 2, 100, 64, "bshd", {"causal": 1}, "bf16", True, None),
    "rows_softcap_window_f16": (2, 8, 8, 3, 300, 128, "bhsd", {"causal": 1, "left": 100}, "f16",
                                True, 30.0),
    "rows_longformer": (1, 4, 4, 5, 700, 128, "bhsd", {"left": 64, "right": 64, "global": 8},
                        "bf16", True, None),
    # Head sizes other than 64 and 128 run on the mma.sync kernel.
    "dense_d32_f16": (1, 4, 4, 65, 200, 32, "bhsd", {}, "f16", True, None),
    "causal_d96": (2, 8, 2, 129, 1000, 96, "bshd", {"causal": 1}, "bf16", False, None),
}


def check(name, module, torch):
    case = CASES[name]
    dtype = torch.bfloat16 if case[8] == "bf16" else torch.float16
    qs, ks, _ = shapes(case)
    torch.manual_seed(0)
    q, k, v = (torch.randn(*s, device="cuda").to(dtype) for s in (qs, ks, ks))
    args = [q, k, v]
    lens = None
    if case[7].get("lens"):  # a full sequence, a short one, an empty one, ...
        sq = case[3]
        lens = torch.tensor([(sq, sq // 3 + 5, 0)[b % 3] for b in range(case[0])],
                            dtype=torch.int32, device="cuda")
        args.append(lens)
    if "runtime" in case[7]:
        args += prepare_mask(runtime_mask(case, torch, "cuda"), torch)
    outs = module.main(*args)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    torch.cuda.synchronize()
    ref, lse_ref = reference(case, q, k, v, torch, lens)
    err = ((outs[0].float() - ref).abs().max() / ref.abs().max()).item()
    ok = err <= BOUND
    line = f"  {name:24s} rel {err:.1e}"
    # Rows that see no key: exactly 0 (and lse -inf).
    empty = ~visible(case, torch, q.device, lens).any(-1)  # [Sq], or [B, 1, Sq]
    rows = outs[0].transpose(1, 2) if case[6] == "bshd" else outs[0]  # [B, H, Sq, d]
    rows_ok, text = check_rows(rows, empty, *((outs[1], lse_ref) if case[9] else ()))
    ok &= rows_ok
    line += text
    print(line + ("" if ok else "  FAIL"), flush=True)
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--emit", metavar="DIR", help="write each case's .cu into DIR and stop")
    parser.add_argument("--emitted", metavar="DIR", help="the cases' .cu files")
    parser.add_argument("--build", default=str(build_dir()), help="coda's build (coda-translate)")
    parser.add_argument("--builds", help="folder for the extensions (default: DIR/builds)")
    parser.add_argument("--only", help="comma-separated cases")
    parser.add_argument("--list", action="store_true", help="print the cases")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        sys.exit(f"check_attention: no case {', '.join(unknown)} (cases: {' '.join(CASES)})")
    if args.list:
        print(" ".join(CASES))
        return 0
    if args.emit:
        emit([(name, CASES[name]) for name in names], args.emit, args.build)
        return 0
    if not args.emitted:
        sys.exit("check_attention: give --emit DIR or --emitted DIR")
    import torch

    from coda.extension import build

    args.out = args.emitted
    args.builds = args.builds or os.path.join(args.emitted, "builds")
    # Built in parallel (each binding is seconds of g++ on the torch headers), then checked.
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(names)) as pool:
        modules = list(pool.map(
            lambda n: build(n, os.path.join(args.emitted, f"{n}.cu"), args)[0], names))
    ok = True
    for name, module in zip(names, modules):
        ok &= check(name, module, torch)
    print("all passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
