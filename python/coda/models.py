"""Reference models written the way their PyTorch implementations write them.

scripts/torch_to_linalg.py exports each of PROGRAMS with torch-mlir into examples/torch/, and
test/gpu/check_examples.py runs coda's kernels for the bf16 layers against the same functions in
fp32. The functions take their weights as arguments, so that the exported files stay small.

- PROGRAMS: name -> (function, argument maker) of every exported program;
- LAYERS: the transformers-style decoder and encoder layers ([B, S, D] activations), an MLP at
  unaligned sizes (odd_mlp) and one of batched products (batched_mlp), each exported as
  `<name>` (f32) and `<name>_bf16`;
- ATTENTION: attention alone, heads [B, H, S, d]: F.scaled_dot_product_attention on bf16 heads
  with is_causal, enable_gqa and a boolean attn_mask, and an explicit softmax with a
  per-sequence masked_fill in f32 and bf16 (S 200: tiles and words of a runtime mask cut
  short), and a decode step over transformers' static cache (index_copy_ at cache_position,
  SDPA over the cache of 200 rows), of one query and of two (a speculative step), and with the
  caches written by index assignment instead.
"""
import math

import torch
import torch.nn.functional as F

from coda.bench.blocks import SMALL, inputs, pre_decode


def r(*shape):
    return torch.randn(*shape)


# Small Llama-3-like sizes: tokens M, hidden D, heads H x head dim HD, KV heads KVH, FFN F.
M, D, H, HD, KVH, F_, V = 16, 64, 4, 16, 2, 96, 128


def rmsnorm(x, w, eps=1e-5):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def rope(x, cos, sin):
    return x * cos + rotate_half(x) * sin


