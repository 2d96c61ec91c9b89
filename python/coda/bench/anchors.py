"""The anchor benchmark's parts: coda's builds of the anchor cases, their timing and report.

build_case() fuses and emits a case (`coda-opt --coda-fuse`, `coda-translate --coda-to-cuda
--emit-torch-binding`, or the files emitted beforehand) and builds it (coda.extension);
bench_case() checks and times it against its contenders (time_interleaved, kernel_times,
launch_costs); write_reports() writes the JSON, the chart and the Markdown table. bench/block.py,
bench/sustained.py and bench/tune.py time and check their kernels with the same parts. The
command line and its method: bench/anchors.py.
"""
import json
import os
import statistics
import sys
import time

import torch

from coda import extension, gpus, paths, tools
from coda.bench import programs

BOUND = 2e-2
# The GEMM of each case as (index of A, index of B) among its inputs; B is [N, K].
GEMM = {"bias_gelu": (0, 1), "residual_rmsnorm": (0, 1), "rmsnorm_qkv": (0, 2),
        "layernorm_qkv": (0, 3), "swiglu": (0, 1), "qk_rope": (0, 1), "lm_head_ce": (0, 1),
        "down_residual": (0, 1)}


def fuse_and_emit(name, program, args, fuse="--coda-fuse", translate_flags=()):
    """`coda-opt <fuse>` of `program`, then `coda-translate` with the PyTorch binding, the
    tuning database (where there is one) and `translate_flags`, into OUT/<name>.cu; without the
    tools, the file emitted there beforehand."""
    cu = os.path.join(args.out, f"{name}.cu")
    translate = os.path.join(args.build, "bin", "coda-translate")
    if os.path.exists(translate):
        db = [f"--tuning-db={args.tuning_db}"] if os.path.exists(args.tuning_db) else []
        tools.fuse_and_emit(program, cu, args.build, fuse, [*db, *translate_flags])
    elif not os.path.exists(cu):
        sys.exit(f"no {translate} and no {cu}")
    return cu


def random_inputs(case, sizes=programs.ANCHOR):
    def make(*shape):
        return (torch.randn(*shape, device="cuda") * 0.5).to(torch.bfloat16)

    xs = list(programs.inputs(case, sizes, device="cuda", make=make))
    gamma = {"rmsnorm_qkv": 1, "layernorm_qkv": 1, "residual_rmsnorm": 3}.get(case)
    if gamma is not None:  # norm weights near 1
        xs[gamma] = (1 + 0.1 * torch.randn_like(xs[gamma].float())).to(torch.bfloat16)
    if case == "lm_head_ce":
        xs[2] = torch.randint(0, sizes["V"], (sizes["M"],), device="cuda")
    if case == "qk_rope":
        m, hd = sizes["M"], sizes["HD"]
        pos = torch.arange(m, device="cuda", dtype=torch.float32)[:, None]
        freq = 500000.0 ** (-torch.arange(0, hd, 2, device="cuda").float() / hd)
        angles = torch.cat([pos * freq, pos * freq], dim=-1)
        xs[2], xs[3] = torch.cos(angles).to(torch.bfloat16), torch.sin(angles).to(torch.bfloat16)
    return tuple(xs)


# About 1 ms of GPU sleep at the H200's clocks: longer than any contender's host work per call.
QUEUE_CYCLES = 2_000_000


def time_interleaved(fns, reps):
    """Medians over `reps` alternations A B C ... of CUDA events around single calls, each
    contender timed twice per alternation: `NAME` from an idle GPU (the events also count the
    host's launch work the GPU waits for) and `NAME_queued` behind a GPU sleep that lets the host
    run ahead (the GPU time alone, as in a stream of calls or a CUDA graph)."""
    times = {}
    for _ in range(3):  # warm-up
        for f in fns.values():
            f()
    torch.cuda.synchronize()
    for _ in range(reps):
        for queued in (False, True):
            for name, f in fns.items():
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                if queued:
                    torch.cuda._sleep(QUEUE_CYCLES)
                start.record()
                f()
                end.record()
                end.synchronize()
                times.setdefault(name + ("_queued" if queued else ""), []).append(start.elapsed_time(end))
    return {name: statistics.median(t) for name, t in times.items()}


