#!/usr/bin/env python3
"""T3 for decoding over a KV cache: each case is a whole decode step (coda.decode.step_program:
the new K and V rows appended at pos[b], then coda.attention over the cache with len[b] =
pos[b] + Sq keys), emitted with its PyTorch binding, built, and run on the GPU. Checks:
- the output against an fp32 PyTorch reference over the appended caches: max|out - ref| /
  max|ref| <= 1e-2; rows that see no key exactly 0 with lse = -inf;
- the LSE (where the case returns it) within 1e-2;
- the caches bit-exact against the reference append, and updated in place: the binding
  returns the cache tensors it was given;
at ragged lengths (1, 7, 129, 4097 and 32769 in one batch), GQA 4:1 and 8:1, MHA and MQA, d 64
and 128, bf16 and f16, both layouts, a speculative step of 4 queries under a causal window, and
paged caches (pages of 16 and 256 rows drawn at random from a pool twice the needed size).
The case `qkv_append` is the QKV half of a decode step as torch-mlir exports it
(examples/torch/llama_decode_pre_bf16.mlir: RMSNorm, QKV, RoPE, index_copy_ into token-major
caches): the caches updated in place, the rows at the position and q within 1e-2 of an fp32
PyTorch reference, every other row untouched.
Exit status 0 when every case passes.

Usage: check_decode.py --emit DIR [--build DIR]     (where LLVM is: write the .cu files)
       check_decode.py --emitted DIR [--only A,B]   (on the GPU machine: build and run)
       check_decode.py --list
"""
import argparse
import concurrent.futures
import os
import sys

from coda import decode, tools
from coda.attention import check_rows
from coda.paths import ROOT, build_dir

BOUND = 1e-2


def case(b, hq, hkv, sq, cap, d, layout="bhsd", dtype="bf16", mask=None, lse=False, lens=(),
         page=None):
    return {"B": b, "Hq": hq, "Hkv": hkv, "Sq": sq, "cap": cap, "d": d, "layout": layout,
            "dtype": dtype, "mask": mask or {}, "lse": lse, "lens": lens, "page": page}


CASES = {
    # Ragged lengths in one batch, Llama-3's GQA 32:8.
    "gqa4_ragged": case(5, 32, 8, 1, 32784, 128, lse=True, lens=(1, 7, 129, 4097, 32769)),
    "mqa_d64_f16_bshd": case(3, 8, 1, 1, 4200, 64, "bshd", "f16", lens=(4097, 1, 129)),
    "mha_d128": case(2, 8, 8, 1, 300, 128, lens=(129, 7)),
    # A speculative step: 4 queries under a causal window, GQA 8:1 (32 packed rows), one
    # sequence shorter than the step (its first rows see nothing).
    "gqa8_speculative": case(2, 32, 4, 4, 4200, 128, "bshd", mask={"causal": 1, "left": 1023},
                             lse=True, lens=(4097, 2)),
    "b64_window_f16": case(64, 32, 8, 1, 4096, 128, dtype="f16", mask={"left": 1023},
                           lens=tuple(64 * i + 1 for i in range(64))),
    "b1_l32k": case(1, 32, 8, 1, 32768, 128, lse=True, lens=(32768,)),
    # Paged: vLLM's [N, 16, Hkv, d] pools, and pages of 256 rows head-major.
    "paged16_gqa4_bshd": case(4, 32, 8, 1, 4160, 128, "bshd", lse=True, lens=(1, 17, 4097, 300),
                              page=16),
    "paged256_mqa_f16": case(2, 8, 1, 2, 8192, 64, dtype="f16", mask={"causal": 1},
                             lens=(8192, 255), page=256),
}


# Programs from examples/torch, fused by coda-opt.
EXPORTED_CASES = {"qkv_append": "llama_decode_pre_bf16"}


def check_exported(name, module, torch):
    from coda.bench.blocks import SMALL, pre_decode, random_inputs

    s = dict(SMALL, M=4)
    x, g1, w_qkv, cos, sin = random_inputs(s)[:5]
    caches = [torch.randn(s["M"], 64, s["NKV"], s["HD"], device="cuda").to(torch.bfloat16)
              for _ in range(2)]
    at = torch.tensor([37], device="cuda")
    given = [c.clone() for c in caches]
    kc, vc, q = module.main(x, g1, w_qkv, cos, sin, *given, at)
    torch.cuda.synchronize()
    ref_caches = [c.float() for c in caches]
    q_ref = pre_decode(*(t.float() for t in (x, g1, w_qkv, cos, sin)), *ref_caches, at)
    in_place = kc.data_ptr() == given[0].data_ptr() and vc.data_ptr() == given[1].data_ptr()
    keep = torch.ones(64, dtype=torch.bool, device="cuda")
    keep[37] = False
    untouched = all(bool(torch.equal(c[:, keep], c0[:, keep])) for c, c0 in ((kc, caches[0]),
                                                                             (vc, caches[1])))
    errs = [((a[:, 37].float() - r[:, 37]).abs().max() / r[:, 37].abs().max()).item()
            for a, r in ((kc, ref_caches[0]), (vc, ref_caches[1]))]
    errs.append(((q.float() - q_ref).abs().max() / q_ref.abs().max()).item())
    ok = in_place and untouched and max(errs) <= BOUND
    print(f"  {name:18s} {'in place' if in_place else 'COPIED'}, "
          f"{'other rows untouched' if untouched else 'OTHER ROWS CHANGED'}, rel k {errs[0]:.1e} "
          f"v {errs[1]:.1e} q {errs[2]:.1e}" + ("" if ok else "  FAIL"), flush=True)
    return ok