def llama_block(x, attn_norm, wq, wk, wv, wo, mlp_norm, wg, wu, wd, cos, sin):
    h = rmsnorm(x, attn_norm)
    q = (h @ wq.t()).view(M, H, HD).transpose(0, 1)
    k = (h @ wk.t()).view(M, KVH, HD).transpose(0, 1)
    v = (h @ wv.t()).view(M, KVH, HD).transpose(0, 1)
    q, k = rope(q, cos, sin), rope(k, cos, sin)
    k = k.repeat_interleave(H // KVH, dim=0)
    v = v.repeat_interleave(H // KVH, dim=0)
    scores = (q @ k.transpose(1, 2)) / math.sqrt(HD)
    mask = torch.triu(torch.full((M, M), float("-inf")), diagonal=1)
    attn = torch.softmax(scores + mask, dim=-1) @ v
    x = x + attn.transpose(0, 1).reshape(M, H * HD) @ wo.t()
    h = rmsnorm(x, mlp_norm)
    return x + (F.silu(h @ wg.t()) * (h @ wu.t())) @ wd.t()


def gpt2_block(x, ln1_w, ln1_b, w_qkv, b_qkv, w_o, b_o, ln2_w, ln2_b, w_fc, b_fc, w_proj, b_proj):
    h = F.layer_norm(x, (D,), ln1_w, ln1_b)
    qkv = F.linear(h, w_qkv, b_qkv)
    q, k, v = qkv.split(D, dim=-1)
    q = q.view(M, H, HD).transpose(0, 1)
    k = k.view(M, H, HD).transpose(0, 1)
    v = v.view(M, H, HD).transpose(0, 1)
    mask = torch.triu(torch.full((M, M), float("-inf")), diagonal=1)
    attn = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(HD) + mask, dim=-1) @ v
    x = x + F.linear(attn.transpose(0, 1).reshape(M, D), w_o, b_o)
    h = F.layer_norm(x, (D,), ln2_w, ln2_b)
    return x + F.linear(F.gelu(F.linear(h, w_fc, b_fc), approximate="tanh"), w_proj, b_proj)


def gemma_mlp(x, norm_w, wg, wu, wd, w_lm, cap):
    # Gemma: RMSNorm with (1 + w), GeGLU (tanh GELU), logits soft-capped.
    h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * (1 + norm_w)
    x = x + (F.gelu(h @ wg.t(), approximate="tanh") * (h @ wu.t())) @ wd.t()
    logits = x @ w_lm.t()
    return x, torch.tanh(logits / cap) * cap


def lm_head_ce(x, norm_w, w_lm, labels):
    logits = rmsnorm(x, norm_w) @ w_lm.t()
    return F.cross_entropy(logits, labels)


# Decoder and encoder layers written the way their reference implementations in transformers
# write them: `[B, S, D]` activations, `F.linear` with biases where the model has them, norms
# that upcast to f32 and back, RoPE tables per position broadcast over the heads with
# `unsqueeze(1)`, attention through SDPA. Each is exported in f32 and in bf16.
B, S = 2, 8


def hf_rmsnorm(x, w, eps=1e-6, plus_one=False):
    dtype = x.dtype
    h = x.float()
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    if plus_one:  # Gemma: (1 + w), applied in f32
        return (h * (1.0 + w.float())).to(dtype)
    return w * h.to(dtype)


def hf_apply_rotary(q, k, cos, sin):
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def hf_heads(t, heads):
    return t.view(B, S, heads, HD).transpose(1, 2)


def hf_attention(q, k, v, causal=True):
    rep = q.shape[1] // k.shape[1]
    if rep > 1:  # transformers' repeat_kv
        k = k[:, :, None].expand(B, k.shape[1], rep, S, HD).reshape(B, q.shape[1], S, HD)
        v = v[:, :, None].expand(B, v.shape[1], rep, S, HD).reshape(B, q.shape[1], S, HD)
    a = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return a.transpose(1, 2).reshape(B, S, q.shape[1] * HD)


def hf_llama(x, ln1, wq, wk, wv, wo, ln2, wg, wu, wd, cos, sin, bq=None, bk=None, bv=None):
    # Llama / Mistral (GQA); with q/k/v biases, Qwen2.
    h = hf_rmsnorm(x, ln1)
    q = hf_heads(F.linear(h, wq, bq), H)
    k = hf_heads(F.linear(h, wk, bk), KVH)
    v = hf_heads(F.linear(h, wv, bv), KVH)
    q, k = hf_apply_rotary(q, k, cos, sin)
    x = x + F.linear(hf_attention(q, k, v), wo)
    h = hf_rmsnorm(x, ln2)
    return x + F.linear(F.silu(F.linear(h, wg)) * F.linear(h, wu), wd)


def hf_llama_decode(x, ln1, wq, wk, wv, wo, ln2, wg, wu, wd, cos, sin, k_cache, v_cache,
                    cache_position):
    """One decode step of hf_llama over transformers' static cache: x [B, 1, D], the new K and
    V written at cache_position (index_copy_), attention over the whole cache under the mask
    of every key up to the position. The caches are updated in place."""
    h = hf_rmsnorm(x, ln1)
    q = F.linear(h, wq).view(B, 1, H, HD).transpose(1, 2)
    k = F.linear(h, wk).view(B, 1, KVH, HD).transpose(1, 2)
    v = F.linear(h, wv).view(B, 1, KVH, HD).transpose(1, 2)
    q, k = hf_apply_rotary(q, k, cos, sin)
    k_cache.index_copy_(2, cache_position, k)
    v_cache.index_copy_(2, cache_position, v)
    mask = torch.arange(k_cache.shape[2])[None, :] <= cache_position[:, None]
    a = F.scaled_dot_product_attention(q, k_cache, v_cache, attn_mask=mask, enable_gqa=True)
    x = x + F.linear(a.transpose(1, 2).reshape(B, 1, H * HD), wo)
    h = hf_rmsnorm(x, ln2)
    return x + F.linear(F.silu(F.linear(h, wg)) * F.linear(h, wu), wd)


def hf_qwen2(x, ln1, wq, bq, wk, bk, wv, bv, wo, ln2, wg, wu, wd, cos, sin):
    return hf_llama(x, ln1, wq, wk, wv, wo, ln2, wg, wu, wd, cos, sin, bq, bk, bv)


def hf_opt(x, ln1_w, ln1_b, wq, bq, wk, bk, wv, bv, wo, bo, ln2_w, ln2_b, w1, b1, w2, b2):
    # OPT: pre-LayerNorm, biased projections, ReLU MLP.
    h = F.layer_norm(x, (D,), ln1_w, ln1_b)
    q = hf_heads(F.linear(h, wq, bq), H)
    k = hf_heads(F.linear(h, wk, bk), H)
    v = hf_heads(F.linear(h, wv, bv), H)
    x = x + F.linear(hf_attention(q, k, v), wo, bo)
    h = F.layer_norm(x, (D,), ln2_w, ln2_b)
    return x + F.linear(F.relu(F.linear(h, w1, b1)), w2, b2)


def hf_bert(x, wq, bq, wk, bk, wv, bv, wo, bo, ln1_w, ln1_b, wi, bi, wo2, bo2, ln2_w, ln2_b):
    # BERT: post-LayerNorm after each residual, bidirectional attention, GELU.
    q = hf_heads(F.linear(x, wq, bq), H)
    k = hf_heads(F.linear(x, wk, bk), H)
    v = hf_heads(F.linear(x, wv, bv), H)
    h = F.layer_norm(F.linear(hf_attention(q, k, v, causal=False), wo, bo) + x, (D,), ln1_w,
                     ln1_b, 1e-12)
    i = F.gelu(F.linear(h, wi, bi))
    return F.layer_norm(F.linear(i, wo2, bo2) + h, (D,), ln2_w, ln2_b, 1e-12)


def hf_gemma2(x, ln_in, wq, wk, wv, wo, ln_post_attn, ln_pre_ff, wg, wu, wd, ln_post_ff, cos,
              sin):
    # Gemma-2: (1 + w) RMSNorms before and after attention and the MLP, GeGLU.
    h = hf_rmsnorm(x, ln_in, plus_one=True)
    q = hf_heads(F.linear(h, wq), H)
    k = hf_heads(F.linear(h, wk), KVH)
    v = hf_heads(F.linear(h, wv), KVH)
    q, k = hf_apply_rotary(q, k, cos, sin)
    x = x + hf_rmsnorm(F.linear(hf_attention(q, k, v), wo), ln_post_attn, plus_one=True)
    h = hf_rmsnorm(x, ln_pre_ff, plus_one=True)
    m = F.linear(F.gelu(F.linear(h, wg), approximate="tanh") * F.linear(h, wu), wd)
    return x + hf_rmsnorm(m, ln_post_ff, plus_one=True)


def hf_partial_rotary(q, k, cos, sin):
    rot = cos.shape[-1]
    qr, kr = hf_apply_rotary(q[..., :rot], k[..., :rot], cos, sin)
    return torch.cat((qr, q[..., rot:]), -1), torch.cat((kr, k[..., rot:]), -1)


def hf_gpt_neox(x, ln1_w, ln1_b, w_qkv, b_qkv, w_o, b_o, ln2_w, ln2_b, w_fc, b_fc, w_proj,
                b_proj, cos, sin):
    # GPT-NeoX: fused q/k/v per head, partial rotary (rotary_pct 0.25), parallel residual.
    qkv = F.linear(F.layer_norm(x, (D,), ln1_w, ln1_b), w_qkv, b_qkv)
    qkv = qkv.view(B, S, H, 3 * HD).transpose(1, 2)
    q, k, v = qkv[..., :HD], qkv[..., HD:2 * HD], qkv[..., 2 * HD:]
    q, k = hf_partial_rotary(q, k, cos, sin)
    a = F.linear(hf_attention(q, k, v), w_o, b_o)
    h = F.layer_norm(x, (D,), ln2_w, ln2_b)
    return x + a + F.linear(F.gelu(F.linear(h, w_fc, b_fc)), w_proj, b_proj)


def hf_phi2(x, ln_w, ln_b, wq, bq, wk, bk, wv, bv, wd, bd, w1, b1, w2, b2, cos, sin):
    # Phi-2: one LayerNorm for attention and MLP in parallel, partial rotary (0.5), gelu_new.
    h = F.layer_norm(x, (D,), ln_w, ln_b)
    q = hf_heads(F.linear(h, wq, bq), H)
    k = hf_heads(F.linear(h, wk, bk), H)
    v = hf_heads(F.linear(h, wv, bv), H)
    q, k = hf_partial_rotary(q, k, cos, sin)
    a = F.linear(hf_attention(q, k, v), wd, bd)
    return x + a + F.linear(F.gelu(F.linear(h, w1, b1), approximate="tanh"), w2, b2)


def gpt_oss_mlp(x, w_gu, b_gu, w_d, b_d, alpha=1.702, limit=7.0):
    # gpt-oss: gate and up interleaved in one projection, both clamped, `(up + 1) * glu`.
    gu = F.linear(x, w_gu, b_gu)
    gate, up = gu[..., ::2].clamp(max=limit), gu[..., 1::2].clamp(min=-limit, max=limit)
    return F.linear((up + 1) * (gate * torch.sigmoid(gate * alpha)), w_d, b_d)


def odd_mlp(x, w1, b1, w2, b2):
    """An MLP at sizes that no 16-byte row fits: 129 features in, 1001 hidden, 7 out."""
    return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)


