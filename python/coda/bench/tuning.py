"""Stage 2 of the configuration choice: the analytic model's best candidates timed on the GPU.

emit() writes, for every kernel of the programs stage 2 tunes, one .cu per configuration to time
(the model's candidates from coda-translate's `// coda-tuning-key:` and `// coda-candidate:`
comments, or a tuning database's choice and its neighbours: variants_of()) and a manifest;
measure() builds the variants, checks them against PyTorch, times each kernel's variants against
cuBLAS (coda.bench.anchors, coda.bench.sustained) and writes the fastest into a tuning database
(summarize()). The command line and its options: bench/tune.py.
"""
import argparse
import json
import os
import re
import subprocess
import sys

from coda import paths

CLUSTERS = ([2, 1], [1, 1], [1, 2], [2, 2])
# The wider epilogue subtile stage 2 tries (coda-translate's "epilogue_n"; 128 was no faster
# than 64 on bias + GELU, for twice the shared memory).
EPILOGUE_N = 64


def normal(config):
    """A configuration with coda-translate's defaults spelled out, for comparing entries."""
    return dict(config, swizzle=config.get("swizzle", 8), division=config.get("division", "ieee"))


def neighbours(config, divides=False):
    """`config` first, then the configurations one step from it that the model cannot rank: every
    other cluster shape, the explicit raster orders, no swizzle, the other epilogue subtile
    width (64 columns for CUTLASS's automatic 32, or back) and, where the epilogue `divides`
    (coda-translate listed a candidate with "division"), the other division."""
    out = [config]
    out += [dict(config, cluster=c) for c in CLUSTERS if c != config["cluster"]]
    if config["raster"] == "heuristic":
        out += [dict(config, raster=r) for r in ("along_m", "along_n")]
    if normal(config)["swizzle"] > 1:
        out.append(dict(config, swizzle=1))
    if "epilogue_n" in config:
        out.append({k: v for k, v in config.items() if k != "epilogue_n"})
    elif config["tile"][1] % EPILOGUE_N == 0:
        out.append(dict(config, epilogue_n=EPILOGUE_N))
    if divides and config.get("division") == "full":
        out.append({k: v for k, v in config.items() if k != "division"})
    elif divides:
        out.append(dict(config, division="full"))
    return out


def kernel_candidates(text):
    """Each kernel's key and the model's candidates [(config, model ms)] from coda-translate's
    comments, in file order."""
    kernels = []
    for line in text.splitlines():
        if line.startswith("// coda-tuning-key: "):
            kernels.append({"key": line.split(": ", 1)[1], "candidates": []})
        m = re.match(r"// coda-candidate: (\{.*\}) model ([0-9.]+) ms", line)
        if m:
            kernels[-1]["candidates"].append((json.loads(m.group(1)), float(m.group(2))))
    return kernels


def variants_of(kernel, top, around):
    """What to time for one kernel: the configuration `around` (a tuning database's kernels)
    holds, its neighbours and the model's best of the other schedule, baseline "database"; else
    the model's `top` candidates, baseline "model". Rank 0 is the baseline; the model's estimate
    rides along where it listed the same configuration."""
    model = [(normal(c), ms) for c, ms in kernel["candidates"]]
    if kernel["key"] not in around:
        return "model", kernel["candidates"][:top]
    config = around[kernel["key"]]
    configs = neighbours(config, any("division" in c for c, _ in kernel["candidates"]))
    # And the model's best of the other schedule: a database measured on one GPU can hold the
    # schedule another GPU ranks second (SwiGLU's fastest kernel is cooperative 128x256 on the
    # H100, ping-pong 128x128 on the H200).
    other = next((c for c, _ in kernel["candidates"]
                  if c["schedule"] != config["schedule"]), None)
    if other is not None and all(normal(other) != normal(c) for c in configs):
        configs.append(other)
    return "database", [(c, next((ms for m, ms in model if m == normal(c)), None))
                        for c in configs]


BLOCK_HALVES = ("pre", "post")


def programs():
    """The programs stage 2 tunes, by case name: every anchor case, then the two halves of the
    Llama-3-8B block (bench/block.py), whose kernels differ from the anchors'."""
    anchor_dir = os.path.join(paths.BENCH, "programs", "anchor")
    out = {f[: -len(".mlir")]: os.path.join(anchor_dir, f)
           for f in sorted(os.listdir(anchor_dir)) if f.endswith(".mlir")}
    for half in BLOCK_HALVES:
        out[f"block_{half}"] = os.path.join(paths.BENCH, "programs", "block", "llama3-8b",
                                            f"{half}.mlir")
    return out