def kernel_times(fn, reps=10):
    """The GPU kernels one call of `fn` runs, with their mean times in µs (torch.profiler):
    where a fused function's time goes, kernel by kernel."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    times = {}
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            times[event.name] = times.get(event.name, 0.0) + event.time_range.elapsed_us() / reps
    return sorted(([name[:100], round(us, 1)] for name, us in times.items()), key=lambda x: -x[1])


def launch_costs(fns, names, reps=25):
    """Where a call's time goes besides its kernels, per contender: `host_us`, the host time of
    one call from an idle GPU (the events above count it whenever the GPU waits for the launch),
    and `graph_ms`, the GPU time of the same call replayed from a CUDA graph (no host work)."""
    costs = {}
    for name in names:
        fn, host = fns[name], []
        for _ in range(reps):
            torch.cuda.synchronize()
            t = time.perf_counter()
            fn()
            host.append((time.perf_counter() - t) * 1e6)
        torch.cuda.synchronize()
        costs[name] = {"host_us": statistics.median(host)}
        try:
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                fn()  # allocations made outside the capture first
            torch.cuda.current_stream().wait_stream(stream)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                fn()
            costs[name]["graph_ms"] = time_interleaved({name: graph.replay}, reps)[name]
        except RuntimeError as e:  # a call that cannot be captured still has its host time
            costs[name]["graph_error"] = str(e).splitlines()[0][:200]
    return costs


def tuned_variant(case, tuning_dir, db_path):
    """The variant of `case` in `tuning_dir` whose configuration the tuning database `db_path`
    holds for its kernel (what bench/tune.py measured fastest), else the baseline it was timed
    against (rank 0)."""
    with open(os.path.join(tuning_dir, "manifest.json")) as f:
        variants = [v for v in json.load(f)["variants"] if v["case"] == case]
    chosen = {}
    if os.path.exists(db_path):
        with open(db_path) as f:
            chosen = json.load(f).get("kernels", {})
    best = [v for v in variants if chosen.get(v["key"]) == v["config"]]
    return (best or [v for v in variants if v["rank"] == 0])[0]


# coda's variants as contenders: name -> (suffix of the emitted file, fuse flag, translate flags).
# One per default path of the back end that coda-translate --cuda-without=PATH leaves out, named
# after it, and the epilogue rounded to bf16 after every op.
DEFAULT = ("", "--coda-fuse", ())
WITHOUT_PATHS = ("tma-halves", "tma-contract", "tma-tables", "overlap-rows", "whole-waves",
                 "direct-launch")
VARIANTS = {"coda_bf16": ("_bf16", "--coda-fuse=fp32-epilogues=false", ())}
VARIANTS.update((f"coda_without_{path.replace('-', '_')}",
                 (f"_without_{path.replace('-', '_')}", "--coda-fuse", (f"--cuda-without={path}",)))
                for path in WITHOUT_PATHS)


def variants_asked(bf16_epilogues, without):
    """The VARIANTS that --bf16-epilogues and --cuda-without=PATH[,PATH...] ask for."""
    names = ["coda_bf16"] if bf16_epilogues else []
    for paths_ in without or []:
        for path in paths_.split(","):
            if path not in WITHOUT_PATHS:
                raise ValueError(f"--cuda-without: unknown path '{path}' "
                                 f"(known: {', '.join(WITHOUT_PATHS)})")
            names.append(f"coda_without_{path.replace('-', '_')}")
    return names


def add_tuning_db_argument(parser):
    parser.add_argument("--tuning-db", default=None,
                        help="bench/tune.py's measured configurations, for coda-translate "
                             "(default: this GPU's data/tuning/tuning-<gpu>.json where there is "
                             "one, else tuning-h200.json; the analytic model where absent)")


def resolve_tuning_db(args):
    """--tuning-db's default, once the GPU is known."""
    if args.tuning_db is None:
        args.tuning_db = gpus.tuning_db(paths.TUNING, torch.cuda.get_device_name())


