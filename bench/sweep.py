#!/usr/bin/env python3
"""The shape sweep: the eight anchor fusions at the shapes of several published model families
and four token counts, coda against cuBLAS GEMM alone and torch.compile max-autotune.

The anchors (bench/anchors.py) are measured at one shape, Llama-3-8B's at M = 8192, where stage
2's tuning database has entries. This sweep asks how coda does where nobody tuned: each case of
python/coda/bench/programs.py at each family's sizes (hidden sizes from 2304 to 16384) and
M in {256, 1024, 4096, 16384}. Every case runs twice in one interleaved run: coda with the
analytic model alone (`coda_analytic`) and with the GPU's tuning database (`coda`; where the
database has no entry for a kernel both are the same file), beside cuBLAS (torch.matmul of the
case's product) and torch.compile(mode="max-autotune-no-cudagraphs").

Three steps, the first two where LLVM and torch-mlir are, the last on the GPU:

    python3 bench/sweep.py export DIR [--families F,..] [--cases C,..] [--m M,..]
    python3 bench/sweep.py emit DIR [--build BUILD]  [same filters]
    python3 bench/sweep.py run DIR [--reps N] [--no-autotune] [--resume] [--results DIR] [same filters]

`export` writes DIR/<family>/<case>_m<M>.mlir (torch-mlir); `emit` writes beside each its
`.analytic.cu` and `.tuned.cu` (coda-opt --coda-fuse, coda-translate --target for the
GPU with and without --tuning-db); `run` builds them (CODA_KERNEL_OBJECTS: objects compiled
beforehand by test/gpu/kernel_objects.py), checks each against the case's PyTorch function in
fp32 and times the contenders, case by case (CUDA events around single calls, interleaved,
medians; `*_ms` queued behind a GPU sleep so that host work is hidden, `*_idle_ms` from an
idle GPU), and writes bench/results/sweep-<gpu>.json:
{"device", "cases": [{family, case, M, N, K, coda_ms, coda_analytic_ms, cublas_ms,
max_autotune_ms, max_rel_err, ..._idle_ms}]} (after every case, so that a run cut short keeps what it
measured), a chart of coda / cuBLAS against M (sweep-<gpu>.png, with matplotlib) and the
table of docs/benchmarks.md (bench/tables.py).
"""
import argparse
import concurrent.futures
import json
import os
import sys

from coda import gpus, paths

# Published sizes: hidden D, MLP width FFN, the QKV product's width (q, k and v heads), the QK
# product's (q and k heads), vocabulary V, head size HD.
FAMILIES = {
    "llama3-8b": dict(D=4096, FFN=14336, QKV=6144, QK=5120, V=128256, HD=128),
    "gemma2-2b": dict(D=2304, FFN=9216, QKV=4096, QK=3072, V=256000, HD=256),
    "qwen2.5-7b": dict(D=3584, FFN=18944, QKV=4608, QK=4096, V=152064, HD=128),
    "mistral-nemo-12b": dict(D=5120, FFN=14336, QKV=6144, QK=5120, V=131072, HD=128),
    "llama3-70b": dict(D=8192, FFN=28672, QKV=10240, QK=9216, V=128256, HD=128),
    "llama3.1-405b": dict(D=16384, FFN=53248, QKV=18432, QK=17408, V=128256, HD=128),
}
MS = [256, 1024, 4096, 16384]


# The cases, as bench/programs/anchor holds them (no torch needed to list them).
CASES = sorted(f[: -len(".mlir")] for f in os.listdir(os.path.join(paths.BENCH, "programs", "anchor"))
               if f.endswith(".mlir"))


def selected(args):
    """(family, case, M) for every case the filters keep."""
    families = args.families.split(",") if args.families else list(FAMILIES)
    cases = args.cases.split(",") if args.cases else CASES
    ms = [int(m) for m in args.m.split(",")] if args.m else MS
    for name, known in [("family", FAMILIES), ("case", CASES)]:
        unknown = [x for x in (families if name == "family" else cases) if x not in known]
        if unknown:
            sys.exit(f"sweep: no {name} {', '.join(unknown)} (known: {', '.join(known)})")
    return [(f, c, m) for f in families for c in cases for m in ms]


def sizes(family, m):
    return dict(FAMILIES[family], M=m)


def stem(folder, family, case, m):
    return os.path.join(folder, family, f"{case}_m{m}")


def export(args):
    from coda.bench import programs

    for family, case, m in selected(args):
        os.makedirs(os.path.join(args.dir, family), exist_ok=True)
        programs.write_program(os.path.join(args.dir, family), f"{case}_m{m}",
                               f"{case} at {sizes(family, m)} ({family}), written by bench/sweep.py (torch-mlir)",
                               programs.CASES[case], programs.inputs(case, sizes(family, m)))


def emit(args):
    from coda import tools

    db = gpus.tuning_db(os.path.join(paths.ROOT, "data", "tuning"), args.gpu)
    target = "h100-sxm" if "h100" in args.gpu.lower() else "h200"
    jobs = []
    for family, case, m in selected(args):
        s = stem(args.dir, family, case, m)
        jobs.append((s + ".mlir", s + ".analytic.cu", [f"--target={target}"]))
        jobs.append((s + ".mlir", s + ".tuned.cu", [f"--target={target}", f"--tuning-db={db}"]))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        for cu in pool.map(lambda j: tools.fuse_and_emit(j[0], j[1], args.build,
                                                         translate_flags=j[2]), jobs):
            print(f"wrote {os.path.relpath(cu, args.dir)}", flush=True)


