"""The anchor cases: eight bf16 PyTorch functions, their arguments, and their export to linalg.

CASES holds each case's function, its weights as arguments; inputs() makes its arguments at the
sizes ANCHOR (M = 8192, Llama-3-8B) or SMALL. write_program() exports a function with torch-mlir
into a program that `coda-opt --coda-fuse` and `coda-translate` compile (bench/anchor_programs.py
writes them all). The same functions are the PyTorch reference and the eager and torch.compile
contenders of bench/anchors.py. Only the export needs torch-mlir.
"""
import os

import torch
import torch.nn.functional as F

ANCHOR = dict(M=8192, D=4096, FFN=14336, QKV=6144, QK=5120, V=128256, HD=128)
SMALL = dict(M=256, D=512, FFN=1024, QKV=768, QK=640, V=4096, HD=128)
EPS = 1e-5


def rmsnorm(x, w):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS) * w.float()).to(x.dtype)


def rotate_half(t):
    half = t.shape[-1] // 2
    return torch.cat([-t[..., half:], t[..., :half]], dim=-1)


def bias_gelu(x, w, b):
    return F.gelu(x @ w.t() + b, approximate="tanh")


def residual_rmsnorm(x, w, r, gamma):
    h = r + x @ w.t()
    return h, rmsnorm(h, gamma)


def rmsnorm_qkv(x, gamma, w):
    return rmsnorm(x, gamma) @ w.t()


def layernorm_qkv(x, gamma, beta, w):
    return F.layer_norm(x, (x.shape[-1],), gamma, beta, EPS) @ w.t()


def swiglu(x, w_gu):
    a = x @ w_gu.t()
    gate, up = a.chunk(2, dim=-1)
    return F.silu(gate) * up


def qk_rope(x, w_qk, cos, sin):
    qk = x @ w_qk.t()
    m, n = qk.shape
    hd = cos.shape[-1]
    heads = qk.view(m, n // hd, hd)
    out = heads * cos[:, None, :] + rotate_half(heads) * sin[:, None, :]
    return out.view(m, n)


def lm_head_ce(x, w, labels):
    return F.cross_entropy((x @ w.t()).float(), labels)


def down_residual(h, w, r):
    return r + h @ w.t()


def inputs(case, s, device="cpu", make=None):
    """The arguments of `case` at sizes `s` (bf16; `make(shape)` fills them, default empty)."""
    make = make or (lambda *shape: torch.empty(*shape, dtype=torch.bfloat16, device=device))
    M, D = s["M"], s["D"]
    if case == "bias_gelu":
        return make(M, D), make(s["FFN"], D), make(s["FFN"])
    if case == "residual_rmsnorm":
        return make(M, D), make(D, D), make(M, D), make(D)
    if case == "rmsnorm_qkv":
        return make(M, D), make(D), make(s["QKV"], D)
    if case == "layernorm_qkv":
        return make(M, D), make(D), make(D), make(s["QKV"], D)
    if case == "swiglu":
        return make(M, D), make(2 * s["FFN"], D)
    if case == "qk_rope":
        return make(M, D), make(s["QK"], D), make(M, s["HD"]), make(M, s["HD"])
    if case == "lm_head_ce":
        return make(M, D), make(s["V"], D), torch.zeros(M, dtype=torch.long, device=device)
    if case == "down_residual":
        return make(M, s["FFN"]), make(D, s["FFN"]), make(M, D)
    raise KeyError(case)


CASES = {f.__name__: f for f in [bias_gelu, residual_rmsnorm, rmsnorm_qkv, layernorm_qkv, swiglu,
                                 qk_rope, lm_head_ce, down_residual]}


def write_program(out_dir, name, header, fn, args):
    """Writes `fn(*args)` exported by torch-mlir (coda.exporting, the function named @main) to
    OUT_DIR/<name>.mlir under a comment line."""
    from coda.exporting import export

    with open(os.path.join(out_dir, f"{name}.mlir"), "w") as f:
        f.write(f"// {header}\n")
        f.write(export(fn, *args))
    print(f"wrote {name}.mlir")
