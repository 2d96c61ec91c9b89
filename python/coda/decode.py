"""Decode steps over a KV cache (coda.append + coda.attention with `cache`) and their PyTorch
reference, for test/gpu/check_decode.py and bench/decode.py.

A case is a dict: B, Hq, Hkv, Sq (the step's query rows: 1, or a speculative step's few),
cap (the cache's capacity), d, layout ("bhsd": caches [B, Hkv, cap, d]; "bshd": [B, cap, Hkv,
d]), dtype ("bf16" or "f16"), mask (#coda.mask parameters: "causal", "left"), lse (bool), and
optionally page (a paged cache: pools of pages of that many rows, [N, Hkv, page, d] or
[N, page, Hkv, d], and a page table argument [B, cap / page] of i32 before pos).
step_program() writes the whole step `@main(q, k_new, v_new, k_cache, v_cache, [table,] pos,
len) -> (out[, lse], k_cache, v_cache)`: the new rows appended at pos[b], then attention with
len[b] = pos[b] + Sq keys; attention_program() only the attention (`@main(q, k_cache, v_cache,
len) -> out`) and append_program() only one append (`@main(k_new, k_cache, pos) -> k_cache`).
visible() and reference() define the expected result from the rules of docs/semantics.md,
independently of the generated index arithmetic. torch is passed in: the emitting side needs no
torch.
"""
import math
import os
import subprocess

from coda.attention import masked_softmax_values


def _t(shape, element):
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