def check(name, module, torch):
    c = CASES[name]
    dtype = torch.bfloat16 if c["dtype"] == "bf16" else torch.float16
    qs, ns, cs, _ = decode.shapes(c)
    torch.manual_seed(0)
    q, kn, vn, kc, vc = (torch.randn(*s, device="cuda").to(dtype) for s in (qs, ns, ns, cs, cs))
    lens = torch.tensor(c["lens"], dtype=torch.int32, device="cuda")
    pos = lens - c["Sq"]
    table = decode.page_table(c, torch, "cuda") if c["page"] else None
    # The reference append on contiguous caches: positions below 0 are dropped, as past the
    # capacity.
    seq = 2 if c["layout"] == "bhsd" else 1
    k_ref, v_ref = (decode.gather(c, x, table).clone() for x in (kc, vc))
    for b in range(c["B"]):
        for t in range(c["Sq"]):
            p = int(pos[b]) + t
            if 0 <= p < c["cap"]:
                k_ref[b].select(seq - 1, p).copy_(kn[b].select(seq - 1, t))
                v_ref[b].select(seq - 1, p).copy_(vn[b].select(seq - 1, t))
    pools = [decode.scatter(c, x, table, ref) for x, ref in ((kc, k_ref), (vc, v_ref))]
    outs = list(module.main(q, kn, vn, kc, vc, *([table] if c["page"] else []), pos, lens))
    torch.cuda.synchronize()
    out, k1, v1 = outs[0], outs[-2], outs[-1]
    ok = True
    line = f"  {name:18s}"
    in_place = k1.data_ptr() == kc.data_ptr() and v1.data_ptr() == vc.data_ptr()
    exact = bool(torch.equal(k1, pools[0])) and bool(torch.equal(v1, pools[1]))
    ok &= in_place and exact
    line += " append " + ("exact" if exact else "WRONG") + (", in place" if in_place else ", COPIED")
    ref, lse_ref = decode.reference(c, q, k_ref, v_ref, lens, torch)
    err = ((out.float() - ref).abs().max() / ref.abs().max()).item()
    ok &= err <= BOUND
    line += f", rel {err:.1e}"
    empty = ~decode.visible(c, lens, torch).any(-1)  # [B, 1, Sq]
    rows = out.transpose(1, 2) if c["layout"] == "bshd" else out  # [B, Hq, Sq, d]
    rows_ok, text = check_rows(rows, empty, *((outs[1], lse_ref) if c["lse"] else ()))
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
    every = list(CASES) + list(EXPORTED_CASES)
    names = args.only.split(",") if args.only else every
    unknown = [n for n in names if n not in every]
    if unknown:
        sys.exit(f"check_decode: no case {', '.join(unknown)} (cases: {' '.join(every)})")
    if args.list:
        print(" ".join(every))
        return 0
    if args.emit:
        decode.emit([(n, decode.step_program(CASES[n])) for n in names if n in CASES], args.emit,
                    args.build)
        for n in names:
            if n in EXPORTED_CASES:
                program = os.path.join(ROOT, "examples", "torch", EXPORTED_CASES[n] + ".mlir")
                tools.fuse_and_emit(program, os.path.join(args.emit, f"{n}.cu"), args.build)
        return 0
    if not args.emitted:
        sys.exit("check_decode: give --emit DIR or --emitted DIR")
    import torch

    from coda.extension import build

    args.out = args.emitted
    args.builds = args.builds or os.path.join(args.emitted, "builds")
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(names)) as pool:
        modules = dict(zip(names, pool.map(
            lambda n: build(n, os.path.join(args.emitted, f"{n}.cu"), args)[0], names)))
    ok = True
    for name in names:
        ok &= (check_exported(name, modules[name], torch) if name in EXPORTED_CASES
               else check(name, modules[name], torch))
    print("all passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