def emit(args):
    sources = programs()
    if args.only and args.only not in sources:
        sys.exit(f"tune.py: no case '{args.only}' (cases: {', '.join(sources)})")
    cases = [args.only] if args.only else [c for c in sources
                                           if args.block or not c.startswith("block_")]
    around = {}
    if args.around:
        try:
            with open(args.around) as f:
                around = json.load(f)["kernels"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit(f"tune.py: --around {args.around}: not a tuning database ({e!r})")
    opt, translate = (os.path.join(args.build, "bin", t) for t in ("coda-opt", "coda-translate"))
    for tool in (opt, translate):
        if not os.path.exists(tool):
            sys.exit(f"tune.py: no {tool}: build coda first (./scripts/build.sh) or pass --build")
    os.makedirs(args.dir, exist_ok=True)
    manifest = {"variants": []}
    for case in cases:
        fused = os.path.join(args.dir, f"{case}.fused.mlir")
        subprocess.run([opt, "--coda-fuse", sources[case], "-o", fused], check=True)
        text = subprocess.run([translate, "--coda-to-cuda", fused], check=True,
                              capture_output=True, text=True).stdout
        for kernel in kernel_candidates(text):
            baseline, configs = variants_of(kernel, args.top, around)
            for rank, (config, model_ms) in enumerate(configs):
                name = f"{case}_{len(manifest['variants'])}"
                db = os.path.join(args.dir, f"{name}.db.json")
                with open(db, "w") as f:
                    json.dump({"kernels": {kernel["key"]: config}}, f)
                subprocess.run([translate, "--coda-to-cuda", "--emit-torch-binding",
                                f"--tuning-db={db}", fused, "-o", os.path.join(args.dir, f"{name}.cu")],
                               check=True)
                manifest["variants"].append({"name": name, "case": case, "key": kernel["key"],
                                             "config": config, "rank": rank, "model_ms": model_ms,
                                             "baseline": baseline})
    with open(os.path.join(args.dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    print(f"wrote {len(manifest['variants'])} variants into {args.dir}")


def rank_variants(ms):
    """From anchors.time_interleaved's medians (`NAME` from an idle GPU, `NAME_queued` behind a
    GPU sleep; "cublas_gemm" among them): the variants as (name, queued ms), fastest first, and
    cuBLAS's queued time. Variants are ranked by their GPU time alone (queued), which the host's
    launch work does not blur."""
    queued = {name[: -len("_queued")]: t for name, t in ms.items() if name.endswith("_queued")}
    gemm = queued.pop("cublas_gemm")
    return sorted(queued.items(), key=lambda kv: kv[1]), gemm


# A variant replaces the baseline only when it is at least this much faster: closer medians are
# within what moves between two runs of the same kernel (tied variants trade places from run to
# run), and a tie is no reason to change a kernel.
MIN_GAIN = 1.005


def summarize(case, group, ms, min_gain=MIN_GAIN, mhz=None):
    """One kernel's variants (`group`, from the manifest) and their medians `ms` (see
    rank_variants; with `mhz`, the SM clocks of a sustained measurement, `ms` holds each
    variant's time per call back to back instead): a line per variant, fastest first, the
    configuration chosen (the fastest, unless the baseline is within `min_gain` of it), and the
    database's record of the measurement beside it."""
    by_name = {v["name"]: v for v in group}
    if mhz is None:
        ranked, gemm = rank_variants(ms)
    else:
        gemm = ms["cublas_gemm"]
        ranked = sorted(((n, t) for n, t in ms.items() if n != "cublas_gemm"), key=lambda kv: kv[1])
    baseline = next(v for v in group if v["rank"] == 0)
    lines = []
    for name, t in ranked:
        v = by_name[name]
        model = "" if v["model_ms"] is None else f" (model {v['model_ms']:.3f})"
        how = (f"queued; idle {ms[name]:.3f} ms = {ms[name] / ms['cublas_gemm']:.3f}x" if mhz is None
               else f"back to back; {mhz[name]:.0f} MHz, cuBLAS {mhz['cublas_gemm']:.0f}")
        lines.append(f"{case:18s} rank {v['rank']} {json.dumps(v['config'])} {t:.3f} ms = "
                     f"{t / gemm:.3f}x cuBLAS {gemm:.3f} {how}{model}")
    best, best_ms = ranked[0]
    kind = baseline.get("baseline", "model")  # the model's choice, or the database's before
    baseline_ms = dict(ranked).get(baseline["name"])
    if best != baseline["name"] and baseline_ms and baseline_ms < min_gain * best_ms:
        best, best_ms = baseline["name"], baseline_ms
        lines.append(f"{case:18s} kept rank 0: the fastest is less than "
                     f"{100 * (min_gain - 1):.1f} % faster")
    entry = {"case": case, "best_ms": best_ms, "cublas_gemm_ms": gemm,
             f"{kind}_choice_ms": baseline_ms,
             f"gain_over_{kind}": baseline_ms / best_ms if baseline_ms else None,
             "times_ms": {json.dumps(by_name[n]["config"]): t for n, t in ranked}}
    if mhz is None:
        entry.update(idle_times_ms={json.dumps(by_name[n]["config"]): ms[n] for n, _ in ranked},
                     cublas_gemm_idle_ms=ms["cublas_gemm"])
    else:
        entry.update(regime="sustained",
                     sm_mhz={json.dumps(by_name[n]["config"]): mhz[n] for n, _ in ranked},
                     cublas_gemm_sm_mhz=mhz["cublas_gemm"])
    return lines, by_name[best]["config"], entry


def measure(args):
    import concurrent.futures

    import torch

    from coda import extension, gpus
    from coda.bench import anchors

    with open(os.path.join(args.dir, "manifest.json")) as f:
        variants = json.load(f)["variants"]
    if args.only:
        variants = [v for v in variants if v["case"] == args.only]
    build_args = argparse.Namespace(out=args.dir, builds=args.builds)
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0a")

    def build(v):
        try:
            return extension.build(v["name"], os.path.join(args.dir, v["name"] + ".cu"),
                                   build_args)[0]
        except Exception as e:  # one variant that does not build leaves the others standing
            print(f"{v['name']}: {json.dumps(v['config'])} did not build: "
                  f"{str(e).splitlines()[-1][:200]}", flush=True)
            return None

    def anchor_setup(case):
        torch.manual_seed(0)
        xs = anchors.random_inputs(case)
        a, b = xs[anchors.GEMM[case][0]], xs[anchors.GEMM[case][1]]
        return xs, anchors.programs.CASES[case], lambda: torch.matmul(a, b.t()), anchors.BOUND

    # Per case: its arguments, the PyTorch function, cuBLAS's products alone and the check's
    # bound (None: relative to bf16 PyTorch's error). Looked up before the builds, so that a
    # case that cannot be measured fails in seconds, not after minutes of nvcc.
    setups = {}
    for case in dict.fromkeys(v["case"] for v in variants):
        if case.startswith("block_"):
            from coda.bench import blocks  # an error here comes before the builds
            setups[case] = lambda half=case[len("block_"):]: (*blocks.half_setup(half), None)
        elif case in anchors.programs.CASES:
            setups[case] = lambda case=case: anchor_setup(case)
        else:
            sys.exit(f"tune.py: no way to measure case '{case}' of {args.dir}/manifest.json")
    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
        modules = dict(zip([v["name"] for v in variants], pool.map(build, variants)))
    if args.build_only:
        return
    if args.sustained:
        from coda.bench import sustained
        sampler = sustained.Sampler()
    device = torch.cuda.get_device_name()
    db_path = args.db or gpus.results_path(paths.TUNING, "tuning", device, "json")
    db = {"device": device, "kernels": {}, "measured": {}}
    if os.path.exists(db_path):
        with open(db_path) as f:
            db.update({k: v for k, v in json.load(f).items() if k in ("kernels", "measured")})
    # By case and key: one kernel (one key) can sit in two programs, as down + residual does in
    # its anchor and in the block's second half. The anchor times the kernel alone, a block half
    # times it among the half's other kernels: where both are here, the anchor measures it.
    anchor_keys = {v["key"] for v in variants if not v["case"].startswith("block_")}
    for case, key in dict.fromkeys((v["case"], v["key"]) for v in variants):
        if case.startswith("block_") and key in anchor_keys:
            print(f"{case:18s} {key}: measured by its anchor case (the kernel alone)", flush=True)
            continue
        group = [v for v in variants if v["case"] == case and v["key"] == key]
        xs, fn, products, bound = setups[case]()
        refs = extension.fp32_reference(fn, xs)
        if bound is None:  # within 1.5x bf16 PyTorch's own distance to fp32, at least BOUND
            eager = extension.as_list(fn(*xs))
            bound = max(anchors.BOUND, 1.5 * max(extension.rel_err(o, r)
                                                 for o, r in zip(eager, refs)))
            del eager
        calls = {}
        for v in group:
            if modules[v["name"]] is None:
                continue
            call, err = extension.checked_call(modules[v["name"]], xs, refs)
            if err > bound:
                print(f"{v['name']}: {json.dumps(v['config'])} wrong (rel err {err:.1e} > "
                      f"{bound:.1e}), left out", flush=True)
                continue
            calls[v["name"]] = call
        del refs
        if not calls:
            print(f"{case:18s} {key}: no variant built and passed, nothing recorded", flush=True)
            continue
        # cuBLAS's products alone, interleaved with the variants, as the yardstick.
        calls["cublas_gemm"] = products
        if args.sustained:
            times = sustained.time_back_to_back(calls, args.seconds, 2, sampler)
            lines, config, entry = summarize(case, group, {n: r["ms"] for n, r in times.items()},
                                             mhz={n: r["sm_mhz"] for n, r in times.items()})
        else:
            lines, config, entry = summarize(case, group, anchors.time_interleaved(calls, args.reps))
        print("\n".join(lines), flush=True)
        db["kernels"][key], db["measured"][key] = config, entry
        with open(db_path, "w") as f:  # after every kernel: a run cut short keeps what it measured
            json.dump(db, f, indent=2)
        print(f"wrote {db_path}", flush=True)