def batched_mlp(x, w1, b1, w2):
    """Products with a weight per batch element (torch.bmm, and matmul against a transposed
    batch), a bias shared by every batch, GELU between."""
    h = F.gelu(torch.bmm(x, w1) + b1)
    return torch.matmul(h, w2.transpose(1, 2))


def hf_args(*shapes):
    return lambda: tuple(r(*s) for s in shapes)


LAYERS = {
    "hf_llama": (hf_llama, hf_args(
        (B, S, D), (D,), (H * HD, D), (KVH * HD, D), (KVH * HD, D), (D, H * HD), (D,), (F_, D),
        (F_, D), (D, F_), (B, S, HD), (B, S, HD))),
    "hf_qwen2": (hf_qwen2, hf_args(
        (B, S, D), (D,), (H * HD, D), (H * HD,), (KVH * HD, D), (KVH * HD,), (KVH * HD, D),
        (KVH * HD,), (D, H * HD), (D,), (F_, D), (F_, D), (D, F_), (B, S, HD), (B, S, HD))),
    "hf_opt": (hf_opt, hf_args(
        (B, S, D), (D,), (D,), (D, D), (D,), (D, D), (D,), (D, D), (D,), (D, D), (D,), (D,),
        (D,), (4 * D, D), (4 * D,), (D, 4 * D), (D,))),
    "hf_bert": (hf_bert, hf_args(
        (B, S, D), (D, D), (D,), (D, D), (D,), (D, D), (D,), (D, D), (D,), (D,), (D,),
        (4 * D, D), (4 * D,), (D, 4 * D), (D,), (D,), (D,))),
    "hf_gemma2": (hf_gemma2, hf_args(
        (B, S, D), (D,), (H * HD, D), (KVH * HD, D), (KVH * HD, D), (D, H * HD), (D,), (D,),
        (F_, D), (F_, D), (D, F_), (D,), (B, S, HD), (B, S, HD))),
    "hf_gpt_neox": (hf_gpt_neox, hf_args(
        (B, S, D), (D,), (D,), (3 * D, D), (3 * D,), (D, D), (D,), (D,), (D,), (4 * D, D),
        (4 * D,), (D, 4 * D), (D,), (B, S, HD // 4), (B, S, HD // 4))),
    "gpt_oss_mlp": (gpt_oss_mlp, hf_args((B, S, D), (2 * F_, D), (2 * F_,), (D, F_), (D,))),
    "hf_phi2": (hf_phi2, hf_args(
        (B, S, D), (D,), (D,), (D, D), (D,), (D, D), (D,), (D, D), (D,), (D, D), (D,),
        (4 * D, D), (4 * D,), (D, 4 * D), (D,), (B, S, HD // 2), (B, S, HD // 2))),
    "odd_mlp": (odd_mlp, hf_args((B, S, 129), (1001, 129), (1001,), (7, 1001), (7,))),
    "batched_mlp": (batched_mlp, hf_args((3, 100, 136), (3, 136, 200), (200,), (3, 72, 200))),
}


def sdpa_causal(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def sdpa_gqa(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)


def sdpa_mask(q, k, v, mask):
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def masked_softmax_attention(q, k, v, hidden):
    # The explicit form: masked_fill of the hidden scores, softmax, product.
    scores = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    return torch.softmax(scores.masked_fill(hidden, float("-inf")), dim=-1) @ v


def position_mask(kind, sq, sk):
    """Masks written from positions, as FlexAttention's mask_mod or hand-written model code
    writes them: query i, key j (bottom-right aligned), True where the key is visible."""
    i = torch.arange(sq)[:, None] + (sk - sq)
    j = torch.arange(sk)[None, :]
    if kind == "dilated":  # LongNet-style: every 4th key before the query
        return (j <= i) & ((i - j) % 4 == 0)
    if kind == "chunked":  # Llama-4-style chunked local attention
        return (j <= i) & (i // 64 == j // 64)
    if kind == "longformer":  # a band of 16 each side and 8 global tokens
        return ((i - j).abs() <= 16) | (i < 8) | (j < 8)
    if kind == "sinks":  # StreamingLLM: a window of 32 and 4 sink tokens
        return (j <= i) & ((i - j < 32) | (j < 4))
    if kind == "irregular":  # dilated, and one more key for one query: no #coda.mask says it
        return ((j <= i) & ((i - j) % 4 == 0)) | ((i == 5) & (j == 0))
    raise ValueError(kind)


def sdpa_positions(kind):
    def attention(q, k, v):
        return F.scaled_dot_product_attention(
            q, k, v, attn_mask=position_mask(kind, q.shape[-2], k.shape[-2]))
    return attention


def softcapped_attention(q, k, v, cap=50.0):
    # Gemma-2's eager attention: scores soft-capped (tanh(s / cap) · cap), a causal additive
    # mask, the softmax in fp32.
    scores = (q @ k.transpose(-1, -2)) * q.shape[-1] ** -0.5
    scores = torch.tanh(scores / cap) * cap
    n = q.shape[-2]
    causal = torch.triu(torch.full((n, n), float("-inf")), diagonal=1)
    return torch.softmax((scores + causal).float(), dim=-1).to(q.dtype) @ v


def static_cache_decode(q, k, v, k_cache, v_cache, cache_position):
    """A decode step over transformers' static cache: the new keys and values written at
    cache_position with index_copy_ (StaticCache.update), then SDPA over the whole cache under
    the mask transformers builds from cache_position (every key up to the position). The
    caches are updated in place: the exported function returns them after the output."""
    k_cache.index_copy_(2, cache_position, k)
    v_cache.index_copy_(2, cache_position, v)
    mask = torch.arange(k_cache.shape[2])[None, :] <= cache_position[:, None]
    return F.scaled_dot_product_attention(q, k_cache, v_cache, attn_mask=mask, enable_gqa=True)


def static_cache_index_put(q, k, v, k_cache, v_cache, cache_position):
    """static_cache_decode with the caches written by index assignment, as StaticCache.update
    does where index_copy_ is missing."""
    k_cache[:, :, cache_position] = k
    v_cache[:, :, cache_position] = v
    mask = torch.arange(k_cache.shape[2])[None, :] <= cache_position[:, None]
    return F.scaled_dot_product_attention(q, k_cache, v_cache, attn_mask=mask, enable_gqa=True)


def heads(*shape):
    return r(*shape).to(torch.bfloat16)


AS, AD = 200, 64
ATTENTION = {
    "sdpa_causal_bf16": (sdpa_causal, lambda: tuple(heads(B, H, AS, AD) for _ in range(3))),
    "sdpa_gqa_bf16": (sdpa_gqa, lambda: (heads(B, H, AS, AD), heads(B, KVH, AS, AD),
                                         heads(B, KVH, AS, AD))),
    "sdpa_mask_bf16": (sdpa_mask, lambda: tuple(heads(B, H, AS, AD) for _ in range(3)) + (
        torch.rand(AS, AS) > 0.5,)),
    **{f"sdpa_{kind}_bf16": (sdpa_positions(kind), lambda: tuple(
        heads(B, H, AS, AD) for _ in range(3)))
       for kind in ("dilated", "chunked", "longformer", "sinks", "irregular")},
    "softcap_attention_bf16": (softcapped_attention, lambda: tuple(
        heads(B, H, AS, AD) for _ in range(3))),
    "masked_fill": (masked_softmax_attention, lambda: tuple(
        r(B, H, AS, AD) for _ in range(3)) + (torch.rand(B, 1, AS, AS) > 0.5,)),
    "static_cache_decode_bf16": (static_cache_decode, lambda: (
        heads(B, H, 1, AD), heads(B, KVH, 1, AD), heads(B, KVH, 1, AD), heads(B, KVH, AS, AD),
        heads(B, KVH, AS, AD), torch.tensor([AS // 2]))),
    "static_cache_index_put_bf16": (static_cache_index_put, lambda: (
        heads(B, H, 1, AD), heads(B, KVH, 1, AD), heads(B, KVH, 1, AD), heads(B, KVH, AS, AD),
        heads(B, KVH, AS, AD), torch.tensor([AS // 2]))),
    "static_cache_speculative_bf16": (static_cache_decode, lambda: (
        heads(B, H, 2, AD), heads(B, KVH, 2, AD), heads(B, KVH, 2, AD), heads(B, KVH, AS, AD),
        heads(B, KVH, AS, AD), torch.tensor([AS // 2, AS // 2 + 1]))),
    "masked_fill_bf16": (masked_softmax_attention, lambda: (
        heads(B, H, AS, AD) for _ in range(3)) + (torch.rand(B, 1, AS, AS) > 0.5,)),
}


def bf16(make_args):
    return lambda: tuple(a.to(torch.bfloat16) for a in make_args())


PROGRAMS = {
    "llama3_block": (llama_block, lambda: (
        r(M, D), r(D), r(H * HD, D), r(KVH * HD, D), r(KVH * HD, D), r(D, H * HD), r(D),
        r(F_, D), r(F_, D), r(D, F_), r(M, HD), r(M, HD))),
    "gpt2_block": (gpt2_block, lambda: (
        r(M, D), r(D), r(D), r(3 * D, D), r(3 * D), r(D, D), r(D), r(D), r(D), r(4 * D, D),
        r(4 * D), r(D, 4 * D), r(D))),
    "gemma_block": (gemma_mlp, lambda: (
        r(M, D), r(D), r(F_, D), r(F_, D), r(D, F_), r(V, D), torch.tensor(30.0))),
    "lm_head_cross_entropy": (lm_head_ce, lambda: (
        r(M, D), r(D), r(V, D), torch.randint(0, V, (M,)))),
}
# A decode step of the Llama layer over a static cache of 64 rows (bf16; not a LAYERS entry:
# its caches are updated in place).
PROGRAMS["hf_llama_decode_bf16"] = (hf_llama_decode, lambda: bf16(lambda: (
    r(B, 1, D), r(D), r(H * HD, D), r(KVH * HD, D), r(KVH * HD, D), r(D, H * HD), r(D), r(F_, D),
    r(F_, D), r(D, F_), r(B, 1, HD), r(B, 1, HD), r(B, KVH, 64, HD), r(B, KVH, 64, HD)))() + (
    torch.tensor([7]),))
for _name, (_fn, _make_args) in LAYERS.items():
    PROGRAMS[_name] = (_fn, _make_args)
    PROGRAMS[_name + "_bf16"] = (_fn, bf16(_make_args))
PROGRAMS.update(ATTENTION)


def _llama_decode_pre_args(dtype):
    s = dict(SMALL, M=4)
    x, g1, w_qkv, cos, sin = inputs(s, dtype)[:5]
    k_cache, v_cache = (r(s["M"], 64, s["NKV"], s["HD"]).to(dtype) for _ in range(2))
    return x, g1, w_qkv, cos, sin, k_cache, v_cache, torch.tensor([37])


# The QKV half of a decode step of four sequences (coda.bench.blocks.pre_decode: RMSNorm, the
# QKV projection and RoPE, the new K and V written into static token-major caches of 64 rows
# with index_copy_), as bench/decode.py runs it at Llama-3-8B's shapes; in f32, the reference.
PROGRAMS["llama_decode_pre"] = (pre_decode, lambda: _llama_decode_pre_args(torch.float32))
PROGRAMS["llama_decode_pre_bf16"] = (pre_decode, lambda: _llama_decode_pre_args(torch.bfloat16))
