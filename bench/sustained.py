#!/usr/bin/env python3
"""coda and cuBLAS under sustained load: the SM clock and power each runs at.

bench/anchors.py times single calls interleaved with the other contenders, so the GPU rests
between calls; a training or serving step runs its GEMMs back to back, where an H200 sits at its
power cap and lowers its clock to stay there. Here, for each anchor case, coda (its weights
prepared once) and the case's GEMM alone through cuBLAS (torch.matmul) each run back to back
for --seconds, alternated A B A B (--rounds), the clocks left alone, while nvidia-smi reports
every 50 ms the SM clock, the power and the reasons the clock is held down. Per phase, after
0.4 s of settling: ms per call (CUDA events over the phase), mean SM MHz and W, and the cycles
per call (ms × MHz), which tell a kernel that needs more cycles from one that runs at a lower
clock. coda's result is checked against the PyTorch function first (as anchors.py does).

Usage: bench/sustained.py [--emitted DIR] [--builds DIR] [--tuning-db FILE] [--only CASE]
                          [--seconds S] [--rounds R] [--results DIR]
Writes DIR/sustained-h200.json (default bench/results; on another GPU sustained-<gpu>.json,
python/coda/gpus.py): medians over the rounds.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

import torch

from coda import extension, gpus, paths
from coda.bench import anchors, programs, sustained


def sustained_case(case, module, args, sampler):
    xs = anchors.random_inputs(case)
    fn = programs.CASES[case]
    call, err = extension.checked_call(module, xs, extension.fp32_reference(fn, xs))
    a, b = xs[anchors.GEMM[case][0]], xs[anchors.GEMM[case][1]]
    fns = {"coda": call, "cublas_gemm": lambda: torch.matmul(a, b.t())}
    result = {"max_rel_err": err, "passed": err <= anchors.BOUND}
    for name, r in sustained.time_back_to_back(fns, args.seconds, args.rounds, sampler).items():
        result.update({f"{name}_{key}": value for key, value in r.items()})
    result["ratio_vs_gemm"] = result["coda_ms"] / result["cublas_gemm_ms"]
    result["cycles_vs_gemm"] = result["coda_mcycles"] / result["cublas_gemm_mcycles"]
    result["clock_vs_gemm"] = result["coda_sm_mhz"] / result["cublas_gemm_sm_mhz"]
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=paths.build_dir())
    parser.add_argument("--emitted", dest="out", default=None)
    parser.add_argument("--builds", default=None)
    anchors.add_tuning_db_argument(parser)
    parser.add_argument("--only", default=None, choices=list(programs.CASES))
    parser.add_argument("--seconds", type=float, default=2.0, help="each phase (default: 2)")
    parser.add_argument("--rounds", type=int, default=2, help="A B alternations (default: 2)")
    parser.add_argument("--results", default=os.path.join(paths.BENCH, "results"))
    args = parser.parse_args()
    if args.seconds <= sustained.SETTLE_S or args.rounds < 1:
        parser.error(f"--seconds must exceed the {sustained.SETTLE_S} s of settling and --rounds be >= 1")
    args.from_tuning = None
    anchors.resolve_tuning_db(args)
    args.out = args.out or os.path.join(args.build, "anchors")
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.results, exist_ok=True)
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0a")
    cases = [args.only] if args.only else list(programs.CASES)
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(cases)) as pool:  # nvcc in parallel
        modules = dict(zip(cases, (m for m, _ in pool.map(lambda c: anchors.build_case(c, args), cases))))
    limit = subprocess.run(["nvidia-smi", "--query-gpu=power.limit", "--format=csv,noheader,nounits"],
                           capture_output=True, text=True).stdout.strip()
    results = {"device": torch.cuda.get_device_name(), "power_limit_w": limit,
               "seconds": args.seconds, "rounds": args.rounds, "cases": {}}
    json_path = gpus.results_path(args.results, "sustained", results["device"], "json")
    if args.only and os.path.exists(json_path):  # one case at a time adds to the file
        with open(json_path) as f:
            results["cases"] = json.load(f).get("cases", {})
    sampler = sustained.Sampler()
    for case in cases:
        r = results["cases"][case] = sustained_case(case, modules[case], args, sampler)
        print(f"{case:18s} coda {r['coda_ms']:.3f} ms {r['coda_sm_mhz']:.0f} MHz {r['coda_w']:.0f} W"
              f" | cuBLAS {r['cublas_gemm_ms']:.3f} ms {r['cublas_gemm_sm_mhz']:.0f} MHz"
              f" {r['cublas_gemm_w']:.0f} W | time {r['ratio_vs_gemm']:.3f}x, clock"
              f" {r['clock_vs_gemm']:.3f}x, cycles {r['cycles_vs_gemm']:.3f}x"
              f" | rel err {r['max_rel_err']:.1e}" + ("" if r["passed"] else "  FAIL"), flush=True)
        torch.cuda.empty_cache()
        with open(json_path, "w") as f:  # after every case: a run cut short keeps its cases
            json.dump(results, f, indent=2)
    return 0 if all(r["passed"] for r in results["cases"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
