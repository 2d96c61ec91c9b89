#!/usr/bin/env python3
"""The result tables of docs/benchmarks.md, rendered from the results in bench/results.

For every GPU with results (files named as python/coda/gpus.py names them, the H200's first):
anchors-<gpu>.json (bench/anchors.py) as time / cuBLAS GEMM alone per anchor case and
contender, with which cases are within the 1.03 target and faster than max-autotune;
block-<gpu>.json (bench/block.py) as coda's speed-up on the block forward; sustained-<gpu>.json
(bench/sustained.py) as time, clock and cycles against cuBLAS back to back at the power cap;
attention-<gpu>.json (bench/attention.py) as coda's attention against SDPA and FlexAttention;
decode-<gpu>.json (bench/decode.py) as decode attention's GB/s and share of the copy bandwidth
against SDPA, FlexAttention and torch.compile, the append against torch.cat and index_copy_,
and the whole decode step against torch.compile; sweep-<gpu>.json (bench/sweep.py) as the
geomean and worst coda / cuBLAS per family and M, and how often coda beats max-autotune.

    python3 bench/tables.py [--results DIR]             # print the Markdown
    python3 bench/tables.py --write docs/benchmarks.md  # replace the text between the markers

--write replaces what lies between the lines `<!-- tables.py: begin -->` and
`<!-- tables.py: end -->` of the file. Standard library only: no GPU, no torch.
"""
import argparse
import glob
import json
import math
import os
import re
import sys

from coda import gpus, paths

BEGIN, END = "<!-- tables.py: begin -->", "<!-- tables.py: end -->"
TARGET = 1.03
# Contenders of anchors.py after coda, by the prefix of their keys in the JSON.
CONTENDERS = [("torch.compile", "compile"), ("max-autotune", "compile_max_autotune"),
              ("eager", "eager")]


def load(path):
    with open(path) as f:
        return json.load(f)


def gpu_tags(results):
    """The GPU tags with results, the H200's first (the GPU the targets are set on): files
    `<stem>-<gpu>.json` whose device python/coda/gpus.py names <gpu>."""
    tags = set()
    for path in glob.glob(os.path.join(results, "*.json")):
        m = re.match(r"(anchors|block|sustained|attention|decode|sweep)-(.+)\.json$",
                     os.path.basename(path))
        if m and gpus.gpu_tag(load(path).get("device", "")) == m.group(2):
            tags.add(m.group(2))
    return sorted(tags, key=lambda t: (t != "h200", t))


def ratio(r, name, queued):
    """`name`'s time / cuBLAS's in row `r`, queued or from an idle GPU; None where not timed."""
    suffix = "_queued_ms" if queued else "_ms"
    t, gemm = r.get(name + suffix), r.get("cublas_gemm" + suffix)
    return t / gemm if t is not None and gemm else None


def pair(queued, idle, digits=3):
    """'queued (idle)', '—' for what was not timed."""
    fmt = lambda x: "—" if x is None else f"{x:.{digits}f}"  # noqa: E731
    return fmt(queued) if idle is None else f"{fmt(queued)} ({fmt(idle)})"


def anchors_table(runs):
    lines = ["**Anchor cases** (`bench/results/anchors-<gpu>.json`; time / cuBLAS GEMM alone, "
             "queued (idle); cuBLAS's own time queued):", "",
             "| GPU | case | cuBLAS ms | coda | " + " | ".join(n for n, _ in CONTENDERS)
             + " | coda max rel err |",
             "|---|---|---|---|" + "---|" * len(CONTENDERS) + "---|"]
    summary = []
    for tag, data in runs:
        label = gpus.gpu_label(data["device"])
        first = label
        met, faster = [], {True: 0, False: 0}
        for case, r in data["cases"].items():
            other = "" if r.get("device", data["device"]) == data["device"] else f" ({r['device']})"
            gemm = r.get("cublas_gemm_queued_ms", r["cublas_gemm_ms"])
            cells = [pair(ratio(r, "coda", True), ratio(r, "coda", False))]
            cells += [pair(ratio(r, key, True), ratio(r, key, False)) for _, key in CONTENDERS]
            lines.append(f"| {first} | {case}{other} | {gemm:.3f} | " + " | ".join(cells)
                         + f" | {r['max_rel_err']:.1e} |")
            first = ""
            if (ratio(r, "coda", True) or r["ratio_vs_gemm"]) <= TARGET:
                met.append(case)
            for queued in (True, False):
                coda, autotuned = ratio(r, "coda", queued), ratio(r, "compile_max_autotune", queued)
                if coda is not None and autotuned is not None and coda < autotuned:
                    faster[queued] += 1
        n = len(data["cases"])
        summary.append(f"- {label} (torch {data.get('torch', '?')}, {data.get('reps', '?')} "
                       f"alternations): within {TARGET} of cuBLAS, queued: "
                       f"{', '.join(met) or 'none'}; faster than max-autotune in {faster[True]} "
                       f"of {n} cases queued, {faster[False]} of {n} from an idle GPU.")
    return lines + [""] + summary