def build_case(case, args, variant=DEFAULT):
    suffix, fuse, translate_flags = variant
    if args.from_tuning and variant == DEFAULT:  # the tuner's build, emitted the same way
        name = tuned_variant(case, args.from_tuning, args.tuning_db)["name"]
        return extension.build(name, os.path.join(args.from_tuning, f"{name}.cu"), args)
    program = os.path.join(paths.BENCH, "programs", "anchor", f"{case}.mlir")
    name = f"anchor_{case}{suffix}"
    return extension.build(name, fuse_and_emit(name, program, args, fuse, translate_flags),
                                args)


def checked_contenders(case, xs, modules):
    """Each module of `modules` ({contender: module}) as a call on the case's inputs `xs`, run
    once and checked against the case's PyTorch function in fp32, and the case's product alone
    through cuBLAS (`cublas_gemm`): ({contender: call}, {contender: largest relative error})."""
    refs = extension.fp32_reference(programs.CASES[case], xs)
    fns, errs = {}, {}
    for name, module in modules.items():
        fns[name], errs[name] = extension.checked_call(module, xs, refs)
    a, b = xs[GEMM[case][0]], xs[GEMM[case][1]]
    fns["cublas_gemm"] = lambda: torch.matmul(a, b.t())
    return fns, errs


def bench_case(case, built, args):
    """`built`: {contender: (module, build seconds)} for "coda" and the VARIANTS asked for."""
    fn = programs.CASES[case]
    torch.manual_seed(0)
    xs = random_inputs(case)
    fns, errs = checked_contenders(case, xs, {name: module for name, (module, _) in built.items()})
    err = errs["coda"]
    a, b = xs[GEMM[case][0]], xs[GEMM[case][1]]
    fns["eager"] = lambda: fn(*xs)
    if not args.no_compile:
        compiled = torch.compile(fn)
        autotuned = torch.compile(fn, mode="max-autotune-no-cudagraphs")
        fns["compile"], fns["compile_max_autotune"] = (lambda: compiled(*xs)), (lambda: autotuned(*xs))
        for f in (fns["compile"], fns["compile_max_autotune"]):
            f()  # compile (and autotune) before timing
    ms = time_interleaved(fns, args.reps)
    result = {f"{name}_ms": t for name, t in ms.items()}
    result.update(ratio_vs_gemm=ms["coda"] / ms["cublas_gemm"],
                  ratio_queued_vs_gemm=ms["coda_queued"] / ms["cublas_gemm_queued"], max_rel_err=err,
                  passed=all(e <= BOUND for e in errs.values()), build_s=built["coda"][1],
                  M=a.shape[0], N=b.shape[0], K=a.shape[1])
    for name in VARIANTS:
        if name in ms:
            result[f"ratio_{name[5:]}_vs_gemm"] = ms[name] / ms["cublas_gemm"]
            result[f"ratio_{name[5:]}_queued_vs_gemm"] = ms[f"{name}_queued"] / ms["cublas_gemm_queued"]
            result[f"max_rel_err_{name[5:]}"] = errs[name]
    result["coda_kernels_us"] = kernel_times(fns["coda"])
    result["launch"] = launch_costs(fns, [n for n in fns if n.startswith("coda")] + ["cublas_gemm"])
    if "compile_max_autotune" in ms:
        result["ratio_compile_max_autotune_vs_gemm"] = ms["compile_max_autotune"] / ms["cublas_gemm"]
        result["ratio_compile_max_autotune_queued_vs_gemm"] = (ms["compile_max_autotune_queued"]
                                                               / ms["cublas_gemm_queued"])
    line = " ".join(f"{name} {t:7.3f}" for name, t in ms.items())
    errors = " ".join(f"{name} {e:.1e}" for name, e in errs.items())
    print(f"{case:18s} {line}  ratio {result['ratio_vs_gemm']:.3f} "
          f"(queued {result['ratio_queued_vs_gemm']:.3f})  rel err {errors}"
          + ("" if result["passed"] else "  FAIL"), flush=True)
    for name, cost in result["launch"].items():
        graph = f"{cost['graph_ms']:.3f} ms" if "graph_ms" in cost else cost["graph_error"]
        print(f"{'':20s}{name}: host {cost['host_us']:.1f} us per call, from a CUDA graph {graph}",
              flush=True)
    for name, us in result["coda_kernels_us"]:
        print(f"{'':20s}{us:9.1f} us  {name}", flush=True)
    return result


