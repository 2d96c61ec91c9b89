"""coda.attention programs and their PyTorch reference, for test/gpu/check_attention.py and
bench/attention.py.

A case is a tuple (B, Hq, Hkv, Sq, Sk, d, layout, mask, dtype, lse, softcap): program() writes
the one-op coda program `@main(q, k, v[, lens]) -> out[, lse]` (layout "bhsd" or "bshd", mask a
dict of #coda.mask parameters, "lens": True for per-sequence lengths, an i32 [B] argument, and
"runtime": a runtime mask (runtime_mask() below), passed as its blocks and bits; dtype "bf16"
or "f16", a soft-cap score region when softcap is set),
emit() its .cu with the PyTorch binding, visible() the mask as a boolean [Sq, Sk] matrix built
from the rules of docs/semantics.md (independently of the generated index arithmetic), and
reference() the fp32 attention. prepare_mask() builds a runtime mask's blocks and bits from a
boolean mask, as a user would once per mask. torch is passed in: the emitting side needs no
torch.
"""
import math
import os
import subprocess


def shapes(case):
    b, hq, hkv, sq, sk, d, layout, *_ = case
    if layout == "bhsd":
        return (b, hq, sq, d), (b, hkv, sk, d), (b, hq, sq)
    return (b, sq, hq, d), (b, sk, hkv, d), (b, hq, sq)


def program(case):
    """The coda program of a case."""
    b, hq, hkv, sq, sk, d, layout, mask, dtype, lse, softcap = case
    (qs, ks, ls) = shapes(case)
    t = lambda s: f"tensor<{'x'.join(map(str, s))}x{dtype}>"
    q, k = t(qs), t(ks)
    lse_t = f"tensor<{'x'.join(map(str, ls))}xf32>"
    results = f"{q}, {lse_t}" if lse else q
    mask_attr = ""
    parts = [f"causal = true" if key == "causal" else f"{key} = {value}"
             for key, value in mask.items() if key not in ("lens", "runtime")]
    if parts:
        mask_attr = f" mask <{', '.join(parts)}>"
    lens = f"%n: tensor<{b}xi32>" if mask.get("lens") else ""
    lens_attr = f" lens(%n : tensor<{b}xi32>)" if lens else ""
    if "runtime" in mask:
        blocks_t, bits_t = (f"tensor<{'x'.join(map(str, s))}x{e}>"
                            for s, e in zip(runtime_shapes(case), ("i8", "i32")))
        lens += (", " if lens else "") + f"%blocks: {blocks_t}, %bits: {bits_t}"
        lens_attr += f" blocks(%blocks, %bits : {blocks_t}, {bits_t})"
    layout_attr = " layout <bshd>" if layout == "bshd" else ""
    scale = 1.0 / math.sqrt(d)
    names = "%o, %lse" if lse else "%o"
    score = ""
    if softcap:
        score = f"""
      score {{
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %cap = arith.constant {softcap:e} : f32
        %x = arith.divf %s, %cap : f32
        %y = math.tanh %x : f32
        %z = arith.mulf %y, %cap : f32
        coda.yield %z : f32
      }}"""
    ret = f"%o, %lse : {q}, {lse_t}" if lse else f"%o : {q}"
    return f"""func.func @main(%q: {q}, %k: {k}, %v: {k}{", " + lens if lens else ""}) -> ({results}) {{
  {names} = coda.attention %q, %k, %v{lens_attr} scale {scale:e}{mask_attr}{layout_attr}
      : {q}, {k}, {k} -> {results}{score}
  return {ret}
}}
"""


TILE = 128  # the tile a runtime mask's blocks classify (coda.attention, kMaskTile)