def draw(results, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    cases = sorted({r["case"] for r in results["cases"]})
    fig, axes = plt.subplots(2, 4, figsize=(16, 7), sharey=True)
    for ax, case in zip(axes.flat, cases):
        for family in FAMILIES:
            rows = sorted((r for r in results["cases"] if r["case"] == case and r["family"] == family
                           and "coda_ms" in r), key=lambda r: r["M"])
            if rows:
                ax.plot([r["M"] for r in rows], [r["coda_ms"] / r["cublas_ms"] for r in rows],
                        marker="o", label=family)
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_title(case)
        ax.set_xlabel("M (tokens)")
    axes.flat[0].set_ylabel("coda / cuBLAS GEMM alone")
    axes.flat[0].legend(fontsize=7)
    fig.suptitle(f"Shape sweep, {results['device']}")
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def run(args):
    import torch

    from coda import extension
    from coda.bench import anchors, programs

    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0a")
    device = torch.cuda.get_device_name()
    os.makedirs(args.results, exist_ok=True)
    json_path = gpus.results_path(args.results, "sweep", device, "json")
    results = {"device": device, "torch": torch.__version__, "reps": args.reps, "cases": []}
    if os.path.exists(json_path):  # a filtered run replaces its own rows only
        with open(json_path) as f:
            old = json.load(f)
        if old.get("device") == device:
            results["cases"] = old["cases"]
    args.out, args.builds = args.dir, os.path.join(args.dir, "builds")
    todo = selected(args)
    if args.resume:  # a sweep spread over several runs: what this GPU measured stays
        done = {(r["family"], r["case"], r["M"]) for r in results["cases"]
                if "coda_ms" in r and (args.no_autotune or "max_autotune_ms" in r)}
        todo = [job for job in todo if job not in done]

    def build(job):
        family, case, m = job
        s = stem(args.dir, family, case, m)
        name = f"{family}_{case}_m{m}".replace(".", "_").replace("-", "_")
        analytic = extension.build(name + "_analytic", s + ".analytic.cu", args)[0]
        with open(s + ".analytic.cu") as a, open(s + ".tuned.cu") as t:
            same = a.read() == t.read()
        tuned = analytic if same else extension.build(name + "_tuned", s + ".tuned.cu", args)[0]
        return analytic, tuned

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        modules = dict(zip(todo, pool.map(build, todo)))
    ok = True
    for family, case, m in todo:
        analytic, tuned = modules[(family, case, m)]
        fn = programs.CASES[case]
        torch.manual_seed(0)
        row = {"family": family, "case": case, "M": m}
        try:
            xs = anchors.random_inputs(case, sizes(family, m))
            fns, errs = anchors.checked_contenders(case, xs,
                                                   {"coda": tuned, "coda_analytic": analytic})
            fns["cublas"] = fns.pop("cublas_gemm")
            a, b = xs[anchors.GEMM[case][0]], xs[anchors.GEMM[case][1]]
            if not args.no_autotune:
                autotuned = torch.compile(fn, mode="max-autotune-no-cudagraphs")
                fns["max_autotune"] = lambda: autotuned(*xs)
                fns["max_autotune"]()  # compile and autotune before timing
            ms = anchors.time_interleaved(fns, args.reps)
            # The GPU's time queued behind a sleep (host work hidden), and from an idle GPU.
            row.update(N=b.shape[0], K=a.shape[1], max_rel_err=max(errs.values()),
                       **{f"{label}_ms": ms[f"{label}_queued"] for label in fns},
                       **{f"{label}_idle_ms": ms[label] for label in fns})
            passed = all(e <= anchors.BOUND for e in errs.values())
        except (RuntimeError, torch.OutOfMemoryError) as e:  # recorded, not fatal
            row["error"] = str(e).splitlines()[0][:200]
            passed = False
        ok &= passed
        results["cases"] = [r for r in results["cases"]
                            if (r["family"], r["case"], r["M"]) != (family, case, m)] + [row]
        with open(json_path, "w") as f:
            json.dump(results, f, indent=1)
        timing = " ".join(f"{k[:-3]} {v:.3f}" for k, v in row.items()
                          if k.endswith("_ms") and not k.endswith("_idle_ms"))
        ratio = f" coda/cuBLAS {row['coda_ms'] / row['cublas_ms']:.3f}" if "coda_ms" in row else ""
        print(f"{family:17s} {case:17s} M={m:<6d} {timing}{ratio} "
              f"{row.get('error', '')}{'' if passed else '  FAIL'}", flush=True)
        torch.cuda.empty_cache()
    draw(results, gpus.results_path(args.results, "sweep", device, "png"))
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["export", "emit", "run"])
    parser.add_argument("dir", help="folder of the programs and emitted files")
    parser.add_argument("--families", help="comma-separated (default: all)")
    parser.add_argument("--cases", help="comma-separated (default: all eight)")
    parser.add_argument("--m", help="comma-separated token counts (default: 256,1024,4096,16384)")
    parser.add_argument("--build", default=paths.build_dir(), help="emit: the LLVM build of coda")
    parser.add_argument("--gpu", default="NVIDIA H200",
                        help="emit: the GPU to plan for and whose tuning database to read")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--no-autotune", action="store_true", help="run: skip max-autotune")
    parser.add_argument("--resume", action="store_true",
                        help="run: skip the cases the results file already has for this GPU "
                             "(with max-autotune unless --no-autotune)")
    parser.add_argument("--results", default=os.path.join(paths.BENCH, "results"))
    args = parser.parse_args()
    return {"export": export, "emit": emit, "run": run}[args.step](args) or 0


if __name__ == "__main__":
    sys.exit(main())