def write_reports(results, json_path, png_path, md_path):
    with open(json_path, "w") as f:
        json.dump(results, f, indent=2)
    rows = ["| case | coda ms | cuBLAS GEMM ms | coda / GEMM | queued: coda / GEMM | eager ms | "
            "compile ms | max-autotune ms | max-autotune / GEMM | queued: max-autotune / GEMM | "
            "max rel err | measured |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    def ms(r, key):  # "—" for a contender not timed (--no-compile)
        return f"{r[key]:.3f}" if key in r else "—"

    def measured(r):  # when, and on which GPU where that is not this run's
        device = r.get("device", results["device"])
        return r.get("measured", "—") + ("" if device == results["device"] else f", {device}")

    for case, r in results["cases"].items():
        rows.append(f"| {case} | {r['coda_ms']:.3f} | {r['cublas_gemm_ms']:.3f} | "
                    f"{r['ratio_vs_gemm']:.3f} | {ms(r, 'ratio_queued_vs_gemm')} | "
                    f"{r['eager_ms']:.3f} | {ms(r, 'compile_ms')} | "
                    f"{ms(r, 'compile_max_autotune_ms')} | "
                    f"{ms(r, 'ratio_compile_max_autotune_vs_gemm')} | "
                    f"{ms(r, 'ratio_compile_max_autotune_queued_vs_gemm')} | {r['max_rel_err']:.1e} | "
                    f"{measured(r)} |")
    rows += [f"\n{case}: {r['note']}" for case, r in results["cases"].items() if "note" in r]
    for name, (_, fuse, flags) in VARIANTS.items():  # coda's variants, same alternations
        timed = [(case, r) for case, r in results["cases"].items() if f"{name}_ms" in r]
        if not timed:
            continue
        v = name[5:]
        rows += ["", f"coda's variant `{v}` (`{' '.join([fuse, *flags])}`), timed in the same "
                 "alternations:", "",
                 f"| case | coda ms | {v} ms | coda / GEMM | {v} / GEMM | {v} max rel err |",
                 "|---|---|---|---|---|---|"]
        rows += [f"| {case} | {r['coda_ms']:.3f} | {r[f'{name}_ms']:.3f} | "
                 f"{r['ratio_vs_gemm']:.3f} | {r[f'ratio_{v}_vs_gemm']:.3f} | "
                 f"{r[f'max_rel_err_{v}']:.1e} |" for case, r in timed]
    with open(md_path, "w") as f:
        f.write(f"# Performance: the anchor cases on the {gpus.gpu_label(results['device'])}\n\n")
        f.write(f"Written by `bench/anchors.py` on {results['device']} (torch {results['torch']}); "
                f"medians of {results['reps']} interleaved alternations; ratios are time / cuBLAS "
                "GEMM alone in the same run (target ≤ 1.03). Each call is timed twice per "
                "alternation: from an idle GPU (the events count the host's launch work) and "
                "queued behind a GPU sleep (the GPU's time alone).\n\n")
        f.write("\n".join(rows) + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no matplotlib: no chart)")
        return
    cases = list(results["cases"])
    series = [("coda", "coda_ms"), ("eager", "eager_ms"), ("compile", "compile_ms"),
              ("max-autotune", "compile_max_autotune_ms")]
    for name in VARIANTS:
        if any(f"{name}_ms" in r for r in results["cases"].values()):
            series.insert(1, (name.replace("_", " "), f"{name}_ms"))
    fig, ax = plt.subplots(figsize=(11, 4))
    width = 0.8 / len(series)
    for i, (label, key) in enumerate(series):
        ratios = [results["cases"][c].get(key, float("nan")) / results["cases"][c]["cublas_gemm_ms"]
                  for c in cases]
        ax.bar([j + i * width for j in range(len(cases))], ratios, width, label=label)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(1.03, color="gray", linestyle="--", linewidth=0.8)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(cases))], cases, rotation=20)
    ax.set_ylabel("time / cuBLAS GEMM alone")
    ax.legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