def block_table(blocks):
    lines = ["**Block forward** (`bench/results/block-<gpu>.json`; ms and speed-ups queued "
             "(idle); coda: the whole block with coda's attention, coda + SDPA: coda's kernels "
             "around PyTorch's SDPA; speed-ups of coda, or of coda + SDPA where coda was not run; max rel err "
             "against the fp32 forward, bf16 eager PyTorch's beside it):", "",
             "| GPU | coda ms | coda + SDPA ms | torch.compile ms | max-autotune ms | eager ms | "
             "coda vs torch.compile | vs max-autotune | vs eager | max rel err (eager) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for tag, b in blocks:
        ms = {k: pair(b[f"{k}_queued_ms"], b[f"{k}_ms"])
              for k in ("coda", "compile", "compile_max_autotune", "eager")}
        # Results without coda_sdpa timed the halves around SDPA as "coda".
        ms["coda_sdpa"] = (pair(b["coda_sdpa_queued_ms"], b["coda_sdpa_ms"])
                           if "coda_sdpa_ms" in b else ms.pop("coda"))
        ms.setdefault("coda", "—")
        speedup = {k: pair(b[f"{k}_queued_ms"] / b["coda_queued_ms"], b[f"{k}_ms"] / b["coda_ms"])
                   for k in ("compile", "compile_max_autotune", "eager")}
        lines.append(f"| {gpus.gpu_label(b['device'])} | {ms['coda']} | {ms['coda_sdpa']} | "
                     f"{ms['compile']} | {ms['compile_max_autotune']} | {ms['eager']} | "
                     f"{speedup['compile']} | {speedup['compile_max_autotune']} | "
                     f"{speedup['eager']} | {b['max_rel_err']:.1e} ({b['eager_max_rel_err']:.1e}) |")
    return lines


def sustained_table(runs):
    lines = ["**Sustained load** (`bench/results/sustained-<gpu>.json`; phases of the seconds "
             "given, medians over the rounds; MHz and W: SM clock and board power):", "",
             "| GPU | case | coda ms | cuBLAS ms | time / cuBLAS | clock / cuBLAS | "
             "cycles / cuBLAS | coda MHz, W | cuBLAS MHz, W |",
             "|---|---|---|---|---|---|---|---|---|"]
    for tag, data in runs:
        label = (f"{gpus.gpu_label(data['device'])} ({data['seconds']:g} s × "
                 f"{data['rounds']}, limit {float(data['power_limit_w']):.0f} W)")
        for case, r in data["cases"].items():
            lines.append(f"| {label} | {case} | {r['coda_ms']:.3f} | {r['cublas_gemm_ms']:.3f} | "
                         f"{r['ratio_vs_gemm']:.3f} | {r['clock_vs_gemm']:.3f} | "
                         f"{r['cycles_vs_gemm']:.3f} | {r['coda_sm_mhz']:.0f}, {r['coda_w']:.0f} | "
                         f"{r['cublas_gemm_sm_mhz']:.0f}, {r['cublas_gemm_w']:.0f} |")
            label = ""
    return lines


def attention_table(runs):
    lines = ["**Attention** (`bench/results/attention-<gpu>.json`; B 2, H 32, bf16, d 128 unless "
             "named; ms queued; TFLOP/s of visible pairs; speed-up = their time / coda's):", "",
             "| GPU | case | coda ms | TFLOP/s | SDPA ms | vs SDPA | FlexAttention ms | vs Flex | "
             "max rel err |", "|---|---|---|---|---|---|---|---|---|"]
    fmt = lambda x, d: "—" if x is None else f"{x:.{d}f}"  # noqa: E731
    for tag, data in runs:
        label = gpus.gpu_label(data["device"])
        for case, r in data["cases"].items():
            lines.append(f"| {label} | {case} | {r['coda_ms']:.3f} | {r['coda_tflops']:.0f} | "
                         f"{fmt(r['sdpa_ms'], 3)} | {fmt(r['ratio_vs_sdpa'], 2)} | "
                         f"{fmt(r['flex_ms'], 3)} | {fmt(r['ratio_vs_flex'], 2)} | "
                         f"{r['max_rel_err']:.1e} |")
            label = ""
    return lines


def decode_table(runs):
    fmt = lambda x, d: "—" if x is None else f"{x:.{d}f}"  # noqa: E731
    speed = lambda other, coda: "—" if other is None else f"{other / coda:.2f}"  # noqa: E731
    lines = ["**Decode** (`bench/results/decode-<gpu>.json`; one query row per sequence, Hq 32 / "
             "Hkv 8 (MQA: Hkv 1), d 128, bf16, caches of L rows; µs queued; GB/s of q, the "
             "sequences' K and V rows and the output, and its share of the device-to-device "
             "copy bandwidth measured in the same run; speed-up = their time / coda's):", "",
             "| GPU | case | coda µs | GB/s | of copy | SDPA µs | vs SDPA | Flex µs | vs Flex | "
             "torch.compile µs | vs compile | max rel err |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for tag, data in runs:
        label = gpus.gpu_label(data["device"])
        for case, r in data["cases"].items():
            c = r["coda_us"]
            lines.append(f"| {label} | {case} | {c:.1f} | {r['coda_gbps']:.0f} | "
                         f"{r['fraction_of_copy']:.0%} | {fmt(r['sdpa_us'], 1)} | "
                         f"{speed(r['sdpa_us'], c)} | {fmt(r['flex_us'], 1)} | "
                         f"{speed(r['flex_us'], c)} | {fmt(r['compile_us'], 1)} | "
                         f"{speed(r['compile_us'], c)} | {r['max_rel_err']:.1e} |")
            label = ""
    lines += ["", "**Append** (one new K row per KV head, B 1, Hkv 8, d 128, bf16; µs queued):",
              "", "| GPU | L | coda.append µs | torch.cat µs | vs cat | index_copy_ µs |",
              "|---|---|---|---|---|---|"]
    for tag, data in runs:
        label = gpus.gpu_label(data["device"])
        for length, r in data["append"].items():
            lines.append(f"| {label} | {length} | {r['coda_us']:.1f} | {r['cat_us']:.1f} | "
                         f"{r['cat_us'] / r['coda_us']:.1f} | {r['index_copy_us']:.1f} |")
            label = ""
    steps = [(tag, data) for tag, data in runs if data.get("step")]
    if steps:
        lines += ["", "**Decode step** (Llama-3-8B, L 8192; µs queued):", "",
                  "| GPU | case | coda µs | eager µs | torch.compile µs | vs compile | "
                  "max rel err (bf16 PyTorch) |", "|---|---|---|---|---|---|---|"]
        for tag, data in steps:
            label = gpus.gpu_label(data["device"])
            for case, r in data["step"].items():
                lines.append(f"| {label} | {case} | {r['coda_us']:.1f} | {r['eager_us']:.1f} | "
                             f"{r['compile_us']:.1f} | {r['compile_us'] / r['coda_us']:.2f} | "
                             f"{r['max_rel_err']:.1e} ({r['eager_max_rel_err']:.1e}) |")
                label = ""
    return lines


def sweep_table(runs):
    lines = ["**Shape sweep** (`bench/results/sweep-<gpu>.json`, bench/sweep.py; the eight anchor "
             "cases per family and M, queued: geomean and worst coda / cuBLAS GEMM "
             "alone, with the tuning database and with the analytic model alone, and the cases "
             "where coda is faster than max-autotune):", "",
             "| GPU | family | M | cases | coda / GEMM (worst) | analytic / GEMM (worst) | "
             "faster than max-autotune |", "|---|---|---|---|---|---|---|"]
    geomean = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))  # noqa: E731
    for tag, data in runs:
        label = gpus.gpu_label(data["device"])
        rows = [r for r in data["cases"] if "coda_ms" in r]
        for family in sorted({r["family"] for r in rows}):
            for m in sorted({r["M"] for r in rows if r["family"] == family}):
                group = [r for r in rows if r["family"] == family and r["M"] == m]
                tuned = [r["coda_ms"] / r["cublas_ms"] for r in group]
                analytic = [r["coda_analytic_ms"] / r["cublas_ms"] for r in group]
                timed = [r for r in group if "max_autotune_ms" in r]
                wins = sum(r["coda_ms"] < r["max_autotune_ms"] for r in timed)
                lines.append(f"| {label} | {family} | {m} | {len(group)} | "
                             f"{geomean(tuned):.3f} ({max(tuned):.3f}) | "
                             f"{geomean(analytic):.3f} ({max(analytic):.3f}) | "
                             + (f"{wins} of {len(timed)}" if timed else "—") + " |")
                label = ""
        failed = [r for r in data["cases"] if "coda_ms" not in r]
        if failed:
            lines.append("")
            lines += [f"- {gpus.gpu_label(data['device'])}: {r['family']} {r['case']} M {r['M']}: "
                      f"{r.get('error', 'not measured')}" for r in failed]
    return lines


def render(results):
    def runs(stem):
        files = [(tag, os.path.join(results, f"{stem}-{tag}.json")) for tag in gpu_tags(results)]
        return [(tag, load(path)) for tag, path in files if os.path.exists(path)]

    out = []
    for stem, table in (("anchors", anchors_table), ("block", block_table),
                        ("sustained", sustained_table), ("attention", attention_table),
                        ("decode", decode_table), ("sweep", sweep_table)):
        if runs(stem):
            out += table(runs(stem)) + [""]
    return "\n".join(out).rstrip() + "\n"


def write(path, tables):
    with open(path) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        sys.exit(f"tables.py: {path} has no '{BEGIN}' ... '{END}' markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(path, "w") as f:
        f.write(f"{head}{BEGIN}\n\n{tables}\n{END}{tail}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=os.path.join(paths.BENCH, "results"),
                        help="the results folder (default: bench/results)")
    parser.add_argument("--write", metavar="FILE", default=None,
                        help="replace the text between the markers in FILE instead of printing")
    args = parser.parse_args()
    tables = render(args.results)
    if args.write:
        write(args.write, tables)
    else:
        sys.stdout.write(tables)


if __name__ == "__main__":
    main()