def pool_pages(case):
    """Pages in a paged case's pool: every sequence's, and as many spare."""
    return 2 * case["B"] * (case["cap"] // case["page"])


def shapes(case):
    """Q, new rows, cache (a paged case's pool) and LSE shapes of a case, in its layout."""
    b, hq, hkv, sq, cap, d = (case[k] for k in ("B", "Hq", "Hkv", "Sq", "cap", "d"))
    rows = cap
    if case.get("page"):
        b, rows = pool_pages(case), case["page"]
    if case["layout"] == "bhsd":
        return (case["B"], hq, sq, d), (case["B"], hkv, sq, d), (b, hkv, rows, d), (case["B"], hq, sq)
    return (case["B"], sq, hq, d), (case["B"], sq, hkv, d), (b, rows, hkv, d), (case["B"], hq, sq)


def _table(case):
    """The page table's type and the ops' pages(...) clause ('' for a contiguous cache)."""
    if not case.get("page"):
        return None, ""
    t = _t((case["B"], case["cap"] // case["page"]), "i32")
    return t, f" pages(%table : {t})"


def _attrs(case):
    mask = case.get("mask", {})
    parts = ["causal = true" if key == "causal" else f"{key} = {value}"
             for key, value in mask.items()]
    text = f" scale {1.0 / math.sqrt(case['d']):e}"
    if parts:
        text += f" mask <{', '.join(parts)}>"
    if case["layout"] == "bshd":
        text += " layout <bshd>"
    return text


def step_program(case):
    qs, ns, cs, ls = shapes(case)
    e, b = case["dtype"], case["B"]
    q, new, cache, lse, pos = _t(qs, e), _t(ns, e), _t(cs, e), _t(ls, "f32"), _t((b,), "i32")
    layout = " layout <bshd>" if case["layout"] == "bshd" else ""
    results = f"{q}, {lse}" if case["lse"] else q
    names = "%o, %lse" if case["lse"] else "%o"
    table, pages = _table(case)
    table_arg = f"%table: {table}, " if table else ""
    return f"""func.func @main(%q: {q}, %kn: {new}, %vn: {new}, %kc: {cache}, %vc: {cache}, {table_arg}%pos: {pos}, %len: {pos}) -> ({results}, {cache}, {cache}) {{
  %k1 = coda.append %kn into %kc at %pos{pages}{layout} : {new} into {cache} at {pos}
  %v1 = coda.append %vn into %vc at %pos{pages}{layout} : {new} into {cache} at {pos}
  {names} = coda.attention %q, %k1, %v1 cache(%len : {pos}){pages}{_attrs(case)}
      : {q}, {cache}, {cache} -> {results}
  return {names}, %k1, %v1 : {results}, {cache}, {cache}
}}
"""


def attention_program(case):
    qs, _, cs, _ = shapes(case)
    e, b = case["dtype"], case["B"]
    q, cache, lens = _t(qs, e), _t(cs, e), _t((b,), "i32")
    return f"""func.func @main(%q: {q}, %kc: {cache}, %vc: {cache}, %len: {lens}) -> {q} {{
  %o = coda.attention %q, %kc, %vc cache(%len : {lens}){_attrs(case)} : {q}, {cache}, {cache} -> {q}
  return %o : {q}
}}
"""


def append_program(case):
    _, ns, cs, _ = shapes(case)
    e, b = case["dtype"], case["B"]
    new, cache, pos = _t(ns, e), _t(cs, e), _t((b,), "i32")
    layout = " layout <bshd>" if case["layout"] == "bshd" else ""
    return f"""func.func @main(%kn: {new}, %kc: {cache}, %pos: {pos}) -> {cache} {{
  %k1 = coda.append %kn into %kc at %pos{layout} : {new} into {cache} at {pos}
  return %k1 : {cache}
}}
"""


def emit(programs, out, build):
    """Writes OUT/<name>.cu for each (name, program text) with coda-translate of `build`."""
    os.makedirs(out, exist_ok=True)
    translate = os.path.join(build, "bin", "coda-translate")
    for name, text in programs:
        subprocess.run([translate, "--coda-to-cuda", "--emit-torch-binding", "-o",
                        os.path.join(out, f"{name}.cu")], input=text, text=True, check=True)


def visible(case, lens, torch):
    """[B, 1, Sq, cap] booleans: query i of sequence b sits at r = len[b] - Sq + i and sees
    keys j < len[b] that the mask allows; rows with r < 0 see nothing."""
    sq, cap = case["Sq"], case["cap"]
    device = lens.device
    i = torch.arange(sq, device=device)[None, :, None]
    j = torch.arange(cap, device=device)[None, None, :]
    n = lens.long()[:, None, None]
    r = n - sq + i
    seen = (j < n) & (r >= 0)
    mask = case.get("mask", {})
    if mask.get("causal"):
        seen &= j <= r
    if "left" in mask:
        seen &= j >= r - mask["left"]
    return seen[:, None]


def page_table(case, torch, device):
    """A page table of a paged case: each sequence's pages drawn at random from the pool."""
    per = case["cap"] // case["page"]
    order = torch.randperm(pool_pages(case), generator=torch.Generator().manual_seed(1))
    return order[: case["B"] * per].view(case["B"], per).to(torch.int32).to(device)


def gather(case, pool, table):
    """A paged case's pool as contiguous caches, [B, Hkv, cap, d] or [B, cap, Hkv, d]."""
    if not case.get("page"):
        return pool
    seq = 2 if case["layout"] == "bhsd" else 1
    pages = pool[table.long()]  # [B, P, ...page...]
    if seq == 2:  # [B, P, Hkv, page, d] -> [B, Hkv, P·page, d]
        return pages.permute(0, 2, 1, 3, 4).flatten(2, 3)
    return pages.flatten(1, 2)  # [B, P, page, Hkv, d] -> [B, P·page, Hkv, d]


def scatter(case, pool, table, caches):
    """Writes contiguous caches back into a copy of a paged case's pool."""
    if not case.get("page"):
        return caches
    pool = pool.clone()
    b, per, page = case["B"], case["cap"] // case["page"], case["page"]
    if case["layout"] == "bhsd":  # [B, Hkv, P·page, d] -> [B, P, Hkv, page, d]
        pages = caches.unflatten(2, (per, page)).permute(0, 2, 1, 3, 4)
    else:
        pages = caches.unflatten(1, (per, page))
    pool[table.long().flatten()] = pages.flatten(0, 1)
    return pool


def reference(case, q, k, v, lens, torch):
    """fp32 attention of q over the (contiguous) caches k, v (out in the case's layout, lse
    [B, Hq, Sq])."""
    hq, hkv, d = case["Hq"], case["Hkv"], case["d"]
    if case["layout"] == "bshd":
        q, k, v = (x.transpose(1, 2) for x in (q, k, v))
    # Each KV head's group of query heads as the rows of one product (K and V not repeated).
    b, _, sq, _ = q.shape
    q = q.float().reshape(b, hkv, hq // hkv * sq, d)
    k, v = k.float(), v.float()
    s = (q @ k.transpose(-1, -2)) / math.sqrt(d)  # [B, Hkv, rep·Sq, cap]
    seen = visible(case, lens, torch)  # [B, 1, Sq, cap]
    s = s.view(b, hkv, hq // hkv, sq, -1).masked_fill(~seen[:, :, None], float("-inf"))
    out, lse = masked_softmax_values(s.view(b, hkv, hq // hkv * sq, -1), v, torch)
    out, lse = out.view(b, hq, sq, d), lse.view(b, hq, sq)
    if case["layout"] == "bshd":
        out = out.transpose(1, 2)
    return out, lse
