#!/usr/bin/env python3
"""The anchor benchmark: coda against cuBLAS GEMM alone, PyTorch eager and torch.compile.

For each anchor case (python/coda/bench/programs.py: bf16, M = 8192, Llama-3-8B sizes)
coda's code comes from the linalg program torch-mlir wrote (bench/programs/anchor/<case>.mlir)
through `coda-opt --coda-fuse` and `coda-translate --coda-to-cuda --emit-torch-binding` (run
where LLVM is, or beforehand into --emitted DIR). On the GPU each case

  1. checks coda's result against the PyTorch function computed in fp32 from the same bf16
     inputs (max|out - ref| / max|ref|, bound 2e-2);
  2. times, interleaved A B C D E A B C D E ..., with CUDA events around single calls and the
     GPU's clocks left alone, each call from an idle GPU and again queued behind a GPU sleep
     (host work hidden: the GPU's time alone): coda (weights prepared once when the function has a weight
     preparation), the case's GEMM alone through cuBLAS (torch.matmul, the limit), the PyTorch
     function eagerly, torch.compile (default) and torch.compile
     (mode="max-autotune-no-cudagraphs"); medians over --reps alternations (at least 20);
     with --bf16-epilogues also coda fused with --coda-fuse=fp32-epilogues=false (a bf16
     rounding after every epilogue op, as the program is written), with --cuda-without=PATH
     coda emitted with coda-translate --cuda-without=PATH (one contender per path), each
     checked the same way and timed in the same alternations;
  3. lists the kernels coda's call runs with their times (torch.profiler), and for coda and
     cuBLAS the host time of a call and the GPU time of the call replayed from a CUDA graph
     (what the events count besides the kernels);
  4. writes bench/results/anchors-h200.json, a bar chart of the ratios to cuBLAS
     (anchors-h200.png, if matplotlib is there) and a Markdown table (docs/performance.md);
     on another GPU the files are named after it (python/coda/gpus.py: anchors-<gpu>.json,
     anchors-<gpu>.png, docs/performance-<gpu>.md), never the H200's.

Usage: bench/anchors.py [--emitted DIR | --from-tuning DIR] [--builds DIR] [--tuning-db FILE]
                        [--only CASE] [--reps N]
                        [--no-compile] [--bf16-epilogues] [--cuda-without PATH[,PATH...]]
"""
import argparse
import concurrent.futures
import json
import os
import sys
import time

import torch

from coda import gpus, paths
from coda.bench import anchors, programs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=paths.build_dir())
    parser.add_argument("--emitted", dest="out", default=None)
    parser.add_argument("--builds", default=None)
    parser.add_argument("--from-tuning", default=None, metavar="DIR",
                        help="take each case's variant from bench/tune.py's DIR: the one "
                             "whose configuration --tuning-db holds (what tune.py measure "
                             "chose), else its baseline")
    anchors.add_tuning_db_argument(parser)
    parser.add_argument("--only", default=None, metavar="CASE[,CASE...]",
                        help="these cases only, added to the JSON's other cases")
    parser.add_argument("--reps", type=int, default=25)
    parser.add_argument("--no-compile", action="store_true", help="skip the torch.compile contenders")
    parser.add_argument("--bf16-epilogues", action="store_true",
                        help="also time coda fused with --coda-fuse=fp32-epilogues=false (a bf16 "
                             "rounding after every epilogue op) as another contender")
    parser.add_argument("--cuda-without", action="append", metavar="PATH[,PATH...]",
                        help="also time coda emitted with coda-translate --cuda-without=PATH, one "
                             "contender per path (" + ", ".join(anchors.WITHOUT_PATHS) + ")")
    parser.add_argument("--results", default=os.path.join(paths.BENCH, "results"))
    args = parser.parse_args()
    try:
        asked = anchors.variants_asked(args.bf16_epilogues, args.cuda_without)
    except ValueError as e:
        parser.error(str(e))
    anchors.resolve_tuning_db(args)
    args.out = args.out or os.path.join(args.build, "anchors")
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.results, exist_ok=True)
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0a")
    cases = args.only.split(",") if args.only else list(programs.CASES)
    unknown = [c for c in cases if c not in programs.CASES]
    if unknown:
        parser.error(f"no case {', '.join(unknown)} (cases: {', '.join(programs.CASES)})")
    device = torch.cuda.get_device_name()
    json_path = gpus.results_path(args.results, "anchors", device, "json")
    results = {"device": device, "torch": torch.__version__,
               "reps": args.reps, "cases": {}}
    if args.only and os.path.exists(json_path):  # some cases at a time add to the file
        with open(json_path) as f:
            results["cases"] = json.load(f).get("cases", {})
    contenders = {"coda": anchors.DEFAULT}
    contenders.update((name, anchors.VARIANTS[name]) for name in asked)
    jobs = [(case, name) for case in cases for name in contenders]
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(jobs)) as pool:  # nvcc in parallel
        modules = dict(zip(jobs, pool.map(lambda j: anchors.build_case(j[0], args, contenders[j[1]]),
                                          jobs)))
    for case in cases:
        built = {name: modules[(case, name)] for name in contenders}
        results["cases"][case] = anchors.bench_case(case, built, args)
        # --only runs add to older rows: the table says when each was measured.
        results["cases"][case]["measured"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        results["cases"][case]["device"] = results["device"]
        if args.from_tuning:
            results["cases"][case]["config"] = anchors.tuned_variant(case, args.from_tuning,
                                                                     args.tuning_db)["config"]
        torch.cuda.empty_cache()
        # After every case, so that a run cut short keeps what it measured.
        anchors.write_reports(results, json_path,
                              gpus.results_path(args.results, "anchors", device, "png"),
                              gpus.performance_md(os.path.join(paths.ROOT, "docs"), device))
    return 0 if all(r["passed"] for r in results["cases"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
