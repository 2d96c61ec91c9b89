#!/usr/bin/env python3
"""The Llama-3 block forward, whole and around attention, as linalg programs.

The block benchmark runs `forward` (RMSNorm, the QKV projection, RoPE on q and k, causal GQA
attention, o-projection + residual, RMSNorm, the SwiGLU MLP, residual) as one coda program, and
`post(sdpa(pre(x)), x)`: `pre` and `post` as coda's kernels around torch's
scaled_dot_product_attention; torch.compile of `forward` is the contender
(python/coda/bench/blocks.py). This script exports `forward`, `pre` and `post` with torch-mlir:

    python3 bench/block_programs.py OUT_DIR [--small] [--f32] [--tokens M [--cache L]]

(--small: 64 tokens and a small model, for tests; default: 8192 tokens of Llama-3-8B;
--tokens M: only `pre` and `post` of Llama-3-8B at M tokens, the halves around attention of a
decode step of M sequences, for bench/decode.py; with --cache L, `pre` also writes the new K
and V into static caches of L rows at a cache position: blocks.pre_decode.)
"""
import argparse
import os

import torch

from coda.bench.blocks import LLAMA3_8B, SMALL, forward, inputs, post, pre, pre_decode
from coda.bench.programs import write_program


def caches(s, length, dtype):
    """Static K and V caches [M, L, NKV, HD] and the position a decode step writes at."""
    k, v = (torch.zeros(s["M"], length, s["NKV"], s["HD"], dtype=dtype) for _ in range(2))
    return k, v, torch.tensor([length - 1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--f32", action="store_true")
    parser.add_argument("--tokens", type=int)
    parser.add_argument("--cache", type=int, help="with --tokens: the caches' rows")
    args = parser.parse_args()
    if args.cache and not args.tokens:
        parser.error("--cache goes with --tokens")
    s = SMALL if args.small else LLAMA3_8B
    if args.tokens:
        s = dict(LLAMA3_8B, M=args.tokens)
    dtype = torch.float32 if args.f32 else torch.bfloat16
    x, g1, w_qkv, cos, sin, w_o, g2, w_gu, w_down = inputs(s, dtype)
    attn = torch.empty(s["M"], s["NQ"] * s["HD"], dtype=dtype)
    os.makedirs(args.out, exist_ok=True)
    for name, fn, xs, what in [
            ("forward", lambda *a: forward(*a, s), (x, g1, w_qkv, cos, sin, w_o, g2, w_gu, w_down),
             "forward"),
            ("pre", pre, (x, g1, w_qkv, cos, sin), "pre attention") if not args.cache else
            ("pre", pre_decode, (x, g1, w_qkv, cos, sin) + caches(s, args.cache, dtype),
             f"pre attention, appending to caches of {args.cache} rows"),
            ("post", post, (attn, x, w_o, g2, w_gu, w_down), "post attention")][
                1 if args.tokens else 0:]:
        write_program(args.out, name,
                      f"the Llama-3 block {what} at {s}, written by bench/block_programs.py",
                      fn, xs)


if __name__ == "__main__":
    main()
