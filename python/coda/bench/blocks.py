"""The Llama-3 block around attention as PyTorch functions: `pre`, `post`, `forward` and data.

bench/block.py runs `forward` as `post(attention(pre(x)), x)` with `pre` and `post` coda's
kernels (their programs written by bench/block_programs.py from the functions here);
random_inputs() gives it, and half_setup() gives bench/tune.py, the same data every run.
"""
import torch
import torch.nn.functional as F

from coda.bench.programs import rmsnorm, rotate_half

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


def pre_decode(x, g1, w_qkv, cos, sin, k_cache, v_cache, cache_position):
    """`pre` of a decode step (one new token for each of M sequences) that also writes the new K
    and V into static caches [M, L, NKV, HD] at cache_position, with index_copy_ as
    transformers' StaticCache.update does (the caches token-major, as FlashAttention's and
    vLLM's are). Returns q; an exported program returns the updated caches after it."""
    q, k, v = pre(x, g1, w_qkv, cos, sin)
    m, hd = x.shape[0], cos.shape[-1]
    k_cache.index_copy_(1, cache_position, k.view(m, 1, -1, hd))
    v_cache.index_copy_(1, cache_position, v.view(m, 1, -1, hd))
    return q


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


def random_inputs(s):
    """`forward`'s arguments on the GPU, the same every run: x ~ N(0, 1), weights ~ N(0, 0.05²),
    norm weights near 1, Llama-3's RoPE tables (base 500000)."""
    torch.manual_seed(0)
    xs = list(inputs(s, device="cuda", make=lambda *shape: (
        torch.randn(*shape, device="cuda") * 0.05).to(torch.bfloat16)))
    xs[0] = (torch.randn(s["M"], s["D"], device="cuda")).to(torch.bfloat16)
    for g in (1, 6):  # norm weights near 1
        xs[g] = (1 + 0.1 * torch.randn(s["D"], device="cuda")).to(torch.bfloat16)
    pos = torch.arange(s["M"], device="cuda", dtype=torch.float32)[:, None]
    freq = 500000.0 ** (-torch.arange(0, s["HD"], 2, device="cuda").float() / s["HD"])
    angles = torch.cat([pos * freq, pos * freq], dim=-1)
    xs[3], xs[4] = torch.cos(angles).to(torch.bfloat16), torch.sin(angles).to(torch.bfloat16)
    return xs


def half_setup(half, s=LLAMA3_8B):
    """For bench/tune.py: the arguments of one half ("pre" or "post") of the block, the PyTorch
    function its program computes, and cuBLAS's products of that half alone (the yardstick).
    `post` gets the attention of `pre`'s eager result, as in the block."""
    x, g1, w_qkv, cos, sin, w_o, g2, w_gu, w_down = random_inputs(s)
    if half == "pre":
        return [x, g1, w_qkv, cos, sin], pre, lambda: torch.matmul(x, w_qkv.t())
    attn = attention(*pre(x, g1, w_qkv, cos, sin), s)
    act = torch.randn(s["M"], s["FFN"], device="cuda").to(torch.bfloat16)
    return [attn, x, w_o, g2, w_gu, w_down], post, lambda: (
        torch.matmul(attn, w_o.t()), torch.matmul(x, w_gu.t()), torch.matmul(act, w_down.t()))