def runtime_shapes(case):
    """The shapes of a case's runtime mask: blocks [1, Mh, ⌈Sq/128⌉, ⌈Sk/128⌉] and bits
    [1, Mh, Sq, ⌈Sk/32⌉] (Mh: Hq for a mask per head, else 1)."""
    _, hq, _, sq, sk, _, _, mask, *_ = case
    mh = hq if mask["runtime"][0] == "tiles" else 1
    return ((1, mh, -(-sq // TILE), -(-sk // TILE)), (1, mh, sq, -(-sk // 32)))


def runtime_mask(case, torch, device):
    """A case's runtime mask as a boolean [1, Mh, Sq, Sk] tensor, from its "runtime" spec:
    ("tiles", seed): per head, 128 × 128 tiles hidden, shown or random per element (a third
    each); ("block_sparse", fraction, seed): a fraction of the tiles shown, the diagonal ones
    always; ("bigbird", window, globals, random, seed): a band of ±window/2 keys, the first
    `globals` keys and queries, and `random` random key tiles per query tile."""
    _, hq, _, sq, sk, *_ = case
    spec = case[7]["runtime"]
    gen = torch.Generator(device="cpu").manual_seed(spec[-1])
    qt, kt = -(-sq // TILE), -(-sk // TILE)
    expand = lambda t: t.repeat_interleave(TILE, -2).repeat_interleave(TILE, -1)[..., :sq, :sk]  # noqa: E731
    if spec[0] == "tiles":
        kind = torch.randint(0, 3, (hq, qt, kt), generator=gen)
        bits = torch.rand(hq, sq, sk, generator=gen) < 0.5
        mask = (expand(kind) == 1) | ((expand(kind) == 2) & bits)
    elif spec[0] == "block_sparse":
        keep = torch.rand(1, qt, kt, generator=gen) < spec[1]
        keep |= torch.eye(qt, kt, dtype=torch.bool)[None]
        mask = expand(keep)
    else:
        _, window, globals_, random, _ = spec
        i = torch.arange(sq)[:, None]
        j = torch.arange(sk)[None, :]
        mask = ((j - i).abs() <= window // 2) | (j < globals_) | (i < globals_)
        picks = torch.rand(qt, kt, generator=gen).argsort(-1)[:, :random]
        tiles = torch.zeros(qt, kt, dtype=torch.bool).scatter_(1, picks, True)
        mask = (mask | expand(tiles))[None]
    return mask[None].to(device)


def prepare_mask(mask, torch):
    """The blocks (int8 [Mb, Mh, ⌈Sq/128⌉, ⌈Sk/128⌉]) and bits (int32 [Mb, Mh, Sq, ⌈Sk/32⌉]) of
    a boolean mask [Mb, Mh, Sq, Sk] (True: visible), as coda.attention reads them."""
    mb, mh, sq, sk = mask.shape
    qt, kt = -(-sq // TILE), -(-sk // TILE)
    inside = torch.zeros(mb, mh, qt * TILE, kt * TILE, dtype=torch.bool, device=mask.device)
    padded = inside.clone()
    padded[..., :sq, :sk] = mask
    inside[..., :sq, :sk] = True
    tiles = lambda t: t.view(mb, mh, qt, TILE, kt, TILE)  # noqa: E731
    some = tiles(padded).any(5).any(3)
    every = tiles(padded | ~inside).all(5).all(3)
    blocks = torch.where(every & some, 1, torch.where(some, 2, 0)).to(torch.int8)
    words = -(-sk // 32)
    keys = torch.zeros(mb, mh, sq, words * 32, dtype=torch.long, device=mask.device)
    keys[..., :sk] = mask.long()
    weights = torch.ones(32, dtype=torch.long, device=mask.device) << torch.arange(
        32, device=mask.device)
    bits = (keys.view(mb, mh, sq, words, 32) * weights).sum(-1)
    bits = torch.where(bits >= 2**31, bits - 2**32, bits).to(torch.int32)
    return blocks.contiguous(), bits.contiguous()


def emit(cases, out, build):
    """Writes OUT/<name>.cu for each (name, case) with coda-translate of the build `build`."""
    os.makedirs(out, exist_ok=True)
    translate = os.path.join(build, "bin", "coda-translate")
    for name, case in cases:
        subprocess.run([translate, "--coda-to-cuda", "--emit-torch-binding", "-o",
                        os.path.join(out, f"{name}.cu")], input=program(case), text=True,
                       check=True)


def visible(case, torch, device, lens=None):
    """The #coda.mask of a case as a boolean [Sq, Sk] matrix; [B, 1, Sq, Sk] with the
    per-sequence lengths `lens` (then the query's position is its row); [1, Mh, Sq, Sk] with a
    runtime mask."""
    _, _, _, sq, sk, _, _, mask, *_ = case
    i = torch.arange(sq, device=device)[:, None]
    j = torch.arange(sk, device=device)[None, :]
    r = i + (sk - sq) if lens is None else i
    band = torch.ones(sq, sk, dtype=torch.bool, device=device)
    if mask.get("causal"):
        band &= j <= r
    if "left" in mask:
        band &= j >= r - mask["left"]
    if "right" in mask:
        band &= j <= r + mask["right"]
    if mask.get("dilation", 1) > 1:
        band &= (r - j) % mask["dilation"] == 0
    if "chunk" in mask:
        band &= torch.div(j, mask["chunk"], rounding_mode="floor") == torch.div(
            r, mask["chunk"], rounding_mode="floor")
    seen = band
    if mask.get("sinks"):
        sink = j < mask["sinks"]
        seen = seen | (sink & (j <= r) if mask.get("causal") else sink)
    if mask.get("global"):
        seen = seen | (j < mask["global"]) | (r < mask["global"])
    if lens is not None:
        n = lens.to(device).long()[:, None, None, None]
        seen = seen[None, None] & (i < n) & (j < n)
    if "runtime" in mask:
        seen = seen & runtime_mask(case, torch, device)
    return seen


def masked_softmax_values(s, v, torch):
    """softmax(s) · v over the last dimension of scores s (-inf where masked) and the LSE
    [..., rows]: rows that see no key give 0 and -inf."""
    m = s.amax(-1, keepdim=True)
    m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    p = torch.exp(s - m)
    total = p.sum(-1, keepdim=True)
    out = (p @ v) / torch.where(total > 0, total, torch.ones_like(total))
    return out, (m + torch.log(total)).squeeze(-1)


def reference(case, q, k, v, torch, lens=None):
    """fp32 attention (out in the case's layout, lse [B, Hq, Sq])."""
    b, hq, hkv, sq, sk, d, layout, mask, dtype, lse, softcap = case
    if layout == "bshd":
        q, k, v = (x.transpose(1, 2) for x in (q, k, v))
    q, k, v = (x.float() for x in (q, k, v))
    k = k.repeat_interleave(hq // hkv, dim=1)
    v = v.repeat_interleave(hq // hkv, dim=1)
    s = (q @ k.transpose(-1, -2)) / math.sqrt(d)
    if softcap:
        s = softcap * torch.tanh(s / softcap)
    s = s.masked_fill(~visible(case, torch, q.device, lens), float("-inf"))
    out, lse_ref = masked_softmax_values(s, v, torch)
    if layout == "bshd":
        out = out.transpose(1, 2)
    return out, lse_ref


def check_rows(rows, empty, lse=None, lse_ref=None):
    """The checks a kernel's output passes beyond its error: rows that see no key (`empty`,
    broadcast over rows [B, H, Sq, d]) exactly 0, and where an LSE came back, -inf on those
    rows and within 1e-2 of `lse_ref` elsewhere. Returns (ok, the text to add to the line)."""
    ok, text = True, ""
    empty = empty.expand(rows.shape[:3])
    if empty.any():
        zero = bool((rows[empty] == 0).all())
        ok &= zero
        text += f", {int(empty[:, 0].sum())} empty rows {'0' if zero else 'NOT 0'}"
    if lse is not None:
        finite = lse_ref.isfinite()
        lerr = (lse[finite] - lse_ref[finite]).abs().max().item() if finite.any() else 0.0
        inf_ok = bool((lse[~finite] == float("-inf")).all())
        ok &= lerr <= 1e-2 and inf_ok
        text += f", lse abs {lerr:.1e}" + ("" if inf_ok else " (-inf rows wrong)")
    return ok, text
