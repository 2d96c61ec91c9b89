#!/usr/bin/env python3
"""The Llama-3 block forward around attention, as PyTorch functions and linalg programs.

The block benchmark runs `post(sdpa(pre(x)), x)`: `pre` (RMSNorm, the QKV projection, RoPE on
q and k) and `post` (o-projection + residual, RMSNorm, the SwiGLU MLP, residual) as coda's
kernels, attention through torch's scaled_dot_product_attention; torch.compile of `forward`
is the contender. This script exports `pre` and `post` with torch-mlir:

    python3 bench/block_programs.py OUT_DIR [--small] [--f32]

(--small: 64 tokens and a small model, for tests; default: 8192 tokens of Llama-3-8B.)
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from anchor_programs import rmsnorm, rotate_half, write_program  # noqa: E402

LLAMA3_8B = dict(M=8192, D=4096, NQ=32, NKV=8, HD=128, FFN=14336)
SMALL = dict(M=64, D=512, NQ=4, NKV=2, HD=128, FFN=1024)


def pre(x, g1, w_qkv, cos, sin):
    """RMSNorm, QKV, RoPE (rotate-half) on q and k: [M, NQ·HD], [M, NKV·HD], [M, NKV·HD]."""
    hd = cos.shape[-1]
    m = x.shape[0]
    q_width = x.shape[1]  # NQ·HD = D in Llama
    kv_width = (w_qkv.shape[0] - q_width) // 2
    q, k, v = (rmsnorm(x, g1) @ w_qkv.t()).split([q_width, kv_width, kv_width], dim=-1)

    def rope(t):
        heads = t.view(m, -1, hd)
        return (heads * cos[:, None, :] + rotate_half(heads) * sin[:, None, :]).view(m, -1)

    return rope(q), rope(k), v


def post(attn, x, w_o, g2, w_gu, w_down):
    h = x + attn @ w_o.t()
    gate, up = (rmsnorm(h, g2) @ w_gu.t()).chunk(2, dim=-1)
    return h + (F.silu(gate) * up) @ w_down.t()


def attention(q, k, v, s):
    """SDPA between the halves: [M, heads·HD] → [1, heads, M, HD], GQA by repeating kv heads."""
    m, hd = q.shape[0], s["HD"]
    q = q.view(m, s["NQ"], hd).transpose(0, 1)[None]
    k = k.view(m, s["NKV"], hd).transpose(0, 1)[None].repeat_interleave(s["NQ"] // s["NKV"], 1)
    v = v.view(m, s["NKV"], hd).transpose(0, 1)[None].repeat_interleave(s["NQ"] // s["NKV"], 1)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return out[0].transpose(0, 1).reshape(m, s["NQ"] * hd)


def forward(x, g1, w_qkv, cos, sin, w_o, g2, w_gu, w_down, s):
    return post(attention(*pre(x, g1, w_qkv, cos, sin), s), x, w_o, g2, w_gu, w_down)


def inputs(s, dtype=torch.bfloat16, device="cpu", make=None):
    """Arguments of `forward` (without the sizes): x, g1, w_qkv, cos, sin, w_o, g2, w_gu, w_down."""
    make = make or (lambda *shape: torch.empty(*shape, dtype=dtype, device=device))
    qkv = (s["NQ"] + 2 * s["NKV"]) * s["HD"]
    return (make(s["M"], s["D"]), make(s["D"]), make(qkv, s["D"]), make(s["M"], s["HD"]),
            make(s["M"], s["HD"]), make(s["D"], s["NQ"] * s["HD"]), make(s["D"]),
            make(2 * s["FFN"], s["D"]), make(s["D"], s["FFN"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--f32", action="store_true")
    args = parser.parse_args()
    s = SMALL if args.small else LLAMA3_8B
    dtype = torch.float32 if args.f32 else torch.bfloat16
    x, g1, w_qkv, cos, sin, w_o, g2, w_gu, w_down = inputs(s, dtype)
    attn = torch.empty(s["M"], s["NQ"] * s["HD"], dtype=dtype)
    os.makedirs(args.out, exist_ok=True)
    for name, fn, xs in [("pre", pre, (x, g1, w_qkv, cos, sin)),
                         ("post", post, (attn, x, w_o, g2, w_gu, w_down))]:
        write_program(args.out, name,
                      f"the Llama-3 block {name} attention at {s}, written by bench/block_programs.py",
                      fn, xs)


if __name__ == "__main__":
    main()
